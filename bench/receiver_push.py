"""Pushes one pprof file to calltree-receiver's POST /ingest from several
threads, each over one kept-alive connection, for a number of seconds;
prints the pushes answered 200 per second, how many, and the CPU seconds
this client took, and exits 1 on any other status.

Each push has a from and until of its own, as an agent's pushes do (the
receiver takes a push identical to an earlier one for its retry).

    receiver_push.py URL FILE CLIENTS SECONDS
"""

import resource
import socket
import sys
import threading
import time
import urllib.parse


class LeanClient:
    """HTTP/1.1 over one kept-alive socket, no more than the pushes need:
    http.client parses every reply's headers with the email package, which
    made this client cost more CPU per push than the receiver itself (the
    machine is shared, so the client's CPU is taken from the servers')."""

    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=60)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.host = f"{host}:{port}"
        self.buffer = b""

    def post(self, path, body):
        head = (f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\n"
                f"Content-Type: application/octet-stream\r\nContent-Length: {len(body)}\r\n\r\n")
        self.sock.sendall(head.encode() + body)
        while b"\r\n\r\n" not in self.buffer:
            self.receive()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(self.buffer) < length:
            self.receive()
        self.buffer = self.buffer[length:]
        return status

    def receive(self):
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("the receiver closed the connection")
        self.buffer += data


def pusher(url, body, deadline, counts, index, errors):
    parts = urllib.parse.urlsplit(url)
    conn = LeanClient(parts.hostname, parts.port)
    start = 1700000000 + index * 10**7
    while time.monotonic() < deadline:
        at = start + 10 * counts[index]
        path = f"/ingest?name=ingest&format=pprof&spyName=bench&from={at}&until={at + 10}"
        status = conn.post(path, body)
        if status != 200:
            errors.append(status)
            return
        counts[index] += 1


def main(url, path, clients, seconds):
    body = open(path, "rb").read()
    counts = [0] * clients
    errors = []
    start = time.monotonic()
    deadline = start + seconds
    threads = [threading.Thread(target=pusher, args=(url, body, deadline, counts, i, errors))
               for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - start
    if errors:
        sys.exit(f"receiver_push.py: statuses {sorted(set(errors))}")
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(f"{sum(counts) / elapsed:.1f} {sum(counts)} {usage.ru_utime + usage.ru_stime:.2f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
