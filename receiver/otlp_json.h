/*
 * otlp_json.h
 *	  OTLP/JSON made protobuf: an ExportProfilesServiceRequest of the
 *	  v1development profiles signal in OTLP's JSON encoding, written in
 *	  protobuf for import_otlp, which reads one encoding only.
 */
#ifndef RECEIVER_OTLP_JSON_H
#define RECEIVER_OTLP_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "buffer.h"

/*
 * The request in the JSON text, as protobuf into out, which may not grow
 * past limit bytes.  False with a message in error that names the byte
 * and the field where the text is wrong, and *too_large when the protobuf
 * would pass the limit.
 */
extern bool otlp_json_to_protobuf(const char *text, size_t len, size_t limit, Buffer *out,
								  Buffer *error, bool *too_large);

#endif
