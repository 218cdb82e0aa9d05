/*
 * push_request.c
 *	  Pyroscope's PushRequest from protobuf (push_request.h).  Unknown
 *	  fields are skipped, as protobuf wants; a known field of the wrong
 *	  wire type is malformed.
 */
#include "push_request.h"

#include <stdlib.h>
#include <string.h>

#include "protobuf.h"

/* Room for one more element of an array of size bytes each */
static void *
grow(void *array, int count, size_t size)
{
	return realloc(array, size * (size_t) (count + 1));
}

static bool
decode_label(const PbField *message, PushLabel *label)
{
	PbReader	r;
	PbField		f;
	int			rc;

	memset(label, 0, sizeof(PushLabel));
	pb_reader_init(&r, message->data, message->len);
	while ((rc = pb_next(&r, &f)) > 0)
	{
		if ((f.number == 1 || f.number == 2) && f.wire_type != PB_LEN)
			return false;
		if (f.number == 1)
			label->name = (PushSlice) {f.data, f.len};
		else if (f.number == 2)
			label->value = (PushSlice) {f.data, f.len};
	}
	return rc == 0;
}

static bool
decode_sample(const PbField *message, PushSample *sample)
{
	PbReader	r;
	PbField		f;
	int			rc;

	memset(sample, 0, sizeof(PushSample));
	pb_reader_init(&r, message->data, message->len);
	while ((rc = pb_next(&r, &f)) > 0)
	{
		if ((f.number == 1 || f.number == 2) && f.wire_type != PB_LEN)
			return false;
		if (f.number == 1)
			sample->raw_profile = (PushSlice) {f.data, f.len};
		else if (f.number == 2)
			sample->id = (PushSlice) {f.data, f.len};
	}
	return rc == 0;
}

static bool
decode_series(const PbField *message, PushSeries *series)
{
	PbReader	r;
	PbField		f;
	int			rc;

	pb_reader_init(&r, message->data, message->len);
	while ((rc = pb_next(&r, &f)) > 0)
	{
		if ((f.number == 1 || f.number == 2) && f.wire_type != PB_LEN)
			return false;
		if (f.number == 1)
		{
			series->labels = grow(series->labels, series->nlabels, sizeof(PushLabel));
			if (series->labels == NULL || !decode_label(&f, &series->labels[series->nlabels]))
				return false;
			series->nlabels++;
		}
		else if (f.number == 2)
		{
			series->samples = grow(series->samples, series->nsamples, sizeof(PushSample));
			if (series->samples == NULL || !decode_sample(&f, &series->samples[series->nsamples]))
				return false;
			series->nsamples++;
		}
	}
	return rc == 0;
}

bool
push_request_decode(const char *data, size_t len, PushRequest *req, const char **error)
{
	PbReader	r;
	PbField		f;
	int			rc;

	memset(req, 0, sizeof(PushRequest));
	*error = "the body is not a PushRequest: its protobuf is malformed";
	pb_reader_init(&r, data, len);
	while ((rc = pb_next(&r, &f)) > 0)
	{
		if (f.number != 1)
			continue;
		if (f.wire_type != PB_LEN)
			return false;
		req->series = grow(req->series, req->nseries, sizeof(PushSeries));
		if (req->series == NULL)
		{
			*error = "out of memory";
			return false;
		}
		memset(&req->series[req->nseries], 0, sizeof(PushSeries));
		req->nseries++;
		if (!decode_series(&f, &req->series[req->nseries - 1]))
			return false;
	}
	return rc == 0;
}

void
push_request_free(PushRequest *req)
{
	for (int i = 0; i < req->nseries; i++)
	{
		free(req->series[i].labels);
		free(req->series[i].samples);
	}
	free(req->series);
	for (int i = 0; i < req->nowned; i++)
		free(req->owned[i]);
	free(req->owned);
	memset(req, 0, sizeof(PushRequest));
}
