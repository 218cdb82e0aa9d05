/*
 * push_request.c
 *	  Pyroscope's PushRequest from protobuf (push_request.h).  Unknown
 *	  fields are skipped, as protobuf wants; a known field of the wrong
 *	  wire type is malformed.  Every array grows by doubling, its bytes
 *	  charged to the request's limit, so that no body decodes to more
 *	  than the limit, however many empty series or labels it holds.
 */
#include "push_request.h"

#include <stdlib.h>
#include <string.h>

#include "protobuf.h"

bool
push_request_charge(PushRequest *req, size_t bytes)
{
	if (bytes > req->limit - req->decoded)
	{
		req->too_large = true;
		return false;
	}
	req->decoded += bytes;
	return true;
}

/* The capacity of an array of count elements: 0, 1, 2, 4, 8... */
static size_t
capacity_of(int count)
{
	size_t		cap = 1;

	if (count == 0)
		return 0;
	while (cap < (size_t) count)
		cap *= 2;
	return cap;
}

bool
push_request_grow(PushRequest *req, void **array, int count, size_t size)
{
	size_t		cap = capacity_of(count);
	size_t		new_cap = cap ? cap * 2 : 1;
	void	   *grown;

	if ((size_t) count < cap)
		return true;
	if (!push_request_charge(req, (new_cap - cap) * size))
		return false;
	grown = realloc(*array, new_cap * size);
	if (grown == NULL)
		return false;
	*array = grown;
	return true;
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
decode_series(PushRequest *req, const PbField *message, PushSeries *series)
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
			if (!push_request_grow(req, (void **) &series->labels, series->nlabels, sizeof(PushLabel)) ||
				!decode_label(&f, &series->labels[series->nlabels]))
				return false;
			series->nlabels++;
		}
		else if (f.number == 2)
		{
			if (!push_request_grow(req, (void **) &series->samples, series->nsamples, sizeof(PushSample)) ||
				!decode_sample(&f, &series->samples[series->nsamples]))
				return false;
			series->nsamples++;
		}
	}
	return rc == 0;
}

bool
push_request_decode(const char *data, size_t len, size_t limit, PushRequest *req, const char **error)
{
	PbReader	r;
	PbField		f;
	int			rc;

	memset(req, 0, sizeof(PushRequest));
	req->limit = limit;
	*error = "the body is not a PushRequest: its protobuf is malformed";
	pb_reader_init(&r, data, len);
	while ((rc = pb_next(&r, &f)) > 0)
	{
		if (f.number != 1)
			continue;
		if (f.wire_type != PB_LEN)
			return false;
		if (!push_request_grow(req, (void **) &req->series, req->nseries, sizeof(PushSeries)))
		{
			*error = req->too_large ? "the PushRequest decodes past the limit" : "out of memory";
			return false;
		}
		memset(&req->series[req->nseries], 0, sizeof(PushSeries));
		req->nseries++;
		if (!decode_series(req, &f, &req->series[req->nseries - 1]))
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
