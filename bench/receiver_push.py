"""Pushes one pprof file to calltree-receiver's POST /ingest from several
threads, each over one kept-alive connection, for a number of seconds;
prints the pushes answered 200 per second, how many, and the CPU seconds
this client took, and exits 1 on any other status.

Each push has a from and until of its own, as an agent's pushes do (the
receiver takes a push identical to an earlier one for its retry).

    receiver_push.py URL FILE CLIENTS SECONDS
"""

import http.client
import resource
import sys
import threading
import time
import urllib.parse


def pusher(url, body, deadline, counts, index, errors):
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    start = 1700000000 + index * 10**7
    while time.monotonic() < deadline:
        at = start + 10 * counts[index]
        path = f"/ingest?name=ingest&format=pprof&spyName=bench&from={at}&until={at + 10}"
        conn.request("POST", path, body, {"Content-Type": "application/octet-stream"})
        reply = conn.getresponse()
        reply.read()
        if reply.status != 200:
            errors.append(reply.status)
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
