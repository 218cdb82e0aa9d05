# calltree — PGXS build.  `make run` and `make test` do the whole set-up on a
# fresh Debian machine (see test/run.sh); the rest is the usual PGXS targets.

EXTENSION  = calltree
MODULE_big = calltree

# The objects, folder by folder from the bottom up: each folder uses only
# the folders above it in this list (docs/layout.md).  module.o (the
# settings and _PG_init) may be used by any of them.
FOLDERS = tree formats store writer import query export
OBJS = src/module.o $(foreach f,$(FOLDERS),$(patsubst %.c,%.o,$(sort $(wildcard src/$(f)/*.c))))
SHLIB_LINK += -lz -ldeflate
PG_CPPFLAGS = -I$(srcdir)/src

# Versions (docs/hacking.md, "Releasing a version").  The current version's
# install script is built from the pieces of src/install/: schema/ (made
# once), functions/ (replayed by every upgrade), bindings/ (made once, after
# the functions).  Its upgrade scripts, one from each version that starts a
# hand-written delta in src/updates/ (PREV--NEXT.sql), are built by
# src/updates/assemble.sh: the deltas chained up to the current version,
# then functions/ replayed, then the deltas' .post.sql.  Released versions
# keep their install and upgrade scripts frozen in src/releases/: once
# there, never edited (test/t_upgrade.sh checks them against SHA256SUMS).
EXTVERSION = 0.3
INSTALL_PIECES = $(foreach part,schema functions bindings,$(sort $(wildcard src/install/$(part)/*.sql)))
REPLAYED       = $(sort $(wildcard src/install/functions/*.sql))
UPDATE_DELTAS  = $(filter-out %.post.sql,$(wildcard src/updates/*--*.sql))
UPDATES_FROM   = $(sort $(foreach d,$(UPDATE_DELTAS),$(firstword $(subst --, ,$(basename $(notdir $(d)))))))
DATA_built = calltree--$(EXTVERSION).sql $(foreach v,$(UPDATES_FROM),calltree--$(v)--$(EXTVERSION).sql)
DATA = $(wildcard src/releases/calltree--*.sql)

# The client programs, installed beside PostgreSQL's (psql's folder): the
# command line and the loader it runs for `calltree load` (Python), and
# the move of a 0.2 database into a new 0.3 one (bash, docs/citus.md).
SCRIPTS = bin/calltree bin/calltree-load bin/calltree-move

REGRESS      = $(patsubst sql/%.sql,%,$(sort $(wildcard sql/*.sql)))
REGRESS_OPTS = --load-extension=calltree
ISOLATION      = $(patsubst test/isolation/specs/%.spec,%,$(sort $(wildcard test/isolation/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test/isolation --load-extension=calltree
# The suites import the same files over and over: the NOTICE naming the
# earlier profile (whose id depends on the tests run before) is off but
# where a test turns it on (sql/import_duplicates.sql).
installcheck: export PGOPTIONS += -c calltree.duplicate_notice=off

# Our own files build warning-free; CI turns warnings into errors.
PG_CFLAGS = -Wall -Wmissing-prototypes -Wpointer-arith -Werror=vla -Werror=implicit-function-declaration
# Each object depends on the headers it includes, as the compiler lists them
# (-MMD writes src/<folder>/<file>.d beside the object).
PG_CFLAGS += -MMD -MP
ifdef CI
PG_CFLAGS += -Werror
endif

EXTRA_CLEAN = $(DATA_built) results/ regression.diffs regression.out output_iso/ tmp_check/ fuzz/build/ \
              $(OBJS:.o=.d)

PG_CONFIG ?= $(firstword $(wildcard /usr/lib/postgresql/15/bin/pg_config) pg_config)
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(PGXS),)
include $(PGXS)
endif

.DEFAULT_GOAL := all

-include $(OBJS:.o=.d)

calltree--$(EXTVERSION).sql: $(INSTALL_PIECES)
	cat $^ > $@

calltree--%--$(EXTVERSION).sql: $(UPDATE_DELTAS) $(wildcard src/updates/*.post.sql) $(REPLAYED) src/updates/assemble.sh
	$(srcdir)/src/updates/assemble.sh $* $(EXTVERSION) $(srcdir)/src/install > $@
# calltree-receiver (receiver/), a program: PGXS makes one per Makefile
all: receiver
install: install-receiver
clean: clean-receiver
receiver:
	$(MAKE) -C receiver PG_CONFIG=$(PG_CONFIG)
install-receiver clean-receiver:
	$(MAKE) -C receiver PG_CONFIG=$(PG_CONFIG) $(subst -receiver,,$@)

.PHONY: run test bench fuzz receiver install-receiver clean-receiver

# The two commands of the README: both install what is missing, build,
# install, and run against a throwaway cluster that is always stopped.
run:
	@test/run.sh run

test:
	@test/run.sh test

bench:
	@test/run.sh bench

# libFuzzer harnesses of the parsers, FUZZ_SECONDS each (fuzz/README.md); not part of `make test`
fuzz:
	@fuzz/run.sh
