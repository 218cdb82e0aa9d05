/*
 * js_names.h
 *	  The func name of an anonymous JavaScript function: its location.
 *
 * JavaScript profilers write an unnamed function (an arrow function, a
 * callback, a module's top level) as an empty name or "(anonymous)".  A
 * func is (name, file, resource), so every unnamed function of one script
 * would be one func.  The importers of JavaScript profiles (.cpuprofile,
 * trace events, speedscope, the Firefox Profiler, pprof) name such a
 * function by where it starts instead, as Chrome DevTools and the Firefox
 * Profiler show it:
 *
 *	  (anonymous) app.js:20:5		line and column known (1-based)
 *	  (anonymous) app.js:20			line known, column not
 *
 * with the file's last path segment (no query or fragment); the func's file
 * keeps the whole URL.  The column is always shown when known, so that a
 * function has one name in every profile whatever else was sampled (two
 * arrow functions often share a line).  Without a file or a line the name
 * stays as the profile wrote it: nothing tells such functions apart.
 * Named functions keep their names.
 */
#ifndef CALLTREE_JS_NAMES_H
#define CALLTREE_JS_NAMES_H

#include "postgres.h"

#include "store/store.h"

/* The name JavaScript profilers give a function without one */
#define JS_ANONYMOUS "(anonymous)"

/* Whether a JavaScript profile's function name means "no name" */
extern bool js_name_is_anonymous(const char *name);

/*
 * The func name of a function called name (NULL or anonymous: none)
 * starting at file:line:col: name itself when it has one or when the
 * location does not tell it apart (no file or no line; NULL becomes
 * JS_ANONYMOUS).
 */
extern const char *js_function_name(const char *name, const char *file,
									OptionalInt line, OptionalInt col);

#endif							/* CALLTREE_JS_NAMES_H */
