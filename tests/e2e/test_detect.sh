#!/usr/bin/env bash
# warpdrv detect: every source, every VirtualBox NIC model, and every bad input.
. "$(dirname "$0")/lib.sh"
. "$FIX/pci/sysfs.sh"
P="$FIX/pci"

detect_json() { wd --json --pci-ids "$P/pci.ids" detect --pci "$@"; }

# A whole VirtualBox guest with each NIC model in turn: the model is named, the
# guest is recognised, the NIC is the only network device.
t_sysfs_each_vbox_model() {
	for model in Am79C970A Am79C973 82540EM 82543GC 82545EM virtio; do
		make_sysfs "$T/$model" "${VBOX_BASE[@]}" "$(vbox_nic 0000:00:03.0 $model)"
		detect_json "sysfs:$T/$model"
		assert_rc 0
		assert_json "d['virtualbox'] is True and d['source'] == 'sysfs:$T/$model'"
		assert_json "[x['vbox_model'] for x in d['devices'] if x['network']] == ['$model']"
		assert_json "len(d['devices']) == 7 and sum(x['network'] for x in d['devices']) == 1"
	done
}

t_sysfs_json_fields_are_lowercase_hex() {
	make_sysfs "$T/g" "${VBOX_BASE[@]}" "$(vbox_nic 0000:00:03.0 82540EM)"
	detect_json "sysfs:$T/g"
	assert_rc 0
	assert_json "[x for x in d['devices'] if x['slot'] == '0000:00:03.0'][0] == {'slot': '0000:00:03.0', 'vendor': '8086', 'device': '100e', 'subvendor': '8086', 'subdevice': '001e', 'class': '020000', 'revision': '02', 'name': 'Intel Corporation 82540EM Gigabit Ethernet Controller', 'network': True, 'vbox_model': '82540EM', 'package': 'e1000', 'package_note': 'MMLEM needs a subscription with drivers; using E1000'}"
}

t_sysfs_two_nics_in_slot_order() {
	make_sysfs "$T/g" "${VBOX_BASE[@]}" "$(vbox_nic 0000:00:08.0 82540EM)" "$(vbox_nic 0000:00:03.0 Am79C973)"
	detect_json "sysfs:$T/g"
	assert_rc 0
	assert_json "[(x['slot'], x['vbox_model']) for x in d['devices'] if x['network']] == [('0000:00:03.0', 'Am79C973'), ('0000:00:08.0', '82540EM')]"
}

t_sysfs_not_a_virtualbox_guest() {
	make_sysfs "$T/g" "0000:00:00.0 0x8086 0x0d57 0x0000 0x0000 0x060000 0x00" \
		"0000:00:19.0 0x8086 0x15b8 0x8086 0x0000 0x020000 0x00"
	detect_json "sysfs:$T/g"
	assert_rc 0
	assert_json "d['virtualbox'] is False"
	assert_json "[x['vbox_model'] for x in d['devices'] if x['network']] == [None]"
	wd detect --pci "sysfs:$T/g"
	assert_rc 0
	assert_out "VirtualBox guest: no"
	assert_out "(not a VirtualBox model)"
}

t_built_in_names_without_database() {
	make_sysfs "$T/g" "${VBOX_BASE[@]}" "$(vbox_nic 0000:00:03.0 82545EM)"
	wd --json --pci-ids "$T/none.ids" detect --pci "sysfs:$T/g"
	assert_rc 1
	# An explicitly named database that is missing is an error.
	assert_json "'--pci-ids' in d['error']['message'] and 'none.ids' in d['error']['message']"
	# With no --pci-ids and the database in none of the usual places, the
	# built-in names stand; the machine's own database may be there, so only
	# the guest service (named by both) is checked.
	wd --json detect --pci "sysfs:$T/g"
	assert_rc 0
	assert_json "all(x['name'] for x in d['devices'])"
}

t_sysfs_malformed_id_file_is_named() {
	make_sysfs "$T/g" "${VBOX_BASE[@]}" "$(vbox_nic 0000:00:03.0 82540EM)"
	echo "intel" >"$T/g/0000:00:03.0/vendor"
	wd detect --pci "sysfs:$T/g"
	assert_rc 1
	assert_err "$T/g/0000:00:03.0/vendor: malformed PCI ID 'intel'"
	rm "$T/g/0000:00:03.0/vendor"
	wd --json detect --pci "sysfs:$T/g"
	assert_rc 1
	assert_json "d['error']['exit_code'] == 1 and '0000:00:03.0/vendor: missing' in d['error']['message']"
}

t_sysfs_missing_folder() {
	wd detect --pci "sysfs:$T/nothing"
	assert_rc 1
	assert_err "$T/nothing: cannot read the PCI device folder"
}

t_lspci_n_and_nn_agree() {
	detect_json "lspci:$P/two-nics.lspci-n"
	assert_rc 0
	python3 -c 'import json,sys; json.dump([{k: v for k, v in x.items() if k != "name"} for x in json.load(open(sys.argv[1]))["devices"]], open(sys.argv[2], "w"))' "$T/out" "$T/n.json"
	detect_json "lspci:$P/two-nics.lspci-nn"
	assert_rc 0
	python3 -c 'import json,sys; json.dump([{k: v for k, v in x.items() if k != "name"} for x in json.load(open(sys.argv[1]))["devices"]], open(sys.argv[2], "w"))' "$T/out" "$T/nn.json"
	assert_same_file "$T/n.json" "$T/nn.json"
	assert_json "[(x['slot'], x['vbox_model'], x['revision']) for x in d['devices'] if x['network']] == [('0000:00:03.0', 'Am79C973', '40'), ('0000:00:08.0', '82540EM', '02')]"
	assert_json "d['virtualbox'] and d['devices'][0]['subvendor'] is None"
	printf '%s\n' '00:01.1 IDE interface [0101]: Intel Corporation 82371AB/EB/MB PIIX4 IDE [8086:7111] (rev 01) (prog-if 8a [ISA Compatibility mode controller])' >"$T/progif"
	detect_json "lspci:$T/progif"
	assert_json "[(x['class'], x['revision']) for x in d['devices']] == [('01018a', '01')]"
}

t_lspci_from_stdin() {
	RC=0
	"$WD" --json detect --pci lspci:- <"$P/two-nics.lspci-n" >"$T/out" 2>"$T/err" || RC=$?
	OUT=$(cat "$T/out")
	ERR=$(cat "$T/err")
	assert_rc 0
	assert_json "d['source'] == 'lspci:standard input' and len(d['devices']) == 8"
}

t_lspci_real_samples() {
	need_samples
	detect_json "lspci:$SAMPLES/lspci/TimRots-gutil-linux_lspci-nn-v.txt"
	assert_rc 0
	# -nn -v: detail lines are skipped, the NIC is an 82540EM.
	assert_json "len(d['devices']) == 7 and [x['vbox_model'] for x in d['devices'] if x['network']] == ['82540EM']"
	for f in book-zh_lspci-n.txt book-zh_lspci-nn.txt; do
		detect_json "lspci:$SAMPLES/lspci/$f"
		assert_rc 0
		assert_json "d['virtualbox'] and len(d['devices']) == 8 and [x['slot'] for x in d['devices'] if x['network']] == ['0000:00:03.0']"
	done
}

t_lspci_bad_line_names_line() {
	wd detect --pci "lspci:$P/bad-line.lspci-n"
	assert_rc 1
	assert_err "bad-line.lspci-n line 2: not a device line"
	printf 'hello world\n' >"$T/x"
	wd --json detect --pci "lspci:$T/x"
	assert_rc 1
	assert_json "d['error']['exit_code'] == 1 and 'line 1' in d['error']['message']"
}

t_lspci_missing_or_unreadable_file() {
	wd detect --pci "lspci:$T/missing.txt"
	assert_rc 1
	assert_err "$T/missing.txt: cannot open"
	mkdir "$T/adir"
	wd detect --pci "lspci:$T/adir"
	assert_rc 1
	assert_err "$T/adir: is a folder"
}

t_vbox_several_adapters() {
	detect_json "vbox:$P/vbox-several-adapters.txt"
	assert_rc 0
	# CR LF, untidy lines skipped; nic2 disabled; NE2000 has no PCI IDs.
	assert_json "[(x['slot'], x['vbox_model'], x['attachment']) for x in d['devices']] == [('nic1', '82540EM', 'bridged'), ('nic3', 'NE2000', 'nat'), ('nic4', 'Am79C970A', 'hostonly')]"
	assert_json "d['devices'][1]['vendor'] is None and d['devices'][1]['network'] is True"
	assert_json "d['devices'][0]['vendor'] == '8086' and d['devices'][0]['device'] == '100e' and d['devices'][2]['revision'] == '16'"
	assert_json "d['virtualbox'] is True"
}

t_vbox_real_samples() {
	need_samples
	detect_json "vbox:$SAMPLES/vbox-showvminfo/uruddarraju-virtualbox-go_testvm1.txt"
	assert_rc 0
	assert_json "[(x['vbox_model'], x['revision'], x['attachment']) for x in d['devices']] == [('Am79C973', '40', 'nat')]"
	detect_json "vbox:$SAMPLES/vbox-showvminfo/chef-ohai_ubuntu-18.04.txt"
	assert_rc 0
	assert_json "[x['vbox_model'] for x in d['devices']] == ['82540EM']"
	detect_json "vbox:$SAMPLES/vbox-showvminfo/CODeRUS-sailfish-build-engine.txt"
	assert_rc 0
	assert_json "[(x['slot'], x['vbox_model']) for x in d['devices']] == [('nic1', 'virtio'), ('nic2', 'virtio')]"
}

t_vbox_bad_line_names_line() {
	wd detect --pci "vbox:$P/vbox-bad-nictype.txt"
	assert_rc 1
	assert_err "vbox-bad-nictype.txt line 3: cannot read 'nictype1=82540EM'"
	printf 'nic1="nat"\n' >"$T/x"
	wd detect --pci "vbox:$T/x"
	assert_rc 1
	assert_err "line 1: adapter 1 is enabled"
}

# A VirtualBox machine file (NAME.vbox, XML) read by content under vbox:: the
# machine's enabled adapters in slot order (numbered as VBoxManage does), the
# attachment from the child element, never a snapshot's or a disabled mode's.
t_vbox_machine_file() {
	for f in os2-adapters.vbox os2-adapters-crlf.vbox; do
		detect_json "vbox:$P/$f"
		assert_rc 0
		assert_json "[(x['slot'], x['vbox_model'], x['attachment']) for x in d['devices']] == [('nic1', '82540EM', 'bridged'), ('nic3', 'Am79C973', 'nat'), ('nic4', '82545EM', 'intnet'), ('nic5', 'virtio', 'hostonly'), ('nic6', '82543GC', 'null'), ('nic8', 'NE2000', 'generic')]"
		assert_json "d['virtualbox'] is True and d['source'] == 'vbox:$P/$f'"
		assert_json "d['devices'][0]['vendor'] == '8086' and d['devices'][0]['device'] == '100e' and d['devices'][1]['revision'] == '40'"
	done
	# its network controllers get drivers as from any other source
	wd --json detect --pci "vbox:$P/os2-adapters.vbox"
	assert_json "d['devices'][0]['package'] == 'e1000'"
	# an adapter of the default type (none written) and a file of one line
	printf '<VirtualBox><Machine><Hardware><Network><Adapter slot="0" enabled="true"><NAT/></Adapter></Network></Hardware></Machine></VirtualBox>' >"$T/one.vbox"
	detect_json "vbox:$T/one.vbox"
	assert_rc 0
	assert_json "[(x['slot'], x['vbox_model'], x['attachment']) for x in d['devices']] == [('nic1', 'Am79C973', 'nat')]"
	# no adapter enabled: a VirtualBox machine without a NIC, exit 0
	printf '<?xml version="1.0"?>\n<VirtualBox>\n<Machine><Hardware><Network/></Hardware></Machine>\n</VirtualBox>\n' >"$T/none.vbox"
	detect_json "vbox:$T/none.vbox"
	assert_rc 0
	assert_json "d['devices'] == [] and d['virtualbox'] is True"
}

# Anything that is neither a .vbox file nor machine-readable output is an
# error naming the file, exit 1: never an empty list.
t_vbox_neither_format_is_an_error() {
	wd detect --pci "vbox:$P/showvminfo-human.txt"
	assert_rc 1
	assert_err "$P/showvminfo-human.txt: neither a VirtualBox machine file (.vbox, XML) nor the output of \`VBoxManage showvminfo VM --machinereadable\`"
	: >"$T/empty"
	wd --json detect --pci "vbox:$T/empty"
	assert_rc 1
	assert_json "d['error']['exit_code'] == 1 and '$T/empty: neither' in d['error']['message']"
	wd detect --pci "vbox:$P/cut-short.vbox"
	assert_rc 1
	assert_err "$P/cut-short.vbox line 31: Premature end of data in tag Adapter line 26 (cut short or damaged?)"
	cases=(
		'<html><body>not a machine</body></html>|line 1: the first element is not <VirtualBox>'
		'<VirtualBox><Machine></Hardware></Machine></VirtualBox>|line 1: Opening and ending tag mismatch: Machine line 1 and Hardware'
		'<VirtualBox><Machine><Hardware><Network><Adapter enabled="true"/></Network></Hardware></Machine></VirtualBox>|an <Adapter> without a slot number from 0 to 63'
		'<VirtualBox><Machine><Hardware><Network><Adapter slot="0"/><Adapter slot="0"/></Network></Hardware></Machine></VirtualBox>|a second <Adapter> of the same slot'
		'<VirtualBox><Machine><Hardware><Network><Adapter slot="0" enabled="yes"/></Network></Hardware></Machine></VirtualBox>|enabled neither'
		'<VirtualBox><Machine name="x></Machine></VirtualBox>|Unescaped '"'<'"' not allowed in attributes values'
		'<VirtualBox/><VirtualBox/>|line 1: Extra content at the end of the document'
		'<!-- just a comment|line 2: Comment not terminated'
	)
	for c in "${cases[@]}"; do
		printf '%s\n' "${c%%|*}" >"$T/bad.vbox"
		wd detect --pci "vbox:$T/bad.vbox"
		assert_rc 1
		assert_err "$T/bad.vbox"
		assert_err "${c#*|}"
	done
}

t_bad_source_is_usage_error() {
	wd detect --pci "usb:foo"
	assert_rc 2
	assert_err "--pci usb:foo: expected sysfs"
	wd detect extra
	assert_rc 2
}

t_real_sysfs_of_this_machine() {
	[ -d /sys/bus/pci/devices ] || skip "no /sys/bus/pci/devices here"
	wd --json detect
	assert_rc 0
	assert_json "d['source'] == 'sysfs:/sys/bus/pci/devices' and isinstance(d['virtualbox'], bool)"
	assert_json "all(set(x) >= {'slot', 'vendor', 'device', 'class', 'network', 'vbox_model'} for x in d['devices'])"
	assert_json "all(len(x['vendor']) == 4 and x['vendor'] == x['vendor'].lower() for x in d['devices'])"
	wd detect
	assert_rc 0
	assert_out "SLOT"
}

t_detect_writes_nothing() {
	make_sysfs "$T/g" "${VBOX_BASE[@]}" "$(vbox_nic 0000:00:03.0 82540EM)"
	before=$(snapshot "$T/g")
	wd detect --pci "sysfs:$T/g"
	assert_rc 0
	[ "$(snapshot "$T/g")" = "$before" ] || fail "detect changed files"
}

run_tests
