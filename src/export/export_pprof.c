/*
 * export_pprof.c
 *	  to_pprof(calltree, sample_type, unit): a call tree as a gzip-compressed
 *	  pprof profile (github.com/google/pprof, proto/profile.proto).
 *
 * A call tree is the multiset {func path -> self weight}, so the profile
 * has one sample per CallNode with self weight, its locations the node's
 * path leaf first, and one value of the given type and unit.  A leaf with
 * self weight 0 still gets a sample (of value 0), so that importing the
 * profile gives back the same tree, zero nodes included.
 *
 * Each func becomes one Function (name, filename) and one Location with a
 * single line, both with the same id; a func's resource becomes a Mapping
 * whose filename is the resource, which import_pprof() turns back into
 * the same resource.  Names come from calltree.func; a func id that is not
 * there is named "#<id>".
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "common/hashfn.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "tree/calltree.h"
#include "tree/path.h"
#include "formats/gzip.h"
#include "formats/pprof.h"

PG_FUNCTION_INFO_V1(calltree_to_pprof);

/* The string table: each distinct string once, "" at index 0 */
typedef struct StringEntry
{
	const char *key;
	uint32		hash;
	int64		index;
	char		status;
} StringEntry;

#define SH_PREFIX		strtab
#define SH_ELEMENT_TYPE StringEntry
#define SH_KEY_TYPE		const char *
#define SH_KEY			key
#define SH_HASH_KEY(tb, k)	hash_bytes((const unsigned char *) (k), strlen(k))
#define SH_EQUAL(tb, a, b)	(strcmp((a), (b)) == 0)
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a)	((a)->hash)
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

typedef struct StringTable
{
	strtab_hash *hash;
	StringInfoData encoded;		/* the string_table fields, in index order */
	int64		count;
} StringTable;

/* A func of the tree and what calltree.func says about it */
typedef struct ExportFunc
{
	int32		id;
	const char *name;
	const char *file;			/* NULL: none */
	const char *resource;		/* NULL: none */
	uint64		mapping_id;		/* 0: no resource */
} ExportFunc;

static void
string_table_init(StringTable *table)
{
	table->hash = strtab_create(CurrentMemoryContext, 256, NULL);
	initStringInfo(&table->encoded);
	table->count = 0;
}

static int64
string_index(StringTable *table, const char *s)
{
	bool		found;
	StringEntry *entry = strtab_insert(table->hash, s, &found);

	if (!found)
	{
		entry->index = table->count++;
		pb_put_bytes_field(&table->encoded, PPROF_PROFILE_STRING_TABLE, s, strlen(s));
	}
	return entry->index;
}

static int
compare_int32(const void *a, const void *b)
{
	int32		x = *(const int32 *) a;
	int32		y = *(const int32 *) b;

	return x < y ? -1 : x > y;
}

/* The distinct funcs of the tree, sorted by id. */
static ExportFunc *
distinct_funcs(const CallTree *tree, int *count)
{
	int32	   *ids = palloc(sizeof(int32) * Max(tree->nnodes, 1));
	ExportFunc *funcs;
	int			n = 0;

	memcpy(ids, calltree_func(tree), sizeof(int32) * tree->nnodes);
	qsort(ids, tree->nnodes, sizeof(int32), compare_int32);
	funcs = palloc_extended(sizeof(ExportFunc) * Max(tree->nnodes, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (int i = 0; i < tree->nnodes; i++)
		if (i == 0 || ids[i] != ids[i - 1])
			funcs[n++].id = ids[i];
	pfree(ids);
	*count = n;
	return funcs;
}

static int
find_func(const ExportFunc *funcs, int count, int32 id)
{
	int			lo = 0;
	int			hi = count - 1;

	while (lo <= hi)
	{
		int			mid = lo + (hi - lo) / 2;

		if (funcs[mid].id == id)
			return mid;
		if (funcs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	elog(ERROR, "func %d of the tree is missing from its func list", id);
	pg_unreachable();
}

static char *
copy_text_column(HeapTuple tuple, TupleDesc desc, int column, MemoryContext cxt)
{
	char	   *value = SPI_getvalue(tuple, desc, column);

	return value ? MemoryContextStrdup(cxt, value) : NULL;
}

/* Fills in names, files and resources from calltree.func; "#<id>" for the unknown. */
static void
lookup_funcs(ExportFunc *funcs, int count)
{
	MemoryContext cxt = CurrentMemoryContext;
	Datum	   *ids = palloc(sizeof(Datum) * Max(count, 1));
	Oid			argtypes[1] = {INT4ARRAYOID};
	Datum		values[1];

	for (int i = 0; i < count; i++)
		ids[i] = Int32GetDatum(funcs[i].id);
	values[0] = PointerGetDatum(construct_array(ids, count, INT4OID, sizeof(int32), true, TYPALIGN_INT));
	SPI_connect();
	if (SPI_execute_with_args("SELECT id, name, file, resource FROM calltree.func "
							  "WHERE id OPERATOR(pg_catalog.=) ANY ($1)",
							  1, argtypes, values, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "looking up the funcs of a tree failed");
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		HeapTuple	tuple = SPI_tuptable->vals[r];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		int			i = find_func(funcs, count, DatumGetInt32(SPI_getbinval(tuple, desc, 1, &isnull)));

		funcs[i].name = copy_text_column(tuple, desc, 2, cxt);
		funcs[i].file = copy_text_column(tuple, desc, 3, cxt);
		funcs[i].resource = copy_text_column(tuple, desc, 4, cxt);
	}
	SPI_finish();
	for (int i = 0; i < count; i++)
		if (funcs[i].name == NULL)
			funcs[i].name = psprintf("#%d", funcs[i].id);
}

/* One Mapping per distinct resource; sets each func's mapping_id. */
static void
put_mappings(StringInfo out, StringTable *strings, ExportFunc *funcs, int count)
{
	strtab_hash *ids = strtab_create(CurrentMemoryContext, 16, NULL);
	uint64		next_id = 1;
	StringInfoData message;

	initStringInfo(&message);
	for (int i = 0; i < count; i++)
	{
		bool		found;
		StringEntry *entry;

		if (funcs[i].resource == NULL)
			continue;
		entry = strtab_insert(ids, funcs[i].resource, &found);
		if (!found)
		{
			entry->index = (int64) next_id++;
			resetStringInfo(&message);
			pb_put_varint_field(&message, PPROF_MAPPING_ID, (uint64) entry->index);
			pb_put_varint_field(&message, PPROF_MAPPING_FILENAME, string_index(strings, funcs[i].resource));
			/* symbols are in the profile: keeps pprof from trying to symbolize */
			pb_put_varint_field(&message, PPROF_MAPPING_HAS_FUNCTIONS, 1);
			pb_put_bytes_field(out, PPROF_PROFILE_MAPPING, message.data, message.len);
		}
		funcs[i].mapping_id = (uint64) entry->index;
	}
	pfree(message.data);
}

/* Function and Location number i + 1 for each func i. */
static void
put_functions_and_locations(StringInfo out, StringTable *strings, const ExportFunc *funcs, int count)
{
	StringInfoData message;
	StringInfoData line;

	initStringInfo(&message);
	initStringInfo(&line);
	for (int i = 0; i < count; i++)
	{
		int64		name = string_index(strings, funcs[i].name);

		resetStringInfo(&message);
		pb_put_varint_field(&message, PPROF_FUNCTION_ID, i + 1);
		pb_put_varint_field(&message, PPROF_FUNCTION_NAME, name);
		pb_put_varint_field(&message, PPROF_FUNCTION_SYSTEM_NAME, name);
		if (funcs[i].file)
			pb_put_varint_field(&message, PPROF_FUNCTION_FILENAME, string_index(strings, funcs[i].file));
		pb_put_bytes_field(out, PPROF_PROFILE_FUNCTION, message.data, message.len);

		resetStringInfo(&line);
		pb_put_varint_field(&line, PPROF_LINE_FUNCTION_ID, i + 1);
		resetStringInfo(&message);
		pb_put_varint_field(&message, PPROF_LOCATION_ID, i + 1);
		if (funcs[i].mapping_id)
			pb_put_varint_field(&message, PPROF_LOCATION_MAPPING_ID, funcs[i].mapping_id);
		pb_put_bytes_field(&message, PPROF_LOCATION_LINE, line.data, line.len);
		pb_put_bytes_field(out, PPROF_PROFILE_LOCATION, message.data, message.len);
	}
	pfree(message.data);
	pfree(line.data);
}

/* One Sample per node with self weight (and per leaf), locations leaf first. */
static void
put_samples(StringInfo out, const CallTree *tree, const ExportFunc *funcs, int nfuncs)
{
	int32		n = tree->nnodes;
	const int64 *self = calltree_self(tree);
	const int32 *func = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	uint64	   *location = palloc(sizeof(uint64) * Max(n, 1));
	bool	   *has_children = palloc0(sizeof(bool) * Max(n, 1));
	uint64	   *path = palloc(sizeof(uint64) * Max(n, 1));
	StringInfoData message;

	for (int32 i = 0; i < n; i++)
	{
		location[i] = (uint64) find_func(funcs, nfuncs, func[i]) + 1;
		if (parent[i] >= 0)
			has_children[parent[i]] = true;
	}
	initStringInfo(&message);
	for (int32 i = 0; i < n; i++)
	{
		int			depth = 0;
		uint64		value = (uint64) self[i];

		if ((i & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (self[i] == 0 && has_children[i])
			continue;
		for (int32 j = i; j >= 0; j = parent[j])
			path[depth++] = location[j];
		resetStringInfo(&message);
		pb_put_packed_varints(&message, PPROF_SAMPLE_LOCATION_ID, path, depth);
		pb_put_packed_varints(&message, PPROF_SAMPLE_VALUE, &value, 1);
		pb_put_bytes_field(out, PPROF_PROFILE_SAMPLE, message.data, message.len);
	}
	pfree(message.data);
	pfree(path);
	pfree(has_children);
	pfree(location);
}

/* to_pprof(tree calltree, sample_type text, unit text) → bytea */
Datum
calltree_to_pprof(PG_FUNCTION_ARGS)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);
	char	   *sample_type = text_to_cstring(PG_GETARG_TEXT_PP(1));
	char	   *unit = text_to_cstring(PG_GETARG_TEXT_PP(2));
	StringTable strings;
	StringInfoData profile;
	StringInfoData value_type;
	StringInfoData compressed;
	ExportFunc *funcs;
	int			nfuncs;
	bytea	   *result;

	calltree_check_path_elements("to_pprof()",
								 calltree_path_elements(tree, calltree_depths(tree), true));
	string_table_init(&strings);
	(void) string_index(&strings, "");
	initStringInfo(&profile);
	initStringInfo(&value_type);
	pb_put_varint_field(&value_type, PPROF_VALUETYPE_TYPE, string_index(&strings, sample_type));
	pb_put_varint_field(&value_type, PPROF_VALUETYPE_UNIT, string_index(&strings, unit));
	pb_put_bytes_field(&profile, PPROF_PROFILE_SAMPLE_TYPE, value_type.data, value_type.len);

	funcs = distinct_funcs(tree, &nfuncs);
	lookup_funcs(funcs, nfuncs);
	put_samples(&profile, tree, funcs, nfuncs);
	put_mappings(&profile, &strings, funcs, nfuncs);
	put_functions_and_locations(&profile, &strings, funcs, nfuncs);
	appendBinaryStringInfo(&profile, strings.encoded.data, strings.encoded.len);

	initStringInfo(&compressed);
	gzip_compress(profile.data, profile.len, &compressed);
	result = palloc(VARHDRSZ + compressed.len);
	SET_VARSIZE(result, VARHDRSZ + compressed.len);
	memcpy(VARDATA(result), compressed.data, compressed.len);
	PG_RETURN_BYTEA_P(result);
}
