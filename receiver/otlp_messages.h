/*
 * otlp_messages.h
 *	  The messages of an OTLP profiles request as tables, field by field:
 *	  what the OTLP/JSON converter (otlp_json.c) needs to write each JSON
 *	  member as its protobuf field.
 */
#ifndef RECEIVER_OTLP_MESSAGES_H
#define RECEIVER_OTLP_MESSAGES_H

#include <stdbool.h>
#include <stdint.h>

typedef enum FieldKind
{
	FIELD_INT32,
	FIELD_INT64,
	FIELD_UINT32,
	FIELD_UINT64,
	FIELD_FIXED64,
	FIELD_BOOL,
	FIELD_DOUBLE,
	FIELD_STRING,
	FIELD_BYTES,				/* base64 in JSON */
	FIELD_ID,					/* bytes, hex in OTLP/JSON: trace, span and profile ids */
	FIELD_MESSAGE
} FieldKind;

typedef struct MessageType MessageType;

typedef struct FieldType
{
	const char *json_name;		/* lowerCamelCase, as OTLP/JSON writes it */
	const char *proto_name;		/* as the .proto file writes it */
	uint32_t	number;
	FieldKind	kind;
	bool		repeated;
	const MessageType *message; /* FIELD_MESSAGE: its type */
} FieldType;

struct MessageType
{
	const char *name;
	const FieldType *fields;	/* ending with a NULL json_name */
};

/* opentelemetry.proto.collector.profiles.v1development.ExportProfilesServiceRequest */
extern const MessageType otlp_export_request;

#endif
