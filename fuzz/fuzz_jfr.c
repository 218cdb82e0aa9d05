/*
 * fuzz_jfr.c
 *	  libFuzzer harness of the Java Flight Recorder reader (jfr.c), through
 *	  gzip.c as import_jfr reads.
 *
 * The input is a recording, gzip-compressed or not.  The harness does what
 * import_jfr does short of writing: a first pass finding the kinds of
 * samples present, then a pass over the samples of every kind, reading
 * each sample's thread and thread state and resolving the stacks (frames,
 * methods, classes, symbols) of the first FUZZ_STACKS_RESOLVED.  Any ERROR is a clean rejection.
 */
#include "postgres.h"

#include "formats/gzip.h"
#include "formats/jfr.h"
#include "pg_stubs.h"

/* import_jfr's own limits are larger; these keep the fuzzer's memory low */
#define FUZZ_MAX_DECOMPRESSED (16 * 1024 * 1024)
#define FUZZ_MEMORY_LIMIT (16 * 1024 * 1024)
/*
 * import_jfr resolves each distinct stack once; resolving every sample's
 * stack makes a large real recording take seconds under the sanitizers,
 * so the harness resolves the first few and reads the rest's events only.
 */
#define FUZZ_STACKS_RESOLVED 512

typedef struct Input
{
	const uint8 *data;
	size_t		len;
} Input;

static void
walk_sample(void *arg, JfrDecoder *decoder, const JfrSample *sample)
{
	int		   *resolved = arg;
	JfrFrame   *frames;
	int			n;

	if (sample->thread)
		(void) strlen(sample->thread);
	if (sample->state)
		(void) strlen(sample->state);
	if (++*resolved > FUZZ_STACKS_RESOLVED)
		return;
	n = jfr_stack_frames(decoder, sample, &frames);
	FUZZ_CHECK(n >= 0, "a negative frame count %d", n);
	for (int i = 0; i < n; i++)
		(void) (strlen(frames[i].class_name) + strlen(frames[i].method));
}

static void
decode_recording(void *arg)
{
	Input	   *input = arg;
	const uint8 *bytes = input->data;
	size_t		len = input->len;
	uint32		present;
	int			resolved = 0;

	if (gzip_is_compressed((const char *) bytes, len))
		bytes = (const uint8 *) gzip_decompress((const char *) bytes, len, FUZZ_MAX_DECOMPRESSED,
												"JFR", &len);
	present = jfr_decode(bytes, len, 0, FUZZ_MEMORY_LIMIT, NULL, NULL);
	if (present & ~JFR_WALL_MODE)
		(void) jfr_decode(bytes, len, present & ~JFR_WALL_MODE, FUZZ_MEMORY_LIMIT, walk_sample, &resolved);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Input		input = {data, size};

	(void) fuzz_try(decode_recording, &input);
	return 0;
}
