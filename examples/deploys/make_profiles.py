#!/usr/bin/env python3
"""Writes examples/deploys/profiles.tsv: collapsed stacks of a toy JSON API,
eight profiles after each of three deploys.

    python3 examples/deploys/make_profiles.py [DIR]

The profiles are not sampled from a running program but computed, so that
every number they lead to can be checked by hand.  After each deploy, four
hosts (api-1 to api-4) each take two profiles an hour apart, each over 200
requests.  A stack's weight in a profile is its cost per 100 requests (in
samples of 10 ms) times 2, plus a host's noise: the host's first profile
gets +d and its second -d, d drawn for each stack from -cost to cost.  So
the profiles differ from one another as real hosts' do, but the noise
cancels in each host's pair: a deploy's eight profiles merged weigh exactly
its cost table times 16 (1600 requests).

Commit 4f1c2e0 costs 100 samples per 100 requests.  Commit 9b7d3a1 makes
parse_json slower: its decode_string now calls validate_utf8 (30 samples
more per 100 requests), and the extra garbage doubles the collector's time
(5 more): 135 samples per 100 requests.  Commit c7e5d20 changes nothing the
profiles can see (its cost table is 9b7d3a1's); only the noise differs.

The noise comes from a linear congruential generator of its own, seeded
with a fixed number, so the file is the same byte for byte on every run
and every Python.  Each line of the file is a profile: host, start time
and the collapsed stacks, tab-separated, with the stacks' newlines written
\\n as COPY's text format reads them.
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

# (the day after the deploy, cost table); the deploys table is in load.sql
DEPLOYS = [("2031-05-05", BASE), ("2031-05-06", SLOWER), ("2031-05-07", SLOWER)]
HOSTS = ["api-1", "api-2", "api-3", "api-4"]
REQUESTS = 200
SEED = 20310505


class Noise:
    """A 64-bit linear congruential generator (Knuth's MMIX constants)."""

    def __init__(self, seed):
        self.state = seed

    def between(self, low, high):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % 2**64
        return low + (self.state >> 33) % (high - low + 1)


def profiles():
    """(host, started_at, collapsed stacks) of every profile, in order"""
    noise = Noise(SEED)
    for day, costs in DEPLOYS:
        for h, host in enumerate(HOSTS):
            deltas = {stack: noise.between(-cost, cost) for stack, cost in costs.items()}
            for hour, sign in ((14, 1), (15, -1)):
                stacks = "".join(f"{stack} {cost * REQUESTS // 100 + sign * deltas[stack]}\n"
                                 for stack, cost in costs.items())
                yield host, f"{day} {hour}:{5 * h:02d}+00", stacks


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(out, "profiles.tsv"), "w") as f:
        for host, started_at, stacks in profiles():
            f.write(f"{host}\t{started_at}\t{stacks.replace(chr(10), chr(92) + 'n')}\n")


if __name__ == "__main__":
    main()
