/*
 * fuzz_trace_events.c
 *	  libFuzzer harness of the trace-event importer (import_trace_events.c,
 *	  trace_events.c, trace_samples.c, v8_profile.c, json_reader.c),
 *	  through its whole-file entry point, over fake_jsonb.c's jsonb and
 *	  fake_writer.c's writer.
 *
 * Each text is imported twice: as import_trace_events does by default
 * (the CPU samples when the file has any, else the events) and with
 * source => 'events'.  Each is imported or rejected with an ERROR that is
 * not internal; an import that ends has begun and finished its writer
 * once, with samples or events only.  A file the default reads as
 * events gives the same events with source => 'events'.
 */
#include "postgres.h"

#include "fake_writer.h"
#include "fuzz_import.h"
#include "pg_stubs.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ImportOptions by_default = {0};
	ImportOptions as_events = {.source = "events"};
	bool		default_ok;
	bool		events_ok;
	int64		default_events;

	if (!fuzz_is_text(data, size))
		return 0;
	default_ok = fuzz_import(&trace_events_importer, data, size, &by_default);
	default_events = fuzz_writer_events(fuzz_writer_last());
	events_ok = fuzz_import(&trace_events_importer, data, size, &as_events);
	if (default_ok && default_events > 0)
		FUZZ_CHECK(events_ok && fuzz_writer_events(fuzz_writer_last()) == default_events,
				   "imported " INT64_FORMAT " events by default, with source => 'events' %s",
				   default_events, events_ok ? "other events" : fuzz_last_error.message);
	return 0;
}
