/*
 * fake_numeric.c
 *	  The numeric functions that the JSON importers call, over decimal
 *	  digit strings, for the fuzzing harnesses.
 *
 * A Numeric here is a varlena holding a sign, the significant decimal
 * digits (no leading or trailing zero; none for zero), the power of ten
 * of the last one, and the display scale, so that every operation the
 * importers use is exact as numeric.c's is: input (JSON's syntax only,
 * which is all the importers pass), output, comparison, absolute value,
 * multiplication, rounding half away from zero, conversion to double.
 * Where numeric.c refuses a value (more than 131072 digits before the
 * point, a display scale over 16383) so does this.  No NaN or infinity is
 * ever made: JSON has none.
 */
#include "postgres.h"

#include <limits.h>
#include <ctype.h>
#include <stdlib.h>

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/fmgrprotos.h"
#include "utils/numeric.h"

#include "pg_stubs.h"

typedef struct FakeNumeric
{
	int32		vl_len_;
	int32		exponent;		/* the value is digits * 10^exponent */
	int32		dscale;			/* digits shown after the point */
	bool		negative;
	char		digits[FLEXIBLE_ARRAY_MEMBER];	/* ASCII */
} FakeNumeric;

/* numeric.c's limits: a weight of int16 base-10000 digits, a 14-bit display scale */
#define MAX_INTEGER_DIGITS (32768 * 4)
#define MAX_DSCALE 0x3FFF

static const FakeNumeric *
fake(Numeric num)
{
	return (const FakeNumeric *) num;
}

static int
ndigits(const FakeNumeric *n)
{
	return VARSIZE(n) - offsetof(FakeNumeric, digits);
}

static void
overflow_error(void)
{
	ereport(ERROR,
			(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
			 errmsg("value overflows numeric format")));
}

/*
 * A Numeric from digits (leading and trailing zeros allowed); NULL if it
 * is out of numeric's range and have_error is given, else an ERROR then.
 */
static Numeric
make_numeric(bool negative, const char *digits, int64 len, int64 exponent, int64 dscale,
			 bool *have_error)
{
	FakeNumeric *n;

	while (len > 0 && *digits == '0')
		digits++, len--;
	while (len > 0 && digits[len - 1] == '0')
		len--, exponent++;
	if (len == 0)
		exponent = 0, negative = false;
	if ((len > 0 && len + exponent > MAX_INTEGER_DIGITS) || dscale > MAX_DSCALE ||
		exponent < INT_MIN / 2 || exponent > INT_MAX / 2)
	{
		if (have_error)
		{
			*have_error = true;
			return NULL;
		}
		overflow_error();
	}
	n = palloc(offsetof(FakeNumeric, digits) + len);
	SET_VARSIZE(n, offsetof(FakeNumeric, digits) + len);
	n->exponent = (int32) exponent;
	n->dscale = (int32) Max(dscale, 0);
	n->negative = negative;
	memcpy(n->digits, digits, len);
	return (Numeric) n;
}

bool
numeric_is_nan(Numeric num)
{
	return false;
}

bool
numeric_is_inf(Numeric num)
{
	return false;
}

/* JSON's syntax: -?digits(.digits)?([eE][+-]?digits)? */
Datum
numeric_in(PG_FUNCTION_ARGS)
{
	const char *text = PG_GETARG_CSTRING(0);
	const char *s = text;
	bool		negative = *s == '-';
	char	   *digits = palloc(strlen(text) + 1);
	int64		len = 0;
	int64		fraction = 0;
	long		exponent = 0;

	if (negative)
		s++;
	if (!isdigit((unsigned char) *s))
		goto syntax;
	while (isdigit((unsigned char) *s))
		digits[len++] = *s++;
	if (*s == '.')
	{
		s++;
		if (!isdigit((unsigned char) *s))
			goto syntax;
		while (isdigit((unsigned char) *s))
			digits[len++] = *s++, fraction++;
	}
	if (*s == 'e' || *s == 'E')
	{
		char	   *end;

		s++;
		errno = 0;
		exponent = strtol(s, &end, 10);
		if (end == s || !isdigit((unsigned char) end[-1]))
			goto syntax;
		if (errno == ERANGE || exponent >= INT_MAX / 2 || exponent <= -(INT_MAX / 2))
			overflow_error();
		s = end;
	}
	if (*s != '\0')
		goto syntax;
	PG_RETURN_NUMERIC(make_numeric(negative, digits, len, exponent - fraction,
								   Max(fraction - exponent, 0), NULL));
syntax:
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
			 errmsg("invalid input syntax for type %s: \"%s\"", "numeric", text)));
	PG_RETURN_NULL();
}

/* The digit at power of ten p, '0' outside the digits */
static char
digit_at(const FakeNumeric *n, int64 p)
{
	int64		i = ndigits(n) - 1 - (p - n->exponent);

	return i >= 0 && i < ndigits(n) ? n->digits[i] : '0';
}

Datum
numeric_out(PG_FUNCTION_ARGS)
{
	const FakeNumeric *n = fake(PG_GETARG_NUMERIC(0));
	int64		top = ndigits(n) > 0 ? ndigits(n) + n->exponent - 1 : 0;	/* power of the first digit */
	int64		scale = Max(n->dscale, ndigits(n) > 0 ? -(int64) n->exponent : 0);
	char	   *out = palloc(Max(top, 0) + scale + 4);
	char	   *p = out;

	if (n->negative)
		*p++ = '-';
	for (int64 power = Max(top, 0); power >= 0; power--)
		*p++ = digit_at(n, power);
	if (scale > 0)
		*p++ = '.';
	for (int64 power = -1; power >= -scale; power--)
		*p++ = digit_at(n, power);
	*p = '\0';
	PG_RETURN_CSTRING(out);
}

static int
compare_abs(const FakeNumeric *a, const FakeNumeric *b)
{
	int64		top_a;
	int64		top_b;
	int64		bottom;

	if (ndigits(a) == 0 || ndigits(b) == 0)
		return (ndigits(a) > 0) - (ndigits(b) > 0);
	top_a = ndigits(a) + (int64) a->exponent;
	top_b = ndigits(b) + (int64) b->exponent;
	if (top_a != top_b)
		return top_a < top_b ? -1 : 1;
	bottom = Min(a->exponent, b->exponent);
	for (int64 power = top_a - 1; power >= bottom; power--)
	{
		char		da = digit_at(a, power);
		char		db = digit_at(b, power);

		if (da != db)
			return da < db ? -1 : 1;
	}
	return 0;
}

static int
compare(const FakeNumeric *a, const FakeNumeric *b)
{
	if (a->negative != b->negative)
		return a->negative ? -1 : 1;
	return a->negative ? -compare_abs(a, b) : compare_abs(a, b);
}

Datum
numeric_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(compare(fake(PG_GETARG_NUMERIC(0)), fake(PG_GETARG_NUMERIC(1))));
}

Datum
numeric_eq(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(compare(fake(PG_GETARG_NUMERIC(0)), fake(PG_GETARG_NUMERIC(1))) == 0);
}

Datum
numeric_abs(PG_FUNCTION_ARGS)
{
	const FakeNumeric *n = fake(PG_GETARG_NUMERIC(0));

	PG_RETURN_NUMERIC(make_numeric(false, n->digits, ndigits(n), n->exponent, n->dscale, NULL));
}

Numeric
int64_to_numeric(int64 value)
{
	uint64		magnitude = value < 0 ? -(uint64) value : (uint64) value;
	char		digits[24];
	int			len = snprintf(digits, sizeof(digits), "%llu", (unsigned long long) magnitude);

	return make_numeric(value < 0, digits, len, 0, 0, NULL);
}

/* Schoolbook multiplication; numeric.c rounds a display scale beyond its limit to the limit */
Numeric
numeric_mul_opt_error(Numeric num1, Numeric num2, bool *have_error)
{
	const FakeNumeric *a = fake(num1);
	const FakeNumeric *b = fake(num2);
	int			la = ndigits(a);
	int			lb = ndigits(b);
	int		   *sum = palloc0((la + lb + 1) * sizeof(int));
	char	   *digits = palloc(la + lb + 1);
	Numeric		product;
	Datum		rounded;

	for (int i = la - 1; i >= 0; i--)
		for (int j = lb - 1; j >= 0; j--)
			sum[i + j + 1] += (a->digits[i] - '0') * (b->digits[j] - '0');
	for (int k = la + lb; k > 0; k--)
	{
		sum[k - 1] += sum[k] / 10;
		sum[k] %= 10;
	}
	for (int k = 0; k < la + lb; k++)
		digits[k] = (char) ('0' + sum[k]);
	if (have_error)
		*have_error = false;
	if ((int64) a->dscale + b->dscale <= MAX_DSCALE)
		return make_numeric(a->negative != b->negative, digits, la + lb,
							(int64) a->exponent + b->exponent, (int64) a->dscale + b->dscale, have_error);
	product = make_numeric(a->negative != b->negative, digits, la + lb,
						   (int64) a->exponent + b->exponent, 0, have_error);
	if (product == NULL)
		return NULL;
	rounded = DirectFunctionCall2(numeric_round, NumericGetDatum(product), Int32GetDatum(MAX_DSCALE));
	return DatumGetNumeric(rounded);
}

/* Rounds half away from zero to scale digits after the point (scale >= 0 here) */
Datum
numeric_round(PG_FUNCTION_ARGS)
{
	const FakeNumeric *n = fake(PG_GETARG_NUMERIC(0));
	int32		scale = PG_GETARG_INT32(1);
	int			len = ndigits(n);
	int64		keep;
	char	   *digits;
	int			i;

	FUZZ_CHECK(scale >= 0 && scale <= MAX_DSCALE, "numeric_round to scale %d", scale);
	if (n->exponent >= -scale)
		PG_RETURN_NUMERIC(make_numeric(n->negative, n->digits, len, n->exponent, scale, NULL));
	keep = len - (-(int64) scale - n->exponent);	/* digits at powers >= -scale */
	if (keep < 0 || (keep == 0 && n->digits[0] < '5'))
		PG_RETURN_NUMERIC(make_numeric(false, "", 0, 0, scale, NULL));
	/* one more digit in front for a carry out of the first */
	digits = palloc(keep + 1);
	digits[0] = '0';
	memcpy(digits + 1, n->digits, keep);
	if (n->digits[keep] >= '5')
	{
		for (i = (int) keep; digits[i] == '9'; i--)
			digits[i] = '0';
		digits[i]++;
	}
	PG_RETURN_NUMERIC(make_numeric(n->negative, digits, keep + 1, -(int64) scale, scale, NULL));
}

/* As numeric.c: the text of the number through strtod, out of range as infinity or zero */
Datum
numeric_float8_no_overflow(PG_FUNCTION_ARGS)
{
	char	   *text = DatumGetCString(DirectFunctionCall1(numeric_out, PG_GETARG_DATUM(0)));
	char	   *end;
	double		value = strtod(text, &end);

	FUZZ_CHECK(*end == '\0', "numeric_out wrote \"%s\"", text);
	pfree(text);
	PG_RETURN_FLOAT8(value);
}
