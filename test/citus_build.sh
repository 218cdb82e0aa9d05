# shellcheck shell=bash
# Citus for the tests: installed into the PostgreSQL the tests use, built
# from the vendored source when it is not there yet.
#
# Source it after test/lib.sh (PG_CONFIG, CALLTREE_SHARED), then call
#   citus_ensure    0: Citus is installed (now); 1: it cannot be (the reason
#                   is in $citus_missing); exits on a failed build
#
# The build (about 4 minutes on 2 cores) runs once: `make install
# DESTDIR=` stages its files in a cache folder outside the clone,
#   ${CALLTREE_CACHE:-$HOME/.cache/calltree}/citus-13.2.2-pg15
# laid out as lib/ (the server's modules) and extension/ (control and SQL
# files), and each later run only copies them into the server's folders.
# A CI machine starts without the cache and builds each time.

CITUS_VERSION=13.2.2
CITUS_CACHE=${CALLTREE_CACHE:-$HOME/.cache/calltree}/citus-$CITUS_VERSION-pg15
# What the build needs beside PostgreSQL's headers (the vendored README's list)
CITUS_PACKAGES=(postgresql-server-dev-15 liblz4-dev libzstd-dev libkrb5-dev libselinux1-dev
	libxslt1-dev libpam0g-dev libreadline-dev libcurl4-openssl-dev patch)
citus_missing=""

# The Citus that this PostgreSQL would load
citus_installed() {
	[ -f "$("$PG_CONFIG" --pkglibdir)/citus.so" ] &&
		[ -f "$("$PG_CONFIG" --sharedir)/extension/citus.control" ]
}

CITUS_VENDOR=$CALLTREE_SHARED/vendor

# citus_run_quietly LOG CMD...: CMD's output to LOG; its tail on failure
citus_run_quietly() {
	local log=$1
	shift
	if ! "$@" >>"$log" 2>&1; then
		echo "citus build: failed: $*" >&2
		tail -n 30 "$log" >&2
		return 1
	fi
}

citus_packages() {
	local missing=() p
	for p in "${CITUS_PACKAGES[@]}"; do
		dpkg -s "$p" 2>/dev/null | grep -qx 'Status: install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "citus build: missing packages: ${missing[*]}; install them as root" >&2
		return 1
	fi
	echo "citus build: installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null 2>&1 || true
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

# Builds the vendored Citus against $PG_CONFIG into $CITUS_CACHE.
# The tests' clusters are small: -O1 (CITUS_CFLAGS to change it) compiles
# Citus's files in about half the time -O2 takes, and with_llvm=no skips the
# LLVM bitcode that PGXS compiles a second time with clang.
citus_build() {
	local vendor=$CITUS_VENDOR src stage log start pg_config=$PG_CONFIG
	start=$SECONDS
	citus_packages || return 1
	src=$(mktemp -d "${TMPDIR:-/tmp}/citus-build.XXXXXX")
	log="$src/build.log"
	echo "citus build: building Citus $CITUS_VERSION into $CITUS_CACHE (log $log)"
	tar xzf "$vendor/citus-$CITUS_VERSION.tar.gz" -C "$src"
	# (&&, not set -e, which a caller's || turns off)
	(
		cd "$src/citus-$CITUS_VERSION" &&
			citus_run_quietly "$log" patch -p1 -i "$vendor/pg15-have_createdb_privilege.patch" &&
			citus_run_quietly "$log" ./configure PG_CONFIG="$pg_config" --without-libcurl \
				CFLAGS="${CITUS_CFLAGS:--O1}" &&
			# with_llvm=no: no LLVM bitcode for JIT inlining, which PGXS would
			# compile with clang beside every object (JIT calls Citus either way)
			citus_run_quietly "$log" make -j"$(nproc)" with_llvm=no &&
			citus_run_quietly "$log" make install with_llvm=no DESTDIR="$src/stage"
	) || return 1
	# The staged tree mirrors pg_config's folders; keep only the two we copy.
	stage="$CITUS_CACHE.new"
	rm -rf "$stage"
	mkdir -p "$stage"
	cp -a "$src/stage$("$pg_config" --pkglibdir)" "$stage/lib"
	cp -a "$src/stage$("$pg_config" --sharedir)/extension" "$stage/extension"
	rm -rf "$CITUS_CACHE"
	mv "$stage" "$CITUS_CACHE"
	rm -rf "$src"
	echo "citus build: done in $((SECONDS - start)) s"
}

# Copies the cached files into the server's folders (sudo when they are not ours)
citus_install_cached() {
	local pg_config=$PG_CONFIG sudo=() libdir extdir
	libdir=$("$pg_config" --pkglibdir)
	extdir=$("$pg_config" --sharedir)/extension
	if [ ! -w "$libdir" ] && [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
		sudo=(sudo)
	fi
	"${sudo[@]}" cp -a "$CITUS_CACHE/lib/." "$libdir/" &&
		"${sudo[@]}" cp -a "$CITUS_CACHE/extension/." "$extdir/" || {
		echo "citus build: cannot copy $CITUS_CACHE into $libdir and $extdir" >&2
		return 1
	}
	echo "citus build: installed from $CITUS_CACHE"
}

citus_ensure() {
	citus_installed && return 0
	if [ ! -f "$CITUS_CACHE/lib/citus.so" ]; then
		if [ ! -f "$CITUS_VENDOR/citus-$CITUS_VERSION.tar.gz" ]; then
			citus_missing="Citus is not installed in $("$PG_CONFIG" --pkglibdir), and its source, $CITUS_VENDOR/citus-$CITUS_VERSION.tar.gz, is not at hand"
			return 1
		fi
		citus_build || exit 1
	fi
	citus_install_cached || exit 1
	citus_installed
}
