/*
 * export_flamegraph_svg.c
 *	  The drawing shared by flamegraph() and flamegraph_diff(): one
 *	  self-contained SVG document, with its CSS and JavaScript inline and no
 *	  external resource.
 *
 * The picture follows the conventions of Brendan Gregg's flamegraph.pl and
 * of inferno: one box per CallNode, its width proportional to the node's
 * running weight, its x the running weight of the nodes before it in
 * preorder among its siblings (children start at their parent's left edge,
 * in the caller's sibling order, so the parent's self weight is the gap on
 * the right), its y given by its depth: roots at the bottom, or at the top
 * for an icicle graph.  The callers choose the colors and the tooltips.
 *
 * Boxes narrower than min_width pixels, with their subtrees, are left out
 * of the document: a profile of a million nodes draws the few thousand that
 * can be seen.  The script adds zooming (click a box), a reset control, and
 * a regexp search that highlights the matching boxes and sums the weight
 * they cover.  The output depends only on what the callers pass: the same
 * tree gives the same bytes.
 *
 * The document is plain ASCII: every other character is written as an XML
 * character reference, so the text is correct whatever the database and
 * client encodings are.  XML 1.0 cannot hold control characters, which are
 * drawn as spaces, nor U+FFFE, U+FFFF or surrogates, not even as references:
 * those, and bytes that are not UTF-8, are written as U+FFFD, the
 * replacement character.
 */
#include "postgres.h"

#include <math.h>

#include "catalog/pg_collation.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/formatting.h"

#include "formats/weight_format.h"
#include "export/export_flamegraph_svg.h"

/*
 * Geometry, in pixels, as flamegraph.pl draws it.  The label width estimate
 * (FONT_SIZE * FONT_WIDTH per character) is shared with the script, which
 * re-truncates the labels on zoom: keep CHAR_WIDTH in step with it.
 */
#define IMAGE_WIDTH		FLAME_IMAGE_WIDTH
#define X_PAD			10
#define PLOT_WIDTH		FLAME_PLOT_WIDTH
#define FRAME_HEIGHT	16
#define FONT_SIZE		12
#define CHAR_WIDTH		7.08	/* FONT_SIZE * 0.59, an average glyph */
#define LABEL_PAD		3		/* from the box's left edge to its label */
#define HEADER_HEIGHT	(FONT_SIZE * 3)
#define LEGEND_LINE		(FONT_SIZE + 4)
#define FOOTER_HEIGHT	(FONT_SIZE * 2 + 10)

StaticAssertDecl(IMAGE_WIDTH == PLOT_WIDTH + 2 * X_PAD, "the plot is centered in the image");

/* ---------------------------------------------------------------------
 * The page's style and script.  The script reads everything it needs from
 * the document: per box, data-x and data-w (left edge and running weight,
 * in weight units) and data-depth; the name is the first part of the
 * box's <title>, up to its last line break.
 * ---------------------------------------------------------------------
 */
static const char flamegraph_css[] =
"text { font-family: Verdana, \"DejaVu Sans\", sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
"#title { font-size: 17px; text-anchor: middle; }\n"
"#search, #matched { text-anchor: end; }\n"
"#legend text { text-anchor: middle; }\n"
".control { cursor: pointer; opacity: 0.7; }\n"
".control:hover { opacity: 1; }\n"
".frame { cursor: pointer; }\n"
".frame text { pointer-events: none; }\n"
".frame:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
".frame.match rect { fill: rgb(230,0,230); }\n"
".frame.ancestor { opacity: 0.5; }\n"
".hide { display: none; }\n";

static const char flamegraph_js[] =
"\"use strict\";\n"
"(function () {\n"
"  var PLOT_X = 10, PLOT_WIDTH = 1180, CHAR_WIDTH = 7.08, LABEL_PAD = 3;\n"
"  var frames = [], total = 0, searching = false;\n"
"  var details, matched, unzoomControl, searchControl;\n"
"\n"
"  /* The label that fits a box: the name, or its start and \"..\", or nothing. */\n"
"  function fitLabel(chars, width) {\n"
"    var fit = Math.floor((width - 2 * LABEL_PAD) / CHAR_WIDTH);\n"
"    if (chars.length <= fit) return chars.join(\"\");\n"
"    if (fit < 3) return \"\";\n"
"    return chars.slice(0, fit - 2).join(\"\") + \"..\";\n"
"  }\n"
"\n"
"  function place(f, x, width) {\n"
"    f.rect.setAttribute(\"x\", x.toFixed(2));\n"
"    f.rect.setAttribute(\"width\", width.toFixed(2));\n"
"    f.label.setAttribute(\"x\", (x + LABEL_PAD).toFixed(2));\n"
"    f.label.textContent = fitLabel(f.chars, width);\n"
"  }\n"
"\n"
"  /* Zoom on a box: it and its descendants fill the width, its ancestors\n"
"   * span it (dimmed), everything else is hidden.  Weights are integers:\n"
"   * comparing edges as BigInts tells ancestors and descendants apart\n"
"   * exactly, even beyond 2^53. */\n"
"  function zoom(target) {\n"
"    var left = target.left, right = target.right;\n"
"    var scale = PLOT_WIDTH / target.w;\n"
"    frames.forEach(function (f) {\n"
"      var g = f.element;\n"
"      if (f.depth < target.depth && f.left <= left && f.right >= right) {\n"
"        place(f, PLOT_X, PLOT_WIDTH);\n"
"        g.classList.add(\"ancestor\");\n"
"        g.classList.remove(\"hide\");\n"
"      } else if (f.depth >= target.depth && f.left >= left && f.right <= right) {\n"
"        place(f, PLOT_X + Number(f.left - left) * scale, f.w * scale);\n"
"        g.classList.remove(\"ancestor\", \"hide\");\n"
"      } else {\n"
"        g.classList.add(\"hide\");\n"
"      }\n"
"    });\n"
"    unzoomControl.classList.remove(\"hide\");\n"
"  }\n"
"\n"
"  function unzoom() {\n"
"    var scale = PLOT_WIDTH / total;\n"
"    frames.forEach(function (f) {\n"
"      place(f, PLOT_X + f.x * scale, f.w * scale);\n"
"      f.element.classList.remove(\"ancestor\", \"hide\");\n"
"    });\n"
"    unzoomControl.classList.add(\"hide\");\n"
"  }\n"
"\n"
"  /* Highlight the boxes whose name matches, and show the share of the total\n"
"   * they cover.  A sample is counted once: only matches with no matching\n"
"   * ancestor are summed.  The boxes are in preorder, so a box lies inside\n"
"   * the last counted match exactly when it starts before that match ends\n"
"   * (boxes of zero width are never drawn). */\n"
"  function search(term) {\n"
"    var re, sum = 0, coveredTo = BigInt(-1);\n"
"    try {\n"
"      re = new RegExp(term);\n"
"    } catch (e) {\n"
"      matched.textContent = \"Invalid regexp: \" + term;\n"
"      return;\n"
"    }\n"
"    frames.forEach(function (f) {\n"
"      var hit = re.test(f.name);\n"
"      f.element.classList.toggle(\"match\", hit);\n"
"      if (hit && f.left >= coveredTo) {\n"
"        sum += f.w;\n"
"        coveredTo = f.right;\n"
"      }\n"
"    });\n"
"    matched.textContent = \"Matched: \" + (total > 0 ? 100 * sum / total : 0).toFixed(2) + \"%\";\n"
"    searchControl.textContent = \"Reset Search\";\n"
"    searching = true;\n"
"  }\n"
"\n"
"  function resetSearch() {\n"
"    frames.forEach(function (f) { f.element.classList.remove(\"match\"); });\n"
"    matched.textContent = \"\";\n"
"    searchControl.textContent = \"Search\";\n"
"    searching = false;\n"
"  }\n"
"\n"
"  function askSearch() {\n"
"    var term = window.prompt(\"Search for a function (a regular expression):\", \"\");\n"
"    if (term) search(term); else resetSearch();\n"
"  }\n"
"\n"
"  function init() {\n"
"    details = document.getElementById(\"details\");\n"
"    matched = document.getElementById(\"matched\");\n"
"    unzoomControl = document.getElementById(\"unzoom\");\n"
"    searchControl = document.getElementById(\"search\");\n"
"    total = Number(document.getElementById(\"frames\").getAttribute(\"data-total\"));\n"
"    document.querySelectorAll(\"#frames > g.frame\").forEach(function (g) {\n"
"      var tip = g.querySelector(\"title\").textContent;\n"
"      var name = tip.substring(0, tip.lastIndexOf(\"\\n\"));\n"
"      var summary = name + \": \" + tip.substring(name.length + 1);\n"
"      var left = BigInt(g.getAttribute(\"data-x\")), width = BigInt(g.getAttribute(\"data-w\"));\n"
"      var f = {\n"
"        element: g, name: name, chars: Array.from(name),\n"
"        left: left, right: left + width, x: Number(left), w: Number(width),\n"
"        depth: Number(g.getAttribute(\"data-depth\")),\n"
"        rect: g.querySelector(\"rect\"), label: g.querySelector(\"text\")\n"
"      };\n"
"      frames.push(f);\n"
"      g.addEventListener(\"click\", function () { zoom(f); });\n"
"      g.addEventListener(\"mouseover\", function () { details.textContent = summary; });\n"
"      g.addEventListener(\"mouseout\", function () { details.textContent = \"\"; });\n"
"    });\n"
"    unzoomControl.addEventListener(\"click\", unzoom);\n"
"    searchControl.addEventListener(\"click\", function () {\n"
"      if (searching) resetSearch(); else askSearch();\n"
"    });\n"
"    window.addEventListener(\"keydown\", function (e) {\n"
"      if ((e.ctrlKey || e.metaKey) && e.key === \"f\") {\n"
"        e.preventDefault();\n"
"        askSearch();\n"
"      } else if (e.key === \"Escape\") {\n"
"        unzoom();\n"
"        resetSearch();\n"
"      }\n"
"    });\n"
"  }\n"
"\n"
"  window.addEventListener(\"load\", init);\n"
"})();\n";

/* ---------------------------------------------------------------------
 * Layout
 * ---------------------------------------------------------------------
 */

double
flame_min_width_arg(bool isnull, double min_width)
{
	if (isnull)
		return 0.1;
	if (isnan(min_width) || min_width < 0 || isinf(min_width))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("min_width must be a finite, non-negative number of pixels"),
				 errdetail("The image is %d pixels wide; boxes narrower than min_width are left out.",
						   IMAGE_WIDTH)));
	return min_width;
}

FlameLayout *
flame_layout(int32 n, const int64 *running, const int32 *parent, const int32 *depth,
			 int64 total, const FlameOptions *options, int legend_lines)
{
	FlameLayout *layout = palloc0(sizeof(FlameLayout));
	int64	   *next = palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE);
	int64		next_root = 0;
	int32		rows;

	layout->nnodes = n;
	layout->running = running;
	layout->depth = depth;
	layout->x = palloc_extended(sizeof(int64) * Max(n, 1), MCXT_ALLOC_HUGE);
	layout->visible = palloc_extended(sizeof(bool) * Max(n, 1), MCXT_ALLOC_HUGE);
	layout->total = total;
	layout->scale = total > 0 ? (double) PLOT_WIDTH / (double) total : 0;
	layout->max_depth = -1;

	/*
	 * next[p] is where p's next child starts.  A box is visible when it is
	 * wide enough and its parent is visible (a child is never wider than its
	 * parent, but zero-weight parents make no box at all).
	 */
	for (int32 i = 0; i < n; i++)
	{
		int32		p = parent[i];

		if ((i & 0x3FFF) == 0)
			CHECK_FOR_INTERRUPTS();
		layout->x[i] = p < 0 ? next_root : next[p];
		if (p < 0)
			next_root += running[i];
		else
			next[p] += running[i];
		next[i] = layout->x[i];
		layout->visible[i] = running[i] > 0 &&
			running[i] * layout->scale >= options->min_width &&
			(p < 0 || layout->visible[p]);
		if (layout->visible[i])
			layout->max_depth = Max(layout->max_depth, depth[i]);
	}
	pfree(next);

	rows = Max(layout->max_depth + 1, 1);
	layout->header_height = HEADER_HEIGHT + legend_lines * LEGEND_LINE;
	layout->height = layout->header_height + rows * FRAME_HEIGHT + FOOTER_HEIGHT;
	return layout;
}

/* The top edge of a box at this depth. */
static int32
frame_y(const FlameLayout *layout, int32 depth, bool icicle)
{
	if (icicle)
		return layout->header_height + depth * FRAME_HEIGHT;
	return layout->height - FOOTER_HEIGHT - (depth + 1) * FRAME_HEIGHT;
}

/* ---------------------------------------------------------------------
 * Text
 * ---------------------------------------------------------------------
 */

void
flame_unit_arg(FlameOptions *options, bool isnull, text *unit)
{
	char	   *given;

	options->unit_lower = NULL;
	if (isnull)
		return;
	given = text_to_cstring(unit);
	options->unit_lower = str_tolower(given, strlen(given), DEFAULT_COLLATION_OID);
}

/*
 * With "auto" as the scale, weight_format() shows a unit it does not know
 * as a count: the digits only, ASCII whatever unit was given.
 */
char *
flame_weight(const FlameOptions *options, int64 weight)
{
	if (options->unit_lower == NULL)
		return psprintf(INT64_FORMAT, weight);
	return weight_format(weight, options->unit_lower, "auto", "auto");
}

const char *
flame_to_utf8(const char *s)
{
	return pg_server_to_any(s, strlen(s), PG_UTF8);
}

const char *
flame_func_name(const char *name_or_null, int32 func)
{
	return name_or_null ? flame_to_utf8(name_or_null) : psprintf("#%d", func);
}

/*
 * The bytes of the UTF-8 character at s, or 0 if s does not start one (a
 * database in SQL_ASCII keeps any bytes): never past the terminating NUL.
 */
static int
utf8_char_len(const char *s)
{
	int			len = pg_utf_mblen((const unsigned char *) s);

	for (int i = 1; i < len; i++)
		if (s[i] == '\0')
			return 0;
	return pg_utf8_islegal((const unsigned char *) s, len) ? len : 0;
}

/* Whether XML 1.0 allows the code point above ASCII (its production Char) */
static bool
xml_char(pg_wchar c)
{
	return (c >= 0x80 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
		(c >= 0x10000 && c <= 0x10FFFF);
}

static int
utf8_chars(const char *s)
{
	int			chars = 0;

	while (*s)
	{
		int			len = utf8_char_len(s);

		s += len > 0 ? len : 1;
		chars++;
	}
	return chars;
}

/*
 * Appends at most max_chars characters of a UTF-8 string (-1: all of it),
 * escaped for XML text and attribute values, in ASCII (see the top).
 */
static void
append_xml_text(StringInfo buf, const char *s, int max_chars)
{
	for (int chars = 0; *s && chars != max_chars; chars++)
	{
		unsigned char c = (unsigned char) *s;

		if (c >= 0x80)
		{
			int			len = utf8_char_len(s);
			pg_wchar	code = len > 0 ? utf8_to_unicode((const unsigned char *) s) : 0;

			appendStringInfo(buf, "&#x%X;", xml_char(code) ? code : 0xFFFD);
			s += len > 0 ? len : 1;
			continue;
		}
		s++;
		if (c < 0x20 || c == 0x7F)
			appendStringInfoChar(buf, ' ');
		else if (c == '&')
			appendStringInfoString(buf, "&amp;");
		else if (c == '<')
			appendStringInfoString(buf, "&lt;");
		else if (c == '>')
			appendStringInfoString(buf, "&gt;");
		else if (c == '"')
			appendStringInfoString(buf, "&quot;");
		else if (c == '\'')
			appendStringInfoString(buf, "&apos;");
		else
			appendStringInfoChar(buf, (char) c);
	}
}

/*
 * The label of a box: the whole name if it fits, else its first characters
 * and "..", else nothing.  The script's fitLabel() does the same on zoom.
 */
static void
append_label(StringInfo buf, const char *name, double width)
{
	int			fit = (int) floor((width - 2 * LABEL_PAD) / CHAR_WIDTH);
	int			chars = utf8_chars(name);

	if (chars <= fit)
		append_xml_text(buf, name, -1);
	else if (fit >= 3)
	{
		append_xml_text(buf, name, fit - 2);
		appendStringInfoString(buf, "..");
	}
}

/* ---------------------------------------------------------------------
 * The document
 * ---------------------------------------------------------------------
 */

void
flame_begin_document(StringInfo buf, const FlameLayout *layout, const FlameOptions *options,
					 const char *default_title, const char *const *legend)
{
	int32		h = layout->height;

	appendStringInfo(buf,
					 "<?xml version=\"1.0\" standalone=\"no\"?>\n"
					 "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
					 " xmlns=\"http://www.w3.org/2000/svg\">\n",
					 IMAGE_WIDTH, h, IMAGE_WIDTH, h);
	appendStringInfo(buf,
					 "<defs>\n"
					 "<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
					 "<stop stop-color=\"#eeeeee\" offset=\"5%%\"/>"
					 "<stop stop-color=\"#eeeeb0\" offset=\"95%%\"/>"
					 "</linearGradient>\n"
					 "</defs>\n");
	appendStringInfo(buf, "<style type=\"text/css\">\n%s</style>\n", flamegraph_css);
	appendStringInfo(buf, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n",
					 flamegraph_js);
	appendStringInfo(buf,
					 "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"url(#background)\"/>\n",
					 IMAGE_WIDTH, h);

	appendStringInfo(buf, "<text id=\"title\" x=\"%d\" y=\"%d\">",
					 IMAGE_WIDTH / 2, FONT_SIZE * 2);
	append_xml_text(buf, options->title ? flame_to_utf8(options->title) : default_title, -1);
	appendStringInfoString(buf, "</text>\n");

	if (legend && legend[0])
	{
		appendStringInfoString(buf, "<g id=\"legend\">");
		for (int line = 0; legend[line]; line++)
		{
			appendStringInfo(buf, "<text x=\"%d\" y=\"%d\">",
							 IMAGE_WIDTH / 2, HEADER_HEIGHT + line * LEGEND_LINE + FONT_SIZE - 2);
			append_xml_text(buf, legend[line], -1);
			appendStringInfoString(buf, "</text>");
		}
		appendStringInfoString(buf, "</g>\n");
	}

	appendStringInfo(buf,
					 "<text id=\"unzoom\" class=\"control hide\" x=\"%d\" y=\"%d\">Reset Zoom</text>\n"
					 "<text id=\"search\" class=\"control\" x=\"%d\" y=\"%d\">Search</text>\n"
					 "<text id=\"details\" x=\"%d\" y=\"%d\"></text>\n"
					 "<text id=\"matched\" x=\"%d\" y=\"%d\"></text>\n",
					 X_PAD, FONT_SIZE * 2,
					 IMAGE_WIDTH - X_PAD, FONT_SIZE * 2,
					 X_PAD, h - FOOTER_HEIGHT / 2,
					 IMAGE_WIDTH - X_PAD, h - FOOTER_HEIGHT / 2);

	appendStringInfo(buf, "<g id=\"frames\" data-total=\"" INT64_FORMAT "\">\n", layout->total);
}

/*
 * One box: a group with the node's extent in weight units (for the script),
 * its tooltip, its rectangle and its label.
 */
void
flame_append_frame(StringInfo buf, const FlameLayout *layout, int32 i,
				   const char *name, const char *stats, const char *fill, bool icicle)
{
	int64		running = layout->running[i];
	double		x = X_PAD + layout->x[i] * layout->scale;
	double		width = running * layout->scale;
	int32		y = frame_y(layout, layout->depth[i], icicle);

	appendStringInfo(buf,
					 "<g class=\"frame\" data-x=\"" INT64_FORMAT "\" data-w=\"" INT64_FORMAT
					 "\" data-depth=\"%d\"><title>",
					 layout->x[i], running, layout->depth[i]);
	append_xml_text(buf, name, -1);
	appendStringInfo(buf, "\n%s</title>", stats);
	appendStringInfo(buf,
					 "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\""
					 " rx=\"2\" ry=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
					 x, y, width, FRAME_HEIGHT - 1, fill,
					 x + LABEL_PAD, y + FRAME_HEIGHT - 4.5);
	append_label(buf, name, width);
	appendStringInfoString(buf, "</text></g>\n");
}

void
flame_end_document(StringInfo buf)
{
	appendStringInfoString(buf, "</g>\n</svg>\n");
}
