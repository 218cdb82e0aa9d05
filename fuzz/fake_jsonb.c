/*
 * fake_jsonb.c
 *	  jsonb_in and the jsonb readers that the JSON importers use, over a tree
 *	  that the harnesses build with libpgcommon's JSON parser.
 *
 * The importers never look inside a JsonbContainer beyond its header word
 * (JsonContainerSize, JsonContainerIsObject/IsArray/IsScalar): they read
 * it through findJsonbValueFromContainer, getKeyJsonValueFromContainer,
 * getIthJsonbValueFromContainer and the JsonbIterator.  So a container
 * here is the real header word followed by a pointer to a node of the
 * tree, and those functions walk the tree.  What the importers can tell is
 * as jsonb_util.c does it: an object's keys are unique (the last of
 * repeated keys wins) and ordered by length, then bytes; a scalar document
 * is a one-element array marked scalar; asking an object for its i-th
 * element is elog's internal error; strings are not NUL-terminated (each
 * is a chunk of exactly its length, so reading past it is an overrun that
 * AddressSanitizer reports).  Numbers are fake_numeric.c's.
 */
#include "postgres.h"

#include "common/jsonapi.h"
#include "mb/pg_wchar.h"
#include "utils/fmgrprotos.h"
#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "pg_stubs.h"

typedef struct JsonNode
{
	enum jbvType type;			/* jbvNull, jbvString, jbvNumeric, jbvBool, jbvArray, jbvObject */
	char	   *string;			/* jbvString: its bytes, not NUL-terminated */
	int			length;
	Numeric		numeric;
	bool		boolean;
	/* jbvArray: elements; jbvObject: keys (string nodes) and values */
	int			count;
	int			capacity;
	struct JsonNode **keys;
	struct JsonNode **values;
	struct JsonNode *parent;	/* while building */
	JsonbContainer *container;	/* arrays and objects, once complete */
} JsonNode;

/* The header word, then the node (unaligned: copied in and out) */
#define CONTAINER_BYTES (sizeof(uint32) + sizeof(JsonNode *))

static JsonNode *
node_of(const JsonbContainer *container)
{
	JsonNode   *node;

	memcpy(&node, (const char *) container + sizeof(uint32), sizeof(node));
	return node;
}

static void
container_init(JsonbContainer *container, JsonNode *node, bool raw_scalar)
{
	uint32		header = (uint32) node->count |
		(node->type == jbvObject ? JB_FOBJECT : JB_FARRAY) | (raw_scalar ? JB_FSCALAR : 0);

	memcpy(container, &header, sizeof(header));
	memcpy((char *) container + sizeof(uint32), &node, sizeof(node));
	node->container = container;
}

/* ---------------------------------------------------------------- errors */

/* The token the lexer stopped at */
static char *
extract_token(JsonLexContext *lex)
{
	int			len = lex->token_terminator - lex->token_start;
	char	   *token = palloc(len + 1);

	memcpy(token, lex->token_start, len);
	token[len] = '\0';
	return token;
}

/*
 * The detail of a syntax error, as jsonapi.c words it: the frontend
 * libpgcommon leaves this function out.
 */
char *
json_errdetail(JsonParseErrorType error, JsonLexContext *lex)
{
	switch (error)
	{
		case JSON_SUCCESS:
			break;
		case JSON_ESCAPING_INVALID:
			return psprintf("Escape sequence \"\\%s\" is invalid.", extract_token(lex));
		case JSON_ESCAPING_REQUIRED:
			return psprintf("Character with value 0x%02x must be escaped.",
							(unsigned char) *(lex->token_terminator));
		case JSON_EXPECTED_END:
			return psprintf("Expected end of input, but found \"%s\".", extract_token(lex));
		case JSON_EXPECTED_ARRAY_FIRST:
			return psprintf("Expected array element or \"]\", but found \"%s\".", extract_token(lex));
		case JSON_EXPECTED_ARRAY_NEXT:
			return psprintf("Expected \",\" or \"]\", but found \"%s\".", extract_token(lex));
		case JSON_EXPECTED_COLON:
			return psprintf("Expected \":\", but found \"%s\".", extract_token(lex));
		case JSON_EXPECTED_JSON:
			return psprintf("Expected JSON value, but found \"%s\".", extract_token(lex));
		case JSON_EXPECTED_MORE:
			return "The input string ended unexpectedly.";
		case JSON_EXPECTED_OBJECT_FIRST:
			return psprintf("Expected string or \"}\", but found \"%s\".", extract_token(lex));
		case JSON_EXPECTED_OBJECT_NEXT:
			return psprintf("Expected \",\" or \"}\", but found \"%s\".", extract_token(lex));
		case JSON_EXPECTED_STRING:
			return psprintf("Expected string, but found \"%s\".", extract_token(lex));
		case JSON_INVALID_TOKEN:
			return psprintf("Token \"%s\" is invalid.", extract_token(lex));
		case JSON_UNICODE_CODE_POINT_ZERO:
			return "\\u0000 cannot be converted to text.";
		case JSON_UNICODE_ESCAPE_FORMAT:
			return "\"\\u\" must be followed by four hexadecimal digits.";
		case JSON_UNICODE_HIGH_ESCAPE:
			return "Unicode escape values cannot be used for code point values above 007F when the encoding is not UTF8.";
		case JSON_UNICODE_HIGH_SURROGATE:
			return "Unicode high surrogate must not follow a high surrogate.";
		case JSON_UNICODE_LOW_SURROGATE:
			return "Unicode low surrogate must follow a high surrogate.";
	}
	elog(ERROR, "unexpected json parse error type: %d", (int) error);
	return NULL;
}

/* ---------------------------------------------------------------- building */

typedef struct BuildState
{
	JsonNode   *current;		/* the open array or object */
	JsonNode   *root;
	char	   *key;			/* the member name waiting for its value */
} BuildState;

static void
node_append(JsonNode *parent, JsonNode *key, JsonNode *value)
{
	if (parent->count == parent->capacity)
	{
		parent->capacity = parent->capacity ? 2 * parent->capacity : 4;
		parent->values = parent->values ? repalloc(parent->values, parent->capacity * sizeof(JsonNode *))
			: palloc(parent->capacity * sizeof(JsonNode *));
		if (parent->type == jbvObject)
			parent->keys = parent->keys ? repalloc(parent->keys, parent->capacity * sizeof(JsonNode *))
				: palloc(parent->capacity * sizeof(JsonNode *));
	}
	if (parent->type == jbvObject)
		parent->keys[parent->count] = key;
	parent->values[parent->count++] = value;
}

static JsonNode *
string_node(const char *s)
{
	JsonNode   *node = palloc0(sizeof(JsonNode));

	node->type = jbvString;
	node->length = strlen(s);
	node->string = palloc(node->length);
	memcpy(node->string, s, node->length);
	return node;
}

/* A complete value: the root, an element of the open array or the value of the waiting key */
static void
attach(BuildState *state, JsonNode *node)
{
	JsonNode   *parent = state->current;

	if (parent == NULL)
		state->root = node;
	else if (parent->type == jbvArray)
		node_append(parent, NULL, node);
	else
	{
		node_append(parent, string_node(state->key), node);
		pfree(state->key);
		state->key = NULL;
	}
}

static void
open_container(BuildState *state, enum jbvType type)
{
	JsonNode   *node = palloc0(sizeof(JsonNode));

	node->type = type;
	attach(state, node);
	node->parent = state->current;
	state->current = node;
}

static void
object_start(void *arg)
{
	open_container(arg, jbvObject);
}

static void
array_start(void *arg)
{
	open_container(arg, jbvArray);
}

/* jsonb's order of keys: length, then bytes; of equal keys, the later first */
static int
compare_members(const void *a, const void *b, void *arg)
{
	const JsonNode *object = arg;
	int			i = *(const int *) a;
	int			j = *(const int *) b;
	const JsonNode *ki = object->keys[i];
	const JsonNode *kj = object->keys[j];
	int			c;

	if (ki->length != kj->length)
		return ki->length < kj->length ? -1 : 1;
	c = memcmp(ki->string, kj->string, ki->length);
	if (c != 0)
		return c;
	return i > j ? -1 : (i < j ? 1 : 0);
}

/* Sorts an object's members as jsonb does and keeps the last of repeated keys */
static void
uniqueify(JsonNode *object)
{
	int		   *order;
	JsonNode  **keys;
	JsonNode  **values;
	int			n = 0;

	if (object->count == 0)
		return;
	order = palloc(object->count * sizeof(int));
	for (int i = 0; i < object->count; i++)
		order[i] = i;
	qsort_arg(order, object->count, sizeof(int), compare_members, object);
	keys = palloc(object->count * sizeof(JsonNode *));
	values = palloc(object->count * sizeof(JsonNode *));
	for (int i = 0; i < object->count; i++)
	{
		JsonNode   *key = object->keys[order[i]];

		if (n > 0 && keys[n - 1]->length == key->length &&
			memcmp(keys[n - 1]->string, key->string, key->length) == 0)
			continue;
		keys[n] = key;
		values[n++] = object->values[order[i]];
	}
	object->keys = keys;
	object->values = values;
	object->count = n;
}

static void
close_container(BuildState *state)
{
	JsonNode   *node = state->current;

	if (node->type == jbvObject)
		uniqueify(node);
	container_init(palloc(CONTAINER_BYTES), node, false);
	state->current = node->parent;
}

static void
container_end(void *arg)
{
	close_container(arg);
}

static void
field_start(void *arg, char *fname, bool isnull)
{
	((BuildState *) arg)->key = fname;
}

static void
scalar(void *arg, char *token, JsonTokenType type)
{
	JsonNode   *node;

	if (type == JSON_TOKEN_STRING)
		node = string_node(token);
	else
	{
		node = palloc0(sizeof(JsonNode));
		switch (type)
		{
			case JSON_TOKEN_NUMBER:
				node->type = jbvNumeric;
				node->numeric = DatumGetNumeric(DirectFunctionCall3(numeric_in, CStringGetDatum(token),
																	ObjectIdGetDatum(InvalidOid),
																	Int32GetDatum(-1)));
				break;
			case JSON_TOKEN_TRUE:
			case JSON_TOKEN_FALSE:
				node->type = jbvBool;
				node->boolean = type == JSON_TOKEN_TRUE;
				break;
			default:
				node->type = jbvNull;
				break;
		}
	}
	if (token)
		pfree(token);
	attach(arg, node);
}

/* jsonb_in: the errors of the backend's JSON parser (json_ereport_error), then the tree */
Datum
jsonb_in(PG_FUNCTION_ARGS)
{
	char	   *text = PG_GETARG_CSTRING(0);
	JsonLexContext *lex = makeJsonLexContextCstringLen(text, strlen(text), GetDatabaseEncoding(), true);
	BuildState	state = {0};
	JsonSemAction actions = {0};
	JsonParseErrorType result;
	JsonNode   *root;
	JsonNode   *wrapper = NULL;
	Jsonb	   *jsonb;

	actions.semstate = &state;
	actions.object_start = object_start;
	actions.object_end = container_end;
	actions.array_start = array_start;
	actions.array_end = container_end;
	actions.object_field_start = field_start;
	actions.scalar = scalar;
	result = pg_parse_json(lex, &actions);
	if (result == JSON_UNICODE_HIGH_ESCAPE || result == JSON_UNICODE_CODE_POINT_ZERO)
		ereport(ERROR,
				(errcode(ERRCODE_UNTRANSLATABLE_CHARACTER),
				 errmsg("unsupported Unicode escape sequence"),
				 errdetail_internal("%s", json_errdetail(result, lex))));
	else if (result != JSON_SUCCESS)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s", "json"),
				 errdetail_internal("%s", json_errdetail(result, lex))));
	root = state.root;
	FUZZ_CHECK(root != NULL && state.current == NULL, "jsonb_in built no complete document");
	if (root->type != jbvArray && root->type != jbvObject)
	{
		/* a scalar document: a one-element array marked scalar */
		wrapper = palloc0(sizeof(JsonNode));
		wrapper->type = jbvArray;
		node_append(wrapper, NULL, root);
		root = wrapper;
	}
	jsonb = palloc(VARHDRSZ + CONTAINER_BYTES);
	SET_VARSIZE(jsonb, VARHDRSZ + CONTAINER_BYTES);
	container_init(&jsonb->root, root, wrapper != NULL);
	PG_RETURN_POINTER(jsonb);
}

/* ---------------------------------------------------------------- reading */

static void
node_value(const JsonNode *node, JsonbValue *value)
{
	value->type = node->type;
	switch (node->type)
	{
		case jbvString:
			value->val.string.val = node->string;
			value->val.string.len = node->length;
			break;
		case jbvNumeric:
			value->val.numeric = node->numeric;
			break;
		case jbvBool:
			value->val.boolean = node->boolean;
			break;
		case jbvArray:
		case jbvObject:
			value->type = jbvBinary;
			value->val.binary.data = node->container;
			value->val.binary.len = CONTAINER_BYTES;
			break;
		default:
			break;
	}
}

static JsonbValue *
palloc_value(const JsonNode *node)
{
	JsonbValue *value = palloc(sizeof(JsonbValue));

	node_value(node, value);
	return value;
}

/* The index of key in an object, or -1: a binary search in jsonb's order */
static int
find_key(const JsonNode *object, const char *key, int len)
{
	int			low = 0;
	int			high = object->count;

	while (low < high)
	{
		int			middle = low + (high - low) / 2;
		const JsonNode *k = object->keys[middle];
		int			c = k->length != len ? (k->length < len ? -1 : 1) : memcmp(k->string, key, len);

		if (c == 0)
			return middle;
		if (c < 0)
			low = middle + 1;
		else
			high = middle;
	}
	return -1;
}

static bool
scalar_equal(const JsonNode *node, const JsonbValue *value)
{
	if (node->type != value->type)
		return false;
	switch (node->type)
	{
		case jbvNull:
			return true;
		case jbvString:
			return node->length == value->val.string.len &&
				memcmp(node->string, value->val.string.val, node->length) == 0;
		case jbvNumeric:
			return DatumGetBool(DirectFunctionCall2(numeric_eq, NumericGetDatum(node->numeric),
													NumericGetDatum(value->val.numeric)));
		case jbvBool:
			return node->boolean == value->val.boolean;
		default:
			return false;
	}
}

JsonbValue *
findJsonbValueFromContainer(JsonbContainer *container, uint32 flags, JsonbValue *key)
{
	JsonNode   *node = node_of(container);

	if ((flags & JB_FARRAY) && JsonContainerIsArray(container))
	{
		for (int i = 0; i < node->count; i++)
			if (scalar_equal(node->values[i], key))
				return palloc_value(node->values[i]);
	}
	else if ((flags & JB_FOBJECT) && JsonContainerIsObject(container))
	{
		int			i;

		FUZZ_CHECK(key->type == jbvString, "an object looked up by a key of type %d", (int) key->type);
		i = find_key(node, key->val.string.val, key->val.string.len);
		if (i >= 0)
			return palloc_value(node->values[i]);
	}
	return NULL;
}

JsonbValue *
getKeyJsonValueFromContainer(JsonbContainer *container, const char *keyVal, int keyLen,
							 JsonbValue *res)
{
	JsonNode   *node = node_of(container);
	int			i;

	FUZZ_CHECK(JsonContainerIsObject(container), "getKeyJsonValueFromContainer on an array");
	i = find_key(node, keyVal, keyLen);
	if (i < 0)
		return NULL;
	if (res == NULL)
		res = palloc(sizeof(JsonbValue));
	node_value(node->values[i], res);
	return res;
}

JsonbValue *
getIthJsonbValueFromContainer(JsonbContainer *container, uint32 i)
{
	JsonNode   *node = node_of(container);

	if (!JsonContainerIsArray(container))
		elog(ERROR, "not a jsonb array");
	if (i >= (uint32) node->count)
		return NULL;
	return palloc_value(node->values[i]);
}

/* ---------------------------------------------------------------- iterating */

static JsonbIterator *
iterator_of(JsonbContainer *container, JsonbIterator *parent)
{
	JsonbIterator *it = palloc0(sizeof(JsonbIterator));

	it->container = container;
	it->nElems = JsonContainerSize(container);
	it->isScalar = JsonContainerIsScalar(container);
	it->state = JsonContainerIsArray(container) ? JBI_ARRAY_START : JBI_OBJECT_START;
	it->parent = parent;
	return it;
}

JsonbIterator *
JsonbIteratorInit(JsonbContainer *container)
{
	return iterator_of(container, NULL);
}

static JsonbIterator *
free_and_get_parent(JsonbIterator *it)
{
	JsonbIterator *parent = it->parent;

	pfree(it);
	return parent;
}

/* As jsonb_util.c: nested containers are entered unless skipNested */
JsonbIteratorToken
JsonbIteratorNext(JsonbIterator **it, JsonbValue *val, bool skipNested)
{
	JsonNode   *node;

	if (*it == NULL)
		return WJB_DONE;
recurse:
	node = node_of((*it)->container);
	switch ((*it)->state)
	{
		case JBI_ARRAY_START:
			val->type = jbvArray;
			val->val.array.nElems = (*it)->nElems;
			val->val.array.rawScalar = (*it)->isScalar;
			(*it)->state = JBI_ARRAY_ELEM;
			return WJB_BEGIN_ARRAY;
		case JBI_ARRAY_ELEM:
			if ((*it)->curIndex >= (int) (*it)->nElems)
			{
				*it = free_and_get_parent(*it);
				return WJB_END_ARRAY;
			}
			node_value(node->values[(*it)->curIndex++], val);
			if (val->type == jbvBinary && !skipNested)
			{
				*it = iterator_of(val->val.binary.data, *it);
				goto recurse;
			}
			return WJB_ELEM;
		case JBI_OBJECT_START:
			val->type = jbvObject;
			val->val.object.nPairs = (*it)->nElems;
			(*it)->state = JBI_OBJECT_KEY;
			return WJB_BEGIN_OBJECT;
		case JBI_OBJECT_KEY:
			if ((*it)->curIndex >= (int) (*it)->nElems)
			{
				*it = free_and_get_parent(*it);
				return WJB_END_OBJECT;
			}
			node_value(node->keys[(*it)->curIndex], val);
			(*it)->state = JBI_OBJECT_VALUE;
			return WJB_KEY;
		case JBI_OBJECT_VALUE:
			(*it)->state = JBI_OBJECT_KEY;
			node_value(node->values[(*it)->curIndex++], val);
			if (val->type == jbvBinary && !skipNested)
			{
				*it = iterator_of(val->val.binary.data, *it);
				goto recurse;
			}
			return WJB_VALUE;
	}
	fuzz_fail(__FILE__, __LINE__, "a known iterator state", "state %d", (int) (*it)->state);
}
