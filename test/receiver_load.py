"""Pushes PushRequests to calltree-receiver from many threads for a while,
each of one sample with an ID of its own, retrying a push that was refused
(429, 503) or whose connection failed until it is answered 200, as an agent
does.  Prints one line per ID answered 200; exits 1 on any other status.

    receiver_load.py URL PPROF_FILE CLIENTS SECONDS

The receiver may go away and come back on the same port meanwhile: a push
is retried for up to 60 s.
"""

import http.client
import sys
import threading
import time

from protobuf_write import field_bytes


def push_request(raw, sample_id):
    labels = field_bytes(1, field_bytes(1, b"service_name") + field_bytes(2, b"load"))
    sample = field_bytes(2, field_bytes(1, raw) + field_bytes(2, sample_id.encode()))
    return field_bytes(1, labels + sample)


class Client(threading.Thread):
    def __init__(self, host, port, raw, index, deadline, failures):
        super().__init__()
        self.host, self.port, self.raw, self.index = host, port, raw, index
        self.deadline, self.failures = deadline, failures
        self.acked = []
        self.conn = None

    def post(self, body):
        """The status of one attempt, None when the connection failed."""
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
            self.conn.request("POST", "/push.v1.PusherService/Push", body,
                              {"Content-Type": "application/proto"})
            reply = self.conn.getresponse()
            reply.read()
            if reply.getheader("Connection", "").lower() == "close":
                self.conn.close()
                self.conn = None
            return reply.status
        except (OSError, http.client.HTTPException):
            if self.conn is not None:
                self.conn.close()
            self.conn = None
            return None

    def run(self):
        seq = 0
        while time.monotonic() < self.deadline:
            sample_id = f"load-{self.index}-{seq}"
            body = push_request(self.raw, sample_id)
            give_up = time.monotonic() + 60
            while True:
                status = self.post(body)
                if status == 200:
                    self.acked.append(sample_id)
                    break
                if status not in (None, 429, 503) or time.monotonic() > give_up:
                    self.failures.append(f"{sample_id}: {status}")
                    return
                time.sleep(0.1)
            seq += 1


def main(url, path, clients, seconds):
    host, port = url.split("//")[1].split(":")
    raw = open(path, "rb").read()
    failures = []
    deadline = time.monotonic() + seconds
    threads = [Client(host, int(port), raw, i, deadline, failures) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for t in threads:
        for sample_id in t.acked:
            print(sample_id)
    if failures:
        sys.exit("receiver_load.py: " + ", ".join(failures[:5]))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
