/*
 * import_pprof.c
 *	  pprof profiles (Go's runtime/pprof, gperftools converted by pprof,
 *	  and every tool writing pprof's profile.proto).
 *
 * The data is gzip-compressed (as pprof writes it) or raw protobuf.  One
 * sample type is imported: the one named, else default_sample_type, else
 * the last, as `go tool pprof` chooses (with a NOTICE naming the type taken
 * and the others, when there are several and none was named); each
 * sample's value of that type is its weight, the type's unit is the
 * profile's weight_unit, and its name is the profile's meta.sample_type.
 *
 * Mapping pprof onto calltree:
 * - A location becomes one frame per line, outermost first: its last line
 *   is the caller into which the earlier lines were inlined.  pprof lists a
 *   sample's locations leaf first; stacks are root first.
 * - A func is (Function.name, Function.filename, resource), where the
 *   resource is the location's mapping: its filename, followed by
 *   " (build_id)" when the mapping has a build id; NULL without a mapping
 *   or when both are empty.  A func without a name (an unsymbolized
 *   location, a line without a function, or empty names) is named by its
 *   address, "0x4b43df", or "(unknown)" without one; Function.system_name
 *   stands in for an empty name.  A JavaScript function that Node's pprof
 *   module wrote as "(anonymous)" (one Function for all of a script's) is
 *   named by its file and line, "(anonymous) app.js:20" (js_names.h): its
 *   start_line, else the line's line, where that module puts the line the
 *   function starts at.
 * - A frame keeps the location's address (the uint64 stored as the bigint
 *   with the same bits), the line's line number and column.
 * - Labels become one jsonb object per sample, interned: a string label is
 *   "key": "value", a numeric one "key": 42, or "key": {"num": 42,
 *   "unit": "bytes"} when it has a unit; a key given several times holds
 *   the array of its values in file order.
 * - Samples with weight 0 are kept: the sample rows are then the same
 *   whichever sample type is imported, and their stacks and labels stay
 *   queryable (a heap profile's in-use space is 0 for most samples that
 *   allocated).  Samples without any location have no stack in calltree;
 *   they are skipped and counted in a NOTICE.
 */
#include "postgres.h"

#include "datatype/timestamp.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/numeric.h"

#include "tree/id_maps.h"
#include "formats/gzip.h"
#include "formats/pprof.h"
#include "import/importer.h"
#include "import/js_names.h"

PG_FUNCTION_INFO_V1(calltree_import_pprof);

/* Decompressed profiles larger than this are refused. */
#define PPROF_MAX_DECOMPRESSED ((size_t) 1 << 30)

/*
 * Label sets remembered per import under their labels as the file gives
 * them; past this many, a new one is built as jsonb each time it changes.
 */
#define LABEL_MEMO_MAX 4096

/*
 * The interned frames of a location, once computed: frames[first ...
 * first + nframes) of the import's one array of frames, outermost first,
 * the first of them also here: most locations have one frame, which a
 * sample's location then finds without a further load.  With the
 * location's id, so that a sample's location ids find their frames
 * without reading the locations themselves.  (Lines and locations take
 * two bytes of the data at least, so their count fits first.)
 */
typedef struct LocationFrames
{
	uint64		id;
	int64		frame;			/* frames[first] */
	int32		first;
	int32		nframes;		/* 0 until computed */
} LocationFrames;

typedef struct PprofImport
{
	PprofProfile profile;
	ProfileWriter *writer;
	int			value_index;	/* the sample type imported */
	LocationFrames *location_frames;	/* per location, by its index; at -1 none */
	int64	   *frames;			/* a frame per line, then one per location without lines */
	WriterString *resources;	/* per mapping, computed once */
	/* the last location's mapping id and resource: most locations share one */
	uint64		last_mapping_id;
	WriterString last_resource;
	bool		last_resource_known;
	int64	   *stack_frames;	/* a stack's frames, root first, gathered to be pushed at once */
	int			stack_capacity;
	bool	   *resource_known;

	/*
	 * Whether the stacks of samples are memoized (worth_memoizing): once
	 * one has labels, or repeats the location list of the one before it
	 * (unlabeled_list, while none has labels).
	 */
	bool		memoizing;
	const uint8 *unlabeled_list;
	size_t		unlabeled_list_len;

	/* the previous sample's labels and their id: consecutive samples often share them */
	PprofLabel *last_labels;
	int			last_nlabels;
	int			last_labels_capacity;
	int64		last_labels_id;

	/*
	 * The ids of the label sets met so far, under their PprofLabel arrays
	 * (string indexes, this file's own): a profile has few label sets, and
	 * building one as jsonb costs far more than this look-up.  Made for
	 * the first sample whose labels have no label bytes.
	 */
	idcache_hash *label_memo;
	int			label_memo_count;

	/*
	 * The same under the bytes of the label fields (PprofSample's
	 * label_bytes, in the data): a set met before needs no decoding.  The
	 * previous sample's first, then the memo's, which counts with the one
	 * above.
	 */
	const uint8 *last_label_bytes;
	size_t		last_label_bytes_len;
	int64		last_label_bytes_id;
	idcache_hash *label_bytes_memo;
	MemoryContext label_cxt;	/* the memo's keys, and the jsonb of one set */
} PprofImport;

/* ---------------------------------------------------------------- sample type */

static const char *
value_type_name(PprofImport *import, int index)
{
	const PprofValueType *vt = &import->profile.sample_types[index];

	return pprof_string(&import->profile, vt->type, vt->at, "sample type");
}

/* The sample types as "type/unit, type/unit" */
static char *
sample_type_list(PprofImport *import)
{
	PprofProfile *profile = &import->profile;
	StringInfoData list;

	initStringInfo(&list);
	for (int i = 0; i < profile->nsample_types; i++)
		appendStringInfo(&list, "%s%s/%s", i > 0 ? ", " : "", value_type_name(import, i),
						 pprof_string(profile, profile->sample_types[i].unit, profile->sample_types[i].at,
									  "sample type's unit"));
	return list.data;
}

/*
 * The index of the sample type to import, see the file header.  When the
 * file has several and none was asked for, a NOTICE says which was taken,
 * and why, among which.
 */
static int
choose_sample_type(PprofImport *import, const ImportOptions *options)
{
	PprofProfile *profile = &import->profile;
	const char *requested = options->sample_type;
	const char *wanted = requested;
	int			chosen = -1;

	/* found missing at the end of the data, where a truncated file ends */
	if (profile->nsample_types == 0)
		pprof_error(profile->len, "The profile ends without a sample type. A pprof profile lists "
					"the types of its sample values in Profile.sample_type (field 1).");
	if (wanted == NULL && profile->default_sample_type != 0)
		wanted = pprof_string(profile, profile->default_sample_type, profile->default_sample_type_at,
							  "default sample type");
	for (int i = 0; wanted != NULL && i < profile->nsample_types && chosen < 0; i++)
		if (strcmp(value_type_name(import, i), wanted) == 0)
			chosen = i;
	if (chosen < 0 && requested != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("pprof profile has no sample type \"%s\"", requested),
				 errdetail("Its sample types are: %s.", sample_type_list(import)),
				 errhint("Pass one of them as %s, or leave it out for the profile's default.",
						 import_option_text(options, "sample_type", "TYPE", false))));
	if (requested == NULL && profile->nsample_types > 1)
		ereport(NOTICE,
				(errmsg("imported pprof sample type \"%s\", %s",
						value_type_name(import, chosen >= 0 ? chosen : profile->nsample_types - 1),
						chosen >= 0 ? "the profile's default" : "the last one, as pprof does"),
				 errdetail("Its sample types are: %s.", sample_type_list(import)),
				 errhint("Pass %s to import another one.",
						 import_option_text(options, "sample_type",
											value_type_name(import, chosen == 0 ? 1 : 0), true))));
	/* as pprof: no default, or an unknown one, is the last type */
	return chosen >= 0 ? chosen : profile->nsample_types - 1;
}

/*
 * The profile's meta: {"sample_type": the imported type's name}, with the
 * caller's meta over it (a key the caller gives is the caller's).
 */
static Jsonb *
meta_with_sample_type(const ProfileInfo *info, const char *sample_type)
{
	StringInfoData json;
	Datum		ours;

	initStringInfo(&json);
	appendStringInfoString(&json, "{\"sample_type\": ");
	escape_json(&json, sample_type);
	appendStringInfoChar(&json, '}');
	ours = DirectFunctionCall1(jsonb_in, CStringGetDatum(json.data));
	if (info->meta == NULL)
		return DatumGetJsonbP(ours);
	return DatumGetJsonbP(DirectFunctionCall2(jsonb_concat, ours, JsonbPGetDatum(info->meta)));
}

/* ---------------------------------------------------------------- frames */

/* NULL for an empty string */
static const char *
optional_string(PprofImport *import, int64 index, size_t at, const char *what)
{
	const char *s = pprof_string(&import->profile, index, at, what);

	return s[0] ? s : NULL;
}

/* The same with its length, which the writer's look-ups need */
static inline WriterString
optional_sized_string(PprofImport *import, int64 index, size_t at, const char *what)
{
	WriterString ws;

	ws.data = pprof_string_sized(&import->profile, index, at, what, &ws.len);
	if (ws.len == 0)
		ws.data = NULL;
	return ws;
}

/* A string made here, with its length */
static WriterString
sized(const char *s)
{
	WriterString ws = {s, s ? strlen(s) : 0};

	return ws;
}

static WriterString
mapping_resource(PprofImport *import, const PprofMapping *mapping)
{
	int			i;
	const char *filename;
	const char *build_id;

	if (mapping == NULL)
		return sized(NULL);
	i = pprof_mapping_index(&import->profile, mapping);
	if (import->resource_known[i])
		return import->resources[i];
	filename = optional_string(import, mapping->filename, mapping->at, "mapping's filename");
	build_id = optional_string(import, mapping->build_id, mapping->at, "mapping's build id");
	if (build_id == NULL)
		import->resources[i] = sized(filename);
	else if (filename == NULL)
		import->resources[i] = sized(psprintf("(%s)", build_id));
	else
		import->resources[i] = sized(psprintf("%s (%s)", filename, build_id));
	import->resource_known[i] = true;
	return import->resources[i];
}

static const char *
address_name(uint64 address)
{
	return address ? psprintf("0x%" INT64_MODIFIER "x", address) : "(unknown)";
}

/* An int4 frame field (line, column): NO_INT for 0, an error beyond int4. */
static OptionalInt
frame_number(int64 value, size_t at, const char *what)
{
	if (value == 0)
		return NO_INT;
	if (value < PG_INT32_MIN || value > PG_INT32_MAX)
		pprof_error(at, "A location's %s " INT64_FORMAT " is out of range.", what, value);
	return SOME_INT(value);
}

/* The strings are passed to the writer with their lengths, known from the string table. */
static int64
line_frame(PprofImport *import, const PprofLocation *location, const PprofLine *line,
		   WriterString resource)
{
	const PprofFunction *function = pprof_function(&import->profile, line->function_id, location->at);
	WriterString name = sized(NULL);
	WriterString file = sized(NULL);

	if (function)
	{
		name = optional_sized_string(import, function->name, function->at, "function's name");
		if (name.data == NULL)
			name = optional_sized_string(import, function->system_name, function->at, "function's system name");
		file = optional_sized_string(import, function->filename, function->at, "function's filename");
	}
	if (name.data == NULL)
		name = sized(address_name(location->address));
	/* (both names of an anonymous JavaScript function start with a parenthesis) */
	else if (name.data[0] == '(' && js_name_is_anonymous(name.data))
		name = sized(js_function_name(name.data, file.data,
									  function->start_line > 0 ? SOME_INT(function->start_line)
									  : frame_number(line->line, location->at, "line number"),
									  NO_INT));
	return profile_writer_func_frame_sized(import->writer, name, file, resource,
										   location->address ? SOME_INT((int64) location->address) : NO_INT,
										   frame_number(line->line, location->at, "line number"),
										   frame_number(line->column, location->at, "column"), sized(NULL));
}

/*
 * The frames of a location, interned on first use.  Those of its lines
 * take the places of the lines in the profile's table of every line (in
 * reverse: the caller last there, first here); a location without lines
 * has one frame, of its address, after them.
 */
static const LocationFrames *
location_frames(PprofImport *import, const PprofLocation *location)
{
	int			index = pprof_location_index(&import->profile, location);
	LocationFrames *lf = &import->location_frames[index];
	WriterString resource;
	const PprofLine *lines;
	int64	   *frames;

	if (lf->nframes > 0)
		return lf;
	if (import->last_resource_known && location->mapping_id == import->last_mapping_id)
		resource = import->last_resource;
	else
	{
		resource = mapping_resource(import, pprof_mapping(&import->profile, location->mapping_id, location->at));
		import->last_mapping_id = location->mapping_id;
		import->last_resource = resource;
		import->last_resource_known = true;
	}
	if (location->nlines == 0)
	{
		/* not symbolized: a frame of the address alone */
		PprofLine	none = {0, 0, 0};

		lf->first = import->profile.nlines + index;
		import->frames[lf->first] = line_frame(import, location, &none, resource);
		lf->nframes = 1;
	}
	else
	{
		lines = pprof_location_lines(&import->profile, location);
		lf->first = location->first_line;
		frames = import->frames + lf->first;
		for (int i = location->nlines - 1; i >= 0; i--)
			*frames++ = line_frame(import, location, &lines[i], resource);
		lf->nframes = location->nlines;
	}
	lf->frame = import->frames[lf->first];
	lf->id = location->id;
	return lf;
}

/*
 * The frames of a location id met before, at its place (pprof_location_place);
 * NULL for any other (computed then through pprof_location, which checks it).
 */
static inline const LocationFrames *
known_location_frames(PprofImport *import, uint64 id)
{
	int			place = pprof_location_place(&import->profile, id);

	if (place >= 0 && import->location_frames[place].nframes > 0 &&
		import->location_frames[place].id == id)
		return &import->location_frames[place];
	return NULL;
}

/*
 * Makes room in the import's stack buffer for `more` frames after `used`,
 * which it holds: a stack is bounded by its location list's bytes times
 * the lines of a location, both bounded by the data.
 */
static pg_noinline void
grow_stack_frames(PprofImport *import, int used, int more)
{
	Size		needed = (Size) used + more;
	Size		capacity = Max(needed, (Size) Max(import->stack_capacity, 64) * 2);

	if (needed > MaxAllocHugeSize / sizeof(int64) || needed > PG_INT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("pprof sample has too many frames")));
	capacity = Min(capacity, Min(MaxAllocHugeSize / sizeof(int64), (Size) PG_INT32_MAX));
	import->stack_frames = import->stack_frames
		? repalloc_huge(import->stack_frames, sizeof(int64) * capacity)
		: palloc_extended(sizeof(int64) * capacity, MCXT_ALLOC_HUGE);
	import->stack_capacity = (int) capacity;
}

/*
 * The frames of a sample's locations, root first, into the import's stack
 * buffer: their number.  The location ids are decoded into the sample's
 * array (leaf first), then looked up from its end.
 */
static int
gather_frames(PprofImport *import, PprofSample *sample)
{
	int			depth = 0;

	pprof_sample_locations(sample);
	for (int i = sample->nlocation_ids - 1; i >= 0; i--)
	{
		uint64		id = sample->location_ids[i];
		const LocationFrames *lf = known_location_frames(import, id);

		if ((i & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (unlikely(lf == NULL))
			lf = location_frames(import, pprof_location(&import->profile, id, sample->at));
		if (unlikely(import->stack_capacity - depth < lf->nframes))
			grow_stack_frames(import, depth, lf->nframes);
		memcpy(import->stack_frames + depth, import->frames + lf->first, sizeof(int64) * lf->nframes);
		depth += lf->nframes;
	}
	return depth;
}

/*
 * gather_frames of a sample whose ids are one packed field, as writers of
 * pprof send them, without an array: the ids are read backward through
 * the field (pb_packed_varint_before), so root first, as they are looked
 * up.  -1, nothing computed, for a field that this does not read to its
 * start (a varint of more than four bytes, a last one cut): gather_frames
 * then reads it forward, and raises the errors.  A location first met has
 * its frames computed, which may raise errors too, only once the rest of
 * the field is known to read back: then the errors are those of
 * gather_frames, raised in its order.  (What the loop reads is in
 * locals: the stores of frames could alias any field.  by_slot: the
 * location index is hashed, see pprof_id_place.)
 */
static pg_attribute_always_inline int
gather_packed_frames_by(PprofImport *import, const PprofSample *sample, bool by_slot)
{
	const uint8 *start = sample->packed_location_ids;
	const uint8 *p = sample->location_bytes + sample->location_bytes_len;
	const PprofIdIndex index = import->profile.location_index;
	const uint64 nlocations = (uint64) import->profile.nlocations;
	const LocationFrames *known = import->location_frames;
	const int64 *all_frames = import->frames;
	int64	   *out = import->stack_frames;
	int			room = import->stack_capacity;
	bool		rest_reads = false;
	int			depth = 0;

	if (p > start && p[-1] >= 0x80)
		return -1;
	while (p > start)
	{
		/* 4 kB of the field at a time, between checks for interrupts */
		const uint8 *stop = p - start > 4096 ? p - 4096 : start;

		CHECK_FOR_INTERRUPTS();
		/*
		 * Room for a frame per byte left of these 4 kB, which hold an id
		 * per byte at most: a location of one frame needs no check of room
		 * (the loop keeps room - depth >= p - stop).
		 */
		if (unlikely(room - depth < p - stop))
		{
			grow_stack_frames(import, depth, (int) (p - stop));
			out = import->stack_frames;
			room = import->stack_capacity;
		}
		while (p > stop)
		{
			uint64		id;
			int			place;
			const LocationFrames *lf;
			const int64 *frames;
			int			nframes;

			if (unlikely(!pb_packed_varint_before(&p, &id)))
				return -1;
			/* pprof_id_place: -1 finds the entry of none */
			if (by_slot)
				place = index.slots[pprof_id_slot(&index, id)];
			else
				place = id - 1 < nlocations ? (int) (id - 1) : -1;
			lf = &known[place];
			/* most ids: a location met before, of one frame */
			if (likely(lf->id == id && lf->nframes == 1))
			{
				out[depth++] = lf->frame;
				continue;
			}
			if (lf->id != id || lf->nframes == 0)
			{
				if (!rest_reads && !pb_packed_varints_short(start, p))
					return -1;
				rest_reads = true;
				lf = location_frames(import, pprof_location(&import->profile, id, sample->at));
			}
			/* its frames, and room for a frame per byte left, as above */
			nframes = lf->nframes;
			if (unlikely(room - depth < nframes + (p - stop)))
			{
				grow_stack_frames(import, depth, nframes + (int) (p - stop));
				out = import->stack_frames;
				room = import->stack_capacity;
			}
			frames = all_frames + lf->first;
			/* two or three: no memcpy */
			for (int f = 0; f < nframes; f++)
				out[depth++] = frames[f];
		}
	}
	return depth;
}

/* gather_packed_frames_by for a profile's location index, hashed or not */
static pg_noinline int
gather_packed_frames(PprofImport *import, const PprofSample *sample)
{
	if (import->profile.location_index.slots != NULL)
		return gather_packed_frames_by(import, sample, true);
	return gather_packed_frames_by(import, sample, false);
}

/*
 * Whether the stack of a sample is worth memoizing, for the samples after
 * it.  Location lists recur where samples have labels (a stack's list
 * under each of its label sets, with or without) or where the writer did
 * not merge the samples of a stack.  Most writers merge them (Go's
 * runtime/pprof among them): in a profile without labels, each list then
 * comes once, and a memo would cost a look-up and an entry per sample for
 * nothing.  So samples are memoized from the first that has labels, or
 * repeats the list of the sample before it, on: a profile of unmerged
 * samples soon has one that does (one whose repeats never follow one
 * another has each list decoded, as a profile of merged samples).
 */
static inline bool
worth_memoizing(PprofImport *import, const PprofSample *sample)
{
	if (import->memoizing)
		return true;
	if (sample->label_bytes != NULL || sample->nlabels > 0 ||
		(sample->location_bytes_len == import->unlabeled_list_len &&
		 memcmp(sample->location_bytes, import->unlabeled_list, sample->location_bytes_len) == 0))
		import->memoizing = true;
	import->unlabeled_list = sample->location_bytes;
	import->unlabeled_list_len = sample->location_bytes_len;
	return import->memoizing;
}

/*
 * The stack of a sample (root first), 0 when it has no locations.  The
 * stack of a location list met again is memoized under the bytes of the
 * list (worth_memoizing says which), which then need no decoding.  A list
 * not in one packed field (rare) is decoded each time.  The frames of the
 * locations are gathered in the import's buffer, which the writer then
 * reads as the stack's path.
 */
static int64
sample_stack(PprofImport *import, PprofSample *sample)
{
	int64		stack = 0;
	const char *key = (const char *) sample->location_bytes;
	int			key_len = (int) sample->location_bytes_len;
	int			depth = -1;

	if (key && profile_writer_memo_get(import->writer, key, key_len, &stack))
		return stack;
	if (key && sample->locations_pending)
		depth = gather_packed_frames(import, sample);
	if (depth < 0)
		depth = gather_frames(import, sample);
	stack = profile_writer_path(import->writer, import->stack_frames, depth);
	if (key && worth_memoizing(import, sample))
		profile_writer_memo_put(import->writer, key, key_len, stack);
	return stack;
}

/* ---------------------------------------------------------------- labels */

typedef struct KeyedLabel
{
	const char *key;
	int			order;			/* in the sample, for a stable sort */
	const PprofLabel *label;
} KeyedLabel;

static int
compare_keyed_labels(const void *a, const void *b)
{
	const KeyedLabel *x = a;
	const KeyedLabel *y = b;
	int			c = strcmp(x->key, y->key);

	return c != 0 ? c : x->order - y->order;
}

static void
push_string(JsonbParseState **state, JsonbIteratorToken token, const char *s)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = (char *) s;
	v.val.string.len = strlen(s);
	pushJsonbValue(state, token, &v);
}

static void
push_number(JsonbParseState **state, JsonbIteratorToken token, int64 n)
{
	JsonbValue	v;

	v.type = jbvNumeric;
	v.val.numeric = int64_to_numeric(n);
	pushJsonbValue(state, token, &v);
}

static void
push_label_value(PprofImport *import, JsonbParseState **state, JsonbIteratorToken token,
				 const PprofLabel *label, size_t at)
{
	if (label->str != 0)
		push_string(state, token, pprof_string(&import->profile, label->str, at, "label's value"));
	else if (label->num_unit == 0)
		push_number(state, token, label->num);
	else
	{
		pushJsonbValue(state, WJB_BEGIN_OBJECT, NULL);
		push_string(state, WJB_KEY, "num");
		push_number(state, WJB_VALUE, label->num);
		push_string(state, WJB_KEY, "unit");
		push_string(state, WJB_VALUE, pprof_string(&import->profile, label->num_unit, at, "label's unit"));
		pushJsonbValue(state, WJB_END_OBJECT, NULL);
	}
}

/* The label set of a sample as jsonb; NULL when it has none. */
static Jsonb *
labels_jsonb(PprofImport *import, const PprofSample *sample)
{
	KeyedLabel *keyed = palloc(sizeof(KeyedLabel) * Max(sample->nlabels, 1));
	int			n = 0;
	JsonbParseState *state = NULL;
	JsonbValue *result;

	for (int i = 0; i < sample->nlabels; i++)
	{
		const PprofLabel *label = &sample->labels[i];

		/* as pprof: a label with neither a string nor a number is dropped */
		if (label->str == 0 && label->num == 0 && label->num_unit == 0)
			continue;
		keyed[n].key = pprof_string(&import->profile, label->key, sample->at, "label's key");
		keyed[n].order = i;
		keyed[n].label = label;
		n++;
	}
	if (n == 0)
		return NULL;
	qsort(keyed, n, sizeof(KeyedLabel), compare_keyed_labels);
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < n;)
	{
		int			same = 1;

		while (i + same < n && strcmp(keyed[i + same].key, keyed[i].key) == 0)
			same++;
		push_string(&state, WJB_KEY, keyed[i].key);
		if (same == 1)
			push_label_value(import, &state, WJB_VALUE, keyed[i].label, sample->at);
		else
		{
			pushJsonbValue(&state, WJB_BEGIN_ARRAY, NULL);
			for (int j = i; j < i + same; j++)
				push_label_value(import, &state, WJB_ELEM, keyed[j].label, sample->at);
			pushJsonbValue(&state, WJB_END_ARRAY, NULL);
		}
		i += same;
	}
	result = pushJsonbValue(&state, WJB_END_OBJECT, NULL);
	pfree(keyed);
	return JsonbValueToJsonb(result);
}

/*
 * A label set, built as jsonb and interned: the jsonb and what building it
 * took go with a scratch context, so memory stays bounded by the label
 * sets remembered, whatever the number of samples.
 */
static int64
intern_sample_labels(PprofImport *import, const PprofSample *sample)
{
	MemoryContext caller = CurrentMemoryContext;
	MemoryContext scratch = AllocSetContextCreate(import->label_cxt, "calltree pprof labels",
												  ALLOCSET_SMALL_SIZES);
	Jsonb	   *labels;
	int64		id;

	MemoryContextSwitchTo(scratch);
	labels = labels_jsonb(import, sample);
	id = labels ? profile_writer_labels(import->writer, labels) : 0;
	MemoryContextSwitchTo(caller);
	MemoryContextDelete(scratch);
	return id;
}

/*
 * The label set of a sample whose label bytes were met before (the
 * previous sample's, or the memo's) into *id: then its labels need not be
 * read.  False for any other sample.
 */
static bool
known_label_bytes(PprofImport *import, const PprofSample *sample, int64 *id)
{
	BytesKey	key = {(const char *) sample->label_bytes, (int32) sample->label_bytes_len};
	CachedId   *memo;

	if (sample->label_bytes == NULL)
		return false;
	if (sample->label_bytes_len == import->last_label_bytes_len &&
		memcmp(sample->label_bytes, import->last_label_bytes, sample->label_bytes_len) == 0)
	{
		*id = import->last_label_bytes_id;
		return true;
	}
	memo = idcache_lookup(import->label_bytes_memo, key);
	if (memo == NULL)
		return false;
	*id = memo->id;
	import->last_label_bytes = sample->label_bytes;
	import->last_label_bytes_len = sample->label_bytes_len;
	import->last_label_bytes_id = *id;
	return true;
}

/* Remembers the label set of a sample under its label bytes, if it has them. */
static void
remember_label_bytes(PprofImport *import, const PprofSample *sample, int64 id)
{
	BytesKey	key = {(const char *) sample->label_bytes, (int32) sample->label_bytes_len};
	bool		found;

	if (sample->label_bytes == NULL)
		return;
	import->last_label_bytes = sample->label_bytes;
	import->last_label_bytes_len = sample->label_bytes_len;
	import->last_label_bytes_id = id;
	if (import->label_memo_count < LABEL_MEMO_MAX)
	{
		/* (the key stays in the data, which outlives the import's samples) */
		idcache_insert(import->label_bytes_memo, key, &found)->id = id;
		import->label_memo_count++;
	}
}

/*
 * The interned label set of a sample, 0 (NULL) for none: remembered under
 * its label bytes when it has them (known_label_bytes finds it then), else
 * under its labels, in a memo made on first use.
 */
static int64
sample_labels(PprofImport *import, const PprofSample *sample)
{
	BytesKey	key = {(const char *) sample->labels, (int32) (sizeof(PprofLabel) * sample->nlabels)};
	CachedId   *memo;
	int64		id;

	if (sample->nlabels == 0)
		return 0;
	if (sample->label_bytes != NULL)
	{
		id = intern_sample_labels(import, sample);
		remember_label_bytes(import, sample, id);
		return id;
	}
	if (import->label_memo == NULL)
		import->label_memo = idcache_create(import->label_cxt, 16, NULL);
	if (sample->nlabels == import->last_nlabels &&
		memcmp(sample->labels, import->last_labels, key.len) == 0)
		return import->last_labels_id;
	memo = idcache_lookup(import->label_memo, key);
	if (memo)
		id = memo->id;
	else
	{
		id = intern_sample_labels(import, sample);
		if (import->label_memo_count < LABEL_MEMO_MAX)
		{
			bool		found;

			key.data = memcpy(MemoryContextAlloc(import->label_cxt, key.len), key.data, key.len);
			idcache_insert(import->label_memo, key, &found)->id = id;
			import->label_memo_count++;
		}
	}
	if (sample->nlabels > import->last_labels_capacity)
	{
		import->last_labels = import->last_labels
			? repalloc(import->last_labels, key.len)
			: MemoryContextAlloc(import->label_cxt, key.len);
		import->last_labels_capacity = sample->nlabels;
	}
	memcpy(import->last_labels, sample->labels, key.len);
	import->last_nlabels = sample->nlabels;
	import->last_labels_id = id;
	return id;
}

/* ---------------------------------------------------------------- the import */

/* Profile.time_nanos into the profile's start time, when it is given */
static void
set_started_at(PprofImport *import, ProfileInfo *info)
{
	int64		nanos = import->profile.time_nanos;
	TimestampTz ts;

	if (nanos == 0)
		return;
	/* nanoseconds since 1970 to microseconds since 2000, rounding down */
	ts = nanos / 1000 - (nanos % 1000 < 0 ? 1 : 0)
		- (int64) (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * USECS_PER_DAY;
	if (!IS_VALID_TIMESTAMP(ts))
		pprof_error(import->profile.time_nanos_at, "Profile.time_nanos " INT64_FORMAT " is out of range.", nanos);
	info->has_started_at = true;
	info->started_at = ts;
}

static void
import_samples(PprofImport *import)
{
	PprofProfile *profile = &import->profile;
	PbReader	top;
	PprofSample sample;
	int64		count = 0;
	int64		skipped = 0;
	int64		skipped_weight = 0;

	memset(&sample, 0, sizeof(sample));
	pprof_samples_begin(profile, &top);
	while (pprof_next_sample(profile, &top, &sample))
	{
		int64		weight;
		int64		stack;
		int64		labels;
		bool		labels_known = known_label_bytes(import, &sample, &labels);

		/* the errors of reading the sample first, its labels' among them */
		if (!labels_known)
			pprof_sample_labels(&sample);
		if ((++count & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
		if (sample.nvalues != profile->nsample_types)
			pprof_error(sample.at, "A sample has %d values, but the profile has %d sample types.",
						sample.nvalues, profile->nsample_types);
		weight = (int64) sample.values[import->value_index];
		stack = sample_stack(import, &sample);
		if (stack == 0)
		{
			skipped++;
			skipped_weight += weight;
			continue;
		}
		if (!labels_known)
			labels = sample_labels(import, &sample);
		profile_writer_sample(import->writer, NULL, false, 0, stack, weight, labels);
	}
	if (skipped > 0)
		ereport(NOTICE,
				(errmsg("skipped " INT64_FORMAT " pprof sample%s without locations, of total weight " INT64_FORMAT,
						skipped, skipped == 1 ? "" : "s", skipped_weight)));
}

/*
 * Imports pprof protobuf, already decompressed; data_is_ours: the data
 * may be written (pprof_decode), no one reads it after.
 */
static int64
import_protobuf(const ProfileInfo *info, const char *data, size_t len, bool data_is_ours,
				const ImportOptions *options)
{
	PprofImport import;
	ProfileInfo with_type = *info;
	const char *unit;

	memset(&import, 0, sizeof(import));
	pprof_decode(&import.profile, (const uint8 *) data, len, data_is_ours);
	import.value_index = choose_sample_type(&import, options);
	/* (after an entry of none at -1, where pprof_id_place finds no location) */
	import.location_frames = (LocationFrames *) palloc0(sizeof(LocationFrames) * (import.profile.nlocations + 1)) + 1;
	import.frames = palloc_extended(sizeof(int64) * ((Size) import.profile.nlines + import.profile.nlocations + 1),
									MCXT_ALLOC_HUGE);
	import.resources = palloc0(sizeof(WriterString) * Max(import.profile.nmappings, 1));
	import.resource_known = palloc0(sizeof(bool) * Max(import.profile.nmappings, 1));
	import.label_cxt = AllocSetContextCreate(CurrentMemoryContext, "calltree pprof label memo",
											 ALLOCSET_SMALL_SIZES);
	import.label_bytes_memo = idcache_create(import.label_cxt, 16, NULL);

	with_type.meta = meta_with_sample_type(info, value_type_name(&import, import.value_index));
	/* the file's unit and start time go into the profile row as it is made */
	unit = optional_string(&import, import.profile.sample_types[import.value_index].unit,
						   import.profile.sample_types[import.value_index].at, "sample type's unit");
	if (unit)
		with_type.weight_unit = unit;
	set_started_at(&import, &with_type);
	import.writer = profile_writer_begin(&with_type);
	/* its samples have no thread: one set takes them all */
	profile_writer_expect_samples(import.writer, import.profile.nsamples);
	/* the memo's keys, location lists, lie in the data, read until the writer finishes */
	profile_writer_memo_keys_stay(import.writer);
	import_samples(&import);
	return profile_writer_finish(import.writer);
}

/* The importer's entry: the data is the caller's */
static int64
pprof_import(const ProfileInfo *info, const char *data, size_t len, const ImportOptions *options)
{
	return import_protobuf(info, data, len, false, options);
}

const Importer pprof_importer = {
	.name = "pprof",
	.format = "pprof",
	.binary = true,
	.import = pprof_import,
};

/* The protobuf bytes of a pprof file: decompressed if it is gzip. */
static const char *
pprof_bytes(bytea *data, size_t *len)
{
	const char *raw = VARDATA_ANY(data);
	size_t		raw_len = VARSIZE_ANY_EXHDR(data);

	if (raw_len == 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid pprof data: the input is empty"),
				 errhint("Pass the bytes of a pprof file, gzip-compressed or not.")));
	if (gzip_is_compressed(raw, raw_len))
		return gzip_decompress(raw, raw_len, PPROF_MAX_DECOMPRESSED, "pprof", len);
	*len = raw_len;
	return raw;
}

/* import_pprof(data bytea, sample_type text, name text, meta jsonb) → profile id */
Datum
calltree_import_pprof(PG_FUNCTION_ARGS)
{
	const ImportArgs args = {.strict = -1, .event = -1, .sample_type = 1, .source = -1};
	ProfileInfo info;
	ImportOptions options;
	bytea	   *data;
	const char *bytes;
	size_t		len;
	bool		decompressed;

	if (PG_ARGISNULL(0))
		PG_RETURN_NULL();
	data = PG_GETARG_BYTEA_PP(0);
	bytes = pprof_bytes(data, &len);
	decompressed = bytes != VARDATA_ANY(data);
	/*
	 * The compressed bytes, detoasted into a copy, are not needed again:
	 * their memory, just read, serves the import's next allocations.
	 */
	if (decompressed)
		PG_FREE_IF_COPY(data, 0);
	import_options_from_args(fcinfo, &args, &options);
	profile_info_from_args(fcinfo, 2, 3, pprof_importer.format, &info);
	content_note(&info, content_digest(bytes, len), &options);
	/* decompressed here, the bytes are this call's own */
	PG_RETURN_INT64(import_protobuf(&info, bytes, len, decompressed, &options));
}
