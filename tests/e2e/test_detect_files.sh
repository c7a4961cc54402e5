#!/usr/bin/env bash
# detect reads a sysfs ID file in few system calls and pci.ids in place: the
# files of any other shape still get the checked reader's answer.
. "$(dirname "$0")/lib.sh"
. "$FIX/pci/sysfs.sh"
IDS="$FIX/pci/pci.ids"

guest() {
	make_sysfs "$T/g" "${VBOX_BASE[@]}" "$(vbox_nic 0000:00:03.0 82540EM)"
	V="$T/g/0000:00:03.0/vendor"
}
nic() { wd --json --pci-ids "$IDS" detect --pci "sysfs:$T/g"; }
nic_is_intel() {
	assert_rc 0
	assert_json "[(x['vendor'], x['vbox_model']) for x in d['devices'] if x['network']] == [('8086', '82540EM')]"
}

t_id_files_with_blanks_links_or_no_newline_read_alike() {
	guest
	printf '0x8086' >"$V"
	nic
	nic_is_intel
	echo 0x8086 >"$T/real"
	rm "$V"
	ln -s "$T/real" "$V"
	nic
	nic_is_intel
	rm "$T/g/0000:00:03.0/subsystem_vendor" "$T/g/0000:00:03.0/revision"
	nic
	assert_rc 0
	assert_json "[(x['subvendor'], x['revision']) for x in d['devices'] if x['network']] == [(None, None)]"
}

t_id_files_of_another_shape_get_the_checked_message() {
	guest
	{ printf '0x8086'; head -c 100 /dev/zero | tr '\0' ' '; echo; } >"$V"
	nic
	assert_rc 1
	assert_json "d['error']['message'] == '$V: malformed PCI ID \\'0x8086' + ' ' * 34 + '\\' (expected 0x and up to 4 hex digits)'"
	{ printf '0x8086'; head -c 5000 /dev/zero | tr '\0' ' '; } >"$V"
	nic
	assert_rc 1
	assert_json "d['error']['message'] == '$V: larger than 4096 bytes'"
	: >"$V"
	nic
	assert_rc 1
	assert_json "d['error']['message'].startswith('$V: malformed PCI ID \\'\\'')"
	rm "$V"
	mkdir "$V"
	nic
	assert_rc 1
	assert_json "d['error']['message'] == '$V: is a folder, not a file'"
	rmdir "$V"
	mkfifo "$V"
	nic
	assert_rc 1
	assert_json "d['error']['message'].startswith('$V: is a FIFO, not a plain file')"
	rm "$V"
	ln -s "$T/nowhere" "$V"
	nic
	assert_rc 1
	assert_json "d['error']['message'] == '$V: cannot open: No such file or directory'"
}

t_pci_ids_of_any_shape() {
	guest
	tr '\n' '\r' <"$IDS" | sed 's/\r/\r\n/g' >"$T/crlf.ids"
	: >"$T/empty.ids"
	for f in "$IDS" "$T/crlf.ids"; do
		wd --json --pci-ids "$f" detect --pci "sysfs:$T/g"
		assert_rc 0
		assert_json "[x['name'] for x in d['devices'] if x['network']] == ['Intel Corporation 82540EM Gigabit Ethernet Controller']"
	done
	wd --json --pci-ids "$T/empty.ids" detect --pci "sysfs:$T/g"
	assert_rc 0
	assert_json "[x['name'] for x in d['devices'] if x['network']] == ['Intel PRO/1000 MT Desktop']"
	wd --pci-ids /dev/null detect --pci "sysfs:$T/g"
	assert_rc 1
	assert_err "--pci-ids: /dev/null: is a device, not a plain file"
	wd --pci-ids "$T" detect --pci "sysfs:$T/g"
	assert_rc 1
	assert_err "--pci-ids: $T: is a folder, not a file"
}

run_tests
