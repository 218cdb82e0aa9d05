#!/usr/bin/env python3
"""Writes a Go heap profile (gzipped profile.proto) that mixes two builds.

Two mappings of the same binary with different build ids, and a shared
libc, hold the same function names: what a fleet running two builds gives
when its profiles are merged (go tool pprof -proto a.pb.gz b.pb.gz).  One
function moved to another file between the builds, and the stacks have
recursion and an inlined frame.  calltree keys a func by name, file and
resource (the mapping with its build id), so each function of the binary
is two funcs; go tool pprof -top groups by name.

    python3 test/mixed_builds_pprof.py OUT.pb.gz
"""
import gzip
import sys

from protobuf_write import field_bytes, field_varint, varint


def packed(number, values):
    return field_bytes(number, b''.join(varint(v) for v in values))


class Profile:
    def __init__(self):
        self.strings = ['']
        self.body = bytearray()
        self.functions = {}     # (name, file) -> id
        self.locations = {}     # (mapping, frames) -> id

    def string(self, s):
        if s not in self.strings:
            self.strings.append(s)
        return self.strings.index(s)

    def value_type(self, field, type_, unit):
        self.body += field_bytes(field, field_varint(1, self.string(type_)) + field_varint(2, self.string(unit)))

    def mapping(self, id_, start, limit, filename, build_id):
        self.body += field_bytes(3, field_varint(1, id_) + field_varint(2, start) + field_varint(3, limit)
                                 + field_varint(5, self.string(filename)) + field_varint(6, self.string(build_id))
                                 + field_varint(7, 1))

    def function(self, name, filename):
        key = (name, filename)
        if key not in self.functions:
            id_ = len(self.functions) + 1
            self.functions[key] = id_
            self.body += field_bytes(5, field_varint(1, id_) + field_varint(2, self.string(name))
                                     + field_varint(3, self.string(name)) + field_varint(4, self.string(filename)))
        return self.functions[key]

    def location(self, mapping, base, frames):
        """frames: [(name, file, line)], the inlined callee first, as in profile.proto."""
        key = (mapping, tuple(frames))
        if key not in self.locations:
            id_ = len(self.locations) + 1
            self.locations[key] = id_
            lines = b''.join(field_bytes(4, field_varint(1, self.function(n, f)) + field_varint(2, l))
                             for n, f, l in frames)
            self.body += field_bytes(4, field_varint(1, id_) + field_varint(2, mapping)
                                     + field_varint(3, base + 0x10 * id_) + lines)
        return self.locations[key]

    def sample(self, location_ids, values):
        self.body += field_bytes(2, packed(1, location_ids) + packed(2, values))

    def bytes(self):
        out = bytearray(self.body)
        for s in self.strings:
            out += field_bytes(6, s.encode())
        return bytes(out)


def main():
    p = Profile()
    for t, u in [('alloc_objects', 'count'), ('alloc_space', 'bytes'),
                 ('inuse_objects', 'count'), ('inuse_space', 'bytes')]:
        p.value_type(1, t, u)
    builds = {1: (0x400000, '/usr/local/bin/shop', '1111aaaa'),
              2: (0x1400000, '/usr/local/bin/shop', '2222bbbb')}
    for m, (start, name, build_id) in builds.items():
        p.mapping(m, start, start + 0x400000, name, build_id)
    p.mapping(3, 0x7f0000000000, 0x7f0000100000, '/lib/x86_64-linux-gnu/libc.so.6', 'cccc3333')

    # main.handle moved from handler.go (build 1) to server.go (build 2)
    handle_file = {1: 'shop/handler.go', 2: 'shop/server.go'}

    def frame(build, name, line=1):
        files = {'main.handle': handle_file[build]}
        return (name, files.get(name, name.split('.')[0].replace('(*', '') + '.go'), line)

    # stacks root first; an entry is a name, or a list of names for one
    # location with inlined frames (the caller last), or ('libc', name)
    stacks = [
        (['main.main', 'main.serve', 'main.handle', 'encoding/json.Unmarshal', 'runtime.mallocgc'], (3, 3072)),
        (['main.main', 'main.serve', 'main.rank', 'sort.quickSort', 'sort.partition', 'sort.partition',
          'runtime.mallocgc'], (2, 8192)),
        (['main.main', 'main.serve', 'main.handle', ['bytes.(*Buffer).grow', 'bytes.(*Buffer).Write'],
          'runtime.growslice'], (5, 40960)),
        (['main.main', 'main.serve', 'runtime.cgocall', ('libc', 'malloc')], (1, 512)),
        (['main.main', 'main.handle', 'main.handle', 'encoding/json.Unmarshal', 'runtime.mallocgc'], (4, 1024)),
    ]
    scale = {1: 1, 2: 7}
    for build in (1, 2):
        base = builds[build][0]
        for names, (objects, space) in stacks:
            locs = []
            for i, entry in enumerate(names):
                if isinstance(entry, tuple):
                    locs.append(p.location(3, 0x7f0000000000, [(entry[1], 'libc.c', 0)]))
                elif isinstance(entry, list):
                    # inlined callee first, as profile.proto lists a location's lines
                    locs.append(p.location(build, base, [frame(build, n, 10 + i) for n in reversed(entry)]))
                else:
                    locs.append(p.location(build, base, [frame(build, entry, 10 + i)]))
            k = scale[build]
            p.sample(list(reversed(locs)), [objects * k, space * k, objects * k // 2, space * k // 2])
    # period: space, 512 KiB, as Go writes heap profiles
    p.value_type(11, 'space', 'bytes')
    p.body += field_varint(12, 524288)
    with open(sys.argv[1], 'wb') as f:
        f.write(gzip.compress(p.bytes(), mtime=0))


if __name__ == '__main__':
    main()
