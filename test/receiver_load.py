"""Pushes to calltree-receiver from many threads for a while, as agents do,
retrying a push that was refused (429, 503) or whose connection failed
until it is answered 200.  Exits 1 on any other status.

    receiver_load.py URL PPROF_FILE PUSH_CLIENTS INGEST_CLIENTS SECONDS

PUSH_CLIENTS send PushRequests of one sample with an ID of its own
(POST /push.v1.PusherService/Push): the receiver stores each ID once,
however often it is retried.  INGEST_CLIENTS send the file to POST /ingest
under a name of its own, with a time of its own (from, until, and the
pprof's time_nanos, as an agent's profiles differ): a push carries no ID
there, and the receiver knows a retry by its being the same push, so each
is stored once too, also when an attempt that failed after it reached the
database (its connection lost, a 503) had stored it.  Prints one line per
push answered 200:

    push ID
    ingest NAME ATTEMPTS-THAT-MAY-HAVE-STORED-IT

and, on standard error, how many answers of each status came.  The
receiver and the database may go away and come back meanwhile: a push is
retried for up to 60 s.
"""

import collections
import gzip
import http.client
import sys
import threading
import time

from protobuf_write import field_bytes, field_varint


def push_request(raw, sample_id):
    labels = field_bytes(1, field_bytes(1, b"service_name") + field_bytes(2, b"load"))
    sample = field_bytes(2, field_bytes(1, raw) + field_bytes(2, sample_id.encode()))
    return field_bytes(1, labels + sample)


class Client(threading.Thread):
    def __init__(self, kind, host, port, raw, index, deadline, failures, statuses):
        super().__init__()
        self.kind, self.host, self.port, self.raw, self.index = kind, host, port, raw, index
        self.deadline, self.failures, self.statuses = deadline, failures, statuses
        self.acked = []
        self.conn = None

    def post(self, path, body, content_type):
        """The status of one attempt, None when the connection failed."""
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
            self.conn.request("POST", path, body, {"Content-Type": content_type})
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

    def attempt(self, seq):
        """(what to print once answered 200, the request's path, body and type)"""
        if self.kind == "push":
            sample_id = f"load-{self.index}-{seq}"
            return (f"push {sample_id}", "/push.v1.PusherService/Push", push_request(self.raw, sample_id),
                    "application/proto")
        name = f"load-ingest-{self.index}-{seq}"
        start = 1700000000 + 1000 * self.index + 10 * seq
        # Profile.time_nanos (9) once more: the last one counts
        body = gzip.decompress(self.raw) + field_varint(9, start * 10**9)
        return (f"ingest {name}", f"/ingest?name={name}&format=pprof&spyName=load&from={start}&until={start + 10}",
                body, "application/octet-stream")

    def run(self):
        seq = 0
        while time.monotonic() < self.deadline:
            line, path, body, content_type = self.attempt(seq)
            give_up = time.monotonic() + 60
            may_have_stored = 0
            while True:
                status = self.post(path, body, content_type)
                self.statuses[status] += 1
                if status == 200:
                    self.acked.append(line if self.kind == "push" else f"{line} {may_have_stored}")
                    break
                if status not in (None, 429, 503) or time.monotonic() > give_up:
                    self.failures.append(f"{line}: {status}")
                    return
                may_have_stored += status != 429
                time.sleep(0.1)
            seq += 1


def main(url, path, push_clients, ingest_clients, seconds):
    host, port = url.split("//")[1].split(":")
    raw = open(path, "rb").read()
    failures = []
    statuses = collections.Counter()
    deadline = time.monotonic() + seconds
    kinds = ["push"] * push_clients + ["ingest"] * ingest_clients
    threads = [Client(kind, host, int(port), raw, i, deadline, failures, statuses)
               for i, kind in enumerate(kinds)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for t in threads:
        for line in t.acked:
            print(line)
    print("answers: " + ", ".join(f"{s or 'no answer'} {n}" for s, n in sorted(statuses.items(), key=str)),
          file=sys.stderr)
    if failures:
        sys.exit("receiver_load.py: " + ", ".join(failures[:5]))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
