/*
 * significance.h
 *	  Whether a function's share differs between two sets of trees: the
 *	  Mann-Whitney U test on exact shares, and the Benjamini-Hochberg
 *	  q-values over many such tests (significance.c).  significant_changes()
 *	  runs one test per function.
 *
 * A share is kept as the exact fraction weight / total (total > 0), so that
 * two trees' shares are ranked and found tied without rounding; only the
 * results are floating point.
 *
 * The test.  The shares of both sides are ranked together (tied shares get
 * the mean of their ranks) and U is the rank sum of test minus its least
 * value, n_test (n_test + 1) / 2: the number of (base, test) pairs in which
 * test's share is the larger, ties counting one half.  The p-value is two
 * sided:
 *	- exact, from U's distribution over all orderings of the trees, when no
 *	  two shares are tied and both sides hold MANN_WHITNEY_EXACT_MAX trees or
 *	  fewer in all: p = min(1, 2 P(U <= min(U, n_base n_test - U)));
 *	- else the normal approximation with the tie correction of the variance
 *	  and a continuity correction of 1/2:
 *	  z = (|U - n_base n_test / 2| - 1/2) / sigma, p = min(1, 2 (1 - Phi(z))),
 *	  sigma^2 = n_base n_test / 12 ((N + 1) - sum(t^3 - t) / (N (N - 1))),
 *	  t the size of each group of tied shares, N = n_base + n_test.
 * These are the choices of SciPy's mannwhitneyu(method='exact') and
 * mannwhitneyu(method='asymptotic', use_continuity=True).  When every share
 * of both sides is the same there is nothing to test: p = 1 and the test is
 * marked untested.
 */
#ifndef CALLTREE_SIGNIFICANCE_H
#define CALLTREE_SIGNIFICANCE_H

#include "postgres.h"

/* the most trees in all whose exact distribution is used (its counts fit in int64) */
#define MANN_WHITNEY_EXACT_MAX	60

/* A share, exactly: weight over total, total > 0 (weight may be negative) */
typedef struct Share
{
	int64		weight;
	int64		total;
} Share;

typedef struct RankTest
{
	double		u;				/* test's U: pairs where test is larger, ties one half */
	double		effect;			/* u / (n_base n_test): 1/2 when neither side is larger */
	double		p;				/* two-sided; 1 when untested */
	bool		exact;			/* p from U's exact distribution */
	bool		tested;			/* false when every share of both sides is equal */
} RankTest;

/* The sides' sizes, U's exact distribution for them, and room for ranking */
typedef struct MannWhitney MannWhitney;

/* Both sizes at least 1; in the current memory context */
extern MannWhitney *mann_whitney_begin(int32 nbase, int32 ntest);
extern void mann_whitney_test(MannWhitney *mw, const Share *base, const Share *test,
							  RankTest *result);
extern void mann_whitney_end(MannWhitney *mw);

/*
 * The smallest p-value the test can give with sides of these sizes: that of
 * two sides that do not overlap, each with all its shares different or all
 * equal (the normal approximation's least p can come from either).
 */
extern double mann_whitney_smallest_p(int32 nbase, int32 ntest);

/*
 * Benjamini-Hochberg q-values of n p-values: with p sorted ascending,
 * q_(i) = min over j >= i of min(1, n p_(j) / j); q[i] is p[i]'s.
 */
extern void benjamini_hochberg(const double *p, int32 n, double *q);

#endif							/* CALLTREE_SIGNIFICANCE_H */
