#!/usr/bin/env bash
# detect from sysfs reads each device's configuration header (DIR/SLOT/config)
# when it is there: the IDs from one file instead of six, as the device gives
# them; a short or missing header, or a bridge's subsystem IDs, come from the
# attribute files as before, with their messages. pci.ids is read by the
# sections of the vendors present, the whole file when one is spelled
# otherwise.
. "$(dirname "$0")/lib.sh"
. "$FIX/pci/sysfs.sh"
P="$FIX/pci"

le16() { printf "\\x${1:4:2}\\x${1:2:2}"; } # 0x8086 -> 86 80
# config DIR HEADER-TYPE: a 64-byte header from DIR's attribute files.
config() {
	local d=$1 cl rev
	cl=$(cat "$d/class") rev=$(cat "$d/revision")
	{
		le16 "$(cat "$d/vendor")"; le16 "$(cat "$d/device")"; printf '\x07\x00\x00\x02'
		printf "\\x${rev:2:2}\\x${cl:6:2}\\x${cl:4:2}\\x${cl:2:2}"
		printf '\x00\x00'"\\x$2"'\x00'; head -c 28 /dev/zero
		le16 "$(cat "$d/subsystem_vendor")"; le16 "$(cat "$d/subsystem_device")"
		head -c 16 /dev/zero
	} >"$d/config"
}

guest() { # DIR: the VirtualBox base devices and an 82540EM
	make_sysfs "$1" "${VBOX_BASE[@]}" "$(vbox_nic 0000:00:03.0 82540EM)"
}

devices() { python3 -c 'import json,sys
for x in json.load(open(sys.argv[1]))["devices"]:
    print(x["slot"], x["vendor"], x["device"], x["subvendor"], x["subdevice"], x["class"], x["revision"], x["name"])' "$T/out"; }

t_the_header_gives_what_the_six_files_give() {
	guest "$T/files"
	wd --json --pci-ids "$P/pci.ids" detect --pci "sysfs:$T/files"
	assert_rc 0
	devices >"$T/want"
	cp -a "$T/files" "$T/both"
	for d in "$T/both"/*; do config "$d" 00; done
	wd --json --pci-ids "$P/pci.ids" detect --pci "sysfs:$T/both"
	assert_rc 0
	[ "$(devices)" = "$(cat "$T/want")" ] || fail "with config: $(devices)"
	# the header alone suffices; the files are not read
	cp -a "$T/both" "$T/only"
	find "$T/only" -type f ! -name config -delete
	wd --json --pci-ids "$P/pci.ids" detect --pci "sysfs:$T/only"
	assert_rc 0
	[ "$(devices)" = "$(cat "$T/want")" ] || fail "config alone: $(devices)"
	assert_json "[x for x in d['devices'] if x['slot'] == '0000:00:03.0'][0]['vbox_model'] == '82540EM'"
}

# Where header and files disagree, the header is what the device says (and
# what an OS/2 driver reads): it wins.
t_the_header_wins_over_the_files() {
	guest "$T/g"
	for d in "$T/g"/*; do config "$d" 00; done
	echo 0x1004 >"$T/g/0000:00:03.0/device"
	wd --json --pci-ids "$P/pci.ids" detect --pci "sysfs:$T/g"
	assert_rc 0
	assert_json "[x for x in d['devices'] if x['slot'] == '0000:00:03.0'][0]['device'] == '100e'"
}

# A header shorter than the 48 bytes that hold the IDs, or one that names no
# device, is not used: the files are read, and a bad one is named as before.
t_a_short_or_empty_header_falls_back_to_the_files() {
	guest "$T/g"
	head -c 20 /dev/zero >"$T/g/0000:00:03.0/config"
	wd --json --pci-ids "$P/pci.ids" detect --pci "sysfs:$T/g"
	assert_rc 0
	assert_json "[x for x in d['devices'] if x['slot'] == '0000:00:03.0'][0]['device'] == '100e'"
	printf '\xff\xff\xff\xff' >"$T/g/0000:00:03.0/config"
	head -c 60 /dev/zero >>"$T/g/0000:00:03.0/config"
	echo 0xzz >"$T/g/0000:00:03.0/device"
	wd --pci-ids "$P/pci.ids" detect --pci "sysfs:$T/g"
	assert_rc 1
	assert_err "$T/g/0000:00:03.0/device: malformed PCI ID '0xzz'"
	# a folder named config is no header either
	rm "$T/g/0000:00:03.0/config"
	mkdir "$T/g/0000:00:03.0/config"
	echo 0x100e >"$T/g/0000:00:03.0/device"
	wd --json --pci-ids "$P/pci.ids" detect --pci "sysfs:$T/g"
	assert_rc 0
	assert_json "[x for x in d['devices'] if x['slot'] == '0000:00:03.0'][0]['device'] == '100e'"
}

# A bridge's header (type 1) has no subsystem IDs where a device's has: they
# come from the files.
t_a_bridge_takes_its_subsystem_ids_from_the_files() {
	make_sysfs "$T/g" "0000:00:1e.0 0x8086 0x244e 0x0000 0x0000 0x060400 0xd2"
	config "$T/g/0000:00:1e.0" 01 # zeros where a device's subsystem IDs are
	echo 0x1028 >"$T/g/0000:00:1e.0/subsystem_vendor"
	echo 0x0155 >"$T/g/0000:00:1e.0/subsystem_device"
	wd --json --pci-ids "$P/pci.ids" detect --pci "sysfs:$T/g"
	assert_rc 0
	assert_json "d['devices'][0]['subvendor'] == '1028' and d['devices'][0]['subdevice'] == '0155' and d['devices'][0]['class'] == '060400'"
}

# pci.ids by vendor sections: a vendor line spelled in capitals is not found
# by its text, and the whole database is scanned instead: named all the same.
t_pci_ids_in_capitals_is_read_whole() {
	guest "$T/g"
	wd --json --pci-ids "$P/pci.ids" detect --pci "sysfs:$T/g"
	devices >"$T/want"
	sed 's/^80ee /80EE /' "$P/pci.ids" >"$T/caps.ids"
	wd --json --pci-ids "$T/caps.ids" detect --pci "sysfs:$T/g"
	assert_rc 0
	[ "$(devices)" = "$(cat "$T/want")" ] || fail "capitals: $(devices)"
	grep -q "^80EE " "$T/caps.ids" || fail "the fixture was not changed"
	# a vendor whose section is last, with no newline at the end
	printf '# ids\n8086  Intel Corporation\n\t100e  The last line' >"$T/last.ids"
	wd --json --pci-ids "$T/last.ids" detect --pci "sysfs:$T/g"
	assert_rc 0
	assert_json "[x for x in d['devices'] if x['slot'] == '0000:00:03.0'][0]['name'] == 'Intel Corporation The last line'"
}

run_tests
