/*
 * json_reader.h
 *	  Reading JSON profile formats (.cpuprofile, speedscope) with
 *	  PostgreSQL's own JSON machinery, with errors that name the format and
 *	  where in the document the problem is.
 *
 * A document is parsed once into a jsonb value and walked with
 * findJsonbValueFromContainer / getIthJsonbValueFromContainer.  Positions
 * inside the document are JsonPath chains that live on the C stack and are
 * only rendered ("$.nodes[12].callFrame.url") when an error is raised, so a
 * walk over a million elements costs nothing for them.
 */
#ifndef CALLTREE_JSON_READER_H
#define CALLTREE_JSON_READER_H

#include "postgres.h"

#include "common/jsonapi.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

/* What an error says about the format being read */
typedef struct JsonFormat
{
	const char *name;			/* "cpuprofile", "speedscope" */
	const char *hint;			/* the hint of every error */
} JsonFormat;

/* A position in a document: a key or an index below a parent position */
typedef struct JsonPath
{
	const struct JsonPath *parent;
	const char *key;			/* NULL: an array element */
	int			index;
} JsonPath;

#define JSON_ROOT			((JsonPath) {NULL, NULL, -1})
#define JSON_KEY(p, k)		((JsonPath) {(p), (k), -1})
#define JSON_INDEX(p, i)	((JsonPath) {(p), NULL, (i)})

extern char *json_path_string(const JsonPath *path);

/*
 * pg_parse_json, counting what reading the document into jsonb would take:
 * an error (program_limit_exceeded) if that exceeds work_mem_kb (the
 * caller's calltree.import_work_mem), before anything is built.
 */
extern JsonParseErrorType json_parse_within_limit(JsonLexContext *lex, const char *format_name,
												  int work_mem_kb);

/*
 * The document's root object; ERROR with a byte offset if it is not JSON,
 * or if reading it would take more than work_mem_kb.
 */
extern JsonbContainer *json_read_document(const JsonFormat *format, const char *data, int len,
										  int work_mem_kb);
/* The same for a root that may also be an array */
extern JsonbContainer *json_read_container(const JsonFormat *format, const char *data, int len,
										   int work_mem_kb);
/* Where the lexer stopped at a syntax error, as a byte offset into text */
extern int	json_error_offset(const JsonLexContext *lex, const char *text);

/*
 * jsonb_in of text whose syntax is already checked.  What jsonb refuses
 * beyond syntax (a number outside numeric's range, a \u0000 escape) is
 * still a data error of the file: raised again as "what: its message",
 * with its SQLSTATE, its detail and hint; other errors as they are.  cxt:
 * the caller's memory context, to copy the error into.
 */
extern Jsonb *json_text_to_jsonb(char *text, MemoryContext cxt, const char *what, const char *hint);

extern void json_type_error(const JsonFormat *format, const JsonPath *path, const char *expected,
							const JsonbValue *found);

/* Members of an object; missing members and JSON nulls are "absent". */
extern bool json_member(JsonbContainer *object, const char *key, JsonbValue *value);
extern JsonbContainer *json_required_array(const JsonFormat *format, JsonbContainer *object,
										   const char *key, const JsonPath *path);
extern JsonbContainer *json_required_object(const JsonFormat *format, JsonbContainer *object,
											const char *key, const JsonPath *path);
extern char *json_required_string(const JsonFormat *format, JsonbContainer *object,
								  const char *key, const JsonPath *path);
extern char *json_optional_string(const JsonFormat *format, JsonbContainer *object,
								  const char *key, const JsonPath *path);
extern Numeric json_required_number(const JsonFormat *format, JsonbContainer *object,
									const char *key, const JsonPath *path);

/* Array elements */
extern int	json_length(JsonbContainer *array);
extern void json_element(JsonbContainer *array, int index, JsonbValue *value);

/* Checks on values already fetched */
extern JsonbContainer *json_as_container(const JsonFormat *format, const JsonbValue *value,
										 bool array, const JsonPath *path);
extern Numeric json_as_number(const JsonFormat *format, const JsonbValue *value,
							  const JsonPath *path);

/*
 * A number times scale, rounded half away from zero, as an int64; ERROR if
 * it does not fit or, unless allow_negative, is negative.
 */
extern int64 json_scaled_int64(const JsonFormat *format, Numeric number, int64 scale,
							   bool allow_negative, const JsonPath *path);
/* A number that must be an integer in [min, max] */
extern int64 json_integer(const JsonFormat *format, Numeric number, int64 min, int64 max,
						  const JsonPath *path);

extern const char *json_value_type_name(const JsonbValue *value);

/*
 * Looking without judging, for readers that report problems their own way:
 * NULL (or NaN) where the member is missing or not of the type asked for.
 */
/* A member of an object, JSON null included; NULL if object is not an object */
extern JsonbValue *json_find_member(JsonbContainer *object, const char *key);
/* Whether value is an array (array) or an object (not array) */
extern bool json_is_container(const JsonbValue *value, bool array);
extern JsonbContainer *json_optional_container(JsonbContainer *object, const char *key, bool array);
/* A number as a double; beyond a double's range, infinite */
extern double json_float8(const JsonbValue *value);
extern double json_optional_float8(JsonbContainer *object, const char *key);

#endif							/* CALLTREE_JSON_READER_H */
