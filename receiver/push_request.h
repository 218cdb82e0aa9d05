/*
 * push_request.h
 *	  Pyroscope's PushRequest, decoded from protobuf:
 *	    PushRequest      { repeated RawProfileSeries series = 1; }
 *	    RawProfileSeries { repeated LabelPair labels = 1; repeated RawSample samples = 2; }
 *	    LabelPair        { string name = 1; string value = 2; }
 *	    RawSample        { bytes raw_profile = 1; string ID = 2; }
 *	  Strings and bytes point into the request's body (protobuf) or into
 *	  the request's own copies (JSON).
 */
#ifndef RECEIVER_PUSH_REQUEST_H
#define RECEIVER_PUSH_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

typedef struct PushSlice
{
	const char *data;
	size_t		len;
} PushSlice;

typedef struct PushLabel
{
	PushSlice	name;
	PushSlice	value;
} PushLabel;

typedef struct PushSample
{
	PushSlice	raw_profile;
	PushSlice	id;
} PushSample;

typedef struct PushSeries
{
	PushLabel  *labels;
	int			nlabels;
	PushSample *samples;
	int			nsamples;
} PushSeries;

typedef struct PushRequest
{
	PushSeries *series;
	int			nseries;
	char	  **owned;			/* strings decoded from JSON, freed with the request */
	int			nowned;
	size_t		decoded;		/* bytes allocated for the above */
	size_t		limit;			/* ... at most */
	bool		too_large;		/* the decoding stopped at the limit */
} PushRequest;

/*
 * Decodes a PushRequest whose arrays (and strings, from JSON) take at most
 * limit bytes: an empty series takes 2 bytes of protobuf but 32 decoded.
 * False with *error (a constant) if the bytes are not a PushRequest or
 * too_large past the limit.
 */
extern bool push_request_decode(const char *data, size_t len, size_t limit, PushRequest *req,
								const char **error);

/*
 * The same from protobuf's JSON mapping (push_json.c):
 * {"series": [{"labels": [{"name": "...", "value": "..."}],
 *              "samples": [{"rawProfile": "BASE64", "ID": "..."}]}]}
 */
extern bool push_request_from_json(const char *data, size_t len, size_t limit, PushRequest *req,
								   const char **error);
extern void push_request_free(PushRequest *req);

/* For both decoders: bytes charged to the request's limit; false past it */
extern bool push_request_charge(PushRequest *req, size_t bytes);

/*
 * Room in *array, of count elements of size bytes, for one more: the
 * array's capacity doubles, charged to the request's limit
 */
extern bool push_request_grow(PushRequest *req, void **array, int count, size_t size);

#endif
