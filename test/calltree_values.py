#!/usr/bin/env python3
"""Property test of the calltree type's input and output, driven by
test/t_values_dump.sh against a database with the extension.

    calltree_values.py DBNAME SEED COUNT

Generates COUNT random call trees (a list of nodes, each after its parent,
children after their parent in preorder) and writes each one both ways: in
the text form and in the binary form of calltree_recv.  For each it checks
that

  * text and binary input accept it or refuse it alike, and accept exactly
    when the model below says so (exact sums, call counts of zero or more,
    histograms in range);
  * an accepted tree has the model's canonical text form and the same
    binary form from either input;
  * text -> value -> text and value -> send -> recv -> value are fixed points.

Then it mutates the encodings (bytes of the binary form, characters of the
text form) and checks that whatever either input accepts reads back through
the other one, and that what it refuses is an ERROR of the data-exception
kind, never an internal error or a lost connection.

Every accepted value is stored in table calltree_values (id, v), for the
dump and restore of the script; it prints "accepted refused" counts.
The queries go through libpq with ctypes: binary parameters reach
calltree_recv directly, one value per query.
"""
import ctypes
import ctypes.util
import random
import struct
import sys

INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
BUCKET_MAX_COUNT = (1 << 48) - 1
LATENCY_MAX_INDEX = 2300

# ------------------------------------------------------------------ libpq

pq = ctypes.CDLL(ctypes.util.find_library("pq") or "libpq.so.5")
pq.PQconnectdb.restype = ctypes.c_void_p
pq.PQconnectdb.argtypes = [ctypes.c_char_p]
pq.PQstatus.argtypes = [ctypes.c_void_p]
pq.PQerrorMessage.restype = ctypes.c_char_p
pq.PQerrorMessage.argtypes = [ctypes.c_void_p]
pq.PQexecParams.restype = ctypes.c_void_p
pq.PQexecParams.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
                            ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_char_p),
                            ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int), ctypes.c_int]
pq.PQresultStatus.argtypes = [ctypes.c_void_p]
pq.PQresultErrorField.restype = ctypes.c_char_p
pq.PQresultErrorField.argtypes = [ctypes.c_void_p, ctypes.c_int]
pq.PQgetvalue.restype = ctypes.c_char_p
pq.PQgetvalue.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
pq.PQntuples.argtypes = [ctypes.c_void_p]
pq.PQnfields.argtypes = [ctypes.c_void_p]
pq.PQclear.argtypes = [ctypes.c_void_p]
pq.PQfinish.argtypes = [ctypes.c_void_p]

PGRES_COMMAND_OK, PGRES_TUPLES_OK = 1, 2
PG_DIAG_SQLSTATE, PG_DIAG_MESSAGE_PRIMARY = ord("C"), ord("M")


class Refused(Exception):
    def __init__(self, sqlstate, message):
        super().__init__(f"{sqlstate} {message}")
        self.sqlstate = sqlstate


class Connection:
    def __init__(self, dbname):
        self.conn = pq.PQconnectdb(f"dbname={dbname}".encode())
        if pq.PQstatus(self.conn) != 0:
            sys.exit("calltree_values: cannot connect: " + pq.PQerrorMessage(self.conn).decode())

    def query(self, sql, params=(), binary=()):
        """Rows of text values; params are str or, at positions in binary, bytes."""
        n = len(params)
        types = (ctypes.c_uint * max(n, 1))(*[self.calltree_oid if i in binary else 0 for i in range(n)])
        raw = [p if isinstance(p, bytes) else p.encode() for p in params]
        values = (ctypes.c_char_p * max(n, 1))(*raw)
        lengths = (ctypes.c_int * max(n, 1))(*[len(p) for p in raw])
        formats = (ctypes.c_int * max(n, 1))(*[1 if i in binary else 0 for i in range(n)])
        res = pq.PQexecParams(self.conn, sql.encode(), n, types if binary else None,
                              values, lengths, formats, 0)
        try:
            status = pq.PQresultStatus(res)
            if status not in (PGRES_COMMAND_OK, PGRES_TUPLES_OK):
                if pq.PQstatus(self.conn) != 0:
                    sys.exit("calltree_values: connection lost: " + pq.PQerrorMessage(self.conn).decode())
                state = pq.PQresultErrorField(res, PG_DIAG_SQLSTATE)
                message = pq.PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY)
                raise Refused(state.decode() if state else "?", message.decode() if message else "?")
            return [[pq.PQgetvalue(res, r, c).decode() for c in range(pq.PQnfields(res))]
                    for r in range(pq.PQntuples(res))]
        finally:
            pq.PQclear(res)


# ------------------------------------------------------------------ model

class Node:
    """One node as written: func, parent (index, -1 for a root), self,
    calls (None without), latency (None, or (min, max, [(index, count)]))."""

    def __init__(self, func, parent, self_weight, calls=None, latency=None):
        self.func, self.parent, self.self = func, parent, self_weight
        self.calls, self.latency = calls, latency


class Rejected(Exception):
    pass


def model(nodes):
    """The canonical text form of what calltree_in/recv build, or Rejected.

    Follows the builder: siblings with the same func merge in input order,
    each sum checked as it is made; running weights and the total are exact
    and must end in range."""
    merged = {}                    # (merged parent, func) -> merged node id
    m_self, m_calls, m_lat, m_parent, m_func = [], [], [], [], []
    mapped = []
    has_calls = any(n.calls is not None for n in nodes)
    for n in nodes:
        p = -1 if n.parent < 0 else mapped[n.parent]
        key = (p, n.func)
        if key not in merged:
            merged[key] = len(m_self)
            m_self.append(0), m_calls.append(0), m_lat.append(None)
            m_parent.append(p), m_func.append(n.func)
        m = merged[key]
        mapped.append(m)
        m_self[m] += n.self
        if not INT64_MIN <= m_self[m] <= INT64_MAX:
            raise Rejected("self sum")
        if n.calls is not None:
            if n.calls < 0:
                raise Rejected("negative calls")
            m_calls[m] += n.calls
            if m_calls[m] > INT64_MAX:
                raise Rejected("calls sum")
        if n.latency is not None:
            lo, hi, buckets = n.latency
            if lo > hi:
                raise Rejected("min > max")
            for index, count in buckets:
                if not (0 <= index <= LATENCY_MAX_INDEX and 1 <= count <= BUCKET_MAX_COUNT):
                    raise Rejected("bucket")
                lat = m_lat[m]
                if lat is None:
                    lat = m_lat[m] = [lo, hi, {}]
                else:
                    lat[0], lat[1] = min(lat[0], lo), max(lat[1], hi)
                lat[2][index] = lat[2].get(index, 0) + count
                if lat[2][index] > BUCKET_MAX_COUNT:
                    raise Rejected("bucket sum")
    count = len(m_self)
    running = list(m_self)
    for i in range(count - 1, -1, -1):
        if m_parent[i] >= 0:
            running[m_parent[i]] += running[i]
    if any(not INT64_MIN <= r <= INT64_MAX for r in running) or \
            not INT64_MIN <= sum(m_self) <= INT64_MAX:
        raise Rejected("running")
    children = {i: [] for i in range(-1, count)}
    for i in range(count):
        children[m_parent[i]].append(i)

    def render(i):
        s = f"{m_func[i]}:{running[i]}/{m_self[i]}"
        if has_calls:
            s += f"#{m_calls[i]}"
            if m_lat[i] is not None:
                lo, hi, b = m_lat[i]
                s += f"@{lo}..{hi}[" + ",".join(f"{k}:{b[k]}" for k in sorted(b)) + "]"
        if children[i]:
            s += " {" + render_list(children[i]) + "}"
        return s

    def render_list(ids):
        ids = sorted(ids, key=lambda i: (-running[i], m_func[i]))
        return ", ".join(render(i) for i in ids)

    return "{" + render_list(children[-1]) + "}"


# ------------------------------------------------------------------ encodings

def subtree_running(nodes):
    running = [n.self for n in nodes]
    for i in range(len(nodes) - 1, -1, -1):
        if nodes[i].parent >= 0:
            running[nodes[i].parent] += running[i]
    return running


def to_text(nodes):
    """The text form, or None when a written running weight does not fit."""
    running = subtree_running(nodes)
    if any(not INT64_MIN <= r <= INT64_MAX for r in running):
        return None
    kids = {i: [] for i in range(-1, len(nodes))}
    for i, n in enumerate(nodes):
        kids[n.parent].append(i)

    def render(i):
        n = nodes[i]
        s = f"{n.func}:{running[i]}/{n.self}"
        if n.calls is not None:
            s += f"#{n.calls}"
            if n.latency is not None:
                lo, hi, b = n.latency
                s += f"@{lo}..{hi}[" + ",".join(f"{k}:{c}" for k, c in b) + "]"
        if kids[i]:
            s += " {" + ", ".join(render(c) for c in kids[i]) + "}"
        return s

    return "{" + ", ".join(render(i) for i in kids[-1]) + "}"


def to_binary(nodes):
    """The binary form of calltree_recv (a histogram needs call counts)."""
    flags = 0
    if nodes and nodes[0].calls is not None:
        flags |= 1
        if nodes[0].latency is not None:
            flags |= 2
    out = [struct.pack(">BBi", 1, flags, len(nodes))]
    for n in nodes:
        out.append(struct.pack(">iiq", n.func, n.parent, n.self))
        if flags & 1:
            out.append(struct.pack(">q", n.calls))
        if flags & 2:
            lo, hi, b = n.latency
            out.append(struct.pack(">qqi", lo, hi, len(b)))
            for index, count in b:
                out.append(struct.pack(">iq", index, count))
    return b"".join(out)


# ------------------------------------------------------------------ generation

EDGES = [0, 1, -1, 2, INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1,
         1 << 62, -(1 << 62), (1 << 62) + 1, 1 << 32]


def weight(rng, big):
    if big and rng.random() < 0.5:
        return rng.choice(EDGES)
    return rng.choice([rng.randint(0, 100), rng.randint(-100, 100), rng.randint(0, 10 ** 6)])


def gen_tree(rng):
    """Nodes in preorder; sometimes huge or negative weights, repeated funcs,
    bad call counts or histograms."""
    size = rng.choice([0, 1, 2, 3, 5, 8, 20, 60])
    big = rng.random() < 0.4
    calls = rng.random() < 0.4
    latency = calls and rng.random() < 0.5
    funcs = rng.choice([3, 10, 1000, INT32_MAX])
    nodes = []
    path = []                      # open nodes, root first
    for _ in range(size):
        depth = rng.randint(0, len(path))
        del path[depth:]
        parent = path[-1] if path else -1
        func = rng.choice([rng.randint(1, funcs), rng.randint(INT32_MIN, INT32_MAX)]) \
            if rng.random() < 0.1 else rng.randint(1, funcs)
        n = Node(func, parent, weight(rng, big))
        if calls:
            n.calls = rng.choice([rng.randint(0, 50), 0, INT64_MAX, -1]) \
                if rng.random() < 0.1 else rng.randint(0, 50)
        if latency:
            lo = rng.randint(0, 1000)
            hi = lo + rng.randint(0, 1000)
            if rng.random() < 0.05:
                lo, hi = hi + 1, lo
            k = rng.choice([0, 1, 3])
            idx = sorted(rng.sample(range(0, 700), k))
            b = [(i, rng.randint(1, 20)) for i in idx]
            if rng.random() < 0.05:
                b.append(rng.choice([(LATENCY_MAX_INDEX + 1, 1), (5, 0), (-1, 1), (6, BUCKET_MAX_COUNT)]))
            n.latency = (lo, hi, b)
        nodes.append(n)
        path.append(len(nodes) - 1)
    return nodes


def mutate_bytes(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        what = rng.random()
        if what < 0.5 and data:
            data[rng.randrange(len(data))] = rng.choice([0, 0xff, 0x80, 0x7f, rng.randrange(256)])
        elif what < 0.7 and data:
            del data[rng.randrange(len(data)):]
        elif what < 0.85 and data:
            i = rng.randrange(len(data))
            data[i:i] = data[i:i + rng.randint(1, 24)]
        else:
            data[rng.randrange(len(data) + 1):0] = bytes([rng.randrange(256)])
    return bytes(data)


def mutate_text(rng, text):
    text = list(text)
    for _ in range(rng.randint(1, 3)):
        what = rng.random()
        i = rng.randrange(len(text) + 1)
        if what < 0.4 and i < len(text):
            text[i] = rng.choice("0123456789-{},:/#@.[] ")
        elif what < 0.6 and i < len(text):
            del text[i]
        elif what < 0.8:
            text[i:i] = rng.choice(["9", "-", "0", "99999999999999999999", "9223372036854775807", "{", "}"])
        else:
            j = rng.randrange(len(text) + 1)
            text[i:i] = text[min(i, j):max(i, j)][:40]
    return "".join(text)


# ------------------------------------------------------------------ checks

READ_TEXT = ("SELECT v::pg_catalog.text, pg_catalog.encode(calltree.calltree_send(v), 'hex') "
             "FROM (SELECT $1::calltree.calltree AS v) AS s")
READ_BINARY = ("SELECT $1::pg_catalog.text, pg_catalog.encode(calltree.calltree_send($1), 'hex')")


class Run:
    def __init__(self, db):
        self.db = db
        self.accepted = {}         # canonical text -> its hex send form
        self.refused = 0

    def fail(self, message):
        sys.exit("calltree_values: " + message)

    def read(self, text=None, binary=None):
        """(text, send hex) of the value, or the Refused error."""
        try:
            if binary is not None:
                return self.db.query(READ_BINARY, [binary], binary={0})[0]
            return self.db.query(READ_TEXT, [text])[0]
        except Refused as refused:
            if not refused.sqlstate.startswith(("22", "08P01", "54")):
                self.fail(f"input {text if binary is None else binary.hex()} gave {refused}, "
                          "not a data exception")
            self.refused += 1
            return refused

    def keep(self, value, origin):
        """An accepted value: it must read back both ways to itself."""
        text, send = value
        again = self.read(text=text)
        if isinstance(again, Refused) or again[0] != text or again[1] != send:
            self.fail(f"{origin}: text round trip of {text}: {again}")
        again = self.read(binary=bytes.fromhex(send))
        if isinstance(again, Refused) or again[0] != text or again[1] != send:
            self.fail(f"{origin}: binary round trip of {text} ({send}): {again}")
        self.accepted.setdefault(text, send)

    def check_tree(self, nodes):
        try:
            expected = model(nodes)
        except Rejected as why:
            expected = why
        text, binary = to_text(nodes), to_binary(nodes)
        by_binary = self.read(binary=binary)
        origin = f"tree {text or binary.hex()}"
        if text is not None:
            by_text = self.read(text=text)
            if isinstance(by_text, Refused) != isinstance(by_binary, Refused):
                self.fail(f"{origin}: text gives {by_text}, binary gives {by_binary}")
            if not isinstance(by_text, Refused) and by_text != by_binary:
                self.fail(f"{origin}: text gives {by_text}, binary gives {by_binary}")
        if isinstance(expected, Rejected) != isinstance(by_binary, Refused):
            self.fail(f"{origin}: the model says {expected!r}, the server {by_binary}")
        if not isinstance(by_binary, Refused):
            if by_binary[0] != expected:
                self.fail(f"{origin}: the server reads {by_binary[0]}, the model {expected}")
            self.keep(by_binary, origin)
        return text, binary


def main():
    dbname, seed, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    db = Connection(dbname)
    db.calltree_oid = int(db.query("SELECT 'calltree.calltree'::pg_catalog.regtype::pg_catalog.oid")[0][0])
    run = Run(db)
    for _ in range(count):
        text, binary = run.check_tree(gen_tree(rng))
        for _ in range(2):
            value = run.read(binary=mutate_bytes(rng, binary))
            if not isinstance(value, Refused):
                run.keep(value, "mutated binary")
            if text is not None:
                value = run.read(text=mutate_text(rng, text))
                if not isinstance(value, Refused):
                    run.keep(value, "mutated text")
    db.query("CREATE TABLE calltree_values (id int PRIMARY KEY, v calltree.calltree)")
    for i, text in enumerate(sorted(run.accepted)):
        db.query("INSERT INTO calltree_values VALUES ($1::int, $2::calltree.calltree)", [str(i), text])
    print(len(run.accepted), run.refused)


if __name__ == "__main__":
    main()
