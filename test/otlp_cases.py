#!/usr/bin/env python3
"""The OTLP requests of sql/import_otlp.sql, encoded with the classes protoc
generates from the vendored .proto files (otlp_proto.py); prints the
INSERT that the test starts with.  Run it with Debian's python3 (it has
python3-protobuf) and paste its output over the INSERT in the test:

    /usr/bin/python3 test/otlp_cases.py

Every case is described where it is built; the test's expected output
was checked by hand against these descriptions.
"""
import gzip

from otlp_proto import pb

T0 = 1700000000000000000  # 2023-11-14 22:13:20 UTC, in ns


def dictionary(d):
    """One dictionary for the cases:
    strings  0 ""  1 cpu  2 nanoseconds  3 main  4 work  5 inlined  6 main.c
             7 /usr/bin/app  8 thread  9 worker  10 size  11 bytes  12 from-table
             13 /lib/libc.so  14 flag  15 samples  16 count  17 ratio
             18 process.executable.build_id.gnu
    mappings 1 /usr/bin/app, build id "b1d" (gnu)   2 /lib/libc.so, no build id
    functions 1 main (main.c)  2 work (main.c)  3 inlined (main.c)
    locations 1 main line 10 @0x1000 in mapping 1
              2 inlined line 5, then work line 20 (work inlines it) @0x2000 in mapping 1
              3 no lines @0x7f00 in mapping 2 (an address frame of /lib/libc.so)
              4 no lines, no mapping, @0xbeef
    stacks   1 [2, 1]: main > work > inlined   2 [3, 1]: main > 0x7f00   3 [4]: 0xbeef
             4 [1]: main
    attributes 1 thread="worker"  2 size=64 bytes  3 flag=true  4 ratio=0.5
               5 thread=<string_value_strindex 12: "from-table">
               6 build id of mapping 1
    links    1 trace 0102...10, span a1a2...a8   2 all zero
    """
    for s in ["", "cpu", "nanoseconds", "main", "work", "inlined", "main.c", "/usr/bin/app", "thread",
              "worker", "size", "bytes", "from-table", "/lib/libc.so", "flag", "samples", "count", "ratio",
              "process.executable.build_id.gnu"]:
        d.string_table.append(s)
    d.mapping_table.add()
    d.mapping_table.add(memory_start=0x1000, memory_limit=0x9000, filename_strindex=7, attribute_indices=[6])
    d.mapping_table.add(memory_start=0x7000, memory_limit=0x8000, filename_strindex=13)
    d.function_table.add()
    d.function_table.add(name_strindex=3, filename_strindex=6)
    d.function_table.add(name_strindex=4, filename_strindex=6)
    d.function_table.add(name_strindex=5, filename_strindex=6)
    d.location_table.add()
    loc = d.location_table.add(mapping_index=1, address=0x1000)
    loc.lines.add(function_index=1, line=10)
    loc = d.location_table.add(mapping_index=1, address=0x2000)
    loc.lines.add(function_index=3, line=5)
    loc.lines.add(function_index=2, line=20)
    d.location_table.add(mapping_index=2, address=0x7f00)
    d.location_table.add(address=0xbeef)
    d.stack_table.add()
    d.stack_table.add(location_indices=[2, 1])
    d.stack_table.add(location_indices=[3, 1])
    d.stack_table.add(location_indices=[4])
    d.stack_table.add(location_indices=[1])
    d.attribute_table.add()
    a = d.attribute_table.add(key_strindex=8)
    a.value.string_value = "worker"
    a = d.attribute_table.add(key_strindex=10, unit_strindex=11)
    a.value.int_value = 64
    a = d.attribute_table.add(key_strindex=14)
    a.value.bool_value = True
    a = d.attribute_table.add(key_strindex=17)
    a.value.double_value = 0.5
    a = d.attribute_table.add(key_strindex=8)
    a.value.string_value_strindex = 12
    a = d.attribute_table.add(key_strindex=18)
    a.value.string_value = "b1d"
    d.link_table.add(trace_id=bytes(16), span_id=bytes(8))
    d.link_table.add(trace_id=bytes(range(1, 17)), span_id=bytes(range(0xa1, 0xa9)))
    d.link_table.add(trace_id=bytes(16), span_id=bytes(8))


def every_value(kv_list):
    """resource/scope attributes of every AnyValue type"""
    kv = kv_list.add(key="s")
    kv.value.string_value = "text"
    kv = kv_list.add(key="b")
    kv.value.bool_value = False
    kv = kv_list.add(key="i")
    kv.value.int_value = -7
    kv = kv_list.add(key="d")
    kv.value.double_value = 2.25
    kv = kv_list.add(key="nan")
    kv.value.double_value = float("nan")
    kv = kv_list.add(key="a")
    kv.value.array_value.values.add().int_value = 1
    kv.value.array_value.values.add().string_value = "two"
    kv.value.array_value.values.add().array_value.values.add().bool_value = True
    kv = kv_list.add(key="kv")
    inner = kv.value.kvlist_value.values.add(key="k")
    inner.value.string_value = "v"
    kv.value.kvlist_value.values.add(key="unset")
    kv = kv_list.add(key="bytes")
    kv.value.bytes_value = b"\x00\xffab"
    kv = kv_list.add(key_strindex=9)   # key "worker" from the string table
    kv.value.string_value_strindex = 4  # "work"
    kv_list.add(key="empty")            # a KeyValue without a value: null


def many():
    """Two resources, three profiles:
    resource 1: service.name "shop", every value type (every_value), schema_url
      scope "agent" 1.2 with attribute scope.attr=1
        profile 1: cpu/nanoseconds, time T0, duration 1 s, period 10 ms of cpu/nanoseconds,
                   profile_id 0x0f*16, profile attribute ratio=0.5
          sample stack 1 values [30, 20] at T0+1000, T0+5000, attrs thread=worker, size=64 bytes,
                 link 1 (trace and span)
          sample stack 2 value [5], attrs flag=true, link 2 (all zero: no labels from it)
          sample stack 3 value [7], attr thread=from-table
          sample stack 0 value [100] (no stack: skipped with a NOTICE)
        profile 2: no samples, no sample type (an empty profile)
    resource 2: no attributes
      no scope
        profile 3: samples/count, no time: timestamps only, T0+2000 and T0+3000 on stack 4,
                   T0+2500 on stack 1: three rows of weight 1, times from T0+2000
    The dictionary comes first, before the resources (protobuf writes it last)."""
    r = pb.ExportProfilesServiceRequest()
    rp = r.resource_profiles.add()
    rp.schema_url = "https://opentelemetry.io/schemas/1.0.0"
    rp.resource.attributes.add(key="service.name").value.string_value = "shop"
    every_value(rp.resource.attributes)
    sp = rp.scope_profiles.add()
    sp.scope.name = "agent"
    sp.scope.version = "1.2"
    sp.scope.attributes.add(key="scope.attr").value.int_value = 1
    p = sp.profiles.add(time_unix_nano=T0, duration_nano=10 ** 9, period=10_000_000,
                        profile_id=b"\x0f" * 16, attribute_indices=[4])
    p.sample_type.type_strindex, p.sample_type.unit_strindex = 1, 2
    p.period_type.type_strindex, p.period_type.unit_strindex = 1, 2
    p.samples.add(stack_index=1, values=[30, 20], timestamps_unix_nano=[T0 + 1000, T0 + 5000],
                  attribute_indices=[1, 2], link_index=1)
    p.samples.add(stack_index=2, values=[5], attribute_indices=[3], link_index=2)
    p.samples.add(stack_index=3, values=[7], attribute_indices=[5])
    p.samples.add(stack_index=0, values=[100])
    sp.profiles.add()
    rp2 = r.resource_profiles.add()
    p3 = rp2.scope_profiles.add().profiles.add()
    p3.sample_type.type_strindex, p3.sample_type.unit_strindex = 15, 16
    p3.samples.add(stack_index=4, timestamps_unix_nano=[T0 + 3000, T0 + 2000])
    p3.samples.add(stack_index=1, timestamps_unix_nano=[T0 + 2500])
    dictionary(r.dictionary)
    d = pb.ExportProfilesServiceRequest(dictionary=r.dictionary).SerializeToString()
    rps = pb.ExportProfilesServiceRequest(resource_profiles=r.resource_profiles).SerializeToString()
    return d + rps


def simple(**sample):
    """One profile of one sample (the fields given) over the cases' dictionary"""
    r = pb.ExportProfilesServiceRequest()
    p = r.resource_profiles.add().scope_profiles.add().profiles.add()
    p.sample_type.type_strindex, p.sample_type.unit_strindex = 1, 2
    p.samples.add(**sample)
    dictionary(r.dictionary)
    return r.SerializeToString()


def bad_strings():
    """string_table[0] is not empty"""
    r = pb.ExportProfilesServiceRequest()
    r.dictionary.string_table.append("x")
    return r.SerializeToString()


def bad_utf8():
    """a function name that is not UTF-8: the stack's frame names it"""
    r = pb.ExportProfilesServiceRequest()
    p = r.resource_profiles.add().scope_profiles.add().profiles.add()
    p.samples.add(stack_index=1, values=[1])
    d = r.dictionary
    d.string_table.append("")
    d.function_table.add()
    d.function_table.add(name_strindex=1)
    d.location_table.add()
    d.location_table.add().lines.add(function_index=1)
    d.stack_table.add()
    d.stack_table.add(location_indices=[1])
    raw = r.SerializeToString()
    # a second string, "\xff", appended by hand: protobuf will not encode it
    return raw + b"\x12\x03\x2a\x01\xff"


def deep_value(depth):
    """a resource attribute of `depth` arrays in arrays around an int"""
    r = pb.ExportProfilesServiceRequest()
    rp = r.resource_profiles.add()
    value = rp.resource.attributes.add(key="deep").value
    for _ in range(depth):
        value = value.array_value.values.add()
    value.int_value = 1
    rp.scope_profiles.add().profiles.add()
    return r.SerializeToString()


CASES = [
    ("many", many()),
    ("dictionary only", pb.ExportProfilesServiceRequest(
        dictionary=pb.ProfilesDictionary(string_table=[""])).SerializeToString()),
    ("stack out of range", simple(stack_index=9, values=[1])),
    ("values and timestamps differ", simple(stack_index=1, values=[1, 2], timestamps_unix_nano=[T0])),
    ("neither values nor timestamps", simple(stack_index=1)),
    ("link out of range", simple(stack_index=1, values=[1], link_index=5)),
    ("first string not empty", bad_strings()),
    ("gzip", gzip.compress(simple(stack_index=4, values=[42]), mtime=0)),
    ("deep 64", deep_value(64)),
    ("deep 65", deep_value(65)),
    ("not utf-8", bad_utf8()),
]


def main():
    print("INSERT INTO otlp_case VALUES")
    rows = []
    for name, data in CASES:
        hexed = data.hex()
        lines = [hexed[i:i + 72] for i in range(0, len(hexed), 72)] or [""]
        rows.append(f"('{name}', decode(\n  '" + "'\n  '".join(lines) + "', 'hex'))")
    print(",\n".join(rows) + ";")


if __name__ == "__main__":
    main()
