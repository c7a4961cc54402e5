# Shared by the disk-image tests (--disk, --vm): disk images made from the
# fixture volumes with the host's mkfs tools and one guestfish run, and
# their contents read back by one guestfish run. An appliance start costs
# about 15 s without KVM, so the images are made once per script and every
# read-back takes all it needs in one call. Sourced after lib.sh.
VOLS="$FIX/volumes"
IMG="$TESTTMP/img"

# A nested KVM guest hangs on some hosts: software emulation, unless the
# caller chose otherwise.
export LIBGUESTFS_BACKEND=${LIBGUESTFS_BACKEND:-direct}
export LIBGUESTFS_BACKEND_SETTINGS=${LIBGUESTFS_BACKEND_SETTINGS:-force_tcg}

# Skips the case where libguestfs truly cannot run here (no library, no
# appliance kernel, no FUSE) or the tools that make the images are missing.
need_guestfs() {
	ldconfig -p 2>/dev/null | grep 'libguestfs\.so\.0 ' >/dev/null ||
		skip "libguestfs is not installed (make test-deps installs it)"
	command -v guestfish >/dev/null || skip "no guestfish (libguestfs-tools)"
	ls /boot/vmlinuz-* >/dev/null 2>&1 || skip "no kernel in /boot for the libguestfs appliance"
	[ -c /dev/fuse ] || skip "no /dev/fuse"
	local t
	for t in mkfs.jfs mkfs.fat sfdisk qemu-img; do
		command -v $t >/dev/null || PATH=$PATH:/usr/sbin:/sbin command -v $t >/dev/null ||
			skip "no $t (make test-deps installs it)"
	done
	PATH=$PATH:/usr/sbin:/sbin
}

# A file system image of SIZE MiB: fat or jfs (OS/2 mode, case-insensitive).
fs_image() { # OUT fat|jfs MIB
	rm -f "$1"
	truncate -s "$3M" "$1"
	case $2 in
	fat) mkfs.fat -n OS2FAT "$1" >/dev/null ;;
	jfs) mkfs.jfs -q -O -L OS2JFS "$1" >/dev/null ;;
	esac
}

# An MBR disk of two partitions: a FAT one (type 06) of 16 MiB, then a JFS
# one (type 35, as OS/2's LVM marks JFS) of 24 MiB, both made empty.
mbr_disk() { # OUT
	fs_image "$IMG/p1" fat 16
	fs_image "$IMG/p2" jfs 24
	truncate -s 42M "$1"
	printf 'label: dos\nstart=2048, size=32768, type=6\nstart=34816, size=49152, type=35\n' |
		sfdisk -q "$1"
	dd if="$IMG/p1" of="$1" bs=512 seek=2048 conv=notrunc status=none
	dd if="$IMG/p2" of="$1" bs=512 seek=34816 conv=notrunc status=none
	rm -f "$IMG/p1" "$IMG/p2"
}

# The images, made once per script (one appliance start):
#   os2.vdi    FAT partition 1 without CONFIG.SYS, JFS partition 2 holding
#              the warp452-pcnet volume (a PCnet guest)
#   two.vmdk   FAT partition 1 holding ecs21-e1000, JFS partition 2 holding
#              warp452-pcnet: two OS/2 boot volumes
#   none.qcow2 the FAT and JFS partitions, neither with CONFIG.SYS
#   fat.raw    a FAT volume with no partition table, holding ecs21-e1000
images() {
	[ -f "$IMG/done" ] && return 0
	need_guestfs
	mkdir -p "$IMG"
	mbr_disk "$IMG/os2.raw"
	mbr_disk "$IMG/two.raw"
	mbr_disk "$IMG/none.raw"
	fs_image "$IMG/fat.raw" fat 16
	mkdir -p "$IMG/readme"
	printf 'not a boot volume\r\n' >"$IMG/readme/README.TXT"
	guestfish -a "$IMG/os2.raw" -a "$IMG/two.raw" -a "$IMG/none.raw" -a "$IMG/fat.raw" run \
		: mount /dev/sda1 / : copy-in "$IMG/readme/README.TXT" / : umount-all \
		: mount /dev/sda2 / : copy-in "$VOLS/warp452-pcnet/." / : umount-all \
		: mount /dev/sdb1 / : copy-in "$VOLS/ecs21-e1000/." / : umount-all \
		: mount /dev/sdb2 / : copy-in "$VOLS/warp452-pcnet/." / : umount-all \
		: mount /dev/sdc1 / : copy-in "$IMG/readme/README.TXT" / : umount-all \
		: mount /dev/sdc2 / : mkdir /OS2 : copy-in "$IMG/readme/README.TXT" /OS2 : umount-all \
		: mount /dev/sdd / : copy-in "$VOLS/ecs21-e1000/." / : umount-all \
		>"$IMG/make.log" 2>&1 || fail "guestfish could not make the images: $(cat "$IMG/make.log")"
	qemu-img convert -O vdi "$IMG/os2.raw" "$IMG/os2.vdi"
	qemu-img convert -O vmdk "$IMG/two.raw" "$IMG/two.vmdk"
	qemu-img convert -O qcow2 "$IMG/none.raw" "$IMG/none.qcow2"
	rm -f "$IMG/os2.raw" "$IMG/two.raw" "$IMG/none.raw"
	touch "$IMG/done"
}

# A fresh copy of image NAME at $T/NAME (a case's own, so that the cases
# stay apart).
image() { # NAME
	images
	cp "$IMG/$1" "$T/$1"
}

hash_of() { sha256sum "$1" | cut -d' ' -f1; }

# Reads back the volumes of images in one appliance start: each IMAGE:DEVICE
# (the appliance's name of the drive's file system, /dev/sda2 for the second
# partition of the first image) is unpacked into OUT (a folder made fresh).
read_back() { # IMAGE:DEVICE:OUT...
	local args=() cmds=() i=0 spec img dev out letters=abcdefgh
	for spec in "$@"; do
		img=${spec%%:*}
		args+=(-a "$img")
	done
	for spec in "$@"; do
		IFS=: read -r img dev out <<<"$spec"
		rm -rf "$out"
		mkdir -p "$out"
		dev=${dev/sdX/sd${letters:$i:1}}
		cmds+=(: mount-ro "$dev" / : tar-out / "$out.tar" : umount-all)
		i=$((i + 1))
	done
	guestfish --ro "${args[@]}" run "${cmds[@]}" >"$T/readback.log" 2>&1 ||
		fail "guestfish could not read the images back: $(cat "$T/readback.log")"
	for spec in "$@"; do
		IFS=: read -r img dev out <<<"$spec"
		tar -C "$out" -xf "$out.tar"
		rm -f "$out.tar"
	done
}

# A machine file of the current settings format (VirtualBox 7.1: 1.19) at
# OUT: a media registry with the boot disk (its location relative to the
# .vbox's folder) and a DVD, a SATA controller attaching both, adapter 0 of
# TYPE attached to NAT and adapter 1 (a PCnet-FAST III) disabled. With
# STATE, the machine has a saved state (<Machine stateFile=...>).
vbox_file() { # OUT DISK-LOCATION TYPE [STATE]
	local state=${4:+ stateFile=\"$4\"}
	cat >"$1" <<VBOX
<?xml version="1.0"?>
<!--
** DO NOT EDIT THIS FILE.
-->
<VirtualBox xmlns="http://www.virtualbox.org/" version="1.19-linux">
  <Machine uuid="{5d4d6a1e-3f7c-4c2e-9a0e-0b1c2d3e4f50}" name="warp4"$state OSType="OS2Warp45" snapshotFolder="Snapshots" lastStateChange="2026-12-01T10:00:00Z">
    <MediaRegistry>
      <HardDisks>
        <HardDisk uuid="{8a1b2c3d-0000-4000-8000-000000000001}" location="$2" format="VDI" type="Normal"/>
      </HardDisks>
      <DVDImages>
        <Image uuid="{8a1b2c3d-0000-4000-8000-000000000002}" location="/srv/iso/ArcaOS.iso"/>
      </DVDImages>
    </MediaRegistry>
    <Hardware>
      <Memory RAMSize="512"/>
      <Network>
        <Adapter slot="0" enabled="true" MACAddress="080027A1B2C3" type="$3">
          <NAT localhost-reachable="true"/>
        </Adapter>
        <Adapter slot="1" enabled="false" MACAddress="080027A1B2C4" type="Am79C973">
          <HostOnlyInterface name="vboxnet0"/>
        </Adapter>
      </Network>
      <StorageControllers>
        <StorageController name="SATA" type="AHCI" PortCount="2" useHostIOCache="false" Bootable="true" IDE0MasterEmulationPort="0">
          <AttachedDevice passthrough="false" type="DVD" hotpluggable="false" port="1" device="0">
            <Image uuid="{8a1b2c3d-0000-4000-8000-000000000002}"/>
          </AttachedDevice>
          <AttachedDevice type="HardDisk" hotpluggable="false" port="0" device="0">
            <Image uuid="{8a1b2c3d-0000-4000-8000-000000000001}"/>
          </AttachedDevice>
        </StorageController>
      </StorageControllers>
    </Hardware>
  </Machine>
</VirtualBox>
VBOX
}
