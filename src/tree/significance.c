/*
 * significance.c
 *	  The Mann-Whitney U test on exact shares, and Benjamini-Hochberg
 *	  q-values (significance.h).
 *
 * U's exact distribution.  With no ties, every ordering of the N = m + n
 * trees is as likely under the null hypothesis, and the number of orderings
 * in which U = u is the coefficient of q^u in the Gaussian binomial
 * coefficient [N choose m]_q = prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i).
 * It is built factor by factor: multiplying by (1 - q^(n+i)) subtracts the
 * array shifted by n + i, dividing by (1 - q^i) adds the array shifted by i
 * to itself, in place.  After step i the coefficients are those of
 * [n+i choose i]_q, at most C(n+i, i); between the two halves of a step at
 * most twice the previous step's.  With N <= MANN_WHITNEY_EXACT_MAX every
 * count fits in int64 (C(60, 30) < 2^57).  The sizes are the same for every
 * function tested, so the distribution is made once.
 */
#include "postgres.h"

#include <math.h>

#include "tree/significance.h"

/* One share of the pooled sides, to be ranked */
typedef struct Pooled
{
	Share		share;
	bool		in_test;
} Pooled;

struct MannWhitney
{
	int32		nbase;
	int32		ntest;
	Pooled	   *pooled;			/* nbase + ntest, reused by every test */
	int64	   *at_most;		/* at_most[u]: orderings whose U <= u; NULL when too many trees */
	int64		orderings;		/* C(N, nbase), when at_most is made */
};

/* a / b against c / d, exactly (b, d > 0) */
static int
compare_shares(const Share *x, const Share *y)
{
	int128		left = (int128) x->weight * y->total;
	int128		right = (int128) y->weight * x->total;

	return (left > right) - (left < right);
}

static int
compare_pooled(const void *a, const void *b)
{
	return compare_shares(&((const Pooled *) a)->share, &((const Pooled *) b)->share);
}

/* at_most[u] for u = 0 .. m n, from the coefficients of [m + n choose m]_q */
static void
make_exact_distribution(MannWhitney *mw)
{
	int32		m = mw->nbase;
	int32		n = mw->ntest;
	int32		top = m * n;
	int64	   *count = palloc0(sizeof(int64) * (top + 1));

	count[0] = 1;
	for (int32 i = 1; i <= m; i++)
	{
		for (int32 k = top; k >= n + i; k--)
			count[k] -= count[k - (n + i)];
		for (int32 k = i; k <= top; k++)
			count[k] += count[k - i];
	}
	for (int32 k = 1; k <= top; k++)
		count[k] += count[k - 1];
	mw->at_most = count;
	mw->orderings = count[top];
}

MannWhitney *
mann_whitney_begin(int32 nbase, int32 ntest)
{
	MannWhitney *mw = palloc0(sizeof(MannWhitney));

	Assert(nbase >= 1 && ntest >= 1);
	mw->nbase = nbase;
	mw->ntest = ntest;
	mw->pooled = palloc(sizeof(Pooled) * (nbase + ntest));
	if (nbase + ntest <= MANN_WHITNEY_EXACT_MAX)
		make_exact_distribution(mw);
	return mw;
}

void
mann_whitney_end(MannWhitney *mw)
{
	pfree(mw->pooled);
	if (mw->at_most)
		pfree(mw->at_most);
	pfree(mw);
}

/* Two-sided p of the normal approximation, ties' sum(t^3 - t) given */
static double
normal_p(double u, int32 nbase, int32 ntest, double ties)
{
	double		n = (double) nbase + ntest;
	double		pairs = (double) nbase * ntest;
	double		variance = pairs / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
	double		z = (fabs(u - pairs / 2.0) - 0.5) / sqrt(variance);

	return Min(1.0, erfc(z / M_SQRT2));
}

/* Two-sided p of U's exact distribution (no ties, so u is whole) */
static double
exact_p(const MannWhitney *mw, double u)
{
	int64		pairs = (int64) mw->nbase * mw->ntest;
	int64		lower = Min((int64) u, pairs - (int64) u);

	return Min(1.0, 2.0 * (double) mw->at_most[lower] / (double) mw->orderings);
}

void
mann_whitney_test(MannWhitney *mw, const Share *base, const Share *test, RankTest *result)
{
	int32		n = mw->nbase + mw->ntest;
	Pooled	   *pooled = mw->pooled;
	double		test_ranks = 0;
	double		ties = 0;

	for (int32 i = 0; i < mw->nbase; i++)
		pooled[i] = (Pooled) {base[i], false};
	for (int32 i = 0; i < mw->ntest; i++)
		pooled[mw->nbase + i] = (Pooled) {test[i], true};
	qsort(pooled, n, sizeof(Pooled), compare_pooled);

	/* the tie groups: ranks first + 1 .. last, each the group's mean rank */
	for (int32 first = 0, last; first < n; first = last)
	{
		double		mean_rank;
		double		size;

		for (last = first + 1; last < n && compare_shares(&pooled[first].share, &pooled[last].share) == 0; last++)
			;
		size = last - first;
		mean_rank = (first + 1 + last) / 2.0;
		for (int32 i = first; i < last; i++)
			test_ranks += pooled[i].in_test ? mean_rank : 0;
		ties += size * size * size - size;
	}

	result->u = test_ranks - (double) mw->ntest * (mw->ntest + 1) / 2.0;
	result->effect = result->u / ((double) mw->nbase * mw->ntest);
	result->tested = compare_shares(&pooled[0].share, &pooled[n - 1].share) != 0;
	result->exact = result->tested && ties == 0 && mw->at_most != NULL;
	if (!result->tested)
		result->p = 1.0;
	else if (result->exact)
		result->p = exact_p(mw, result->u);
	else
		result->p = normal_p(result->u, mw->nbase, mw->ntest, ties);
}

double
mann_whitney_smallest_p(int32 nbase, int32 ntest)
{
	double		all_tied = (double) nbase * nbase * nbase - nbase + (double) ntest * ntest * ntest - ntest;
	double		distinct;

	if (nbase + ntest <= MANN_WHITNEY_EXACT_MAX)
	{
		MannWhitney *mw = mann_whitney_begin(nbase, ntest);

		distinct = exact_p(mw, 0);
		mann_whitney_end(mw);
	}
	else
		distinct = normal_p(0, nbase, ntest, 0);
	/* two groups of ties: sum(t^3 - t) < N^3 - N, so the variance stays positive */
	return Min(distinct, normal_p(0, nbase, ntest, all_tied));
}

/* Indexes of p, by p ascending, then index */
typedef struct IndexedP
{
	double		p;
	int32		index;
} IndexedP;

static int
compare_indexed_p(const void *a, const void *b)
{
	const IndexedP *x = a;
	const IndexedP *y = b;

	if (x->p != y->p)
		return x->p < y->p ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

void
benjamini_hochberg(const double *p, int32 n, double *q)
{
	IndexedP   *sorted = palloc(sizeof(IndexedP) * Max(n, 1));
	double		smallest = 1.0;

	for (int32 i = 0; i < n; i++)
		sorted[i] = (IndexedP) {p[i], i};
	qsort(sorted, n, sizeof(IndexedP), compare_indexed_p);
	for (int32 rank = n; rank >= 1; rank--)
	{
		double		scaled = sorted[rank - 1].p * n / rank;

		smallest = Min(smallest, scaled);
		q[sorted[rank - 1].index] = smallest;
	}
	pfree(sorted);
}
