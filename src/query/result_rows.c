/*
 * result_rows.c
 *	  A materialized set-returning function's tuplestore in a generation
 *	  context, so that its rows take no more memory than their size
 *	  (result_rows.h).
 *
 * The context belongs to the call site: it is made on the first call,
 * under the memory context of the call's FmgrInfo, and found again through
 * fn_extra by every later call from there.  A call site lives as long as
 * the query that runs it, and so no longer than the tuplestores it hands
 * out.  Each tuplestore is ended by the executor (tuplestore_end frees
 * every row) before the next call from the same place makes a new one, so
 * the context holds one call's rows at a time; a generation context gives
 * a block back as soon as all of its rows are freed, so it does not grow
 * with the number of calls.
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "query/result_rows.h"

/* The call site's context for its rows, made on first use */
static MemoryContext
call_site_rows_context(FunctionCallInfo fcinfo)
{
	FmgrInfo   *flinfo = fcinfo->flinfo;

	if (flinfo->fn_extra == NULL)
		flinfo->fn_extra = GenerationContextCreate(flinfo->fn_mcxt, "calltree result rows",
												   ALLOCSET_DEFAULT_SIZES);
	return (MemoryContext) flinfo->fn_extra;
}

void
result_rows_init(FunctionCallInfo fcinfo)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	bool		random_access;
	MemoryContext old;

	/*
	 * The checks, the result's descriptor and a tuplestore in the per-query
	 * context, whose rows would be rounded up: that tuplestore, still
	 * empty, is replaced by one of the same kind in the call site's context.
	 */
	InitMaterializedSRF(fcinfo, 0);
	random_access = (rsinfo->allowedModes & SFRM_Materialize_Random) != 0;
	tuplestore_end(rsinfo->setResult);
	old = MemoryContextSwitchTo(call_site_rows_context(fcinfo));
	rsinfo->setResult = tuplestore_begin_heap(random_access, false, work_mem);
	MemoryContextSwitchTo(old);
}
