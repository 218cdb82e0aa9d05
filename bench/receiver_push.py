"""Pushes one pprof file to calltree-receiver's POST /ingest from several
threads, each over one kept-alive connection, for a number of seconds;
prints the pushes answered 200 per second, and exits 1 on any other status.

    receiver_push.py URL FILE CLIENTS SECONDS
"""

import http.client
import sys
import threading
import time
import urllib.parse


def pusher(url, body, deadline, counts, index, errors):
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    path = "/ingest?name=ingest&format=pprof&spyName=bench"
    while time.monotonic() < deadline:
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
    print(f"{sum(counts) / elapsed:.1f} {sum(counts)}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
