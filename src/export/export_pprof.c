/*
 * export_pprof.c
 *	  to_pprof(calltree, sample_type, unit): a call tree as a gzip-compressed
 *	  pprof profile (the Profile message of pprof's profile.proto).
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
 * there is named "#<id>".  The profile is written by the encoder of
 * formats/pprof_encode.c; here are the tree's walk and the SQL function.
 */
#include "postgres.h"

#include "miscadmin.h"
#include "utils/builtins.h"

#include "tree/calltree.h"
#include "tree/path.h"
#include "formats/gzip.h"
#include "formats/pprof.h"
#include "store/store.h"
#include "export/export.h"

PG_FUNCTION_INFO_V1(calltree_to_pprof);

/*
 * The distinct funcs of the tree, sorted by id (func_names_index), as the
 * encoder's functions; "#<id>" names an id that calltree.func does not hold.
 */
static PprofEncodeFunction *
export_functions(const FuncNames *names)
{
	int32		count = func_names_count(names);
	PprofEncodeFunction *functions = palloc_extended(sizeof(PprofEncodeFunction) * Max(count, 1),
													 MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	for (int32 i = 0; i < count; i++)
	{
		int32		id = func_names_id(names, i);
		const char *name = func_names_get(names, id);

		functions[i].name = name ? name : psprintf("#%d", id);
		functions[i].file = func_names_file(names, id);
		functions[i].resource = func_names_resource(names, id);
	}
	return functions;
}

/* One sample per node with self weight (and per leaf), locations leaf first. */
static void
put_samples(PprofEncoder *encoder, const CallTree *tree, const FuncNames *names)
{
	int32		n = tree->nnodes;
	const int64 *self = calltree_self(tree);
	const int32 *func = calltree_func(tree);
	const int32 *parent = calltree_parent(tree);
	uint64	   *location = palloc(sizeof(uint64) * Max(n, 1));
	uint64	   *path = palloc(sizeof(uint64) * Max(n, 1));

	for (int32 i = 0; i < n; i++)
		location[i] = (uint64) func_names_index(names, func[i]) + 1;
	for (int32 i = 0; i < n; i++)
	{
		int			depth = 0;

		if ((i & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (!calltree_holds_samples(tree, i))
			continue;
		for (int32 j = i; j >= 0; j = parent[j])
			path[depth++] = location[j];
		pprof_encoder_sample(encoder, path, depth, self[i]);
	}
	pfree(path);
	pfree(location);
}

void
export_pprof(const CallTree *tree, const FuncNames *names, const char *sample_type,
			 const char *unit, StringInfo out)
{
	PprofEncodeFunction *functions;
	PprofEncoder *encoder;
	StringInfoData profile;

	calltree_check_path_elements("to_pprof()",
								 calltree_path_elements(tree, calltree_depths(tree), true));
	functions = export_functions(names);
	initStringInfo(&profile);
	encoder = pprof_encoder_begin(&profile, sample_type, unit, functions, func_names_count(names));
	put_samples(encoder, tree, names);
	pprof_encoder_finish(encoder);
	gzip_compress(profile.data, profile.len, out);
	pfree(profile.data);
	pfree(functions);
}

/* to_pprof(tree calltree, sample_type text, unit text) → bytea */
Datum
calltree_to_pprof(PG_FUNCTION_ARGS)
{
	CallTree   *tree = PG_GETARG_CALLTREE_P(0);
	char	   *sample_type = text_to_cstring(PG_GETARG_TEXT_PP(1));
	char	   *unit = text_to_cstring(PG_GETARG_TEXT_PP(2));
	StringInfoData out;

	export_buffer_begin(&out);
	export_pprof(tree, func_names_fetch(tree), sample_type, unit, &out);
	PG_RETURN_BYTEA_P(export_buffer_value(&out));
}
