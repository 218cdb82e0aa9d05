#!/usr/bin/env python3
"""Inputs that are small but would expand a lot, for test/t_memory_bounds.sh.

    memory_bombs.py CASE SIZE OUT

writes the input of one case, of a scale SIZE, to the file OUT:

    deep_collapsed  one collapsed line of SIZE new funcs
    deep_pprof      a gzipped pprof profile with one sample of SIZE copies
                    of one location
    stream_batches  collapsed stacks in batches of 10,000 samples of one
                    stack, each batch followed by a new stack 1,000 deep;
                    SIZE batches
    cpuprofile      a V8 .cpuprofile whose samples and timeDeltas hold SIZE
                    elements each
    speedscope      a sampled speedscope profile of SIZE samples
    firefox         a Firefox Profiler (Gecko) profile of SIZE samples
    firefox_string_threads
                    an old Gecko profile of SIZE threads, each a JSON string
                    of 8,000 samples (each read on its own within the limit)
    trace_events    trace events: SIZE complete events
    gzip_collapsed  SIZE MB of collapsed stacks (one stack, lines of 1 kB),
                    gzipped

Standard library only.
"""
import gzip
import json
import sys


def varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number, payload):
    """A length-delimited protobuf field"""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


def uint_field(number, value):
    return varint(number << 3) + varint(value)


def deep_pprof(depth):
    strings = [b"", b"samples", b"count", b"f"]
    value_type = field(1, uint_field(1, 1) + uint_field(2, 2))
    locations = field(1, varint(1) * depth)  # packed location_id
    sample = field(2, locations + field(2, varint(1)))
    location = field(4, uint_field(1, 1) + field(4, uint_field(1, 1)))
    function = field(5, uint_field(1, 1) + uint_field(2, 3))
    table = b"".join(field(6, s) for s in strings)
    return gzip.compress(value_type + sample + location + function + table)


def stream_batches(batches):
    lines = []
    for b in range(batches):
        lines.extend(["main;work;leaf 1"] * 10000)
        lines.append(";".join(f"b{b}_f{i}" for i in range(1000)) + " 1")
    return ("\n".join(lines) + "\n").encode()


def cpuprofile(n):
    node = {"id": 1, "callFrame": {"functionName": "f", "scriptId": "0", "url": "",
                                   "lineNumber": 0, "columnNumber": 0},
            "hitCount": n, "children": []}
    return ('{"nodes":[%s],"startTime":0,"endTime":%d,"samples":[%s],"timeDeltas":[%s]}'
            % (json.dumps(node), n, ",".join(["1"] * n), ",".join(["1"] * n))).encode()


def speedscope(n):
    head = ('{"$schema":"https://www.speedscope.app/file-format-schema.json",'
            '"shared":{"frames":[{"name":"f"}]},"profiles":[{"type":"sampled",'
            '"name":"p","unit":"none","startValue":0,"endValue":%d,' % n)
    return (head + '"samples":[%s],"weights":[%s]}]}'
            % (",".join(["[0]"] * n), ",".join(["1"] * n))).encode()


def firefox(n):
    thread = {
        "name": "main", "processType": "default", "pid": 1, "tid": 1,
        "stringTable": ["f"],
        "funcTable": {"length": 1, "name": [0], "resource": [-1], "fileName": [None],
                      "lineNumber": [None], "columnNumber": [None],
                      "isJS": [False], "relevantForJS": [False]},
        "frameTable": {"length": 1, "func": [0], "address": [-1], "line": [None],
                       "column": [None], "category": [None], "subcategory": [None],
                       "innerWindowID": [None], "nativeSymbol": [None],
                       "inlineDepth": [0]},
        "stackTable": {"length": 1, "frame": [0], "prefix": [None],
                       "category": [0], "subcategory": [0]},
        "samples": {"length": n, "stack": "STACKS", "time": "TIMES", "weightType": "samples"},
        "markers": {"length": 0, "data": [], "name": [], "startTime": [], "endTime": [],
                    "phase": [], "category": []},
        "resourceTable": {"length": 0, "lib": [], "name": [], "host": [], "type": []},
        "nativeSymbols": {"length": 0, "libIndex": [], "address": [], "name": [],
                          "functionSize": []},
    }
    profile = {"meta": {"version": 24, "preprocessedProfileVersion": 44, "interval": 1,
                        "startTime": 0, "processType": 0, "product": "test",
                        "categories": [{"name": "Other", "color": "grey",
                                        "subcategories": ["Other"]}]},
               "libs": [], "threads": [thread]}
    text = json.dumps(profile)
    text = text.replace('"STACKS"', "[" + ",".join(["0"] * n) + "]")
    return text.replace('"TIMES"', "[" + ",".join(["1"] * n) + "]").encode()


def firefox_string_threads(n):
    thread = json.dumps({
        "name": "main", "stringTable": ["(root)", "f"],
        "frameTable": {"schema": {"location": 0}, "data": [[0], [1]]},
        "stackTable": {"schema": {"prefix": 0, "frame": 1}, "data": [[None, 0], [0, 1]]},
        "samples": {"schema": {"stack": 0, "time": 1}, "data": [[1, i] for i in range(8000)]}})
    return json.dumps({"meta": {"version": 3, "startTime": 0}, "threads": [thread] * n}).encode()


def trace_events(n):
    event = '{"ph":"X","name":"f","pid":1,"tid":1,"ts":1,"dur":1}'
    return ('{"traceEvents":[%s]}' % ",".join([event] * n)).encode()


def gzip_collapsed(megabytes):
    line = ("x" * 500 + ";" + "y" * 500 + " 1\n").encode()
    text = line * (megabytes * 1024 * 1024 // len(line))
    return gzip.compress(text, compresslevel=9)


CASES = {
    "deep_collapsed": lambda n: (";".join(f"d{i}" for i in range(n)) + " 1\n").encode(),
    "deep_pprof": deep_pprof,
    "stream_batches": stream_batches,
    "cpuprofile": cpuprofile,
    "speedscope": speedscope,
    "firefox": firefox,
    "firefox_string_threads": firefox_string_threads,
    "trace_events": trace_events,
    "gzip_collapsed": gzip_collapsed,
}

if __name__ == "__main__":
    case, size, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(out, "wb") as f:
        f.write(CASES[case](size))
