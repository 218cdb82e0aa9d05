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

#include "common/hashfn.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"

#include "tree/calltree.h"
#include "tree/path.h"
#include "formats/gzip.h"
#include "formats/pprof.h"
#include "store/store.h"

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

/*
 * The distinct funcs of the tree, sorted by id (func_names_index), with
 * what calltree.func holds about them; "#<id>" names an id it does not hold.
 */
static ExportFunc *
export_funcs(const FuncNames *names)
{
	int32		count = func_names_count(names);
	ExportFunc *funcs = palloc_extended(sizeof(ExportFunc) * Max(count, 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	for (int32 i = 0; i < count; i++)
	{
		int32		id = func_names_id(names, i);
		const char *name = func_names_get(names, id);

		funcs[i].id = id;
		funcs[i].name = name ? name : psprintf("#%d", id);
		funcs[i].file = func_names_file(names, id);
		funcs[i].resource = func_names_resource(names, id);
	}
	return funcs;
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
put_samples(StringInfo out, const CallTree *tree, const FuncNames *names)
{
	int32		n = tree->nnodes;
	const int64 *self = calltree_self(tree);
	const int32 *func = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	uint64	   *location = palloc(sizeof(uint64) * Max(n, 1));
	uint64	   *path = palloc(sizeof(uint64) * Max(n, 1));
	StringInfoData message;

	for (int32 i = 0; i < n; i++)
		location[i] = (uint64) func_names_index(names, func[i]) + 1;
	initStringInfo(&message);
	for (int32 i = 0; i < n; i++)
	{
		int			depth = 0;
		uint64		value = (uint64) self[i];

		if ((i & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!calltree_holds_samples(tree, i))
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
	FuncNames  *names;
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

	names = func_names_fetch(tree);
	funcs = export_funcs(names);
	nfuncs = func_names_count(names);
	put_samples(&profile, tree, names);
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
