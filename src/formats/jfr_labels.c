/*
 * jfr_labels.c
 *	  The Pyroscope Java agent's LabelsSnapshot (see jfr_labels.h): read in
 *	  two passes, the map entries first (strings and contexts may come in
 *	  any order), then each context's labels, resolved to their strings and
 *	  built as jsonb.
 */
#include "postgres.h"

#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/memutils.h"

#include "formats/jfr_labels.h"
#include "formats/protobuf.h"

#define LABELS_FORMAT "JFR labels"

/* A map entry seen: its key, where its value lies, and its order in the data */
typedef struct MapEntry
{
	int64		key;
	int64		value;			/* Context.labels: the value id */
	size_t		at;				/* strings, contexts: the value's offset */
	size_t		len;
	int			order;
} MapEntry;

typedef struct EntryList
{
	MapEntry   *entries;
	int			count;
	int			cap;
} EntryList;

static void
append_entry(EntryList *list, const MapEntry *entry)
{
	if (list->count == list->cap)
	{
		list->cap = list->cap ? list->cap * 2 : 16;
		if ((size_t) list->cap > MaxAllocSize / sizeof(MapEntry))
			elog(ERROR, "too many JFR label entries");
		list->entries = list->entries ? repalloc(list->entries, sizeof(MapEntry) * list->cap)
			: palloc(sizeof(MapEntry) * list->cap);
	}
	list->entries[list->count] = *entry;
	list->entries[list->count].order = list->count;
	list->count++;
}

static int
compare_entries(const void *a, const void *b)
{
	const MapEntry *ea = a;
	const MapEntry *eb = b;

	if (ea->key != eb->key)
		return ea->key < eb->key ? -1 : 1;
	return ea->order < eb->order ? -1 : ea->order > eb->order;
}

/* Sorts by key, keeping of each key its last entry, as protobuf maps do */
static void
sort_last_wins(EntryList *list)
{
	int			kept = 0;

	if (list->count > 1)
		qsort(list->entries, list->count, sizeof(MapEntry), compare_entries);
	for (int i = 0; i < list->count; i++)
	{
		if (i + 1 < list->count && list->entries[i + 1].key == list->entries[i].key)
			continue;
		list->entries[kept++] = list->entries[i];
	}
	list->count = kept;
}

/* The entry of a key, in a list sorted by sort_last_wins (one per key); NULL if none */
static const MapEntry *
find_entry(const EntryList *list, int64 key)
{
	for (int lo = 0, hi = list->count - 1; lo <= hi;)
	{
		int			mid = lo + (hi - lo) / 2;
		const MapEntry *e = &list->entries[mid];

		if (e->key == key)
			return e;
		if (e->key < key)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return NULL;
}

/*
 * One map entry (key = 1, value = 2) into entry: the key, and the value's
 * offset and length (value_is_len) or number.
 */
static void
read_map_entry(PbReader *reader, int wiretype, const char *field, const char *message,
			   bool value_is_len, MapEntry *entry)
{
	PbReader	sub;
	uint32		number;
	int			type;

	memset(entry, 0, sizeof(*entry));
	pb_expect_submessage(reader, wiretype, field, &sub, message);
	entry->at = sub.end;		/* an absent value: empty, where the entry ends */
	while (pb_next_field(&sub, &number, &type))
	{
		if (number == 1)
			entry->key = (int64) pb_expect_varint(&sub, type, "key");
		else if (number == 2 && value_is_len)
		{
			if (type != PB_LEN)
				pb_error(&sub, sub.field_at, "field value has wire type %d, expected 2 (length-delimited).", type);
			entry->len = pb_read_length(&sub);
			entry->at = sub.pos;
			sub.pos += entry->len;
		}
		else if (number == 2)
			entry->value = (int64) pb_expect_varint(&sub, type, "value");
		else
			pb_skip(&sub, type);
	}
}

/* A string of the snapshot, in the server's encoding */
static char *
label_string(const PbReader *reader, const EntryList *strings, int64 id, size_t at, const char *what)
{
	const MapEntry *e = find_entry(strings, id);
	const char *utf8;

	if (e == NULL)
		pb_error(reader, at, "a label's %s refers to string " INT64_FORMAT ", which the snapshot does not hold.",
				 what, id);
	utf8 = (const char *) reader->data + e->at;
	if (!pg_verify_mbstr(PG_UTF8, utf8, (int) e->len, true))
		pb_error(reader, e->at, "string " INT64_FORMAT " is not valid UTF-8 text.", id);
	return pg_any_to_server(pnstrdup(utf8, e->len), (int) e->len, PG_UTF8);
}

static void
push_string(JsonbParseState **state, JsonbIteratorToken token, char *text)
{
	JsonbValue	v;

	v.type = jbvString;
	v.val.string.val = text;
	v.val.string.len = strlen(text);
	pushJsonbValue(state, token, &v);
}

/* The label set of a context, NULL if it has no label; *text counts its bytes */
static Jsonb *
context_labels(const PbReader *top, const EntryList *strings, const MapEntry *context,
			   size_t memory_limit, size_t *text)
{
	PbReader	reader = *top;
	EntryList	labels = {0};
	MapEntry	entry;
	uint32		number;
	int			type;
	JsonbParseState *state = NULL;

	reader.pos = context->at;
	reader.end = context->at + context->len;
	reader.message = "Context";
	while (pb_next_field(&reader, &number, &type))
	{
		if (number != 1)
		{
			pb_skip(&reader, type);
			continue;
		}
		read_map_entry(&reader, type, "labels", "Context.LabelsEntry", false, &entry);
		entry.at = reader.field_at;
		append_entry(&labels, &entry);
	}
	sort_last_wins(&labels);
	if (labels.count == 0)
		return NULL;
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	for (int i = 0; i < labels.count; i++)
	{
		char	   *key = label_string(&reader, strings, labels.entries[i].key, labels.entries[i].at, "key");
		char	   *value = label_string(&reader, strings, labels.entries[i].value, labels.entries[i].at, "value");

		*text += strlen(key) + strlen(value);
		if (*text > memory_limit)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("JFR label sets need more than %zu kB of memory", memory_limit / 1024),
					 errhint("Raise calltree.import_work_mem.")));
		push_string(&state, WJB_KEY, key);
		push_string(&state, WJB_VALUE, value);
	}
	pfree(labels.entries);
	return JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL));
}

JfrLabels *
jfr_labels_decode(const uint8 *data, size_t len, size_t memory_limit)
{
	PbReader	reader;
	EntryList	strings = {0};
	EntryList	contexts = {0};
	MapEntry	entry;
	uint32		number;
	int			type;
	JfrLabels  *result = palloc0(sizeof(JfrLabels));
	size_t		text = 0;

	pb_reader_init(&reader, data, len, LABELS_FORMAT, "LabelsSnapshot");
	while (pb_next_field(&reader, &number, &type))
	{
		CHECK_FOR_INTERRUPTS();
		if (number == 1)
		{
			read_map_entry(&reader, type, "contexts", "LabelsSnapshot.ContextsEntry", true, &entry);
			append_entry(&contexts, &entry);
		}
		else if (number == 2)
		{
			read_map_entry(&reader, type, "strings", "LabelsSnapshot.StringsEntry", true, &entry);
			append_entry(&strings, &entry);
		}
		else
			pb_skip(&reader, type);
	}
	sort_last_wins(&strings);
	sort_last_wins(&contexts);
	result->data = data;
	result->len = len;
	result->strings = palloc(sizeof(EntryList));
	*result->strings = strings;
	result->sets = palloc(sizeof(JfrLabelSet) * Max(contexts.count, 1));
	for (int i = 0; i < contexts.count; i++)
	{
		Jsonb	   *labels;

		CHECK_FOR_INTERRUPTS();
		labels = context_labels(&reader, &strings, &contexts.entries[i], memory_limit, &text);
		if (labels == NULL)
			continue;
		result->sets[result->count].context_id = contexts.entries[i].key;
		result->sets[result->count].labels = labels;
		result->count++;
	}
	return result;
}

char *
jfr_labels_string(const JfrLabels *labels, int64 id)
{
	PbReader	reader;

	if (find_entry(labels->strings, id) == NULL)
		return NULL;
	pb_reader_init(&reader, labels->data, labels->len, LABELS_FORMAT, "LabelsSnapshot");
	return label_string(&reader, labels->strings, id, 0, "span name");
}

int
jfr_labels_find(const JfrLabels *labels, int64 context_id)
{
	for (int lo = 0, hi = labels->count - 1; lo <= hi;)
	{
		int			mid = lo + (hi - lo) / 2;
		int64		id = labels->sets[mid].context_id;

		if (id == context_id)
			return mid;
		if (id < context_id)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}
