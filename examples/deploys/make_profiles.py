#!/usr/bin/env python3
"""Writes the profiles of examples/deploys/: collapsed stacks of a toy JSON
API, two hosts after each of two deploys.

    python3 examples/deploys/make_profiles.py [DIR]

The profiles are not sampled from a running program but computed, so that
every number they lead to can be checked by hand: a profile's weight for a
stack is the stack's cost per 100 requests (in samples of 10 ms) times the
requests the host served, over 100.  api-1 serves 1000 requests in its
profile's window, api-2 600.

Commit 4f1c2e0 costs 100 samples per 100 requests.  Commit 9b7d3a1 makes
parse_json slower: its decode_string now calls validate_utf8 (30 samples
more per 100 requests), and the extra garbage doubles the collector's time
(5 more): 135 samples per 100 requests.
"""
import os
import sys

BASE = {
    "main;serve;handle_request;parse_json;decode_string": 20,
    "main;serve;handle_request;parse_json;decode_number": 10,
    "main;serve;handle_request;parse_json": 5,
    "main;serve;handle_request;query_db;pg_exec": 30,
    "main;serve;handle_request;render;escape_html": 15,
    "main;serve;handle_request;render": 5,
    "main;serve;handle_request;write_response": 10,
    "main;gc": 5,
}
SLOWER = dict(BASE)
SLOWER["main;serve;handle_request;parse_json;decode_string;validate_utf8"] = 30
SLOWER["main;gc"] = 10

# (file, cost table, requests served)
PROFILES = [
    ("api-1.4f1c2e0.collapsed", BASE, 1000),
    ("api-2.4f1c2e0.collapsed", BASE, 600),
    ("api-1.9b7d3a1.collapsed", SLOWER, 1000),
    ("api-2.9b7d3a1.collapsed", SLOWER, 600),
]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, costs, requests in PROFILES:
        with open(os.path.join(out, name), "w") as f:
            for stack, cost in costs.items():
                f.write(f"{stack} {cost * requests // 100}\n")


if __name__ == "__main__":
    main()
