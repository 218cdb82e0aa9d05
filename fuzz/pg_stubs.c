/*
 * pg_stubs.c
 *	  Memory contexts, ereport, StringInfo, pqformat, encodings and direct
 *	  fmgr calls over the C library, for the fuzzing harnesses (see
 *	  pg_stubs.h).
 *
 * Only what the parsers use is here, with the backend's behaviour where the
 * parsers can tell: palloc refuses sizes above MaxAllocSize unless asked
 * for a huge chunk, GetMemoryChunkContext finds a chunk's context in the
 * word before it, resetting a context deletes its children, an ERROR
 * unwinds to the innermost sigsetjmp, the pq_getmsg functions refuse to
 * read past the end of a message, check_stack_depth raises an ERROR past
 * the default max_stack_depth, and a function called directly must not
 * return NULL.
 */
/* for qsort_r, which sorts with an argument as qsort_arg does */
#define _GNU_SOURCE

#include "postgres.h"

#include <stdio.h>
#include <stdlib.h>

#include "fmgr.h"
#include "lib/stringinfo.h"
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "nodes/pg_list.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "pg_stubs.h"

/* The parsers' printf calls go to the C library, whose ASan interceptors check the arguments. */
#undef vsnprintf
#undef snprintf
#undef vsprintf
#undef sprintf
#undef vfprintf
#undef fprintf
#undef vprintf
#undef printf
#undef qsort

/* ---------------------------------------------------------------- memory */

/*
 * A chunk: a malloc block with this header before the data.  The context
 * is the last field, right before the data, where GetMemoryChunkContext
 * looks for it; the header is a multiple of MAXALIGN.
 */
typedef struct FuzzChunk
{
	struct FuzzChunk *prev;
	struct FuzzChunk *next;
	Size		size;
	MemoryContext context;
} FuzzChunk;

StaticAssertDecl(sizeof(FuzzChunk) % MAXIMUM_ALIGNOF == 0, "chunk header is not MAXALIGNed");

/* A context: PostgreSQL's header, then a ring of its chunks. */
typedef struct FuzzContext
{
	MemoryContextData header;
	FuzzChunk	chunks;			/* sentinel of the ring */
} FuzzContext;

MemoryContext CurrentMemoryContext = NULL;
MemoryContext TopMemoryContext = NULL;
MemoryContext ErrorContext = NULL;

volatile sig_atomic_t InterruptPending = false;
sigjmp_buf *PG_exception_stack = NULL;
ErrorContextCallback *error_context_stack = NULL;

FuzzError	fuzz_last_error;
Size		fuzz_bytes_requested;

void
fuzz_fail(const char *file, int line, const char *cond, const char *fmt,...)
{
	va_list		args;

	fprintf(stderr, "fuzz check failed at %s:%d: %s\n  ", file, line, cond);
	va_start(args, fmt);
	vfprintf(stderr, fmt, args);
	va_end(args);
	fputc('\n', stderr);
	abort();
}

static MemoryContext
context_create(MemoryContext parent, const char *name)
{
	FuzzContext *cxt = calloc(1, sizeof(FuzzContext));

	if (cxt == NULL)
		abort();
	cxt->header.type = T_AllocSetContext;
	cxt->header.isReset = true;
	cxt->header.name = name;
	cxt->header.parent = parent;
	cxt->chunks.prev = cxt->chunks.next = &cxt->chunks;
	if (parent)
	{
		cxt->header.nextchild = parent->firstchild;
		if (parent->firstchild)
			parent->firstchild->prevchild = &cxt->header;
		parent->firstchild = &cxt->header;
	}
	return &cxt->header;
}

static void
ensure_top_context(void)
{
	if (TopMemoryContext == NULL)
	{
		TopMemoryContext = context_create(NULL, "TopMemoryContext");
		ErrorContext = context_create(TopMemoryContext, "ErrorContext");
		CurrentMemoryContext = TopMemoryContext;
	}
}

MemoryContext
AllocSetContextCreateInternal(MemoryContext parent, const char *name,
							  Size minContextSize, Size initBlockSize, Size maxBlockSize)
{
	ensure_top_context();
	return context_create(parent, name);
}

MemoryContext
GenerationContextCreate(MemoryContext parent, const char *name,
						Size minContextSize, Size initBlockSize, Size maxBlockSize)
{
	ensure_top_context();
	return context_create(parent, name);
}

static FuzzChunk *
chunk_of(void *pointer)
{
	return (FuzzChunk *) ((char *) pointer - sizeof(FuzzChunk));
}

static void
chunk_link(FuzzContext *cxt, FuzzChunk *chunk)
{
	chunk->context = &cxt->header;
	chunk->prev = &cxt->chunks;
	chunk->next = cxt->chunks.next;
	cxt->chunks.next->prev = chunk;
	cxt->chunks.next = chunk;
	cxt->header.isReset = false;
}

static void
chunk_unlink(FuzzChunk *chunk)
{
	chunk->prev->next = chunk->next;
	chunk->next->prev = chunk->prev;
}

static void
check_request(Size size, int flags)
{
	if ((flags & MCXT_ALLOC_HUGE) ? !AllocHugeSizeIsValid(size) : !AllocSizeIsValid(size))
		elog(ERROR, "invalid memory alloc request size %zu", size);
}

void *
MemoryContextAllocExtended(MemoryContext context, Size size, int flags)
{
	FuzzChunk  *chunk;

	ensure_top_context();
	if (context == NULL)
		fuzz_fail(__FILE__, __LINE__, "context != NULL", "palloc without a memory context");
	check_request(size, flags);
	fuzz_bytes_requested += size;
	chunk = malloc(sizeof(FuzzChunk) + size);
	if (chunk == NULL)
	{
		if (flags & MCXT_ALLOC_NO_OOM)
			return NULL;
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed on request of size %zu.", size)));
	}
	chunk->size = size;
	chunk_link((FuzzContext *) context, chunk);
	if (flags & MCXT_ALLOC_ZERO)
		memset(chunk + 1, 0, size);
	return chunk + 1;
}

void *
MemoryContextAlloc(MemoryContext context, Size size)
{
	return MemoryContextAllocExtended(context, size, 0);
}

void *
MemoryContextAllocZero(MemoryContext context, Size size)
{
	return MemoryContextAllocExtended(context, size, MCXT_ALLOC_ZERO);
}

void *
MemoryContextAllocZeroAligned(MemoryContext context, Size size)
{
	return MemoryContextAllocExtended(context, size, MCXT_ALLOC_ZERO);
}

void *
MemoryContextAllocHuge(MemoryContext context, Size size)
{
	return MemoryContextAllocExtended(context, size, MCXT_ALLOC_HUGE);
}

void *
palloc(Size size)
{
	return MemoryContextAllocExtended(CurrentMemoryContext, size, 0);
}

void *
palloc0(Size size)
{
	return MemoryContextAllocExtended(CurrentMemoryContext, size, MCXT_ALLOC_ZERO);
}

void *
palloc_extended(Size size, int flags)
{
	return MemoryContextAllocExtended(CurrentMemoryContext, size, flags);
}

static void *
realloc_chunk(void *pointer, Size size, int flags)
{
	FuzzChunk  *chunk = chunk_of(pointer);
	FuzzContext *cxt = (FuzzContext *) chunk->context;
	FuzzChunk  *moved;

	check_request(size, flags);
	fuzz_bytes_requested += size;
	chunk_unlink(chunk);
	moved = realloc(chunk, sizeof(FuzzChunk) + size);
	if (moved == NULL)
	{
		chunk_link(cxt, chunk);
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed on request of size %zu.", size)));
	}
	moved->size = size;
	chunk_link(cxt, moved);
	return moved + 1;
}

void *
repalloc(void *pointer, Size size)
{
	return realloc_chunk(pointer, size, 0);
}

void *
repalloc_huge(void *pointer, Size size)
{
	return realloc_chunk(pointer, size, MCXT_ALLOC_HUGE);
}

void
pfree(void *pointer)
{
	FuzzChunk  *chunk = chunk_of(pointer);

	chunk_unlink(chunk);
	free(chunk);
}

char *
MemoryContextStrdup(MemoryContext context, const char *string)
{
	Size		len = strlen(string) + 1;
	char	   *copy = MemoryContextAlloc(context, len);

	memcpy(copy, string, len);
	return copy;
}

char *
pstrdup(const char *in)
{
	return MemoryContextStrdup(CurrentMemoryContext, in);
}

char *
pnstrdup(const char *in, Size len)
{
	char	   *out;

	len = strnlen(in, len);
	out = palloc(len + 1);
	memcpy(out, in, len);
	out[len] = '\0';
	return out;
}

char *
psprintf(const char *fmt,...)
{
	va_list		args;
	int			needed;
	char	   *out;

	va_start(args, fmt);
	needed = vsnprintf(NULL, 0, fmt, args);
	va_end(args);
	out = palloc(needed + 1);
	va_start(args, fmt);
	vsnprintf(out, needed + 1, fmt, args);
	va_end(args);
	return out;
}

void
MemoryContextRegisterResetCallback(MemoryContext context, MemoryContextCallback *cb)
{
	cb->next = context->reset_cbs;
	context->reset_cbs = cb;
	context->isReset = false;
}

static void
call_reset_callbacks(MemoryContext context)
{
	MemoryContextCallback *cb;

	while ((cb = context->reset_cbs) != NULL)
	{
		context->reset_cbs = cb->next;
		cb->func(cb->arg);
	}
}

void
MemoryContextResetOnly(MemoryContext context)
{
	FuzzContext *cxt = (FuzzContext *) context;

	call_reset_callbacks(context);
	while (cxt->chunks.next != &cxt->chunks)
	{
		FuzzChunk  *chunk = cxt->chunks.next;

		chunk_unlink(chunk);
		free(chunk);
	}
	context->isReset = true;
}

void
MemoryContextDeleteChildren(MemoryContext context)
{
	while (context->firstchild != NULL)
		MemoryContextDelete(context->firstchild);
}

void
MemoryContextReset(MemoryContext context)
{
	MemoryContextDeleteChildren(context);
	MemoryContextResetOnly(context);
}

void
MemoryContextDelete(MemoryContext context)
{
	MemoryContext parent = context->parent;

	if (context == CurrentMemoryContext)
		fuzz_fail(__FILE__, __LINE__, "context != CurrentMemoryContext",
				  "deleting the current memory context \"%s\"", context->name);
	MemoryContextReset(context);
	if (parent)
	{
		if (context->prevchild)
			context->prevchild->nextchild = context->nextchild;
		else
			parent->firstchild = context->nextchild;
		if (context->nextchild)
			context->nextchild->prevchild = context->prevchild;
	}
	free(context);
}

void
MemoryContextSetParent(MemoryContext context, MemoryContext new_parent)
{
	MemoryContext parent = context->parent;

	if (parent)
	{
		if (context->prevchild)
			context->prevchild->nextchild = context->nextchild;
		else
			parent->firstchild = context->nextchild;
		if (context->nextchild)
			context->nextchild->prevchild = context->prevchild;
	}
	context->parent = new_parent;
	context->prevchild = NULL;
	context->nextchild = NULL;
	if (new_parent)
	{
		context->nextchild = new_parent->firstchild;
		if (new_parent->firstchild)
			new_parent->firstchild->prevchild = context;
		new_parent->firstchild = context;
	}
}

Size
MemoryContextMemAllocated(MemoryContext context, bool recurse)
{
	FuzzContext *cxt = (FuzzContext *) context;
	Size		total = 0;

	for (FuzzChunk *c = cxt->chunks.next; c != &cxt->chunks; c = c->next)
		total += c->size;
	if (recurse)
		for (MemoryContext child = context->firstchild; child; child = child->nextchild)
			total += MemoryContextMemAllocated(child, true);
	return total;
}

/* ---------------------------------------------------------------- errors */

/* The report being built between errstart and errfinish */
static struct
{
	bool		active;
	int			elevel;
	int			sqlerrcode;
	char		message[512];
	char		scratch[512];	/* detail, hint, context: formatted, then dropped */
} report;

bool
errstart(int elevel, const char *domain)
{
	if (report.active)
		fuzz_fail(__FILE__, __LINE__, "!report.active", "ereport inside ereport");
	memset(&report, 0, sizeof(report));
	report.active = true;
	report.elevel = elevel;
	/* as elog.c: ERROR and above default to XX000, the rest to 00000 */
	report.sqlerrcode = elevel >= ERROR ? ERRCODE_INTERNAL_ERROR : 0;
	return true;
}

bool
errstart_cold(int elevel, const char *domain)
{
	return errstart(elevel, domain);
}

int
errcode(int sqlerrcode)
{
	report.sqlerrcode = sqlerrcode;
	return 0;
}

#define FORMAT_INTO(buffer, fmt) \
	do { \
		va_list		args_; \
		va_start(args_, fmt); \
		vsnprintf(buffer, sizeof(buffer), fmt, args_); \
		va_end(args_); \
	} while (0)

int
errmsg(const char *fmt,...)
{
	FORMAT_INTO(report.message, fmt);
	return 0;
}

int
errmsg_internal(const char *fmt,...)
{
	FORMAT_INTO(report.message, fmt);
	return 0;
}

int
errdetail(const char *fmt,...)
{
	FORMAT_INTO(report.scratch, fmt);
	return 0;
}

int
errdetail_internal(const char *fmt,...)
{
	FORMAT_INTO(report.scratch, fmt);
	return 0;
}

int
errhint(const char *fmt,...)
{
	FORMAT_INTO(report.scratch, fmt);
	return 0;
}

int
errcontext_msg(const char *fmt,...)
{
	FORMAT_INTO(report.scratch, fmt);
	return 0;
}

int
set_errcontext_domain(const char *domain)
{
	return 0;
}

void
errfinish(const char *filename, int lineno, const char *funcname)
{
	int			elevel = report.elevel;

	/* the context callbacks add their lines, as they do in the backend */
	for (ErrorContextCallback *c = error_context_stack; c != NULL; c = c->previous)
		c->callback(c->arg);
	report.active = false;
	if (elevel < ERROR)
		return;
	if (elevel > ERROR)
		fuzz_fail(filename, lineno, "elevel <= ERROR", "level %d report in %s: %s",
				  elevel, funcname, report.message);
	if (report.sqlerrcode == ERRCODE_INTERNAL_ERROR)
		fuzz_fail(filename, lineno, "sqlerrcode != XX000", "internal error in %s: %s",
				  funcname, report.message);
	if (PG_exception_stack == NULL)
		fuzz_fail(filename, lineno, "PG_exception_stack != NULL", "ERROR outside fuzz_try: %s",
				  report.message);
	fuzz_last_error.sqlerrcode = report.sqlerrcode;
	memcpy(fuzz_last_error.message, report.message, sizeof(fuzz_last_error.message));
	siglongjmp(*PG_exception_stack, 1);
}

void
pg_re_throw(void)
{
	if (PG_exception_stack == NULL)
		fuzz_fail(__FILE__, __LINE__, "PG_exception_stack != NULL", "PG_RE_THROW outside fuzz_try");
	siglongjmp(*PG_exception_stack, 1);
}

/* The last ERROR, as PG_CATCH blocks read it: its SQLSTATE and message */
ErrorData *
CopyErrorData(void)
{
	ErrorData  *edata = palloc0(sizeof(ErrorData));

	edata->elevel = ERROR;
	edata->sqlerrcode = fuzz_last_error.sqlerrcode;
	edata->message = pstrdup(fuzz_last_error.message);
	return edata;
}

void
FlushErrorState(void)
{
}

/*
 * Where the stack of the outermost fuzz_try begins, and how deep it may
 * grow: the backend's default max_stack_depth.
 */
static char *stack_base = NULL;
#define FUZZ_MAX_STACK_DEPTH (2 * 1024 * 1024)

void
check_stack_depth(void)
{
	char		here;
	ptrdiff_t	depth = stack_base - &here;

	if (stack_base != NULL && (depth > FUZZ_MAX_STACK_DEPTH || depth < -FUZZ_MAX_STACK_DEPTH))
		ereport(ERROR,
				(errcode(ERRCODE_STATEMENT_TOO_COMPLEX),
				 errmsg("stack depth limit exceeded"),
				 errhint("Increase the configuration parameter \"max_stack_depth\".")));
}

void
ProcessInterrupts(void)
{
	InterruptPending = false;
}

bool
fuzz_try(void (*fn) (void *arg), void *arg)
{
	MemoryContext caller;
	MemoryContext cxt;
	sigjmp_buf *saved_stack = PG_exception_stack;
	ErrorContextCallback *saved_context = error_context_stack;
	sigjmp_buf	jump;
	volatile bool ok = true;
	char		here;

	ensure_top_context();
	if (saved_stack == NULL)
		stack_base = &here;
	caller = CurrentMemoryContext;
	cxt = AllocSetContextCreate(TopMemoryContext, "fuzz input", ALLOCSET_DEFAULT_SIZES);
	MemoryContextSwitchTo(cxt);
	if (sigsetjmp(jump, 0) == 0)
	{
		PG_exception_stack = &jump;
		fn(arg);
	}
	else
		ok = false;
	PG_exception_stack = saved_stack;
	error_context_stack = saved_context;
	MemoryContextSwitchTo(caller);
	MemoryContextDelete(cxt);
	if (saved_stack == NULL)
		stack_base = NULL;
	return ok;
}

/* ---------------------------------------------------------------- fmgr */

/* As fmgr.c: a V1 function called directly, which must not return NULL */
static Datum
call_direct(PGFunction func, FunctionCallInfo fcinfo)
{
	Datum		result = (*func) (fcinfo);

	if (fcinfo->isnull)
		elog(ERROR, "function %p returned NULL", (void *) func);
	return result;
}

Datum
DirectFunctionCall1Coll(PGFunction func, Oid collation, Datum arg1)
{
	LOCAL_FCINFO(fcinfo, 1);

	InitFunctionCallInfoData(*fcinfo, NULL, 1, collation, NULL, NULL);
	fcinfo->args[0].value = arg1;
	fcinfo->args[0].isnull = false;
	return call_direct(func, fcinfo);
}

Datum
DirectFunctionCall2Coll(PGFunction func, Oid collation, Datum arg1, Datum arg2)
{
	LOCAL_FCINFO(fcinfo, 2);

	InitFunctionCallInfoData(*fcinfo, NULL, 2, collation, NULL, NULL);
	fcinfo->args[0].value = arg1;
	fcinfo->args[0].isnull = false;
	fcinfo->args[1].value = arg2;
	fcinfo->args[1].isnull = false;
	return call_direct(func, fcinfo);
}

Datum
DirectFunctionCall3Coll(PGFunction func, Oid collation, Datum arg1, Datum arg2, Datum arg3)
{
	LOCAL_FCINFO(fcinfo, 3);

	InitFunctionCallInfoData(*fcinfo, NULL, 3, collation, NULL, NULL);
	fcinfo->args[0].value = arg1;
	fcinfo->args[0].isnull = false;
	fcinfo->args[1].value = arg2;
	fcinfo->args[1].isnull = false;
	fcinfo->args[2].value = arg3;
	fcinfo->args[2].isnull = false;
	return call_direct(func, fcinfo);
}

/* ---------------------------------------------------------------- printf */

int
pg_vsnprintf(char *str, size_t count, const char *fmt, va_list args)
{
	return vsnprintf(str, count, fmt, args);
}

int
pg_snprintf(char *str, size_t count, const char *fmt,...)
{
	va_list		args;
	int			n;

	va_start(args, fmt);
	n = vsnprintf(str, count, fmt, args);
	va_end(args);
	return n;
}

int
pg_vsprintf(char *str, const char *fmt, va_list args)
{
	return vsprintf(str, fmt, args);
}

int
pg_sprintf(char *str, const char *fmt,...)
{
	va_list		args;
	int			n;

	va_start(args, fmt);
	n = vsprintf(str, fmt, args);
	va_end(args);
	return n;
}

/* numutils.c's: the decimal digits of a bigint, and their number */
int
pg_lltoa(int64 value, char *a)
{
	return sprintf(a, "%lld", (long long) value);
}

int
pg_vfprintf(FILE *stream, const char *fmt, va_list args)
{
	return vfprintf(stream, fmt, args);
}

int
pg_fprintf(FILE *stream, const char *fmt,...)
{
	va_list		args;
	int			n;

	va_start(args, fmt);
	n = vfprintf(stream, fmt, args);
	va_end(args);
	return n;
}

int
pg_printf(const char *fmt,...)
{
	va_list		args;
	int			n;

	va_start(args, fmt);
	n = vprintf(fmt, args);
	va_end(args);
	return n;
}

/* PostgreSQL's sorts take no elements at a NULL base, which the C library's must not be given */
void
pg_qsort(void *base, size_t nel, size_t elsize, int (*cmp) (const void *, const void *))
{
	if (nel > 0)
		qsort(base, nel, elsize, cmp);
}

void
qsort_arg(void *base, size_t nel, size_t elsize, qsort_arg_comparator cmp, void *arg)
{
	if (nel > 0)
		qsort_r(base, nel, elsize, cmp, arg);
}

/* ---------------------------------------------------------------- List */

/* A list with room for one more cell, growing in its own context as list.c does */
static List *
list_grow(List *list, NodeTag type)
{
	if (list == NIL)
	{
		list = palloc(offsetof(List, initial_elements));
		list->type = type;
		list->length = 0;
		list->max_length = 8;
		list->elements = MemoryContextAlloc(GetMemoryChunkContext(list), sizeof(ListCell) * list->max_length);
	}
	FUZZ_CHECK(list->type == type, "appending to a list of type %d, not %d", (int) list->type, (int) type);
	if (list->length == list->max_length)
	{
		list->max_length *= 2;
		list->elements = repalloc(list->elements, sizeof(ListCell) * list->max_length);
	}
	return list;
}

List *
lappend(List *list, void *datum)
{
	list = list_grow(list, T_List);
	list->elements[list->length++].ptr_value = datum;
	return list;
}

List *
lappend_int(List *list, int datum)
{
	list = list_grow(list, T_IntList);
	list->elements[list->length++].int_value = datum;
	return list;
}

void
list_sort(List *list, list_sort_comparator cmp)
{
	if (list_length(list) > 1)
		qsort(list->elements, list->length, sizeof(ListCell), (int (*) (const void *, const void *)) cmp);
}

/* ---------------------------------------------------------------- StringInfo */

StringInfo
makeStringInfo(void)
{
	StringInfo	str = palloc(sizeof(StringInfoData));

	initStringInfo(str);
	return str;
}

void
initStringInfo(StringInfo str)
{
	str->maxlen = 1024;
	str->data = palloc(str->maxlen);
	resetStringInfo(str);
}

void
resetStringInfo(StringInfo str)
{
	str->data[0] = '\0';
	str->len = 0;
	str->cursor = 0;
}

/* as stringinfo.c: room for needed more bytes and the NUL, up to MaxAllocSize */
void
enlargeStringInfo(StringInfo str, int needed)
{
	int			newlen;

	if (needed < 0)
		elog(ERROR, "invalid string enlargement request size: %d", needed);
	if (((Size) needed) >= (MaxAllocSize - (Size) str->len))
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("out of memory"),
				 errdetail("Cannot enlarge string buffer containing %d bytes by %d more bytes.",
						   str->len, needed)));
	needed += str->len + 1;
	if (needed <= str->maxlen)
		return;
	newlen = 2 * str->maxlen;
	while (needed > newlen)
		newlen = 2 * newlen;
	if (newlen > (int) MaxAllocSize)
		newlen = (int) MaxAllocSize;
	str->data = repalloc(str->data, newlen);
	str->maxlen = newlen;
}

int
appendStringInfoVA(StringInfo str, const char *fmt, va_list args)
{
	int			avail = str->maxlen - str->len;
	int			needed = vsnprintf(str->data + str->len, avail, fmt, args);

	if (needed < avail)
	{
		str->len += needed;
		return 0;
	}
	str->data[str->len] = '\0';
	return needed + 1;
}

void
appendStringInfo(StringInfo str, const char *fmt,...)
{
	for (;;)
	{
		va_list		args;
		int			needed;

		va_start(args, fmt);
		needed = appendStringInfoVA(str, fmt, args);
		va_end(args);
		if (needed == 0)
			break;
		enlargeStringInfo(str, needed);
	}
}

void
appendBinaryStringInfo(StringInfo str, const char *data, int datalen)
{
	enlargeStringInfo(str, datalen);
	memcpy(str->data + str->len, data, datalen);
	str->len += datalen;
	str->data[str->len] = '\0';
}

void
appendBinaryStringInfoNT(StringInfo str, const char *data, int datalen)
{
	enlargeStringInfo(str, datalen);
	memcpy(str->data + str->len, data, datalen);
	str->len += datalen;
}

void
appendStringInfoString(StringInfo str, const char *s)
{
	appendBinaryStringInfo(str, s, strlen(s));
}

void
appendStringInfoChar(StringInfo str, char ch)
{
	if (str->len + 1 >= str->maxlen)
		enlargeStringInfo(str, 1);
	str->data[str->len] = ch;
	str->len++;
	str->data[str->len] = '\0';
}

void
appendStringInfoSpaces(StringInfo str, int count)
{
	if (count > 0)
	{
		enlargeStringInfo(str, count);
		memset(str->data + str->len, ' ', count);
		str->len += count;
		str->data[str->len] = '\0';
	}
}

/* ---------------------------------------------------------------- pqformat */

void
pq_begintypsend(StringInfo buf)
{
	initStringInfo(buf);
	appendStringInfoSpaces(buf, VARHDRSZ);
}

bytea *
pq_endtypsend(StringInfo buf)
{
	bytea	   *result = (bytea *) buf->data;

	SET_VARSIZE(result, buf->len);
	return result;
}

void
pq_sendbytes(StringInfo buf, const char *data, int datalen)
{
	appendBinaryStringInfo(buf, data, datalen);
}

void
pq_copymsgbytes(StringInfo msg, char *buf, int datalen)
{
	if (datalen < 0 || datalen > (msg->len - msg->cursor))
		ereport(ERROR,
				(errcode(ERRCODE_PROTOCOL_VIOLATION),
				 errmsg("insufficient data left in message")));
	memcpy(buf, &msg->data[msg->cursor], datalen);
	msg->cursor += datalen;
}

const char *
pq_getmsgbytes(StringInfo msg, int datalen)
{
	const char *result;

	if (datalen < 0 || datalen > (msg->len - msg->cursor))
		ereport(ERROR,
				(errcode(ERRCODE_PROTOCOL_VIOLATION),
				 errmsg("insufficient data left in message")));
	result = &msg->data[msg->cursor];
	msg->cursor += datalen;
	return result;
}

int
pq_getmsgbyte(StringInfo msg)
{
	if (msg->cursor >= msg->len)
		ereport(ERROR,
				(errcode(ERRCODE_PROTOCOL_VIOLATION),
				 errmsg("no data left in message")));
	return (unsigned char) msg->data[msg->cursor++];
}

unsigned int
pq_getmsgint(StringInfo msg, int b)
{
	uint8		bytes[4];
	unsigned int result = 0;

	if (b != 1 && b != 2 && b != 4)
		elog(ERROR, "unsupported integer size %d", b);
	pq_copymsgbytes(msg, (char *) bytes, b);
	for (int i = 0; i < b; i++)
		result = (result << 8) | bytes[i];
	return result;
}

int64
pq_getmsgint64(StringInfo msg)
{
	uint8		bytes[8];
	uint64		result = 0;

	pq_copymsgbytes(msg, (char *) bytes, 8);
	for (int i = 0; i < 8; i++)
		result = (result << 8) | bytes[i];
	return (int64) result;
}

void
pq_getmsgend(StringInfo msg)
{
	if (msg->cursor != msg->len)
		ereport(ERROR,
				(errcode(ERRCODE_PROTOCOL_VIOLATION),
				 errmsg("invalid message format")));
}

/* ---------------------------------------------------------------- encodings */

/* The database encoding is UTF-8; its validation is common/wchar.c's. */
int
GetDatabaseEncoding(void)
{
	return PG_UTF8;
}

bool
pg_verify_mbstr(int encoding, const char *mbstr, int len, bool noError)
{
	int			valid = pg_encoding_verifymbstr(encoding, mbstr, len);

	if (valid == len)
		return true;
	if (noError)
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_CHARACTER_NOT_IN_REPERTOIRE),
			 errmsg("invalid byte sequence for encoding \"%s\" at byte %d",
					pg_encoding_to_char(encoding), valid)));
	return false;
}

int
pg_verify_mbstr_len(int encoding, const char *mbstr, int len, bool noError)
{
	return pg_verify_mbstr(encoding, mbstr, len, noError) ? len : -1;
}

/* UTF-8 to UTF-8: checked, and the same pointer back, as mbutils.c does */
char *
pg_any_to_server(const char *s, int len, int encoding)
{
	if (len <= 0)
		return unconstify(char *, s);
	if (encoding != PG_UTF8 && encoding != PG_SQL_ASCII)
		fuzz_fail(__FILE__, __LINE__, "encoding == PG_UTF8", "conversion from encoding %d", encoding);
	(void) pg_verify_mbstr(PG_UTF8, s, len, false);
	return unconstify(char *, s);
}

char *
pg_server_to_any(const char *s, int len, int encoding)
{
	return pg_any_to_server(s, len, encoding);
}

/* ---------------------------------------------------------------- toast */

/* The harnesses build plain values only: a compressed or external datum is a harness bug. */
struct varlena *
pg_detoast_datum(struct varlena *datum)
{
	if (VARATT_IS_EXTENDED(datum))
		fuzz_fail(__FILE__, __LINE__, "!VARATT_IS_EXTENDED", "a toasted datum in a harness");
	return datum;
}

struct varlena *
pg_detoast_datum_packed(struct varlena *datum)
{
	if (VARATT_IS_COMPRESSED(datum) || VARATT_IS_EXTERNAL(datum))
		fuzz_fail(__FILE__, __LINE__, "!VARATT_IS_EXTENDED", "a toasted datum in a harness");
	return datum;
}
