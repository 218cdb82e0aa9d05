#!/usr/bin/env python3
"""OTLP/JSON from and to protobuf, with Google's protobuf runtime
(json_format, on the classes protoc generates from the vendored .proto
files: otlp_proto.py), so that the receiver's converter is checked against
an independent one.

    otlp_json.py to-json IN.pb OUT.json   an ExportProfilesServiceRequest as OTLP/JSON
    otlp_json.py to-pb IN.json OUT.pb     OTLP/JSON as protobuf (unknown members ignored)
    otlp_json.py case NAME OUT.pb         a request of otlp_cases.py, in protobuf

json_format writes protobuf's JSON mapping: lowerCamelCase names, 64-bit
integers as strings, bytes in base64.  OTLP/JSON differs in one point for
these messages: trace, span and profile ids are hex, which this script
converts both ways.
"""
import base64
import json
import sys

from google.protobuf import json_format

from otlp_proto import pb

ID_FIELDS = ("traceId", "spanId", "profileId", "trace_id", "span_id", "profile_id")


def convert_ids(value, convert):
    """value with every id member converted by convert, in place"""
    if isinstance(value, dict):
        for key, member in value.items():
            if key in ID_FIELDS and isinstance(member, str):
                value[key] = convert(member)
            else:
                convert_ids(member, convert)
    elif isinstance(value, list):
        for element in value:
            convert_ids(element, convert)
    return value


def to_json(data):
    request = pb.ExportProfilesServiceRequest()
    request.ParseFromString(data)
    mapped = json.loads(json_format.MessageToJson(request))
    return json.dumps(convert_ids(mapped, lambda b64: base64.b64decode(b64).hex()), indent=1)


def to_pb(text):
    mapped = convert_ids(json.loads(text), lambda hexed: base64.b64encode(bytes.fromhex(hexed)).decode())
    request = json_format.Parse(json.dumps(mapped), pb.ExportProfilesServiceRequest(),
                                ignore_unknown_fields=True)
    return request.SerializeToString()


def main(argv):
    if len(argv) != 4:
        sys.exit(__doc__)
    mode, source, out = argv[1:]
    if mode == "to-json":
        result = to_json(open(source, "rb").read()).encode()
    elif mode == "to-pb":
        result = to_pb(open(source, encoding="utf-8").read())
    elif mode == "case":
        import otlp_cases
        result = dict(otlp_cases.CASES)[source]
    else:
        sys.exit(__doc__)
    with open(out, "wb") as f:
        f.write(result)


if __name__ == "__main__":
    main(sys.argv)
