/*
 * samples_read.c
 *	  The SQL functions that read a samples value (samples.h): its rows
 *	  (unnest), its sample count, the distinct stack and label set ids it
 *	  refers to, which reference checks and garbage collection need, and
 *	  the samples of some label sets.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "tree/samples.h"

PG_FUNCTION_INFO_V1(samples_unnest);
PG_FUNCTION_INFO_V1(samples_count);
PG_FUNCTION_INFO_V1(samples_stack_id_array);
PG_FUNCTION_INFO_V1(samples_label_set_id_array);
PG_FUNCTION_INFO_V1(samples_with_label_sets);
PG_FUNCTION_INFO_V1(samples_of_one);

/* The packed bytes of argument 0, short header kept */
static struct varlena *
packed_argument(FunctionCallInfo fcinfo)
{
	return PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
}

/*
 * unnest(samples): one row (stack_id, weight, ts, labels_id) per sample, in
 * the value's canonical order; ts and labels_id NULL where it has none.
 * The rows go straight into the tuplestore that a function scan keeps
 * anyway (which goes to disk past work_mem), without a call and a tuple
 * built per row, as they are read: a value denser than a bit a sample is
 * not unpacked first (samples_stream_begin).
 */
Datum
samples_unnest(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	struct varlena *value = packed_argument(fcinfo);
	SamplesHeader header;
	SamplesStream *stream;
	Sample		sample;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	InitMaterializedSRF(fcinfo, MAT_SRF_USE_EXPECTED_DESC);
	stream = samples_stream_begin((const uint8 *) VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value), &header);
	while (samples_stream_next(stream, &sample))
	{
		values[0] = Int64GetDatum(sample.stack_id);
		values[1] = Int64GetDatum(sample.weight);
		values[2] = Int64GetDatum(sample.ts);
		nulls[2] = !sample.has_ts;
		values[3] = Int64GetDatum(sample.labels_id);
		nulls[3] = !sample.has_labels;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	samples_stream_end(stream);
	return (Datum) 0;
}

/* sample_count(samples): from the header alone */
Datum
samples_count(PG_FUNCTION_ARGS)
{
	struct varlena *value = packed_argument(fcinfo);
	SamplesHeader header;

	samples_read_header((const uint8 *) VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value), &header);
	PG_RETURN_INT64(header.count);
}

static ArrayType *
bigint_array(const int64 *ids, int64 count)
{
	Datum	   *elements = palloc(sizeof(Datum) * Max(count, 1));

	for (int64 i = 0; i < count; i++)
		elements[i] = Int64GetDatum(ids[i]);
	return construct_array(elements, (int) count, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE);
}

/* stack_ids(samples): the distinct stack ids, ascending, from the dictionary */
Datum
samples_stack_id_array(PG_FUNCTION_ARGS)
{
	struct varlena *value = packed_argument(fcinfo);
	SamplesHeader header;
	int64	   *ids = samples_stack_ids((const uint8 *) VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value), &header);

	PG_RETURN_ARRAYTYPE_P(bigint_array(ids, header.nstacks));
}

/* label_set_ids(samples): the distinct label set ids, ascending */
Datum
samples_label_set_id_array(PG_FUNCTION_ARGS)
{
	struct varlena *value = packed_argument(fcinfo);
	SamplesHeader header;
	int64	   *ids = samples_label_set_ids((const uint8 *) VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value), &header);

	PG_RETURN_ARRAYTYPE_P(bigint_array(ids, header.nlabels));
}

static int
compare_int64(const void *a, const void *b)
{
	int64		x = *(const int64 *) a;
	int64		y = *(const int64 *) b;

	return (x > y) - (x < y);
}

/* Whether a label set id is among the wanted ones (ascending) */
static bool
is_wanted(int64 id, const int64 *wanted, int64 nwanted)
{
	return bsearch(&id, wanted, nwanted, sizeof(int64), compare_int64) != NULL;
}

/*
 * with_label_sets(samples, label_sets bigint[]): the samples whose label
 * set is one of the given (NULL elements ignored), as a packed value.  A
 * value none of whose dictionary's label sets is given is answered from
 * its header and dictionary alone; one whose every sample has a label set
 * of the given is itself the answer (its encoding is canonical).  Else
 * the samples are read one at a time and those kept gathered, 40 bytes
 * each: some samples then have another label set than others, or none,
 * so the label column takes a bit a sample at least, and what is kept is
 * at most 320 bytes a byte of the value.
 */
Datum
samples_with_label_sets(PG_FUNCTION_ARGS)
{
	struct varlena *value = packed_argument(fcinfo);
	const uint8 *data = (const uint8 *) VARDATA_ANY(value);
	Size		len = VARSIZE_ANY_EXHDR(value);
	ArrayType  *wanted_array = PG_GETARG_ARRAYTYPE_P(1);
	Datum	   *elements;
	bool	   *nulls;
	int			nelements;
	int64	   *wanted;
	int64		nwanted = 0;
	SamplesHeader header;
	int64	   *present;
	int64		npresent_wanted = 0;
	SamplesStream *stream;
	Sample		sample;
	Sample	   *kept;
	int64		nkept = 0;
	int64		capacity = 64;

	deconstruct_array(wanted_array, INT8OID, sizeof(int64), FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &elements, &nulls, &nelements);
	wanted = palloc(sizeof(int64) * Max(nelements, 1));
	for (int i = 0; i < nelements; i++)
		if (!nulls[i])
			wanted[nwanted++] = DatumGetInt64(elements[i]);
	qsort(wanted, nwanted, sizeof(int64), compare_int64);

	present = samples_label_set_ids(data, len, &header);
	for (int64 i = 0; i < header.nlabels; i++)
		if (is_wanted(present[i], wanted, nwanted))
			npresent_wanted++;
	if (npresent_wanted == 0)
		PG_RETURN_POINTER(samples_encode(NULL, 0));

	stream = samples_stream_begin(data, len, &header);
	if (npresent_wanted == header.nlabels && samples_stream_all_labelled(stream))
	{
		struct varlena *whole = palloc(VARHDRSZ + len);

		SET_VARSIZE(whole, VARHDRSZ + len);
		memcpy(VARDATA(whole), data, len);
		samples_stream_end(stream);
		PG_RETURN_POINTER(whole);
	}
	kept = palloc(sizeof(Sample) * capacity);
	while (samples_stream_next(stream, &sample))
	{
		if (!sample.has_labels || !is_wanted(sample.labels_id, wanted, nwanted))
			continue;
		if (nkept == capacity)
		{
			capacity *= 2;
			kept = repalloc_huge(kept, sizeof(Sample) * capacity);
		}
		kept[nkept++] = sample;
	}
	samples_stream_end(stream);
	PG_RETURN_POINTER(samples_encode(kept, nkept));
}

/*
 * sample_of(stack_id, weight, ts, labels_id): the value of one sample, a
 * NULL time or label set being none; the view calltree.sample reads a row
 * of sample_row through it, as a set of one.
 */
Datum
samples_of_one(PG_FUNCTION_ARGS)
{
	Sample		sample;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	sample.stack_id = PG_GETARG_INT64(0);
	sample.weight = PG_GETARG_INT64(1);
	sample.has_ts = !PG_ARGISNULL(2);
	sample.ts = sample.has_ts ? PG_GETARG_INT64(2) : 0;
	sample.has_labels = !PG_ARGISNULL(3);
	sample.labels_id = sample.has_labels ? PG_GETARG_INT64(3) : 0;
	PG_RETURN_POINTER(samples_encode(&sample, 1));
}
