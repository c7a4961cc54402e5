#!/usr/bin/env bash
# warpdrv --disk IMAGE: the OS/2 volume of a disk image found by its
# CONFIG.SYS, mounted through libguestfs and serviced as --root would be.
# Images made here (tests/e2e/disk_lib.sh): a VDI with a FAT partition and
# the OS/2 volume (JFS, mkfs.jfs -O) second, a VMDK with two OS/2 volumes, a
# qcow2 with none, a FAT volume with no partition table. Results are read
# back from the images with guestfish and judged like a folder. Each
# appliance start costs about 15 s without KVM: 8 in all (the images, check,
# setup, rollback, activate, the read-back, two volumes, none); the bad
# inputs fail before any start. --dry-run is read-only as check is (the
# same read-only drive), and costs no start of its own here.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/setup_lib.sh"
. "$(dirname "$0")/disk_lib.sh"
LSPCI="lspci:$FIX/pci/vbox-82540em.lspci-n"
VMS=${WARPDRV_VM_SAMPLES:-$SRC/../shared/vm-samples}

# Whether machine file NEW means what OLD does (every element and attribute,
# in order), but for adapter 0's type, 82540EM in NEW, and the record of
# setup --switch-nic (REC) in its ExtraData; without REC, the same meaning.
same_vbox() { # OLD NEW [REC]
	python3 - "$@" <<'PY'
import sys, xml.etree.ElementTree as ET
def flat(path):
    out = []
    def walk(e, where):
        tag = where + "/" + e.tag.split("}")[-1]
        a = dict(e.attrib)
        if tag.endswith("/ExtraDataItem") and a.get("name") == "warpdrv/SwitchedNic":
            out.append(("record", a["value"]))
            return
        out.append((tag, sorted(a.items())))
        for c in e:
            walk(c, tag)
    walk(ET.parse(path).getroot(), "")
    return out
old, new = flat(sys.argv[1]), flat(sys.argv[2])
rec = sys.argv[3] if len(sys.argv) > 3 else None
if rec is None:
    sys.exit(0 if old == new else "differ")
assert ("record", rec) in new, new
new = [x for x in new if x[0] != "record" and x[0] != "/VirtualBox/Machine/ExtraData"]
old = [x for x in old if x[0] != "/VirtualBox/Machine/ExtraData"]
diff = [(o, n) for o, n in zip(old, new) if o != n]
assert len(old) == len(new) and len(diff) == 1, diff
o, n = diff[0]
assert o[0].endswith("/Network/Adapter") and ("slot", "0") in o[1]
assert dict(n[1])["type"] == "82540EM" and dict(o[1])["type"] == "Am79C973"
PY
}

# Bad inputs refused before an appliance starts, libguestfs or not: each
# with its exit code and message, the file unchanged. libguestfs is made
# unloadable for them (WARPDRV_LIBGUESTFS), so a case that reached for it
# would fail with another message.
t_bad_inputs_refused_before_the_appliance() {
	export WARPDRV_LIBGUESTFS=/nonexistent/libguestfs.so.0
	printf 'just some notes\n' >"$T/notes.txt"
	h=$(hash_of "$T/notes.txt")
	wd --disk "$T/notes.txt" check
	assert_rc 1
	assert_err "notes.txt: not a disk image (neither a VDI, VMDK, VHD, VHDX or qcow2 header"
	[ "$(hash_of "$T/notes.txt")" = "$h" ] || fail "the file changed"

	wd --disk "$T/missing.vdi" check
	assert_rc 1
	assert_err "missing.vdi: No such file or directory"

	# a differencing VDI: the header's signature, image type 4
	python3 -c 'import struct,sys
h = bytearray(512); h[0:40] = b"<<< Oracle VM VirtualBox Disk Image >>>\n"
h[0x40:0x44] = struct.pack("<I", 0xbeda107f); h[0x4c:0x50] = struct.pack("<I", 4)
open(sys.argv[1], "wb").write(h)' "$T/snap.vdi"
	h=$(hash_of "$T/snap.vdi")
	wd --disk "$T/snap.vdi" -y setup
	assert_rc 1
	assert_err "snap.vdi: a differencing VDI"
	assert_err "VBoxManage clonemedium"
	[ "$(hash_of "$T/snap.vdi")" = "$h" ] || fail "the image changed"

	mkdir -p "$T/vol"
	wd --root "$T/vol" --disk "$T/snap.vdi" check
	assert_rc 2
	assert_err "--root and --disk are two volumes"
	wd --partition 2 check
	assert_rc 2
	assert_err "--partition names a partition of --disk IMAGE"
	wd --disk "$T/snap.vdi" --disk-format vbox check
	assert_rc 2
	assert_err "--disk-format vbox: one of vdi, vmdk, vpc (VHD), vhdx, qcow2, raw"
	wd --disk "$T/snap.vdi" --partition 129 check
	assert_rc 2

	# without libguestfs: what to install, exit 1
	python3 -c 'import sys; b = bytearray(1024); b[510:512] = b"\x55\xaa"; open(sys.argv[1], "wb").write(b)' "$T/mbr.raw"
	h=$(hash_of "$T/mbr.raw")
	wd --disk "$T/mbr.raw" check
	assert_rc 1
	assert_err "disk images are opened with libguestfs"
	assert_err "install the package libguestfs0 (apt-get install libguestfs0"
	[ "$(hash_of "$T/mbr.raw")" = "$h" ] || fail "the image changed"
}

# check reads the second of two OS/2 volumes of a VMDK, named with
# --partition, with the drive added read-only: not a byte changes.
t_check_on_a_named_partition_leaves_the_image() {
	image two.vmdk
	h=$(hash_of "$T/two.vmdk")
	wd --disk "$T/two.vmdk" --partition 2 check
	assert_rc 0
	assert_out "No problems found in CONFIG.SYS and IBMCOM\\PROTOCOL.INI."
	[ "$(hash_of "$T/two.vmdk")" = "$h" ] || fail "check changed the image"
}

# setup --switch-nic on the JFS volume of a VDI, through its machine (--vm:
# the NIC models from the .vbox, its PCnet adapter made an 82540EM in the
# .vbox and the guest configured for it in the same run), then rollback --packages 1, and activate on a FAT volume with no partition
# table; one read-back of both images shows each change in the image.
t_setup_rollback_activate_written_into_the_images() {
	image os2.vdi
	image fat.raw
	h=$(hash_of "$T/os2.vdi")
	# through the machine: its NICs (adapter 0 a PCnet-FAST III, switched
	# to an 82540EM with --switch-nic) and its disk
	mkdir -p "$T/vm"
	mv "$T/os2.vdi" "$T/vm/os2.vdi"
	vbox_file "$T/vm/warp4.vbox" os2.vdi Am79C973
	cp "$T/vm/warp4.vbox" "$T/warp4.vbox.orig"
	wd --vm "$T/vm/warp4.vbox" setup --switch-nic --yes
	assert_rc 0
	assert_out "NIC nic1 82540EM: e1000 4.02"
	assert_out "the machine's adapter 1 becomes an Intel PRO/1000 MT Desktop (82540EM) in its settings (--switch-nic)"
	assert_out "Done: generation 1."
	assert_out "The machine's PCnet adapter is now an Intel PRO/1000 MT Desktop (82540EM)"
	# the .vbox: the old one kept as .vbox-prev; in the new one adapter 0
	# is an 82540EM and nothing else changed (the disabled PCnet stays)
	assert_same_file "$T/warp4.vbox.orig" "$T/vm/warp4.vbox-prev"
	same_vbox "$T/warp4.vbox.orig" "$T/vm/warp4.vbox" "1:0=Am79C973" ||
		fail "the .vbox is not the old one with adapter 0 switched and the switch recorded"

	# rollback through the machine: the guest and the adapter back
	wd --vm "$T/vm/warp4.vbox" rollback --packages 1 --yes
	assert_rc 0
	assert_out "generation 2"
	assert_out "The machine's adapter 1 is an Am79C973 again, as before setup --switch-nic."
	same_vbox "$T/warp4.vbox.orig" "$T/vm/warp4.vbox" ||
		fail "the .vbox is not as it was before setup --switch-nic"
	mv "$T/vm/os2.vdi" "$T/os2.vdi"
	[ "$(hash_of "$T/os2.vdi")" != "$h" ] || fail "setup and rollback left the image as it was"

	wda issue --key "$LICENSE_KEY" --customer 1042 --entitlements drivers \
		--issued 2026-01-01 --expires 2099-12-31
	assert_rc 0
	key=$OUT
	wd --disk "$T/fat.raw" activate "$key"
	assert_rc 0

	read_back "$T/os2.vdi:/dev/sdX2:$T/os2" "$T/fat.raw:/dev/sdX:$T/fat"
	# the VDI: the rollback put CONFIG.SYS and PROTOCOL.INI back byte for
	# byte, kept setup's generation, and removed the package
	assert_same_file "$VOLS/warp452-pcnet/CONFIG.SYS" "$T/os2/CONFIG.SYS"
	assert_same_file "$VOLS/warp452-pcnet/IBMCOM/PROTOCOL.INI" "$T/os2/IBMCOM/PROTOCOL.INI"
	assert_same_file "$VOLS/warp452-pcnet/CONFIG.SYS" "$T/os2/var/lib/warpdrv/generations/1/CONFIG.SYS"
	[ ! -e "$T/os2/IBMCOM/MACS/E1000.OS2" ] || fail "the rollback left E1000.OS2"
	wd --root "$T/os2" --json history
	assert_rc 0
	assert_json "[g['command'] for g in d['generations']] == ['setup', 'rollback --packages 1']"
	assert_json "[(h['action'], h['package']) for h in d['history']] == [('install', 'e1000'), ('remove', 'e1000')]"
	wd --root "$T/os2" check
	assert_rc 0
	# the FAT volume: the key is active
	wd --root "$T/fat" license
	assert_rc 0
	assert_out "active"
}

# --vm's bad inputs, refused before an appliance starts, the .vbox and the
# image unchanged: a saved state or a running machine for a command that
# writes, a differencing VDI, a name the registry lacks (VirtualBox.xml of a
# real user's folder, read in place), a file that is no XML, --vm with
# --disk. And a real machine with snapshots names its current state's disk.
t_vm_bad_inputs_refused_before_the_appliance() {
	export WARPDRV_LIBGUESTFS=/nonexistent/libguestfs.so.0 # as above
	python3 -c 'import sys; b = bytearray(1024); b[510:512] = b"\x55\xaa"; open(sys.argv[1], "wb").write(b)' "$T/os2.vdi"
	h=$(hash_of "$T/os2.vdi")
	vbox_file "$T/saved.vbox" os2.vdi Am79C973 "Snapshots/2026-12-01T10-00-00-000000000Z.sav"
	vb=$(hash_of "$T/saved.vbox")
	wd --vm "$T/saved.vbox" --yes setup
	assert_rc 1
	assert_err "--vm warp4: the machine has a saved state (Snapshots/2026-12-01T10-00-00-000000000Z.sav), and its disk is not written while it does"
	assert_err 'VBoxManage discardstate "warp4"'
	[ "$(hash_of "$T/saved.vbox")" = "$vb" ] || fail "the .vbox changed"
	[ "$(hash_of "$T/os2.vdi")" = "$h" ] || fail "the image changed"

	# a running machine, as VBoxManage tells it
	mkdir -p "$T/bin"
	cat >"$T/bin/VBoxManage" <<'SH'
#!/bin/sh
[ "$1 $2 $3" = "showvminfo warp4 --machinereadable" ] || exit 1
echo 'name="warp4"'
echo 'VMState="running"'
SH
	chmod +x "$T/bin/VBoxManage"
	vbox_file "$T/run.vbox" os2.vdi Am79C973
	vb=$(hash_of "$T/run.vbox")
	RC=0
	PATH="$T/bin:$PATH" "$WD" --vm "$T/run.vbox" --yes setup >"$T/out" 2>"$T/err" || RC=$?
	ERR=$(cat "$T/err") OUT=$(cat "$T/out")
	assert_rc 1
	assert_err "--vm warp4: the machine is running (VBoxManage showvminfo), and its disk is written only while it is powered off"
	[ "$(hash_of "$T/run.vbox")" = "$vb" ] || fail "the .vbox changed"
	[ "$(hash_of "$T/os2.vdi")" = "$h" ] || fail "the image changed"

	# the current state attaches a differencing VDI
	python3 -c 'import struct,sys
h = bytearray(512); h[0x40:0x44] = struct.pack("<I", 0xbeda107f); h[0x4c:0x50] = struct.pack("<I", 4)
open(sys.argv[1], "wb").write(h)' "$T/child.vdi"
	vbox_file "$T/snap.vbox" child.vdi 82540EM
	wd --vm "$T/snap.vbox" check
	assert_rc 1
	assert_err "--vm warp4: $T/child.vdi: a differencing VDI"
	assert_err "VBoxManage clonemedium"

	wd --disk "$T/os2.vdi" setup --switch-nic
	assert_rc 2
	assert_err "setup --switch-nic changes a VirtualBox machine's adapter: name the machine with --vm MACHINE"
	wd --vm "$T/saved.vbox" --disk "$T/os2.vdi" check
	assert_rc 2
	assert_err "--vm names the machine's own disk; leave out --disk"

	[ -d "$VMS" ] || return 0 # the real machine files below, where they are
	# a real machine with two levels of snapshots: the deepest child
	wd --vm "$VMS/GOAD-DC01.vbox" check
	assert_rc 1
	assert_err "--vm GOAD-DC01: $VMS/Snapshots/{e6800503-8273-4f16-b584-c7ba2c1df698}.vmdk: No such file or directory"

	# by name, from a real registry (a Windows host's paths)
	VBOX_USER_HOME="$VMS/diegobachega-vbox52" wd --vm Nope check
	assert_rc 1
	assert_err "--vm Nope: no machine of that name or UUID in $VMS/diegobachega-vbox52/VirtualBox.xml (it registers: Desktop2, Pfsense, DesktopW, ServidorZabbix, ServidorSamba, Desktop1, Desktop3)"
	VBOX_USER_HOME="$VMS/diegobachega-vbox52" wd --vm Desktop1 check
	assert_rc 1
	assert_err "--vm Desktop1: registered in $VMS/diegobachega-vbox52/VirtualBox.xml: C:\\Users\\CONAMAD\\VirtualBox VMs\\Desktop1\\Desktop1.vbox"

	printf 'not xml <\n' >"$T/bad.vbox"
	wd --vm "$T/bad.vbox" check
	assert_rc 1
	assert_err "bad.vbox line 1:"
	assert_err "not a VirtualBox machine file (.vbox)"

}

# A disk with two OS/2 volumes: exit 2 naming both and --partition.
t_two_os2_volumes_name_both() {
	image two.vmdk
	h=$(hash_of "$T/two.vmdk")
	wd --disk "$T/two.vmdk" --pci "$LSPCI" setup --yes
	assert_rc 2
	assert_err "two.vmdk holds 2 OS/2 boot volumes: partition 1 (vfat) and partition 2 (jfs); name one with --partition N"
	[ "$(hash_of "$T/two.vmdk")" = "$h" ] || fail "the image changed"
}

# A disk with no OS/2 volume: exit 1 saying what it holds.
t_no_os2_volume() {
	image none.qcow2
	h=$(hash_of "$T/none.qcow2")
	wd --disk "$T/none.qcow2" check
	assert_rc 1
	assert_err "none.qcow2: no OS/2 boot volume (a JFS, HPFS or FAT file system with CONFIG.SYS at its top) found; the disk holds: partition 1 vfat (no CONFIG.SYS), partition 2 jfs (no CONFIG.SYS)"
	[ "$(hash_of "$T/none.qcow2")" = "$h" ] || fail "the image changed"
}

run_tests
