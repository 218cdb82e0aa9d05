/*
 * func_suggest.c
 *	  The names of calltree.func closest to a name that matches none, for
 *	  the "did you mean" of an error (store.h).
 *
 * A name is close when, ignoring ASCII case, it is a few edits away
 * (Levenshtein distance at most a third of the name's length, at least 1)
 * or when it holds the name given: a Go or Java function is named with its
 * package or class ("main.handleRequest"), which a user tends to leave out.
 * Close typos come first, then the names that hold the one given, shorter
 * first.
 *
 * Every name is read once, through a cursor, in batches: an error path, so
 * its cost (one pass over calltree.func, the distance computed only for
 * names of a near length) is paid only by a call that fails.
 */
#include "postgres.h"

#include <ctype.h>

#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/varlena.h"

#include "store/store.h"

#define FETCH_ROWS 2000

/* A candidate: lower is better */
typedef struct Suggestion
{
	char	   *name;
	int			score;
} Suggestion;

/* ASCII lower case of s[0 .. len) into buf (len + 1 bytes) */
static void
lower_into(char *buf, const char *s, int len)
{
	for (int i = 0; i < len; i++)
		buf[i] = (char) tolower((unsigned char) s[i]);
	buf[len] = '\0';
}

/* Whether a ranks before b: by score, then shorter, then by bytes */
static bool
ranks_before(const char *a, int ascore, const Suggestion *b)
{
	int			alen = strlen(a),
				blen = strlen(b->name);

	if (ascore != b->score)
		return ascore < b->score;
	if (alen != blen)
		return alen < blen;
	return strcmp(a, b->name) < 0;
}

/* Puts a name among the best max (kept sorted), unless it is there already */
static void
consider(Suggestion *best, int *count, int max, const char *name, int score, MemoryContext cxt)
{
	int			at = *count;

	for (int i = 0; i < *count; i++)
		if (strcmp(best[i].name, name) == 0)
			return;
	while (at > 0 && ranks_before(name, score, &best[at - 1]))
		at--;
	if (at >= max)
		return;
	if (*count == max)
		pfree(best[max - 1].name);
	else
		(*count)++;
	memmove(&best[at + 1], &best[at], sizeof(Suggestion) * (*count - 1 - at));
	best[at].name = MemoryContextStrdup(cxt, name);
	best[at].score = score;
}

/* The score of a candidate (both lower-cased), or -1 if it is not close */
static int
closeness(const char *given, int glen, const char *cand, int clen, int max_d)
{
	if (abs(clen - glen) <= max_d)
	{
		int			d = varstr_levenshtein_less_equal(given, glen, cand, clen, 1, 1, 1, max_d, true);

		if (d <= max_d)
			return d;
	}
	if (clen > glen && strstr(cand, given) != NULL)
		return max_d + 1;
	return -1;
}

char	  **
func_suggest_names(const char *name, int max, int *count)
{
	MemoryContext cxt = CurrentMemoryContext;
	int			glen = strlen(name);
	int			max_d = Max(1, glen / 3);
	char	   *given = palloc(glen + 1);
	Suggestion *best = palloc(sizeof(Suggestion) * Max(max, 1));
	char	  **names;
	StringInfoData cand;
	Portal		portal;

	*count = 0;
	lower_into(given, name, glen);
	initStringInfo(&cand);
	SPI_connect();
	portal = SPI_cursor_open_with_args(NULL, "SELECT name FROM calltree.func", 0, NULL, NULL, NULL, true, 0);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		CHECK_FOR_INTERRUPTS();
		for (uint64 row = 0; row < SPI_processed; row++)
		{
			char	   *value = SPI_getvalue(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, 1);
			int			len = strlen(value);
			int			score;

			enlargeStringInfo(&cand, len + 1);
			lower_into(cand.data, value, len);
			score = closeness(given, glen, cand.data, len, max_d);
			if (score >= 0)
				consider(best, count, max, value, score, cxt);
			pfree(value);
		}
		SPI_freetuptable(SPI_tuptable);
	}
	SPI_cursor_close(portal);
	SPI_finish();
	names = palloc(sizeof(char *) * Max(*count, 1));
	for (int i = 0; i < *count; i++)
		names[i] = best[i].name;
	return names;
}
