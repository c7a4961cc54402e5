#!/bin/sh
# The front end renders and asks; the planner's insides stay in installer/.
# Fails (exit 1, each violation printed) when a file of ui/:
#   - includes an installer/*_internal.h or txn/*_internal.h header, or
#     installer/nic_ctx.h;
#   - names a field of struct setup (installer/setup_internal.h) through a
#     variable or field it declares as a struct setup;
# or when struct setup's body is defined anywhere but in an *_internal.h
# header of installer/ (the public installer/setup.h declares it only).
# Usage: scripts/ui_planner.sh [TOP]   (docs/architecture.md explains it)
set -eu
top=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$top"
bad=0
# 1. the planner's private headers
if grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"\(installer/\([A-Za-z0-9_]*_internal\|nic_ctx\)\|txn/[A-Za-z0-9_]*_internal\)\.h"' \
	ui/*.c ui/*.h 2>/dev/null; then
	echo "ui/ includes a private header of installer/ or txn/ (above): ask their public functions"
	bad=1
fi
# 2. struct setup's body is private
for f in $(grep -l '^struct setup[[:space:]]*{' $(find . -name '*.[ch]' -not -path './build/*' \
	-not -path './tests/*') 2>/dev/null); do
	case "$f" in ./installer/*_internal.h) ;; *)
		echo "$f: defines struct setup's fields: they belong in installer/setup_internal.h"
		bad=1 ;;
	esac
done
# 3. no field of struct setup is named in ui/ (its fields read from where the
# body is: the internal header, or a public one that check 2 refused)
def=installer/setup_internal.h
[ -f "$def" ] || def=installer/setup.h
fields=$(awk '/^struct setup[[:space:]]*{/ { on = 1; next } on && /^};/ { on = 0 }
	on { line = $0; gsub(/\/\*.*\*\//, "", line); sub(/\/\*.*$/, "", line)
	     if (line ~ /^[[:space:]]*\*/) next
	     sub(/;.*$/, "", line); gsub(/\[[^]]*\]/, "", line)
	     k = split(line, part, ",")
	     for (j = 1; j <= k; j++) { n = split(part[j], w, /[^A-Za-z0-9_]+/)
	       for (i = n; i > 0; i--) if (w[i] != "") { print w[i]; break } } }' \
	"$def" 2>/dev/null | sort -u | tr '\n' '|' | sed 's/|$//')
if [ -n "$fields" ]; then
	for f in ui/*.c ui/*.h; do
		[ -f "$f" ] || continue
		names=$(sed -n 's/.*struct setup[[:space:]]*\**[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\).*/\1/p' "$f" |
			sort -u | tr '\n' '|' | sed 's/|$//')
		[ -n "$names" ] || continue
		if grep -HnE "(^|[^A-Za-z0-9_])($names)(->|\.)($fields)([^A-Za-z0-9_]|$)" "$f"; then
			echo "$f: names a field of struct setup (above): render what setup_view gives"
			bad=1
		fi
	done
fi
exit $bad
