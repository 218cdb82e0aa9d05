/*
 * export_flamegraph_svg.h
 *	  Drawing flame graphs as self-contained SVG documents: the layout of
 *	  the boxes, the page (style, script, controls) and one box at a time.
 *	  export_flamegraph_svg.c defines it.
 *
 * Two exporters draw with it: flamegraph() (export_flamegraph.c), which
 * colors a box by its func's name, and flamegraph_diff()
 * (export_flamegraph_diff.c), which colors it by how its share changed
 * between two trees.  Both give, per node in preorder, the parent, the
 * depth and the running weight that makes the box's width; each writes its
 * own tooltips and colors.  The script of the page is the same for both:
 * zoom, search and reset read only what every box carries.
 */
#ifndef CALLTREE_EXPORT_FLAMEGRAPH_SVG_H
#define CALLTREE_EXPORT_FLAMEGRAPH_SVG_H

#include "postgres.h"

#include "lib/stringinfo.h"

/* The plot's width in pixels: a box of the total's weight is this wide. */
#define FLAME_PLOT_WIDTH	1180
#define FLAME_IMAGE_WIDTH	1200

/* What the caller of flamegraph() or flamegraph_diff() chose. */
typedef struct FlameOptions
{
	const char *title;			/* in the server encoding; NULL: default */
	bool		icicle;
	double		min_width;		/* pixels */
	const char *unit_lower;		/* the weights' unit, lower case; NULL: numbers as they are */
} FlameOptions;

/* Where each node goes; widths in pixels are running * scale. */
typedef struct FlameLayout
{
	int32		nnodes;
	const int64 *running;		/* the caller's, per node */
	const int32 *depth;			/* the caller's, per node */
	int64	   *x;				/* left edge, in weight units */
	bool	   *visible;
	int32		max_depth;		/* deepest visible node, -1 if none */
	int64		total;
	double		scale;			/* pixels per unit of weight */
	int32		header_height;	/* above the plot: title and legend lines */
	int32		height;			/* of the whole image */
} FlameLayout;

/*
 * Reads min_width (NULL: the default) and checks it: a finite, non-negative
 * number of pixels.
 */
extern double flame_min_width_arg(bool isnull, double min_width);

/*
 * Lays out n nodes in preorder (parent[i] < i, -1 for a root), of
 * non-negative running weights summing, over the roots, to total.  A box
 * is visible when it is at least options->min_width pixels wide and its
 * parent is visible.  legend_lines adds lines of text under the title.
 */
extern FlameLayout *flame_layout(int32 n, const int64 *running, const int32 *parent,
								 const int32 *depth, int64 total,
								 const FlameOptions *options, int legend_lines);

/*
 * The page up to the boxes: the document's root, style, script,
 * background, title (default_title if options->title is NULL) and
 * controls, then the legend's lines (ASCII, escaped here; NULL for none),
 * then the opening of the group of boxes.
 */
extern void flame_begin_document(StringInfo buf, const FlameLayout *layout,
								 const FlameOptions *options, const char *default_title,
								 const char *const *legend);

/*
 * One box for node i: name is UTF-8 (escaped here), stats the tooltip's
 * second line and fill the rectangle's color, both ASCII with no markup.
 */
extern void flame_append_frame(StringInfo buf, const FlameLayout *layout, int32 i,
							   const char *name, const char *stats, const char *fill,
							   bool icicle);

/*
 * Reads unit (NULL: none) into options->unit_lower: the tooltips then
 * print weights as pprof does, scaled in it (18.46s, 1.50MB).
 */
extern void flame_unit_arg(FlameOptions *options, bool isnull, text *unit);

/* A weight for a tooltip, in options' unit: ASCII, no markup. */
extern char *flame_weight(const FlameOptions *options, int64 weight);

/* Closes the group of boxes and the document. */
extern void flame_end_document(StringInfo buf);

/* A func's name for its box: UTF-8, "#<id>" for a func with no name. */
extern const char *flame_func_name(const char *name_or_null, int32 func);

/* Text in the server encoding, as UTF-8 (the same pointer if it already is). */
extern const char *flame_to_utf8(const char *s);

#endif							/* CALLTREE_EXPORT_FLAMEGRAPH_SVG_H */
