"""A proxy in front of PostgreSQL's Unix socket that loses the answer to
one COMMIT: while the file ARM exists, the first connection that the
server answers COMMIT (a CommandComplete message of tag "COMMIT") is
closed on both sides before that answer is passed on, and ARM is removed.
The transaction committed; the client saw its connection lost.

    pg_commit_cutter.py LISTEN_DIR SERVER_DIR PORT ARM

Clients connect with host=LISTEN_DIR port=PORT.  Over a Unix socket libpq
asks for neither SSL nor GSSAPI encryption, so every message of the
server is a typed one: a type byte and a 4-byte length.
"""

import os
import socket
import sys
import threading


def close(*sockets):
    """shutdown first: it wakes the other thread's recv on the socket"""
    for sock in sockets:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()


def pump_to_server(client, server):
    try:
        while data := client.recv(65536):
            server.sendall(data)
    except OSError:
        pass
    finally:
        close(server)


def is_commit_answer(message):
    return message[:1] == b"C" and message[5:12] == b"COMMIT\0"


def pump_to_client(server, client, arm):
    pending = b""
    try:
        while data := server.recv(65536):
            pending += data
            while len(pending) >= 5 and len(pending) >= 1 + int.from_bytes(pending[1:5], "big"):
                size = 1 + int.from_bytes(pending[1:5], "big")
                message, pending = pending[:size], pending[size:]
                if is_commit_answer(message) and os.path.exists(arm):
                    os.unlink(arm)
                    return
                client.sendall(message)
    except OSError:
        pass
    finally:
        close(client, server)


def main(listen_dir, server_dir, port, arm):
    path = os.path.join(listen_dir, f".s.PGSQL.{port}")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    while True:
        client, _ = listener.accept()
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.connect(os.path.join(server_dir, f".s.PGSQL.{port}"))
        threading.Thread(target=pump_to_server, args=(client, server), daemon=True).start()
        threading.Thread(target=pump_to_client, args=(server, client, arm), daemon=True).start()


if __name__ == "__main__":
    main(*sys.argv[1:])
