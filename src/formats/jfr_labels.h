/*
 * jfr_labels.h
 *	  The labels the Pyroscope Java agent sends beside a JFR recording: a
 *	  LabelsSnapshot protobuf, mapping the context ids that its events carry
 *	  (their contextId field) to label sets.
 *
 *	  message LabelsSnapshot {
 *	    map<int64, Context> contexts = 1;
 *	    map<int64, string> strings = 2;
 *	  }
 *	  message Context { map<int64, int64> labels = 1; }	// key id -> value id
 *
 * Both ids of a label are keys of strings.  As protobuf maps, a key
 * written twice keeps its last value.
 */
#ifndef CALLTREE_JFR_LABELS_H
#define CALLTREE_JFR_LABELS_H

#include "postgres.h"

#include "utils/jsonb.h"

typedef struct JfrLabelSet
{
	int64		context_id;
	Jsonb	   *labels;			/* {"key": "value", ...} */
} JfrLabelSet;

struct EntryList;

typedef struct JfrLabels
{
	JfrLabelSet *sets;			/* sorted by context id, one per id */
	int			count;
	/* the snapshot's strings, read when asked for (jfr_labels_string) */
	const uint8 *data;			/* the snapshot, which must outlive this */
	size_t		len;
	struct EntryList *strings;
} JfrLabels;

/*
 * Decodes a snapshot (not compressed) into label sets, in the server's
 * encoding, allocated in the current memory context; a context without
 * labels has no set.  Bad data is an ERROR naming its byte offset; so
 * are label sets whose text would take more than memory_limit bytes.
 */
extern JfrLabels *jfr_labels_decode(const uint8 *data, size_t len, size_t memory_limit);

/* The index of a context's label set, -1 if it has none */
extern int	jfr_labels_find(const JfrLabels *labels, int64 context_id);

/*
 * A string of the snapshot by its id (as an event's spanName gives it), in
 * the server's encoding; NULL if the snapshot has none of that id.  Text
 * that is not UTF-8 is an ERROR naming its byte offset.
 */
extern char *jfr_labels_string(const JfrLabels *labels, int64 id);

#endif							/* CALLTREE_JFR_LABELS_H */
