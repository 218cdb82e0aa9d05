/*
 * json_reader.c
 *	  Reading JSON profile formats with PostgreSQL's JSON parser and jsonb.
 *
 * Why jsonb and not the streaming parser (common/jsonapi.h) with semantic
 * actions: neither format fixes the order of its members.  A .cpuprofile
 * may put "samples" before "nodes", and speedscope files usually put
 * "shared.frames" after the "profiles" that refer to them.  A streaming
 * reader would have to buffer the document anyway; jsonb is that buffer,
 * compact, with binary-searched keys and O(1) array access, and the walk
 * over it reads like the format's specification.  The readers of other
 * JSON formats (Firefox's) use the helpers at the end, which look without
 * judging and leave the errors to the reader.
 *
 * jsonb_in's own syntax errors say neither which format was being read nor
 * where, so the text first goes through pg_parse_json with the null
 * semantic actions (the same lexer jsonb_in uses, so nothing that passes
 * can fail there for syntax): a syntax error names the format, the byte
 * offset and the line.
 */
#include "postgres.h"

#include <limits.h>
#include <math.h>

#include "common/int.h"
#include "common/jsonapi.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/memutils.h"

#include "formats/json_reader.h"

char *
json_path_string(const JsonPath *path)
{
	StringInfoData buf;
	const JsonPath *chain[64];
	int			depth = 0;
	bool		elided = false;

	/* the innermost 64 steps; deeper ones (nested old-style nodes) are "..." */
	for (const JsonPath *p = path; p != NULL && p->parent != NULL; p = p->parent)
	{
		if (depth < lengthof(chain))
			chain[depth++] = p;
		else
			elided = true;
	}
	initStringInfo(&buf);
	appendStringInfoString(&buf, elided ? "$..." : "$");
	while (depth-- > 0)
	{
		if (chain[depth]->key)
			appendStringInfo(&buf, ".%s", chain[depth]->key);
		else
			appendStringInfo(&buf, "[%d]", chain[depth]->index);
	}
	return buf.data;
}

const char *
json_value_type_name(const JsonbValue *value)
{
	switch (value->type)
	{
		case jbvNull:
			return "null";
		case jbvString:
			return "a string";
		case jbvNumeric:
			return "a number";
		case jbvBool:
			return "a boolean";
		case jbvArray:
			return "an array";
		case jbvObject:
			return "an object";
		case jbvBinary:
			return JsonContainerIsArray(value->val.binary.data) &&
				!JsonContainerIsScalar(value->val.binary.data) ? "an array" : "an object";
		default:
			return "an unknown JSON value";
	}
}

void
json_type_error(const JsonFormat *format, const JsonPath *path, const char *expected,
		   const JsonbValue *found)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s member %s is not %s", format->name, json_path_string(path), expected),
			 errdetail("Found %s.", found ? json_value_type_name(found) : "nothing: the member is missing"),
			 errhint("%s", format->hint)));
}

static void
missing_error(const JsonFormat *format, const JsonPath *path, const char *expected)
{
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("%s member %s is missing", format->name, json_path_string(path)),
			 errdetail("Expected %s.", expected),
			 errhint("%s", format->hint)));
}

/* Names the format in the CONTEXT of any error raised while building jsonb */
static void
reading_callback(void *arg)
{
	errcontext("reading %s JSON", ((const JsonFormat *) arg)->name);
}

/*
 * What jsonb_in would build for a document, counted while its syntax is
 * checked.  jsonb_in keeps every value in a tree of JsonbValues (32 bytes
 * each, in arrays that double as they grow) and every member in a
 * JsonbPair (72 bytes), with its scalars allocated one by one, before it
 * packs them into the jsonb; the importers then walk the jsonb and keep
 * arrays of their own per element.  Measured on arrays of numbers and of
 * small objects, the whole costs up to about 240 bytes per value, and
 * again as much per member; the text itself is held twice.
 */
#define JSON_VALUE_BYTES 256
#define JSON_MEMBER_BYTES 256

typedef struct JsonCount
{
	int64		values;
	int64		members;
} JsonCount;

static void
count_element(void *state, bool isnull)
{
	((JsonCount *) state)->values++;
}

static void
count_member(void *state, char *fname, bool isnull)
{
	JsonCount  *count = (JsonCount *) state;

	count->values++;
	count->members++;
	/* the parser copies each member's name for this callback */
	if (fname)
		pfree(fname);
}

/* What the parser was reading when it raised an error of its own */
typedef struct JsonParseSite
{
	const JsonLexContext *lex;
	const char *format_name;
} JsonParseSite;

/*
 * The parser reports syntax errors by its result, but raises some errors
 * itself: "stack depth limit exceeded" for arrays and objects nested too
 * deep.  These get the file and the place as their context.
 */
static void
json_parse_error_context(void *arg)
{
	const JsonParseSite *site = (const JsonParseSite *) arg;

	errcontext("reading the %s file as JSON, at byte offset %d (line %d)", site->format_name,
			   json_error_offset(site->lex, site->lex->input), site->lex->line_number);
}

JsonParseErrorType
json_parse_within_limit(JsonLexContext *lex, const char *format_name, int work_mem_kb)
{
	JsonCount	count = {1, 0};
	JsonSemAction actions = {0};
	JsonParseErrorType result;
	double		bytes;
	int			len = lex->input_length;
	JsonParseSite site = {lex, format_name};
	ErrorContextCallback callback = {error_context_stack, json_parse_error_context, &site};

	actions.semstate = &count;
	actions.array_element_start = count_element;
	actions.object_field_start = count_member;
	error_context_stack = &callback;
	result = pg_parse_json(lex, &actions);
	error_context_stack = callback.previous;
	if (result != JSON_SUCCESS)
		return result;
	bytes = (double) count.values * JSON_VALUE_BYTES + (double) count.members * JSON_MEMBER_BYTES +
		2.0 * len;
	if (bytes > (double) work_mem_kb * 1024)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("%s file is too large to import within calltree.import_work_mem", format_name),
				 errdetail("Its " INT64_FORMAT " JSON values in %d bytes would take about %.0f MB of memory to read; calltree.import_work_mem is %d kB.",
						   count.values, len, bytes / (1024 * 1024), work_mem_kb),
				 errhint("Raise calltree.import_work_mem to at least %.0f MB for this file, or split the profile.",
						 ceil(bytes / (1024 * 1024)))));
	return result;
}

int
json_error_offset(const JsonLexContext *lex, const char *text)
{
	const char *at = lex->token_start ? lex->token_start : lex->prev_token_terminator;

	if (at == NULL || at < text)
		at = text;
	return (int) (at - text);
}

static void
check_syntax(const JsonFormat *format, char *text, int len, int work_mem_kb)
{
	JsonLexContext *lex = makeJsonLexContextCstringLen(text, len, GetDatabaseEncoding(), true);
	JsonParseErrorType result = json_parse_within_limit(lex, format->name, work_mem_kb);

	if (result == JSON_SUCCESS)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid %s file: malformed JSON at byte offset %d (line %d)",
					format->name, json_error_offset(lex, text), lex->line_number),
			 errdetail("%s", json_errdetail(result, lex)),
			 errhint("The file may be truncated or not be JSON. %s", format->hint)));
}

JsonbContainer *
json_read_document(const JsonFormat *format, const char *data, int len, int work_mem_kb)
{
	JsonbContainer *root = json_read_container(format, data, len, work_mem_kb);

	if (!JsonContainerIsObject(root))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid %s file: the document is not a JSON object", format->name),
				 errhint("%s", format->hint)));
	return root;
}

JsonbContainer *
json_read_container(const JsonFormat *format, const char *data, int len, int work_mem_kb)
{
	char	   *text = pnstrdup(data, len);
	ErrorContextCallback callback;
	Jsonb	   *document;

	if (len == 0 || strlen(text) != (size_t) len)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid %s file: %s", format->name,
						len == 0 ? "the input is empty" : "the input holds a zero byte"),
				 errhint("%s", format->hint)));
	check_syntax(format, text, len, work_mem_kb);

	callback.callback = reading_callback;
	callback.arg = (void *) format;
	callback.previous = error_context_stack;
	error_context_stack = &callback;
	document = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
	error_context_stack = callback.previous;
	pfree(text);

	return &document->root;
}

bool
json_member(JsonbContainer *object, const char *key, JsonbValue *value)
{
	JsonbValue	probe;
	JsonbValue *found;

	probe.type = jbvString;
	probe.val.string.val = (char *) key;
	probe.val.string.len = strlen(key);
	found = findJsonbValueFromContainer(object, JB_FOBJECT, &probe);
	if (found == NULL || found->type == jbvNull)
		return false;
	*value = *found;
	pfree(found);
	return true;
}

JsonbContainer *
json_as_container(const JsonFormat *format, const JsonbValue *value, bool array,
				  const JsonPath *path)
{
	JsonbContainer *container;

	if (value->type != jbvBinary)
		json_type_error(format, path, array ? "an array" : "an object", value);
	container = value->val.binary.data;
	if (array ? !JsonContainerIsArray(container) : !JsonContainerIsObject(container))
		json_type_error(format, path, array ? "an array" : "an object", value);
	return container;
}

Numeric
json_as_number(const JsonFormat *format, const JsonbValue *value, const JsonPath *path)
{
	if (value->type != jbvNumeric)
		json_type_error(format, path, "a number", value);
	return value->val.numeric;
}

static JsonbContainer *
required_container(const JsonFormat *format, JsonbContainer *object, const char *key,
				   const JsonPath *parent, bool array)
{
	JsonPath	path = JSON_KEY(parent, key);
	JsonbValue	value;

	if (!json_member(object, key, &value))
		missing_error(format, &path, array ? "an array" : "an object");
	return json_as_container(format, &value, array, &path);
}

JsonbContainer *
json_required_array(const JsonFormat *format, JsonbContainer *object, const char *key,
					const JsonPath *path)
{
	return required_container(format, object, key, path, true);
}

JsonbContainer *
json_required_object(const JsonFormat *format, JsonbContainer *object, const char *key,
					 const JsonPath *path)
{
	return required_container(format, object, key, path, false);
}

char *
json_optional_string(const JsonFormat *format, JsonbContainer *object, const char *key,
					 const JsonPath *parent)
{
	JsonPath	path = JSON_KEY(parent, key);
	JsonbValue	value;

	if (!json_member(object, key, &value))
		return NULL;
	if (value.type != jbvString)
		json_type_error(format, &path, "a string", &value);
	return pnstrdup(value.val.string.val, value.val.string.len);
}

char *
json_required_string(const JsonFormat *format, JsonbContainer *object, const char *key,
					 const JsonPath *parent)
{
	char	   *s = json_optional_string(format, object, key, parent);
	JsonPath	path = JSON_KEY(parent, key);

	if (s == NULL)
		missing_error(format, &path, "a string");
	return s;
}

Numeric
json_required_number(const JsonFormat *format, JsonbContainer *object, const char *key,
					 const JsonPath *parent)
{
	JsonPath	path = JSON_KEY(parent, key);
	JsonbValue	value;

	if (!json_member(object, key, &value))
		missing_error(format, &path, "a number");
	return json_as_number(format, &value, &path);
}

int
json_length(JsonbContainer *array)
{
	return JsonContainerSize(array);
}

void
json_element(JsonbContainer *array, int index, JsonbValue *value)
{
	JsonbValue *found = getIthJsonbValueFromContainer(array, index);

	Assert(found != NULL);
	*value = *found;
	pfree(found);
}

static void
range_error(const JsonFormat *format, Numeric number, const JsonPath *path, const char *expected)
{
	char	   *shown = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(number)));

	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("%s member %s is out of range", format->name, json_path_string(path)),
			 errdetail("Found %.60s%s; expected %s.", shown, strlen(shown) > 60 ? "..." : "", expected),
			 errhint("%s", format->hint)));
}

/* 10^30, made once per backend */
static Numeric
numeric_limit(void)
{
	static Numeric limit = NULL;

	if (limit == NULL)
	{
		Numeric		value = DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum("1e30"),
																ObjectIdGetDatum(InvalidOid),
																Int32GetDatum(-1)));

		limit = MemoryContextAlloc(TopMemoryContext, VARSIZE(value));
		memcpy(limit, value, VARSIZE(value));
	}
	return limit;
}

/*
 * Rounds number * scale in numeric arithmetic (exact, and round() on
 * numeric rounds half away from zero), then reads the digits.
 */
int64
json_scaled_int64(const JsonFormat *format, Numeric number, int64 scale, bool allow_negative,
				  const JsonPath *path)
{
	Numeric		scaled;
	char	   *digits;
	char	   *end;
	long long	result;
	bool		error = false;

	if (numeric_is_nan(number) || numeric_is_inf(number))
		range_error(format, number, path, "a finite number");
	/*
	 * Beyond 10^30 the result cannot fit in an int64 whatever the scale (at
	 * most 10^9): do not multiply numbers like 1e100000.
	 */
	if (DatumGetInt32(DirectFunctionCall2(numeric_cmp,
										  DirectFunctionCall1(numeric_abs, NumericGetDatum(number)),
										  NumericGetDatum(numeric_limit()))) > 0)
		range_error(format, number, path, "a 64-bit integer");
	scaled = numeric_mul_opt_error(number, int64_to_numeric(scale), &error);
	if (error)
		range_error(format, number, path, "a 64-bit integer");
	scaled = DatumGetNumeric(DirectFunctionCall2(numeric_round, NumericGetDatum(scaled), Int32GetDatum(0)));
	digits = DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(scaled)));
	errno = 0;
	result = strtoll(digits, &end, 10);
	if (errno == ERANGE || *end != '\0')
		range_error(format, number, path, "a 64-bit integer");
	if (result < 0 && !allow_negative)
		range_error(format, number, path, "a non-negative number");
	return (int64) result;
}

int64
json_integer(const JsonFormat *format, Numeric number, int64 min, int64 max, const JsonPath *path)
{
	int64		value;
	char		expected[128];

	snprintf(expected, sizeof(expected), "an integer from " INT64_FORMAT " to " INT64_FORMAT, min, max);
	value = json_scaled_int64(format, number, 1, true, path);
	if (value < min || value > max ||
		!DatumGetBool(DirectFunctionCall2(numeric_eq, NumericGetDatum(number),
										  NumericGetDatum(int64_to_numeric(value)))))
		range_error(format, number, path, expected);
	return value;
}

JsonbValue *
json_find_member(JsonbContainer *object, const char *key)
{
	JsonbValue	probe;

	if (object == NULL || !JsonContainerIsObject(object))
		return NULL;
	probe.type = jbvString;
	probe.val.string.val = (char *) key;
	probe.val.string.len = strlen(key);
	return findJsonbValueFromContainer(object, JB_FOBJECT, &probe);
}

bool
json_is_container(const JsonbValue *value, bool array)
{
	return value != NULL && value->type == jbvBinary &&
		(array ? JsonContainerIsArray(value->val.binary.data) :
		 JsonContainerIsObject(value->val.binary.data));
}

JsonbContainer *
json_optional_container(JsonbContainer *object, const char *key, bool array)
{
	JsonbValue *value = json_find_member(object, key);

	return json_is_container(value, array) ? value->val.binary.data : NULL;
}

double
json_float8(const JsonbValue *value)
{
	return DatumGetFloat8(DirectFunctionCall1(numeric_float8_no_overflow,
											  NumericGetDatum(value->val.numeric)));
}

double
json_optional_float8(JsonbContainer *object, const char *key)
{
	JsonbValue *value = json_find_member(object, key);

	return value && value->type == jbvNumeric ? json_float8(value) : NAN;
}

Jsonb *
json_text_to_jsonb(char *text, MemoryContext cxt, const char *what, const char *hint)
{
	Jsonb	   *jb = NULL;

	PG_TRY();
	{
		jb = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(cxt);
		edata = CopyErrorData();
		if (ERRCODE_TO_CATEGORY(edata->sqlerrcode) != ERRCODE_DATA_EXCEPTION)
			PG_RE_THROW();		/* out of memory, a cancel: not ours to rename */
		FlushErrorState();
		ereport(ERROR,
				(errcode(edata->sqlerrcode),
				 errmsg("%s: %s", what, edata->message),
				 edata->detail ? errdetail_internal("%s", edata->detail) : 0,
				 errhint("%s", hint)));
	}
	PG_END_TRY();
	return jb;
}
