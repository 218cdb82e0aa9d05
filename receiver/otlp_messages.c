/*
 * otlp_messages.c
 *	  The messages of an OTLP profiles request (otlp_messages.h), as the
 *	  vendored .proto files of opentelemetry-proto define them:
 *	  collector/profiles/v1development/profiles_service.proto,
 *	  profiles/v1development/profiles.proto, common/v1/common.proto and
 *	  resource/v1/resource.proto.  The signal is in development and its
 *	  field numbers have changed between drafts: these are those of the
 *	  files import_otlp reads.
 */
#include "otlp_messages.h"

#include <stddef.h>

#define END {NULL, NULL, 0, FIELD_INT32, false, NULL}
#define ONE(json, proto, number, kind) {json, proto, number, kind, false, NULL}
#define MANY(json, proto, number, kind) {json, proto, number, kind, true, NULL}
#define MESSAGE(json, proto, number, type) {json, proto, number, FIELD_MESSAGE, false, &type}
#define MESSAGES(json, proto, number, type) {json, proto, number, FIELD_MESSAGE, true, &type}

/* AnyValue, ArrayValue, KeyValueList and KeyValue refer to each other */
static const MessageType any_value;
static const MessageType key_value;

/* common/v1/common.proto */
static const FieldType array_value_fields[] = {
	MESSAGES("values", "values", 1, any_value),
	END
};
static const MessageType array_value = {"ArrayValue", array_value_fields};

static const FieldType key_value_list_fields[] = {
	MESSAGES("values", "values", 1, key_value),
	END
};
static const MessageType key_value_list = {"KeyValueList", key_value_list_fields};

/* a oneof: the field present is written, zero or not */
static const FieldType any_value_fields[] = {
	ONE("stringValue", "string_value", 1, FIELD_STRING),
	ONE("boolValue", "bool_value", 2, FIELD_BOOL),
	ONE("intValue", "int_value", 3, FIELD_INT64),
	ONE("doubleValue", "double_value", 4, FIELD_DOUBLE),
	MESSAGE("arrayValue", "array_value", 5, array_value),
	MESSAGE("kvlistValue", "kvlist_value", 6, key_value_list),
	ONE("bytesValue", "bytes_value", 7, FIELD_BYTES),
	ONE("stringValueStrindex", "string_value_strindex", 8, FIELD_INT32),
	END
};
static const MessageType any_value = {"AnyValue", any_value_fields};

static const FieldType key_value_fields[] = {
	ONE("key", "key", 1, FIELD_STRING),
	MESSAGE("value", "value", 2, any_value),
	ONE("keyStrindex", "key_strindex", 3, FIELD_INT32),
	END
};
static const MessageType key_value = {"KeyValue", key_value_fields};

static const FieldType scope_fields[] = {
	ONE("name", "name", 1, FIELD_STRING),
	ONE("version", "version", 2, FIELD_STRING),
	MESSAGES("attributes", "attributes", 3, key_value),
	ONE("droppedAttributesCount", "dropped_attributes_count", 4, FIELD_UINT32),
	END
};
static const MessageType scope = {"InstrumentationScope", scope_fields};

static const FieldType entity_ref_fields[] = {
	ONE("schemaUrl", "schema_url", 1, FIELD_STRING),
	ONE("type", "type", 2, FIELD_STRING),
	MANY("idKeys", "id_keys", 3, FIELD_STRING),
	MANY("descriptionKeys", "description_keys", 4, FIELD_STRING),
	END
};
static const MessageType entity_ref = {"EntityRef", entity_ref_fields};

/* resource/v1/resource.proto */
static const FieldType resource_fields[] = {
	MESSAGES("attributes", "attributes", 1, key_value),
	ONE("droppedAttributesCount", "dropped_attributes_count", 2, FIELD_UINT32),
	MESSAGES("entityRefs", "entity_refs", 3, entity_ref),
	END
};
static const MessageType resource = {"Resource", resource_fields};

/* profiles/v1development/profiles.proto: the dictionary */
static const FieldType mapping_fields[] = {
	ONE("memoryStart", "memory_start", 1, FIELD_UINT64),
	ONE("memoryLimit", "memory_limit", 2, FIELD_UINT64),
	ONE("fileOffset", "file_offset", 3, FIELD_UINT64),
	ONE("filenameStrindex", "filename_strindex", 4, FIELD_INT32),
	MANY("attributeIndices", "attribute_indices", 5, FIELD_INT32),
	END
};
static const MessageType mapping = {"Mapping", mapping_fields};

static const FieldType line_fields[] = {
	ONE("functionIndex", "function_index", 1, FIELD_INT32),
	ONE("line", "line", 2, FIELD_INT64),
	ONE("column", "column", 3, FIELD_INT64),
	END
};
static const MessageType line = {"Line", line_fields};

static const FieldType location_fields[] = {
	ONE("mappingIndex", "mapping_index", 1, FIELD_INT32),
	ONE("address", "address", 2, FIELD_UINT64),
	MESSAGES("lines", "lines", 3, line),
	MANY("attributeIndices", "attribute_indices", 4, FIELD_INT32),
	END
};
static const MessageType location = {"Location", location_fields};

static const FieldType function_fields[] = {
	ONE("nameStrindex", "name_strindex", 1, FIELD_INT32),
	ONE("systemNameStrindex", "system_name_strindex", 2, FIELD_INT32),
	ONE("filenameStrindex", "filename_strindex", 3, FIELD_INT32),
	ONE("startLine", "start_line", 4, FIELD_INT64),
	END
};
static const MessageType function = {"Function", function_fields};

static const FieldType link_fields[] = {
	ONE("traceId", "trace_id", 1, FIELD_ID),
	ONE("spanId", "span_id", 2, FIELD_ID),
	END
};
static const MessageType link = {"Link", link_fields};

static const FieldType key_value_and_unit_fields[] = {
	ONE("keyStrindex", "key_strindex", 1, FIELD_INT32),
	MESSAGE("value", "value", 2, any_value),
	ONE("unitStrindex", "unit_strindex", 3, FIELD_INT32),
	END
};
static const MessageType key_value_and_unit = {"KeyValueAndUnit", key_value_and_unit_fields};

static const FieldType stack_fields[] = {
	MANY("locationIndices", "location_indices", 1, FIELD_INT32),
	END
};
static const MessageType stack = {"Stack", stack_fields};

static const FieldType dictionary_fields[] = {
	MESSAGES("mappingTable", "mapping_table", 1, mapping),
	MESSAGES("locationTable", "location_table", 2, location),
	MESSAGES("functionTable", "function_table", 3, function),
	MESSAGES("linkTable", "link_table", 4, link),
	MANY("stringTable", "string_table", 5, FIELD_STRING),
	MESSAGES("attributeTable", "attribute_table", 6, key_value_and_unit),
	MESSAGES("stackTable", "stack_table", 7, stack),
	END
};
static const MessageType dictionary = {"ProfilesDictionary", dictionary_fields};

/* profiles/v1development/profiles.proto: the profiles */
static const FieldType value_type_fields[] = {
	ONE("typeStrindex", "type_strindex", 1, FIELD_INT32),
	ONE("unitStrindex", "unit_strindex", 2, FIELD_INT32),
	END
};
static const MessageType value_type = {"ValueType", value_type_fields};

static const FieldType sample_fields[] = {
	ONE("stackIndex", "stack_index", 1, FIELD_INT32),
	MANY("attributeIndices", "attribute_indices", 2, FIELD_INT32),
	ONE("linkIndex", "link_index", 3, FIELD_INT32),
	MANY("values", "values", 4, FIELD_INT64),
	MANY("timestampsUnixNano", "timestamps_unix_nano", 5, FIELD_FIXED64),
	END
};
static const MessageType sample = {"Sample", sample_fields};

static const FieldType profile_fields[] = {
	MESSAGE("sampleType", "sample_type", 1, value_type),
	MESSAGES("samples", "samples", 2, sample),
	ONE("timeUnixNano", "time_unix_nano", 3, FIELD_FIXED64),
	ONE("durationNano", "duration_nano", 4, FIELD_UINT64),
	MESSAGE("periodType", "period_type", 5, value_type),
	ONE("period", "period", 6, FIELD_INT64),
	ONE("profileId", "profile_id", 7, FIELD_ID),
	ONE("droppedAttributesCount", "dropped_attributes_count", 8, FIELD_UINT32),
	ONE("originalPayloadFormat", "original_payload_format", 9, FIELD_STRING),
	ONE("originalPayload", "original_payload", 10, FIELD_BYTES),
	MANY("attributeIndices", "attribute_indices", 11, FIELD_INT32),
	END
};
static const MessageType profile = {"Profile", profile_fields};

static const FieldType scope_profiles_fields[] = {
	MESSAGE("scope", "scope", 1, scope),
	MESSAGES("profiles", "profiles", 2, profile),
	ONE("schemaUrl", "schema_url", 3, FIELD_STRING),
	END
};
static const MessageType scope_profiles = {"ScopeProfiles", scope_profiles_fields};

static const FieldType resource_profiles_fields[] = {
	MESSAGE("resource", "resource", 1, resource),
	MESSAGES("scopeProfiles", "scope_profiles", 2, scope_profiles),
	ONE("schemaUrl", "schema_url", 3, FIELD_STRING),
	END
};
static const MessageType resource_profiles = {"ResourceProfiles", resource_profiles_fields};

/* collector/profiles/v1development/profiles_service.proto */
static const FieldType export_request_fields[] = {
	MESSAGES("resourceProfiles", "resource_profiles", 1, resource_profiles),
	MESSAGE("dictionary", "dictionary", 2, dictionary),
	END
};
const MessageType otlp_export_request = {"ExportProfilesServiceRequest", export_request_fields};
