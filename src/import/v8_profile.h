/*
 * v8_profile.h
 *	  A V8 CPU profile as a table of nodes and a list of timed samples,
 *	  shared by the .cpuprofile importer and the CPU samples of trace-event
 *	  files (Chrome's Profile/ProfileChunk events, the "samples" and
 *	  "stackFrames" of Hermes traces).
 *
 * An importer adds nodes (id, call frame) while it reads them, indexes
 * their ids once all are read, links each node to its parent (by a
 * "parent" id, a "children" list, or both when they agree), and reads samples (node ids with
 * times).  Writing sorts the samples by time and gives each the ns until
 * the next one of its thread.
 *
 * Rules: a parentless root marker ("(root)", or a Hermes frame of
 * category "root") is not a frame, so its children are the root funcs; a
 * sample on the marker itself keeps a func of the marker's name so its time
 * is not lost.  func = (name, url), an empty url NULL; frame = (line, col),
 * 1-based, NULL when unknown.  An unnamed function is named by where it
 * starts, the call frame's url, line and column (js_names.h).
 */
#ifndef CALLTREE_V8_PROFILE_H
#define CALLTREE_V8_PROFILE_H

#include "postgres.h"

#include "writer/writer.h"
#include "formats/json_reader.h"

typedef struct V8Node
{
	int64		id;
	int			parent;			/* index, -1 for none */
	const char *name;
	const char *url;			/* NULL: none */
	OptionalInt line;
	OptionalInt col;
	bool		root_marker;	/* "(root)": not a frame when parentless */
	int64		stack;			/* 0: not interned yet (or the root) */
	bool		interned;
} V8Node;

typedef struct V8Profile
{
	const JsonFormat *format;	/* names the format in errors */
	V8Node	   *nodes;
	int			nnodes;
	int			capacity;
	int64	   *sorted_ids;		/* ids sorted, for lookups */
	int		   *sorted_index;	/* the node index of each sorted id */
} V8Profile;

typedef struct V8Sample
{
	int32		thread;			/* index into the writer's thread labels */
	int32		order;			/* position in the file, for a stable sort */
	int64		ts;				/* ns after the profile's origin */
	int			node;
} V8Sample;

typedef struct V8Samples
{
	V8Sample   *items;
	int			n;
	int			capacity;
	int64		clock;			/* ns: the running sum of time deltas */
} V8Samples;

/* nodes */
extern int	v8_add_node(V8Profile *profile);
extern void v8_read_call_frame(V8Profile *profile, V8Node *node, JsonbContainer *frame,
							   const JsonPath *path);
extern int64 v8_node_id(V8Profile *profile, JsonbContainer *object, const JsonPath *path);
extern void v8_index_node_ids(V8Profile *profile);
extern int	v8_find_node(V8Profile *profile, int64 id, const JsonPath *path);
extern int	v8_find_node_value(V8Profile *profile, const JsonbValue *value, const JsonPath *path);
extern void v8_link_node(V8Profile *profile, int index, JsonbContainer *object, const JsonPath *path);
extern void v8_read_nodes(V8Profile *profile, JsonbContainer *nodes, const JsonPath *nodes_path);
extern void v8_link_nodes(V8Profile *profile, JsonbContainer *nodes, const JsonPath *nodes_path, int first);
extern void v8_set_parent(V8Profile *profile, int child, int parent, const JsonPath *path);

/* samples */
extern void v8_add_sample(V8Samples *samples, int32 thread, int64 ts, int node);
extern void v8_read_samples(V8Profile *profile, V8Samples *samples,
							JsonbContainer *nodes, const JsonPath *nodes_path,
							JsonbContainer *times, const JsonPath *times_path,
							bool deltas, int64 base);
extern void v8_write_samples(ProfileWriter *writer, V8Profile *profile, V8Samples *samples,
							 const char *const *thread_labels, bool has_end, int64 end);

#endif							/* CALLTREE_V8_PROFILE_H */
