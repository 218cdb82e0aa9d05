/*
 * weight_format.c
 *	  pprof's scaled weights: the unit table, the scaling and the printing
 *	  of weight_format.h, exactly as the SQL of scale_weight() and the
 *	  to_char() of format_weight() in 0.2 printed them.
 */
#include "postgres.h"

#include <float.h>
#include <math.h>

#include "formats/weight_format.h"

typedef struct WeightUnit
{
	const char *family;
	const char *unit;			/* as it is shown */
	const char *aliases[4];		/* lower case, without a plural s; NULL-ended */
	double		factor;			/* to the family's first unit */
	bool		is_default;		/* shown when no other unit fits */
} WeightUnit;

/* weight_units(), by family, each family by factor */
static const WeightUnit weight_units[] = {
	{"bytes", "B", {"b", "byte"}, 1, true},
	{"bytes", "kB", {"kb", "kbyte", "kilobyte"}, 1024, false},
	{"bytes", "MB", {"mb", "mbyte", "megabyte"}, 1048576, false},
	{"bytes", "GB", {"gb", "gbyte", "gigabyte"}, 1073741824, false},
	{"bytes", "TB", {"tb", "tbyte", "terabyte"}, 1099511627776.0, false},
	{"bytes", "PB", {"pb", "pbyte", "petabyte"}, 1125899906842624.0, false},
	{"gcu", "n*GCU", {"nanogcu"}, 1e-9, false},
	{"gcu", "u*GCU", {"microgcu"}, 1e-6, false},
	{"gcu", "m*GCU", {"milligcu"}, 1e-3, false},
	{"gcu", "GCU", {"gcu"}, 1, true},
	{"gcu", "k*GCU", {"kilogcu"}, 1e3, false},
	{"gcu", "M*GCU", {"megagcu"}, 1e6, false},
	{"gcu", "G*GCU", {"gigagcu"}, 1e9, false},
	{"gcu", "T*GCU", {"teragcu"}, 1e12, false},
	{"gcu", "P*GCU", {"petagcu"}, 1e15, false},
	{"time", "ns", {"ns", "nanosecond"}, 1, false},
	{"time", "us", {"\xce\xbcs", "us", "microsecond"}, 1e3, false},
	{"time", "ms", {"ms", "millisecond"}, 1e6, false},
	{"time", "s", {"s", "sec", "second"}, 1e9, true},
	{"time", "hrs", {"hour", "hr"}, 3.6e12, false},
};

#define NUM_WEIGHT_UNITS lengthof(weight_units)

/* The digits before the point that to_char's 'FM9999999999999999999990.00' has room for */
#define FORMAT_INT_DIGITS 22

/*
 * A unit's name as the table lists its aliases (weight_unit_alias()):
 * without a plural s when longer than two bytes.  Into buf, of NAMEDATALEN.
 */
static bool
unit_alias(const char *lower, char *alias, size_t size)
{
	size_t		len = strlen(lower);

	if (len > 2 && lower[len - 1] == 's')
		len--;
	if (len >= size)
		return false;			/* longer than any alias */
	memcpy(alias, lower, len);
	alias[len] = '\0';
	return true;
}

static const WeightUnit *
unit_named(const char *lower, const char *family)
{
	char		alias[NAMEDATALEN];

	if (!unit_alias(lower, alias, sizeof(alias)))
		return NULL;
	for (int i = 0; i < NUM_WEIGHT_UNITS; i++)
	{
		const WeightUnit *u = &weight_units[i];

		if (family != NULL && strcmp(u->family, family) != 0)
			continue;
		for (int a = 0; a < lengthof(u->aliases) && u->aliases[a] != NULL; a++)
			if (strcmp(u->aliases[a], alias) == 0)
				return u;
	}
	return NULL;
}

/* The largest unit of family in which base (in the family's first unit) is at least 1 */
static const WeightUnit *
largest_unit_at_least_one(double base, const char *family)
{
	const WeightUnit *best = NULL;

	for (int i = 0; i < NUM_WEIGHT_UNITS; i++)
	{
		const WeightUnit *u = &weight_units[i];

		if (strcmp(u->family, family) == 0 && base / u->factor >= 1 &&
			(best == NULL || u->factor > best->factor))
			best = u;
	}
	return best;
}

static const WeightUnit *
default_unit(const char *family)
{
	for (int i = 0; i < NUM_WEIGHT_UNITS; i++)
		if (weight_units[i].is_default && strcmp(weight_units[i].family, family) == 0)
			return &weight_units[i];
	pg_unreachable();
}

static bool
is_count_scale(const char *scale)
{
	static const char *const counts[] = {"auto", "minimum", "count", "sample", "samples", "none", "unit"};

	for (int i = 0; i < lengthof(counts); i++)
		if (strcmp(scale, counts[i]) == 0)
			return true;
	return false;
}

/*
 * The number as to_char(value, 'FM9999999999999999999990.00') prints a
 * float8, ".00" dropped: two decimals, fewer when the digits before the
 * point and after it would pass DBL_DIG (15), rounded by printf; '#'s
 * when more than 22 digits are before the point.
 */
static char *
number_text(double value)
{
	char		digits[400];
	int			before;
	int			decimals = 2;
	char	   *text;
	size_t		len;

	snprintf(digits, sizeof(digits), "%.0f", fabs(value));
	before = strlen(digits);
	if (before >= DBL_DIG)
		decimals = 0;
	else if (before + decimals > DBL_DIG)
		decimals = DBL_DIG - before;
	text = psprintf("%.*f", decimals, value);
	before = strcspn(text + (text[0] == '-'), ".");
	if (before > FORMAT_INT_DIGITS)
		return psprintf("%s######################.", text[0] == '-' ? "-" : "");
	len = strlen(text);
	if (len > 3 && strcmp(text + len - 3, ".00") == 0)
		text[len - 3] = '\0';
	return text;
}

char *
weight_format(int64 weight, const char *unit_lower, const char *scale, const char *scale_lower)
{
	const WeightUnit *from = unit_named(unit_lower, NULL);
	const WeightUnit *to;
	bool		negative = weight < 0;
	double		magnitude = negative ? -(double) weight : (double) weight;
	double		value;
	const char *shown;
	char	   *number;

	if (from == NULL)
	{
		value = magnitude;
		shown = is_count_scale(scale) ? "" : scale;
	}
	else
	{
		double		base = magnitude * from->factor;

		if (strcmp(scale, "auto") == 0 || strcmp(scale, "minimum") == 0)
			to = largest_unit_at_least_one(base, from->family);
		else
			to = unit_named(scale_lower, from->family);
		if (to == NULL)
			to = default_unit(from->family);
		value = base / to->factor;
		shown = to->unit;
	}
	/* as pprof: the magnitude scaled, then the sign */
	number = number_text(negative ? -value : value);
	if (strcmp(number, "0") == 0 || strcmp(number, "-0") == 0)
		return pstrdup("0");
	return psprintf("%s%s", number, shown);
}
