#!/usr/bin/env bash
# configure acpi --off reads what to take out of CONFIG.SYS from the
# installed package's manifest, which the volume's database keeps. The
# database is the volume's, anyone's: the manifest is believed only when its
# signature checks out with the program's keys. A manifest edited on the
# volume to "need" the boot disk driver must not take it out of CONFIG.SYS.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pkg_lib.sh"
. "$(dirname "$0")/setup_lib.sh"

t_an_edited_stored_manifest_is_refused_and_nothing_changes() {
	volume ecs21-e1000
	subscribe drivers,acpi
	wd --yes --root "$T/v" configure acpi
	assert_rc 0
	grep -q 'BASEDEV=DANIS506.ADD' "$T/v/CONFIG.SYS" || fail "the fixture lost its disk driver"
	python3 - "$T/v/var/lib/warpdrv/warpdrv.db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
m, = c.execute("SELECT manifest FROM package WHERE name = 'acpi-psd'").fetchone()
lines = m.split('\n')
i = next(k for k, l in enumerate(lines) if l.startswith('config-need'))
lines.insert(i + 1, 'config-need BASEDEV DANIS506.ADD')
c.execute("UPDATE package SET manifest = ? WHERE name = 'acpi-psd'", ('\n'.join(lines),))
c.commit()
PY
	before=$(snapshot "$T/v")
	wd --root "$T/v" --dry-run configure acpi --off
	assert_rc 3
	assert_err "the installed manifest of acpi-psd"
	wd --yes --root "$T/v" configure acpi --off
	assert_rc 3
	assert_err "the installed manifest of acpi-psd"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "the volume changed"
	grep -q 'BASEDEV=DANIS506.ADD' "$T/v/CONFIG.SYS" || fail "the disk driver was taken out"
}

# The same volume without the edit: the signature checks out and the PSD
# goes, the disk driver stays.
t_the_signed_manifest_still_turns_the_psd_off() {
	volume ecs21-e1000
	subscribe drivers,acpi
	cp "$T/v/CONFIG.SYS" "$T/config.orig"
	wd --yes --root "$T/v" configure acpi
	assert_rc 0
	wd --yes --root "$T/v" configure acpi --off
	assert_rc 0
	cmp -s "$T/config.orig" "$T/v/CONFIG.SYS" || fail "CONFIG.SYS is not as before the ACPI change"
}

run_tests
