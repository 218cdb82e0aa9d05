/*
 * jfr_metadata.c
 *	  The metadata event of a JFR chunk: the tree of elements that describes
 *	  every class (its id, name and fields, each with its type, whether it
 *	  is a constant-pool reference and whether an array), read into the
 *	  decoder's classes, whose fields are then resolved to class indexes.
 */
#include "postgres.h"

#include "miscadmin.h"

#include "formats/jfr_internal.h"

static const char *
metadata_string(const JfrDecoder *decoder, JfrReader *r)
{
	size_t		at = r->pos;
	int64		i = jfr_read_int(r, 4);

	if (i < 0 || i >= decoder->nstrings || decoder->strings[i] == NULL)
		jfr_error(at, "The metadata refers to string " INT64_FORMAT ", which it does not hold.", i);
	return decoder->strings[i];
}

static JfrType
primitive_type(const char *name)
{
	static const struct
	{
		const char *name;
		JfrType		type;
	}			primitives[] = {
		{"boolean", JT_BOOLEAN}, {"byte", JT_BYTE}, {"char", JT_CHAR}, {"short", JT_SHORT},
		{"int", JT_INT}, {"long", JT_LONG}, {"float", JT_FLOAT}, {"double", JT_DOUBLE},
		{"java.lang.String", JT_STRING},
	};

	for (int i = 0; i < lengthof(primitives); i++)
		if (strcmp(name, primitives[i].name) == 0)
			return primitives[i].type;
	return JT_STRUCT;
}

static int64
parse_id(const char *s, size_t at)
{
	char	   *end;
	long long	v = strtoll(s, &end, 10);

	if (*s == '\0' || *end != '\0')
		jfr_error(at, "The metadata's type id \"%s\" is not a number.", s);
	return (int64) v;
}

/*
 * One element of the metadata tree and its children: "class" elements
 * become classes, their "field" children fields.  cls: the class being
 * described, NULL outside one.
 */
static void
read_element(JfrDecoder *decoder, JfrReader *r, JfrClass *cls, int depth)
{
	size_t		at = r->pos;
	const char *name = metadata_string(decoder, r);
	int64		nattrs = jfr_read_count(r, "count of attributes");
	JfrClass   *new_class = NULL;
	JfrField   *new_field = NULL;
	int64		nchildren;

	CHECK_FOR_INTERRUPTS();
	if (depth > JFR_MAX_DEPTH)
		jfr_error(at, "The metadata nests more than %d deep.", JFR_MAX_DEPTH);
	if (strcmp(name, "class") == 0)
	{
		decoder->classes = jfr_grow(decoder, decoder->classes, &decoder->classes_cap, decoder->nclasses,
								sizeof(JfrClass), at);
		new_class = &decoder->classes[decoder->nclasses++];
		memset(new_class, 0, sizeof(JfrClass));
		new_class->id = -1;
		new_class->name = "";
	}
	else if (strcmp(name, "field") == 0 && cls != NULL)
	{
		cls->fields = jfr_grow(decoder, cls->fields, &cls->fields_cap, cls->nfields, sizeof(JfrField), at);
		new_field = &cls->fields[cls->nfields++];
		memset(new_field, 0, sizeof(JfrField));
		new_field->name = "";
		new_field->class_id = -1;
	}
	for (int64 i = 0; i < nattrs; i++)
	{
		size_t		attr_at = r->pos;
		const char *key = metadata_string(decoder, r);
		const char *value = metadata_string(decoder, r);

		if (new_class && strcmp(key, "id") == 0)
			new_class->id = parse_id(value, attr_at);
		else if (new_class && strcmp(key, "name") == 0)
			new_class->name = value;
		else if (new_field && strcmp(key, "name") == 0)
			new_field->name = value;
		else if (new_field && strcmp(key, "class") == 0)
			new_field->class_id = parse_id(value, attr_at);
		else if (new_field && strcmp(key, "constantPool") == 0)
			new_field->constant_pool = strcmp(value, "true") == 0;
		else if (new_field && strcmp(key, "dimension") == 0)
			new_field->array = strcmp(value, "0") != 0;
	}
	nchildren = jfr_read_count(r, "count of children");
	for (int64 i = 0; i < nchildren; i++)
	{
		/* classes move when the array grows: pass the index's class afresh */
		int			ci = new_class ? (int) (new_class - decoder->classes) : -1;

		read_element(decoder, r, ci >= 0 ? &decoder->classes[ci] : NULL, depth + 1);
		if (ci >= 0)
			new_class = &decoder->classes[ci];
	}
}

/* Field types by index, primitives by name; an error for a type not described */
static void
resolve_classes(JfrDecoder *decoder, size_t at)
{
	decoder->class_ids = jfr_alloc(decoder, sizeof(JfrPoolEntry) * Max(decoder->nclasses, 1), at);
	for (int i = 0; i < decoder->nclasses; i++)
	{
		decoder->classes[i].type = primitive_type(decoder->classes[i].name);
		decoder->class_ids[i].key = decoder->classes[i].id;
		decoder->class_ids[i].offset = i;
	}
	qsort(decoder->class_ids, decoder->nclasses, sizeof(JfrPoolEntry), jfr_compare_entries);
	for (int i = 0; i < decoder->nclasses; i++)
		for (int f = 0; f < decoder->classes[i].nfields; f++)
		{
			JfrField   *field = &decoder->classes[i].fields[f];

			field->class_index = jfr_class_by_id(decoder, field->class_id);
			if (field->class_index < 0)
				jfr_error(at, "Field %s of type %s is of a type the metadata does not describe.",
						  field->name, decoder->classes[i].name);
		}
	decoder->string_class = jfr_class_by_name(decoder, "java.lang.String");
	decoder->stack_trace_class = jfr_class_by_name(decoder, "jdk.types.StackTrace");
}

void
jfr_read_metadata(JfrDecoder *decoder, size_t at)
{
	JfrReader	r;
	int64		size;

	jfr_chunk_reader(decoder, &r, at);
	size = jfr_read_int(&r, 4);
	if (size <= 0 || (uint64) size > decoder->chunk_end - at)
		jfr_error(at, "The metadata's size " INT64_FORMAT " runs past its chunk.", size);
	r.end = at + size;
	if (jfr_read_int(&r, 8) != JFR_EVENT_METADATA)
		jfr_error(at, "The chunk header's metadata offset does not point at the metadata.");
	(void) jfr_read_int(&r, 8);		/* start */
	(void) jfr_read_int(&r, 8);		/* duration */
	(void) jfr_read_int(&r, 8);		/* metadata id */
	decoder->nstrings = (int) jfr_read_count(&r, "count of metadata strings");
	decoder->strings = jfr_alloc(decoder, sizeof(char *) * Max(decoder->nstrings, 1), at);
	for (int i = 0; i < decoder->nstrings; i++)
	{
		size_t		string_at = r.pos;

		if (r.pos < r.end && r.data[r.pos] == 2)
			jfr_error(string_at, "A metadata string refers to a constant pool.");
		decoder->strings[i] = jfr_read_string(decoder, &r, true);
	}
	read_element(decoder, &r, NULL, 0);
	resolve_classes(decoder, at);
}
