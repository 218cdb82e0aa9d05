/*
 * samples_io.c
 *	  Text and binary input and output of the samples type (samples.h).
 *
 * Text form: the samples in braces, each its stack id and weight, then its
 * time after @ and its label set id after # when it has them:
 *
 *		{3:10,3:10,7:-5#2,3:10@1500,9:1@2000#2}
 *
 * and {} for no sample.  Output lists the samples in the value's canonical
 * order (samples.h): those without a time first, by stack, label set and
 * weight, then the others in time order.  Input takes them in any order,
 * as the rows they stand for, with whitespace free around every token.
 *
 * Binary form: the packed bytes themselves, which receive checks as
 * strictly as the codec reads them.
 */
#include "postgres.h"

#include <ctype.h>

#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "tree/samples.h"

PG_FUNCTION_INFO_V1(samples_in);
PG_FUNCTION_INFO_V1(samples_out);
PG_FUNCTION_INFO_V1(samples_recv);
PG_FUNCTION_INFO_V1(samples_send);

#define SAMPLES_SYNTAX_HINT \
	"A samples value is written {stack_id:weight@ts#labels_id,...}, the time and label set optional, for example {3:10,5:2@1500#7}."

typedef struct TextParser
{
	const char *input;
	const char *pos;
} TextParser;

static int
position_of(const TextParser *parser, const char *at)
{
	return (int) (at - parser->input) + 1;
}

static pg_attribute_noreturn() void
syntax_error(const TextParser *parser, const char *expected)
{
	if (*parser->pos == '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("malformed samples: unexpected end of input at character %d",
						position_of(parser, parser->pos)),
				 errdetail("Expected %s.", expected),
				 errhint(SAMPLES_SYNTAX_HINT)));
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("malformed samples at character %d", position_of(parser, parser->pos)),
			 errdetail("Expected %s, found \"%c\".", expected, *parser->pos),
			 errhint(SAMPLES_SYNTAX_HINT)));
}

static void
skip_space(TextParser *parser)
{
	while (isspace((unsigned char) *parser->pos))
		parser->pos++;
}

static bool
accept(TextParser *parser, char c)
{
	skip_space(parser);
	if (*parser->pos != c)
		return false;
	parser->pos++;
	return true;
}

static void
expect(TextParser *parser, char c, const char *expected)
{
	if (!accept(parser, c))
		syntax_error(parser, expected);
}

/* A decimal bigint, optionally negative */
static int64
parse_int64(TextParser *parser, const char *what)
{
	const char *start;
	char	   *end;
	long long	value;

	skip_space(parser);
	start = parser->pos;
	if (!(isdigit((unsigned char) *start) || (*start == '-' && isdigit((unsigned char) start[1]))))
		syntax_error(parser, what);
	errno = 0;
	value = strtoll(start, &end, 10);
	if (errno == ERANGE)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("%s out of range in samples at character %d", what, position_of(parser, start)),
				 errdetail("Value \"%.*s\" does not fit in bigint.", (int) (end - start), start)));
	parser->pos = end;
	return (int64) value;
}

/* Growing array of the samples read so far */
typedef struct SampleList
{
	Sample	   *samples;
	int64		count;
	int64		capacity;
} SampleList;

static Sample *
next_sample(SampleList *list)
{
	if (list->count == list->capacity)
	{
		if (list->capacity >= SAMPLES_MAX)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("samples value has too many samples"),
					 errdetail("A samples value holds at most " INT64_FORMAT " samples.", SAMPLES_MAX)));
		list->capacity = Min(list->capacity * 2, SAMPLES_MAX);
		list->samples = repalloc_huge(list->samples, sizeof(Sample) * (Size) list->capacity);
	}
	return &list->samples[list->count++];
}

static void
parse_sample(TextParser *parser, Sample *sample)
{
	sample->stack_id = parse_int64(parser, "stack id");
	expect(parser, ':', "\":\" and a weight");
	sample->weight = parse_int64(parser, "weight");
	sample->has_ts = accept(parser, '@');
	sample->ts = sample->has_ts ? parse_int64(parser, "time") : 0;
	sample->has_labels = accept(parser, '#');
	sample->labels_id = sample->has_labels ? parse_int64(parser, "label set id") : 0;
}

static void
parse_samples(TextParser *parser, SampleList *list)
{
	expect(parser, '{', "\"{\"");
	if (accept(parser, '}'))
		return;
	do
	{
		if ((list->count & 0xFFFF) == 0)
			CHECK_FOR_INTERRUPTS();
		parse_sample(parser, next_sample(list));
	} while (accept(parser, ','));
	expect(parser, '}', "\",\", \"@\", \"#\" or the final \"}\"");
	skip_space(parser);
	if (*parser->pos != '\0')
		syntax_error(parser, "end of input after the final \"}\"");
}

Datum
samples_in(PG_FUNCTION_ARGS)
{
	char	   *str = PG_GETARG_CSTRING(0);
	TextParser	parser = {str, str};
	SampleList	list;

	list.capacity = 64;
	list.count = 0;
	list.samples = palloc(sizeof(Sample) * list.capacity);
	parse_samples(&parser, &list);
	PG_RETURN_POINTER(samples_encode(list.samples, list.count));
}

static void
append_int64(StringInfo buf, int64 value)
{
	char		number[MAXINT8LEN + 1];

	appendBinaryStringInfo(buf, number, pg_lltoa(value, number));
}

/*
 * The text form, written as the samples are read one at a time: the
 * memory is the text and the dictionaries, not the samples unpacked.
 */
Datum
samples_out(PG_FUNCTION_ARGS)
{
	struct varlena *value = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	SamplesHeader header;
	SamplesStream *stream = samples_stream_begin((const uint8 *) VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value), &header);
	Sample		sample;
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoChar(&buf, '{');
	while (samples_stream_next(stream, &sample))
	{
		if (buf.len > 1)
			appendStringInfoChar(&buf, ',');
		append_int64(&buf, sample.stack_id);
		appendStringInfoChar(&buf, ':');
		append_int64(&buf, sample.weight);
		if (sample.has_ts)
		{
			appendStringInfoChar(&buf, '@');
			append_int64(&buf, sample.ts);
		}
		if (sample.has_labels)
		{
			appendStringInfoChar(&buf, '#');
			append_int64(&buf, sample.labels_id);
		}
	}
	appendStringInfoChar(&buf, '}');
	samples_stream_end(stream);
	PG_RETURN_CSTRING(buf.data);
}

/* The packed bytes, checked: every byte of the message is the value */
Datum
samples_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	int			len = buf->len - buf->cursor;
	const char *bytes = pq_getmsgbytes(buf, len);
	struct varlena *value;
	SamplesHeader header;

	/* checked without unpacking: a few bytes may hold millions of samples */
	samples_check((const uint8 *) bytes, (Size) len, &header);
	value = palloc(VARHDRSZ + len);
	SET_VARSIZE(value, VARHDRSZ + len);
	memcpy(VARDATA(value), bytes, len);
	PG_RETURN_POINTER(value);
}

Datum
samples_send(PG_FUNCTION_ARGS)
{
	struct varlena *value = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendbytes(&buf, VARDATA_ANY(value), VARSIZE_ANY_EXHDR(value));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}
