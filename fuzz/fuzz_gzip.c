/*
 * fuzz_gzip.c
 *	  libFuzzer harness of gzip.c.
 *
 * The input is decompressed as gzip data (an ERROR is a clean rejection).
 * When that succeeds, the size limit is checked at its edge: the same data
 * fits in exactly its decompressed size and not in one byte less.  Then
 * the input as plain bytes is compressed, twice in a row as two members,
 * and must decompress to itself twice.
 */
#include "postgres.h"

#include "utils/elog.h"

#include "formats/gzip.h"
#include "pg_stubs.h"

#define FUZZ_MAX_DECOMPRESSED (16 * 1024 * 1024)

typedef struct Input
{
	const char *data;
	size_t		len;
	size_t		max_len;
	size_t		out_len;		/* result: the decompressed size */
	uint32		checksum;		/* result: of the decompressed bytes */
} Input;

static uint32
checksum(const char *data, size_t len)
{
	uint32		sum = 0;

	for (size_t i = 0; i < len; i++)
		sum = sum * 31 + (uint8) data[i];
	return sum;
}

static void
decompress(void *arg)
{
	Input	   *input = arg;
	char	   *out = gzip_decompress(input->data, input->len, input->max_len, "fuzz", &input->out_len);

	FUZZ_CHECK(input->out_len <= input->max_len, "%zu bytes out with a limit of %zu",
			   input->out_len, input->max_len);
	input->checksum = checksum(out, input->out_len);
}

static void
compress_twice(void *arg)
{
	Input	   *input = arg;
	StringInfoData buf;
	size_t		out_len;
	char	   *out;

	initStringInfo(&buf);
	gzip_compress(input->data, input->len, &buf);
	FUZZ_CHECK(gzip_is_compressed(buf.data, buf.len), "compressed data without the gzip magic");
	gzip_compress(input->data, input->len, &buf);
	out = gzip_decompress(buf.data, buf.len, 2 * input->len, "fuzz", &out_len);
	FUZZ_CHECK(out_len == 2 * input->len, "%zu bytes compressed twice came back as %zu", input->len, out_len);
	FUZZ_CHECK(memcmp(out, input->data, input->len) == 0 &&
			   memcmp(out + input->len, input->data, input->len) == 0,
			   "compressed bytes came back changed");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		input = {(const char *) data, size, FUZZ_MAX_DECOMPRESSED};

	if (fuzz_try(decompress, &input))
	{
		Input		exact = input;
		Input		smaller = input;

		exact.max_len = input.out_len;
		FUZZ_CHECK(fuzz_try(decompress, &exact), "no longer decompresses with a limit of its size %zu: %s",
				   input.out_len, fuzz_last_error.message);
		FUZZ_CHECK(exact.out_len == input.out_len && exact.checksum == input.checksum,
				   "decompressed differently under a limit");
		if (input.out_len > 0)
		{
			smaller.max_len = input.out_len - 1;
			FUZZ_CHECK(!fuzz_try(decompress, &smaller), "%zu bytes fit in a limit of %zu",
					   input.out_len, smaller.max_len);
			FUZZ_CHECK(fuzz_last_error.sqlerrcode == ERRCODE_PROGRAM_LIMIT_EXCEEDED,
					   "a size over the limit gave \"%s\"", fuzz_last_error.message);
		}
	}
	FUZZ_CHECK(fuzz_try(compress_twice, &input), "compressing failed: %s", fuzz_last_error.message);
	return 0;
}
