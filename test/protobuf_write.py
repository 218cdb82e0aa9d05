"""Protocol buffer encoding for the test generators that write pprof files
(concurrent_ingest.py, mixed_builds_pprof.py): varints and the two field
kinds a profile.proto needs, written independently of calltree's reader."""


def varint(n):
    """n as a base-128 varint; a negative n as its 64-bit two's complement."""
    out = bytearray()
    n &= (1 << 64) - 1
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field_varint(number, value):
    return varint(number << 3) + varint(value)


def field_bytes(number, data):
    return varint((number << 3) | 2) + varint(len(data)) + data
