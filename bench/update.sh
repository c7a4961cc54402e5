#!/bin/sh
# `warpdrv update` of an index of 20,000 packages served over loopback (the
# test server in tests/http), against SQLite's own limit for the same rows:
# `sqlite3` importing them into the same tables in one transaction. Prints
# the best of RUNS wall times of each and the ratio warpdrv/sqlite3 (aim: 2
# or less). warpdrv's time includes the download, the signature check, the
# parse, the serial checks, the new catalog file flushed and renamed, and
# the database commit. Then the same update when nothing changed: a
# conditional request answered 304, nothing parsed or written (what the
# report needs of the stored index is noted beside the validators:
# catalog/fetch_stored.h). Then the load of the
# stored catalog alone: a command that reads it (its signature checked and
# the index parsed again) and stops there. Prints the medians of RUNS
# alternating runs and the ratio unchanged/full (aim: 0.2 or less).
# VERSIONS=K makes the same number of entries K versions a name (20000/K
# names, the newest on its package line, the others on older lines).
# WD_BEFORE=OTHER/build/warpdrv times another build's full and unchanged
# update too, in the same rounds (a volume of its own). Each time is printed
# with its spread (lowest-highest).
#   [VERSIONS=K] [WD_BEFORE=PROGRAM] sh bench/update.sh [BUILD_DIR] [RUNS]
set -eu
# bash where there is one, for its clock (timed, below)
# (in the C locale: EPOCHREALTIME's decimal point is the locale's, "1.5" or "1,5")
LC_ALL=C
export LC_ALL
[ -n "${BASH_VERSION:-}" ] || ! command -v bash >/dev/null || exec bash "$0" "$@"
top=$(cd "$(dirname "$0")/.." && pwd)
O=${1:-$top/build}
RUNS=${2:-5}
N=20000
WD="$O/warpdrv"
WDA="$O/warpdrv-admin"
command -v sqlite3 >/dev/null || { echo "sqlite3 is not installed (make deps)"; exit 1; }
[ -x "$WD" ] || { echo "build warpdrv first (make)"; exit 1; }
work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT

mkdir -p "$work/keys/repo" "$work/srv" "$work/vol"
printf 'REM bench volume\r\n' >"$work/vol/CONFIG.SYS"
"$WDA" -q keygen --out "$work/keys/repo/bench" >/dev/null

# The index body and, from the same rows, the SQL for the baseline: the
# per-package tables stored catalog version 2 had.
python3 - "$N" "$work/body" "$work/rows.sql" "${VERSIONS:-1}" <<'PY'
import datetime, hashlib, sys
n, body, sql, k = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
today = datetime.date.today()
issued, expires = today.isoformat(), (today + datetime.timedelta(days=30)).isoformat()
epoch = datetime.date(1970, 1, 1)
with open(body, "w") as b, open(sql, "w") as s:
    b.write("format 1\nserial 1\nissued %s\nexpires %s\n" % (issued, expires))
    s.write("CREATE TABLE repo (name TEXT PRIMARY KEY, url TEXT NOT NULL, source TEXT NOT NULL,"
            " serial INTEGER NOT NULL, issued INTEGER NOT NULL, expires INTEGER NOT NULL,"
            " signer TEXT NOT NULL);\n"
            "CREATE TABLE package (repo TEXT NOT NULL, name TEXT NOT NULL, version TEXT NOT NULL,"
            " released INTEGER NOT NULL, kind TEXT NOT NULL, entitlement TEXT, file TEXT NOT NULL,"
            " size INTEGER NOT NULL, sha256 TEXT NOT NULL, summary TEXT NOT NULL, choice TEXT);\n"
            "CREATE TABLE revoked (repo TEXT NOT NULL, key_id TEXT NOT NULL);\nBEGIN;\n")
    s.write("INSERT INTO repo VALUES ('bench', 'http://x/', 'http://x/', 1, 0, 0, 'f');\n")
    rel = (datetime.date(2024, 1, 1) - epoch).days
    for i in range(n):
        name, ver = "pkg%05d" % i, "1.%d" % (i % 100)
        if k > 1:
            name, ver = "pkg%05d" % (i // k), "1.%d" % (k - 1 - i % k)
        sha = hashlib.sha256((name + ver).encode()).hexdigest()
        ent = "drivers" if i % 3 == 0 else "-"
        summ = "Bench driver number %d for the update benchmark" % i
        b.write("%s %s %s 2024-01-01 nic %s %s-%s.wdp %d %s %s\n" %
                ("package" if i % k == 0 else "older", name, ver, ent, name, ver, 10000 + i,
                 sha, summ))
        s.write("INSERT INTO package VALUES ('bench','%s','%s',%d,'nic',%s,'%s-%s.wdp',%d,'%s','%s',NULL);\n" %
                (name, ver, rel, "'drivers'" if ent != "-" else "NULL", name, ver, 10000 + i, sha, summ))
    s.write("COMMIT;\n")
PY
# Signed as catalog/signed.h says: an Ed25519 signature of the body, by a
# key named by the SHA-256 of its raw public key.
fpr=$(openssl pkey -in "$work/keys/repo/bench.key" -pubout -outform DER | tail -c 32 | sha256sum | cut -d' ' -f1)
sig=$(openssl pkeyutl -sign -rawin -inkey "$work/keys/repo/bench.key" -in "$work/body" | od -An -tx1 -v | tr -d ' \n')
{ cat "$work/body"; printf 'signature %s %s\n' "$fpr" "$sig"; } >"$work/srv/INDEX"
"$WDA" verify "$work/srv/INDEX" --keys "$work/keys" >/dev/null

python3 "$top/tests/http/faultserver.py" --root "$work/srv" --port-file "$work/port" --lifetime 600 &
server=$!
i=0
while [ ! -s "$work/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
url="http://127.0.0.1:$(cat "$work/port")/"
W() { "$WD" -q --root "$work/vol" --keys "$work/keys" "$@"; }
W repo add bench "$url"
WB=${WD_BEFORE:-}
[ -z "$WB" ] || [ -x "$WB" ] || { echo "WD_BEFORE=$WB is not a program"; exit 1; }
B() { "$WB" -q --root "$work/volb" --keys "$work/keys" "$@"; }
if [ -n "$WB" ]; then
	mkdir -p "$work/volb"
	printf 'REM bench volume\r\n' >"$work/volb/CONFIG.SYS"
	B repo add bench "$url"
fi

# The clock read by the shell itself where it can (bash's EPOCHREALTIME):
# reading it by starting date(1) after the command would add that process's
# start, a millisecond or two, to every time, the short ones most.
if [ -n "${EPOCHREALTIME:-}" ]; then
	now() { echo "$EPOCHREALTIME"; }
else
	now() { date +%s.%N; }
fi
timed() { # command...: its wall time in seconds
	s=$(now)
	"$@" >/dev/null
	e=$(now)
	echo "$e - $s" | bc
}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
spread() { sort -n | awk '{a[NR] = $1} END {printf "%.3f-%.3f", a[1], a[NR]}'; }
sqlite_import() {
	rm -f "$work/base.db"
	sqlite3 "$work/base.db" <"$work/rows.sql"
}

# A full update each time: no stored catalog, so no conditional request.
full_update() {
	rm -f "$work/vol/var/cache/warpdrv/catalog.db" "$work/vol/var/cache/warpdrv/catalog.validators"
	W update
}
load() { W install no-such-package 2>/dev/null && return 1; return 0; }
full_update_before() {
	rm -f "$work/volb/var/cache/warpdrv/catalog.db" "$work/volb/var/cache/warpdrv/catalog.validators"
	B update
}
# The full and the unchanged update alternate, RUNS rounds (an unchanged one
# right after the full one that stored the catalog), with the baselines.
: >"$work/t.full" && : >"$work/t.unch" && : >"$work/t.sq" && : >"$work/t.ld" && : >"$work/t.ver"
: >"$work/t.bfull" && : >"$work/t.bunch"
r=0
while [ $r -lt "$RUNS" ]; do
	timed full_update >>"$work/t.full"
	timed W update >>"$work/t.unch"
	timed "$WD" --version >>"$work/t.ver"
	timed sqlite_import >>"$work/t.sq"
	timed load >>"$work/t.ld"
	if [ -n "$WB" ]; then
		timed full_update_before >>"$work/t.bfull"
		timed B update >>"$work/t.bunch"
	fi
	r=$((r + 1))
done
wd_t=$(median <"$work/t.full")
un_t=$(median <"$work/t.unch")
sq_t=$(median <"$work/t.sq")
ld_t=$(median <"$work/t.ld")
vr_t=$(median <"$work/t.ver")
"$WD" --root "$work/vol" --keys "$work/keys" --json update | grep -q '"status": "current"' ||
	{ echo "the unchanged update was not answered 304"; exit 1; }
got=$(sqlite3 "$work/vol/var/cache/warpdrv/catalog.db" 'SELECT length(signed) FROM repo')
[ "$got" -eq "$(stat -c %s "$work/srv/INDEX")" ] ||
	{ echo "the catalog holds $got bytes of index, not the INDEX served"; exit 1; }
printf 'index of %d packages (%d bytes) over loopback, median of %d alternating runs\n' "$N" \
	"$(stat -c %s "$work/srv/INDEX")" "$RUNS"
printf '  warpdrv update            %.3f s (spread %s)\n' "$wd_t" "$(spread <"$work/t.full")"
printf '  sqlite3 import, 1 txn     %.3f s\n' "$sq_t"
printf '  ratio warpdrv/sqlite3     %.2f (aim: 2 or less)\n' "$(echo "$wd_t / $sq_t" | bc -l)"
printf '  warpdrv update, unchanged %.3f s (spread %s; 304: nothing new parsed or written)\n' \
	"$un_t" "$(spread <"$work/t.unch")"
printf '  ratio unchanged/full      %.2f (aim: 0.2 or less)\n' "$(echo "$un_t / $wd_t" | bc -l)"
printf '  warpdrv --version         %.3f s (the process alone)\n' "$vr_t"
printf '  stored catalog load       %.3f s (verified and parsed again)\n' "$ld_t"
if [ -n "$WB" ]; then
	bf=$(median <"$work/t.bfull")
	bu=$(median <"$work/t.bunch")
	printf '  WD_BEFORE update          %.3f s (spread %s) %s\n' "$bf" "$(spread <"$work/t.bfull")" "$WB"
	printf '  WD_BEFORE unchanged       %.3f s (spread %s)\n' "$bu" "$(spread <"$work/t.bunch")"
	printf '  WD_BEFORE unchanged/full  %.2f\n' "$(echo "$bu / $bf" | bc -l)"
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
