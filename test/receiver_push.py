"""Writes a Pyroscope PushRequest (push/v1/push.proto) to stdout, encoded
independently of the receiver's reader.

    receiver_push.py [--series K=V,K=V ...] [--sample FILE[:ID] ...] ...

Each --series starts a RawProfileSeries with those labels; each --sample
adds a RawSample (the file's bytes, and its ID if given) to the last one.
--garbage-sample adds a RawSample whose profile is not a profile.
"""

import sys

from protobuf_write import field_bytes


def label(name, value):
    return field_bytes(1, name.encode()) + field_bytes(2, value.encode())


def main(argv):
    series = []  # [labels bytes, samples bytes]
    args = iter(argv)
    for arg in args:
        if arg == "--series":
            pairs = [p.split("=", 1) for p in next(args).split(",") if p]
            series.append([b"".join(field_bytes(1, label(k, v)) for k, v in pairs), b""])
        elif arg in ("--sample", "--garbage-sample"):
            spec = next(args)
            path, _, sample_id = spec.partition(":")
            raw = b"not a profile" if arg == "--garbage-sample" else open(path, "rb").read()
            sample = field_bytes(1, raw) + (field_bytes(2, sample_id.encode()) if sample_id else b"")
            series[-1][1] += field_bytes(2, sample)
        else:
            sys.exit(f"receiver_push.py: unknown argument {arg!r}")
    sys.stdout.buffer.write(b"".join(field_bytes(1, s[0] + s[1]) for s in series))


if __name__ == "__main__":
    main(sys.argv[1:])
