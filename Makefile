# calltree — PGXS build.  `make run` and `make test` do the whole set-up on a
# fresh Debian machine (see test/run.sh); the rest is the usual PGXS targets.

EXTENSION  = calltree
MODULE_big = calltree

# The objects, folder by folder from the bottom up: each folder uses only
# the folders above it in this list (docs/layout.md).  module.o (the
# settings and _PG_init) may be used by any of them.
FOLDERS = tree formats store writer import query export
OBJS = src/module.o $(foreach f,$(FOLDERS),$(patsubst %.c,%.o,$(sort $(wildcard src/$(f)/*.c))))
SHLIB_LINK += -lz
PG_CPPFLAGS = -I$(srcdir)/src

# The current version's install script is built from one piece per concern
# (src/install/).  Released versions are frozen copies in src/releases/,
# beside the upgrade scripts between them; none of those is ever edited.
EXTVERSION = 0.2
DATA_built = calltree--$(EXTVERSION).sql
DATA = $(wildcard src/releases/calltree--*.sql)

REGRESS      = $(patsubst test/sql/%.sql,%,$(sort $(wildcard test/sql/*.sql)))
REGRESS_OPTS = --inputdir=test --load-extension=calltree
ISOLATION      = $(patsubst test/isolation/specs/%.spec,%,$(sort $(wildcard test/isolation/specs/*.spec)))
ISOLATION_OPTS = --inputdir=test/isolation --load-extension=calltree

# Our own files build warning-free; CI turns warnings into errors.
PG_CFLAGS = -Wall -Wmissing-prototypes -Wpointer-arith -Werror=vla -Werror=implicit-function-declaration
# Each object depends on the headers it includes, as the compiler lists them
# (-MMD writes src/<folder>/<file>.d beside the object).
PG_CFLAGS += -MMD -MP
ifdef CI
PG_CFLAGS += -Werror
endif

EXTRA_CLEAN = calltree--$(EXTVERSION).sql results/ regression.diffs regression.out output_iso/ tmp_check/ fuzz/build/ \
              $(OBJS:.o=.d)

PG_CONFIG ?= $(firstword $(wildcard /usr/lib/postgresql/15/bin/pg_config) pg_config)
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
ifneq ($(PGXS),)
include $(PGXS)
endif

.DEFAULT_GOAL := all

-include $(OBJS:.o=.d)

calltree--$(EXTVERSION).sql: $(sort $(wildcard src/install/*.sql))
	cat $^ > $@
.PHONY: run test bench fuzz

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
