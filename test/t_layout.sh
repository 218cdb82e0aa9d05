#!/usr/bin/env bash
# The layout's rules (docs/layout.md), read from the code's includes and from
# the symbols the built objects take from each other: each folder uses only
# the folders below it, and no files need each other in a circle.
# test/layout_check.py says how; test/run.sh has built the objects.
set -euo pipefail
# shellcheck source=test/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ct_script_init --no-cluster
out=$(python3 "$repo/test/layout_check.py" "$repo") || { echo "$out" >&2; exit 1; }
case "$out" in
*"objects not built"*) echo "$out" >&2; echo "t_layout: the objects must be built first" >&2; exit 1 ;;
esac
echo "$out"
