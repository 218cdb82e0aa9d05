/*
 * fuzz_lines.c
 *	  libFuzzer harness of the line reader (line_reader.c).
 *
 * The input is fed in pieces of sizes drawn from a generator seeded by the
 * input itself (empty pieces included), and the lines handed out must
 * rebuild the input exactly: each line followed by '\n', the last one
 * without it when the input does not end with a newline, and line numbers
 * 1, 2, 3...  Read as UTF-8, the same input gives the same lines when it is
 * valid UTF-8 without NUL bytes, and an ERROR otherwise.
 */
#include "postgres.h"

#include <limits.h>

#include "mb/pg_wchar.h"

#include "formats/line_reader.h"
#include "pg_stubs.h"

typedef struct Input
{
	const char *data;
	size_t		len;
	bool		from_utf8;
} Input;

typedef struct Collected
{
	StringInfoData text;
	int64		lines;
} Collected;

static void
collect_line(void *arg, const char *line, int len, int64 lineno)
{
	Collected  *collected = arg;

	FUZZ_CHECK(len >= 0, "line of length %d", len);
	FUZZ_CHECK(lineno == collected->lines + 1, "line " INT64_FORMAT " after line " INT64_FORMAT,
			   lineno, collected->lines);
	FUZZ_CHECK(memchr(line, '\n', len) == NULL, "a newline inside line " INT64_FORMAT, lineno);
	collected->lines = lineno;
	appendBinaryStringInfo(&collected->text, line, len);
	appendStringInfoChar(&collected->text, '\n');
}

/* xorshift64*, seeded by the input's bytes */
static uint64
next_random(uint64 *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * UINT64CONST(2685821657736338717);
}

static void
read_lines(void *arg)
{
	Input	   *input = arg;
	Collected	collected = {0};
	LineReader	reader;
	uint64		state = UINT64CONST(0x9E3779B97F4A7C15) ^ input->len;
	size_t		fed = 0;
	size_t		expected_len = input->len;

	for (size_t i = 0; i < Min(input->len, 16); i++)
		state = state * 131 + (uint8) input->data[i];
	if (state == 0)
		state = 1;
	initStringInfo(&collected.text);
	line_reader_init(&reader, collect_line, &collected, input->from_utf8);
	while (fed < input->len)
	{
		uint64		r = next_random(&state);
		size_t		piece = (r & 3) == 0 ? 0 : (size_t) ((r >> 8) % 64) + 1;

		piece = Min(piece, input->len - fed);
		line_reader_feed(&reader, input->data + fed, piece);
		fed += piece;
	}
	line_reader_finish(&reader);

	if (input->len > 0 && input->data[input->len - 1] != '\n')
		expected_len++;			/* the last line was handed out with no newline */
	FUZZ_CHECK((size_t) collected.text.len == expected_len &&
			   memcmp(collected.text.data, input->data, input->len) == 0,
			   "%zu bytes came back as %d bytes in " INT64_FORMAT " lines", input->len,
			   collected.text.len, collected.lines);
	FUZZ_CHECK(reader.lineno == collected.lines, "reader counted " INT64_FORMAT " lines, handed out "
			   INT64_FORMAT, reader.lineno, collected.lines);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		input = {(const char *) data, size, false};
	bool		valid_utf8;

	if (size > INT_MAX / 2)
		return 0;
	FUZZ_CHECK(fuzz_try(read_lines, &input), "reading lines failed: %s", fuzz_last_error.message);
	valid_utf8 = pg_encoding_verifymbstr(PG_UTF8, (const char *) data, (int) size) == (int) size;
	input.from_utf8 = true;
	FUZZ_CHECK(fuzz_try(read_lines, &input) == valid_utf8, "valid UTF-8 %d, but \"%s\"",
			   valid_utf8, fuzz_last_error.message);
	return 0;
}
