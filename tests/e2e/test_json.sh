#!/usr/bin/env bash
# The --json documents against docs/json.md: every command that has --json is
# run on a fixture volume and each document it prints is parsed with Python's
# json module and held to the schema's rules: strict UTF-8, one document,
# "format": 1, snake_case names, times in ISO 8601 UTC with Z, dates as
# YYYY-MM-DD, no retired name, and each name one JSON type in every command.
# Then the text it carries: CONFIG.SYS bytes decoded from the volume's code
# page, arguments that are not UTF-8 escaped as U+FFFD.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"
. "$(dirname "$0")/setup_lib.sh"

export XDG_STATE_HOME="$TESTTMP/state"
LSPCI="lspci:$FIX/pci/ecs-guest.lspci-nn"

# Keeps the document of the last run as $T/docs/N-NAME.json, after checking
# that the run ended as wanted.
N=0
keep() { # NAME RC
	[ "$RC" -eq "$2" ] || fail "$1: exit status $RC, wanted $2; stdout: $OUT; stderr: $ERR"
	mkdir -p "$T/docs"
	N=$((N + 1))
	cp "$T/out" "$T/docs/$(printf %02d $N)-$1.json"
}

# The rules, over every document kept; prints each one broken.
check_docs() {
	python3 - "$T/docs" <<'PY'
import glob, json, os, re, sys

TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
DATE = re.compile(r"^\d{4}-\d\d-\d\d$")
NAME = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
DATES = {"released", "issued", "expires", "activated"}
# names the schema retired (docs/json.md: "Names that went")
RETIRED = {"drivername", "replaces", "installed", "recorded", "driver_note", "added",
           "removed", "unheld", "from", "problem", "downloads", "checked", "reinstalled",
           "damaged_files", "restored_lines"}
bad = []
types = {}

def kind(v):
    return {dict: "object", list: "array", str: "string", bool: "boolean",
            int: "integer", float: "number"}[type(v)]

def walk(doc, path, v):
    if isinstance(v, dict):
        for k, x in v.items():
            p = path + "." + k
            if not NAME.match(k):
                bad.append("%s: %s is not a snake_case name" % (doc, p))
            if k in RETIRED:
                bad.append("%s: %s is a retired name" % (doc, p))
            if (k == "at" or k.endswith("_at")) and x is not None and \
                    not (isinstance(x, str) and TIME.match(x)):
                bad.append("%s: %s = %r is not an ISO 8601 UTC time with Z" % (doc, p, x))
            if k in DATES and x is not None and not (isinstance(x, str) and DATE.match(x)):
                bad.append("%s: %s = %r is not a date YYYY-MM-DD" % (doc, p, x))
            if x is not None:
                types.setdefault(k, {}).setdefault(kind(x), "%s: %s" % (doc, p))
            walk(doc, p, x)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(doc, path + "[%d]" % i, x)

files = sorted(glob.glob(os.path.join(sys.argv[1], "*.json")))
for f in files:
    name = os.path.basename(f)
    raw = open(f, "rb").read()
    try:
        text = raw.decode("utf-8")  # strict: every byte valid UTF-8
    except UnicodeDecodeError as e:
        bad.append("%s: not UTF-8: %s" % (name, e))
        continue
    if not text.endswith("\n") or text.count("\n") != 1:
        bad.append("%s: not one document on one line" % name)
    try:
        d = json.loads(text)
    except ValueError as e:
        bad.append("%s: not JSON: %s: %r" % (name, e, text[:300]))
        continue
    if not isinstance(d, dict):
        bad.append("%s: the top is not an object" % name)
        continue
    if type(d.get("format")) is not int or d["format"] != 1 or next(iter(d)) != "format":
        bad.append("%s: does not begin with \"format\": 1" % name)
    walk(name, "", d)
# A name means one thing: one JSON type wherever it is used (null aside),
# but for "version" of an object that is a package, and so on: none.
for k, ts in sorted(types.items()):
    if len(ts) > 1:
        bad.append("name %r has several types: %s" % (k, "; ".join(
            "%s in %s" % (t, w) for t, w in sorted(ts.items()))))
if len(files) < 30:
    bad.append("only %d documents were kept" % len(files))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
}

# A Python expression over d, the document kept as NAME.
doc_is() { # NAME EXPR
	python3 -c 'import glob, json, re, sys
f = [f for f in glob.glob(sys.argv[1] + "/*.json")
     if re.search(r"/\d+-" + re.escape(sys.argv[2]) + r"\.json$", f)][0]
d = json.load(open(f, encoding="utf-8"))
if not eval(sys.argv[3]): sys.exit("false: " + sys.argv[3] + "\n    document: " + json.dumps(d)[:1500])' \
		"$T/docs" "$1" "$2" || fail "$1: JSON check failed"
}

t_every_command_s_json_follows_the_schema() {
	volume ecs21-e1000
	# a CP850 byte in CONFIG.SYS (0x82: e-acute), in a comment next to the
	# line setup rewrites and in a line check finds wrong
	python3 - "$T/v/CONFIG.SYS" <<'PY'
import sys
p = sys.argv[1]
s = open(p, "rb").read()
old = b"DEVICE=C:\\IBMCOM\\MACS\\E1000.OS2\r\n"
assert old in s
s = s.replace(old, b"REM Caf\x82 network card\r\n" + old + b"DEVICE=C:\\OS2\\BOOT\\CAF\x82.SYS\r\n")
open(p, "wb").write(s)
PY
	subscribe drivers,acpi
	local V="$T/v" K="$T/k"
	make_key
	make_recipe
	wd --json --root "$V" detect --pci "$LSPCI"; keep detect 0
	wd --json --root "$V" check; keep check 1
	wd --json --root "$V" license; keep license 0
	wd --json --root "$V" setup --dry-run --pci "$LSPCI"; keep setup-dry-run 0
	wd --json --root "$V" setup --yes --pci "$LSPCI"; keep setup 0
	wd --json --root "$V" configure acpi --dry-run; keep configure-acpi 0
	wd --json --root "$V" configure nic --dry-run --pci "$LSPCI"; keep configure-nic 0
	wd --json --root "$V" list; keep list 0
	wd --json --root "$V" list --installed; keep list-installed 0
	wd --json --root "$V" list --upgradable; keep list-upgradable 0
	wd --json --root "$V" search acpi; keep search 0
	wd --json --root "$V" info mmlem e1000; keep info 0
	wd --json --root "$V" install --dry-run pcntnd; keep install-dry-run 0
	wd --json --root "$V" install pcntnd; keep install 0
	wd --json --root "$V" hold mmlem; keep hold 0
	wd --json --root "$V" upgrade --dry-run; keep upgrade 0
	wd --json --root "$V" unhold mmlem; keep unhold 0
	wd --json --root "$V" owns '\IBMCOM\MACS\MMLEM.OS2'; keep owns 0
	wd --json --root "$V" verify; keep verify 0
	wd --json --root "$V" remove --yes pcntnd; keep remove 0
	wd --json --root "$V" reinstall --dry-run mmlem; keep reinstall 0
	wd --json --root "$V" verify --fix --dry-run; keep verify-fix 0
	wd --json --root "$V" configure acpi --off --dry-run; keep configure-off 0
	wd --json --root "$V" rollback --packages --dry-run 1; keep rollback-packages 0
	wd --json --root "$V" history; keep history 0
	wd --json --root "$V" rollback --dry-run 1; keep rollback-dry-run 0
	wd --json --root "$V" recover; keep recover 0
	wd --json --root "$V" clean --dry-run; keep clean-dry-run 0
	wd --json --root "$V" clean; keep clean 0
	wd --json --root "$V" repo add extra "file://$WARPDRV_BUILD/repo" --mirror "file://$T/mirror"
	keep repo-add 0
	wd --json --root "$V" repo list; keep repo-list-before 0
	wd --json --root "$V" update; keep update 0
	wd --json --root "$V" repo list; keep repo-list 0
	wd --json --root "$V" repo remove extra; keep repo-remove 0
	wd --json --root "$V" deactivate --dry-run; keep deactivate 0
	wda issue --key "$LICENSE_KEY" --customer 9 --entitlements drivers --issued 2026-01-01 \
		--expires 2099-12-31
	local key=$OUT
	wd --json --root "$V" activate --dry-run "$key"; keep activate 0
	wd --json --root "$V" info nosuch; keep error 1
	wd --json bench import "$FIX/bench/e1000.txt" --label E1000 --db "$T/b.db"; keep bench-import 0
	wd --json bench import "$FIX/bench/mmlem.txt" --label MMLEM --db "$T/b.db"
	keep bench-import-2 0
	wd --json bench report --db "$T/b.db"; keep bench-report 0
	wda --json issue --key "$LICENSE_KEY" --customer 9 --entitlements drivers \
		--issued 2026-01-01 --expires 2099-12-31
	keep admin-issue 0
	wda --json keygen --out "$T/k2"; keep admin-keygen 0
	mkdir -p "$T/r"
	wda --json pack "$T/recipe" --key "$K/repo/test.key" --out "$T/r/testpkg.wdp"
	keep admin-pack 0
	wda --json index "$T/r" --key "$K/repo/test.key"; keep admin-index 0
	wda --json verify "$T/r/testpkg.wdp" --keys "$K"; keep admin-verify 0
	check_docs

	# the agreed names, where each concept lives
	doc_is list-installed 'all(set(p) >= {"name", "version", "installed_version", "installed_at"} for p in d["packages"])'
	doc_is list 'all("installed_version" in p and "installed_at" not in p for p in d["packages"])'
	doc_is setup '[(n["driver_name"], n["replaced_driver"]) for n in d["nics"]] == [("MMLEM$", "E1000.OS2")]'
	doc_is info '[p["driver_name"] for p in d["packages"]] == ["MMLEM$", "E1000$"]'
	doc_is history 'all(h["at"].endswith("Z") for h in d["history"]) and d["generations"][0]["at"].endswith("Z")'
	doc_is update 'd["repositories"][0]["package_count"] > 0'
	doc_is hold 'd["packages"] == [{"name": "mmlem", "held": True}]'
	doc_is reinstall 'd["packages"] == [{"action": "reinstall", "name": "mmlem", "version": "2.06", "file_count": 2}]'
	doc_is error 'd["error"]["exit_code"] == 1'
	# CONFIG.SYS's byte 0x82 read as code page 850: e-acute, in the diff and
	# in check's finding, never U+0082
	doc_is setup '"REM Caf\u00e9 network card" in d["diff"]'
	doc_is check 'any("CAF\u00e9.SYS" in f["message"] and f["path"] == "CONFIG.SYS" for f in d["findings"])'
	! grep -q 'u0082' "$T"/docs/*.json || fail "a CP850 byte became U+0082"
}

t_text_from_the_volume_follows_its_code_page() {
	volume ecs21-e1000
	# 0x9b: o-slash in CP850, the cent sign in CP437
	printf 'DEVICE=C:\\OS2\\BOOT\\X\x9b.SYS\r\n' >>"$T/v/CONFIG.SYS"
	before=$(snapshot "$T/v")
	wd --json --root "$T/v" check
	assert_rc 1
	assert_json 'any("X\u00f8.SYS" in f["message"] for f in d["findings"])'
	wd --root "$T/v" check
	assert_out "X"$'\xc3\xb8'".SYS"
	# the volume's own CODEPAGE= says 437
	sed -i 's/^CODEPAGE=850,437/CODEPAGE=437,850/' "$T/v/CONFIG.SYS"
	grep -q '^CODEPAGE=437,850' "$T/v/CONFIG.SYS" || fail "no CODEPAGE line to edit"
	wd --json --root "$T/v" check
	assert_json 'any("X\u00a2.SYS" in f["message"] for f in d["findings"])'
	# and WARPDRV_CODEPAGE overrides it
	WARPDRV_CODEPAGE=850 wd --json --root "$T/v" check
	assert_json 'any("X\u00f8.SYS" in f["message"] for f in d["findings"])'
	before=$(snapshot "$T/v")
	# a code page warpdrv has no table for: a usage error, nothing read or written
	for cp in 1252 abc -850 ""850x; do
		WARPDRV_CODEPAGE=$cp wd --json --root "$T/v" check
		assert_rc 2
		assert_json 'd["error"]["exit_code"] == 2 and "WARPDRV_CODEPAGE='"$cp"' is not a code page warpdrv can read (one of 437, 850, 852, 865, 866)" in d["error"]["message"]'
	done
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused code page changed the volume"
	# a CODEPAGE= warpdrv cannot read: a warning, and CP850
	sed -i 's/^CODEPAGE=437,850/CODEPAGE=932,850/' "$T/v/CONFIG.SYS"
	before=$(snapshot "$T/v")
	wd --json --root "$T/v" check
	assert_rc 1
	assert_err "CONFIG.SYS selects code page 932, which warpdrv cannot read (it reads 437, 850, 852, 865, 866): its text is shown as code page 850; set WARPDRV_CODEPAGE to choose"
	assert_json 'any("X\u00f8.SYS" in f["message"] for f in d["findings"])'
	[ "$(snapshot "$T/v")" = "$before" ] || fail "check changed the volume"
}

t_arguments_are_utf8_or_escaped_never_latin1() {
	mkdir -p "$T/gäst"
	cp -a "$FIX/volumes/ecs21-e1000" "$T/gäst/v"
	# a UTF-8 host path passes as it is
	wd --json --root "$T/gäst/v" install "$T/gäst/none.wdp"
	assert_rc 1
	grep -q 'gäst/none.wdp' "$T/out" || fail "the UTF-8 path was not kept: $OUT"
	! grep -q 'gÃ¤st\|\\u00c3' "$T/out" || fail "the UTF-8 path was re-encoded: $OUT"
	assert_json '"gäst/none.wdp" in d["error"]["message"]'
	# a name that is not UTF-8 (Latin-1 a-umlaut): U+FFFD, valid UTF-8
	wd --json --root "$T/gäst/v" info $'g\xe4st'
	assert_rc 1
	python3 -c 'import sys; open(sys.argv[1], "rb").read().decode("utf-8")' "$T/out" ||
		fail "not UTF-8: $OUT"
	assert_json '"g\ufffdst" in d["error"]["message"]'
	# and on the terminal: the byte shown as \xe4, the UTF-8 kept
	wd --root "$T/gäst/v" info $'g\xe4st' 'gäst'
	assert_rc 1
	assert_err 'g\xe4st'
}

run_tests
