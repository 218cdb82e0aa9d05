#!/usr/bin/env python3
"""Converts a pprof profile into an OTLP ExportProfilesServiceRequest, with
a reader of pprof of its own (not calltree's) and the OTLP classes that
protoc generates from the vendored .proto files (otlp_proto.py).

    otlp_from_pprof.py PPROF OUT [SERVICE]

One OTLP Profile per pprof sample type, in the pprof's order, all of one
resource (service.name SERVICE, default "pprof") and scope, sharing one
dictionary: each sample's value of that type is its one value.  Mappings
keep their build id as the process.executable.build_id.gnu attribute,
locations their address and lines (inlined functions first, as in both
formats), samples their labels as attributes (a numeric label's unit as
the attribute's unit).  Samples without locations get stack index 0.
"""
import gzip
import sys

from otlp_proto import pb


def varint(data, pos):
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def fields(data):
    """(field number, wire type, value) of a message: an int, or bytes for wire type 2"""
    pos = 0
    while pos < len(data):
        tag, pos = varint(data, pos)
        number, wiretype = tag >> 3, tag & 7
        if wiretype == 0:
            value, pos = varint(data, pos)
        elif wiretype == 1:
            value, pos = int.from_bytes(data[pos:pos + 8], "little"), pos + 8
        elif wiretype == 2:
            length, pos = varint(data, pos)
            value, pos = data[pos:pos + length], pos + length
        elif wiretype == 5:
            value, pos = int.from_bytes(data[pos:pos + 4], "little"), pos + 4
        else:
            raise ValueError(f"wire type {wiretype}")
        yield number, wiretype, value


def signed(n):
    return n - (1 << 64) if n >= 1 << 63 else n


def repeated(wiretype, value):
    """the values of a repeated varint field, packed or not"""
    if wiretype == 0:
        return [value]
    out, pos = [], 0
    while pos < len(value):
        n, pos = varint(value, pos)
        out.append(n)
    return out


def message(data, names):
    """the scalar fields of a message by name (names: number -> name)"""
    return {names[number]: value for number, _, value in fields(data) if number in names}


def read_pprof(raw):
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    profile = {"sample_type": [], "sample": [], "mapping": [], "location": [], "function": [],
               "string": [], "time_nanos": 0, "duration_nanos": 0, "period": 0, "period_type": None}
    for number, wiretype, value in fields(raw):
        if number == 1:
            profile["sample_type"].append(message(value, {1: "type", 2: "unit"}))
        elif number == 2:
            sample = {"location_id": [], "value": [], "label": []}
            for n, w, v in fields(value):
                if n == 1:
                    sample["location_id"].extend(repeated(w, v))
                elif n == 2:
                    sample["value"].extend(signed(x) for x in repeated(w, v))
                elif n == 3:
                    sample["label"].append(message(v, {1: "key", 2: "str", 3: "num", 4: "num_unit"}))
            profile["sample"].append(sample)
        elif number == 3:
            profile["mapping"].append(message(value, {1: "id", 2: "memory_start", 3: "memory_limit",
                                                      4: "file_offset", 5: "filename", 6: "build_id"}))
        elif number == 4:
            location = {"line": []}
            for n, w, v in fields(value):
                if n == 1:
                    location["id"] = v
                elif n == 2:
                    location["mapping_id"] = v
                elif n == 3:
                    location["address"] = v
                elif n == 4:
                    location["line"].append(message(v, {1: "function_id", 2: "line", 3: "column"}))
            profile["location"].append(location)
        elif number == 5:
            profile["function"].append(message(value, {1: "id", 2: "name", 3: "system_name",
                                                       4: "filename", 5: "start_line"}))
        elif number == 6:
            profile["string"].append(value.decode("utf-8"))
        elif number == 9:
            profile["time_nanos"] = signed(value)
        elif number == 10:
            profile["duration_nanos"] = signed(value)
        elif number == 11:
            profile["period_type"] = message(value, {1: "type", 2: "unit"})
        elif number == 12:
            profile["period"] = signed(value)
    return profile


class Dictionary:
    """The OTLP dictionary being built: every table with its zero entry"""

    def __init__(self, d):
        self.d = d
        self.strings = {}
        self.stacks = {}
        self.attributes = {}
        self.string("")
        d.mapping_table.add()
        d.location_table.add()
        d.function_table.add()
        d.link_table.add(trace_id=bytes(16), span_id=bytes(8))
        d.attribute_table.add()
        d.stack_table.add()

    def string(self, s):
        if s not in self.strings:
            self.strings[s] = len(self.d.string_table)
            self.d.string_table.append(s)
        return self.strings[s]

    def stack(self, locations):
        key = tuple(locations)
        if not key:
            return 0
        if key not in self.stacks:
            self.stacks[key] = len(self.d.stack_table)
            self.d.stack_table.add(location_indices=locations)
        return self.stacks[key]

    def attribute(self, key, value, unit=""):
        """value: str or int"""
        k = (key, value, unit)
        if k not in self.attributes:
            self.attributes[k] = len(self.d.attribute_table)
            a = self.d.attribute_table.add(key_strindex=self.string(key), unit_strindex=self.string(unit))
            if isinstance(value, str):
                a.value.string_value = value
            else:
                a.value.int_value = value
        return self.attributes[k]


def convert(profile, service):
    s = profile["string"]
    request = pb.ExportProfilesServiceRequest()
    d = Dictionary(request.dictionary)

    mapping_index = {}
    for m in profile["mapping"]:
        mapping_index[m["id"]] = len(d.d.mapping_table)
        om = d.d.mapping_table.add(memory_start=m.get("memory_start", 0), memory_limit=m.get("memory_limit", 0),
                                   file_offset=m.get("file_offset", 0),
                                   filename_strindex=d.string(s[m.get("filename", 0)]))
        if s[m.get("build_id", 0)]:
            om.attribute_indices.append(d.attribute("process.executable.build_id.gnu", s[m["build_id"]]))
    function_index = {}
    for f in profile["function"]:
        function_index[f["id"]] = len(d.d.function_table)
        d.d.function_table.add(name_strindex=d.string(s[f.get("name", 0)]),
                               system_name_strindex=d.string(s[f.get("system_name", 0)]),
                               filename_strindex=d.string(s[f.get("filename", 0)]),
                               start_line=signed(f.get("start_line", 0)))
    location_index = {}
    for loc in profile["location"]:
        location_index[loc["id"]] = len(d.d.location_table)
        ol = d.d.location_table.add(mapping_index=mapping_index.get(loc.get("mapping_id", 0), 0),
                                    address=loc.get("address", 0))
        for line in loc["line"]:
            ol.lines.add(function_index=function_index.get(line.get("function_id", 0), 0),
                         line=signed(line.get("line", 0)), column=signed(line.get("column", 0)))

    rp = request.resource_profiles.add()
    rp.resource.attributes.add(key="service.name").value.string_value = service
    sp = rp.scope_profiles.add()
    sp.scope.name = "otlp_from_pprof"
    for i, vt in enumerate(profile["sample_type"]):
        p = sp.profiles.add()
        p.sample_type.type_strindex = d.string(s[vt.get("type", 0)])
        p.sample_type.unit_strindex = d.string(s[vt.get("unit", 0)])
        p.time_unix_nano = profile["time_nanos"]
        p.duration_nano = profile["duration_nanos"]
        p.period = profile["period"]
        if profile["period_type"]:
            p.period_type.type_strindex = d.string(s[profile["period_type"].get("type", 0)])
            p.period_type.unit_strindex = d.string(s[profile["period_type"].get("unit", 0)])
        for sample in profile["sample"]:
            os_ = p.samples.add(stack_index=d.stack([location_index[x] for x in sample["location_id"]]))
            os_.values.append(sample["value"][i])
            for label in sample["label"]:
                if label.get("str"):
                    os_.attribute_indices.append(d.attribute(s[label["key"]], s[label["str"]]))
                elif label.get("num") or label.get("num_unit"):
                    os_.attribute_indices.append(d.attribute(s[label["key"]], signed(label.get("num", 0)),
                                                             s[label.get("num_unit", 0)]))
    return request


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit("usage: otlp_from_pprof.py PPROF OUT [SERVICE]")
    with open(argv[1], "rb") as f:
        profile = read_pprof(f.read())
    request = convert(profile, argv[3] if len(argv) == 4 else "pprof")
    with open(argv[2], "wb") as f:
        f.write(request.SerializeToString())


if __name__ == "__main__":
    main(sys.argv)
