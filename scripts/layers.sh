#!/bin/sh
# The layer rule of the source tree, checked from the #include lines.
# Each line of LAYERS below is one layer, lowest first; a file may include a
# header of its own folder or of a folder on a lower line, never of its own
# line's other folders nor of a higher line. No file includes a .c file.
# Usage: scripts/layers.sh [TOP]   (prints each violation; exit 1 if any)
# This is the one place the layer order is written (docs/architecture.md
# explains it).
set -eu
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
LAYERS='common
fs xfer
trust os2 pci
state
license
catalog
txn
session
installer netbench
ui'

cd "$top"
echo "$LAYERS" | awk '{ for (i = 1; i <= NF; i++) print $i, NR }' >"${TMPDIR:-/tmp}/layers.$$"
trap 'rm -f "${TMPDIR:-/tmp}/layers.$$"' EXIT
dirs=$(awk '{print $1}' "${TMPDIR:-/tmp}/layers.$$")
# Every folder of C sources at the top must have a layer (tests/ and bench/
# stand above all of them and are not listed).
for d in $(find . -mindepth 2 -maxdepth 2 -name '*.[ch]' | cut -d/ -f2 | sort -u); do
	case "$d" in tests | bench) continue ;; esac
	echo "$dirs" | grep -qx "$d" || { echo "$d/: a folder of sources with no layer in scripts/layers.sh"; exit 1; }
done
find $dirs tests bench -name '*.[ch]' 2>/dev/null | sort | xargs grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' |
	awk -v map="${TMPDIR:-/tmp}/layers.$$" '
	BEGIN { while ((getline l < map) > 0) { split(l, a, " "); rank[a[1]] = a[2] } bad = 0 }
	{
		split($0, p, ":"); file = p[1]; line = p[2]
		inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*$/, "", inc)
		if (inc ~ /\.c$/) { printf "%s:%s: includes a .c file (%s): link the library instead\n", file, line, inc; bad = 1; next }
		n = split(file, f, "/"); from = f[1]
		m = split(inc, h, "/"); if (m < 2) next; to = h[1]
		if (from == to || !(to in rank)) next
		if (!(from in rank)) next          # tests/ and bench/: above everything
		if (rank[to] > rank[from]) { printf "%s:%s: %s/ (layer %d) includes %s of the higher layer %s/ (layer %d)\n", file, line, from, rank[from], inc, to, rank[to]; bad = 1 }
		else if (rank[to] == rank[from]) { printf "%s:%s: %s/ includes %s of %s/, a folder of the same layer: sibling folders stay apart\n", file, line, from, inc, to; bad = 1 }
	}
	END { exit bad }'
