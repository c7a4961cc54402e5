/* The statements the guest needs to boot, as data: no package may displace,
 * remove or rewrite a CONFIG.SYS line that matches an entry of a critical
 * class, and `warpdrv check` reports a CONFIG.SYS that lacks one of the disk
 * and file-system classes. Matched in order, the first match deciding; a file
 * "*.EXT" is any file of that extension. "FACTS" is docs/os2-facts.md, the
 * OS/2 facts the project relies on; docs/config-files.md, "Boot-critical
 * statements", says what the project chose where no source says more. A new
 * entry here needs no code. */
#include "installer/boot_critical.h"

const struct bc_entry boot_critical_table[] = {
	/* FACTS, "The drivers" (the ACPI PSD): BASEDEV=APM.ADD is the ACPI
	 * package's own power-management driver, not a disk driver; the ACPI
	 * planner adds and keeps it. An exception to *.ADD below. */
	{"BASEDEV", "APM.ADD", BC_NONE, "the ACPI PSD's power driver"},
	/* FACTS, "CONFIG.SYS": BASEDEV= drivers load grouped by extension,
	 * .ADD (adapter drivers) before .DMD (device managers); OS2DASD.DMD is
	 * the disk device manager, which every CONFIG.SYS of an installed
	 * guest and of a boot CD the project has read loads after the adapter
	 * drivers. */
	{"BASEDEV", "OS2DASD.DMD", BC_DISK_MANAGER,
	 "the disk device manager, through which OS/2 reads every disk volume, the boot "
	 "volume too"},
	/* FACTS, "CONFIG.SYS": the .ADD group is the adapter drivers: the
	 * boot disk's controller (IBM1S506.ADD, DANIS506.ADD, OS2AHCI.ADD) is
	 * one of them. Which one
	 * drives the boot disk cannot be told from the files, so every .ADD is
	 * kept. */
	{"BASEDEV", "*.ADD", BC_DISK_ADAPTER,
	 "an adapter driver; the boot disk's controller is driven by one of these"},
	/* FACTS, "The boot volume": OS/2's file systems are FAT, HPFS and
	 * JFS; FAT is built in, HPFS and JFS load by IFS=. Which one the boot
	 * volume uses cannot be known from its files: every IFS= of JFS or HPFS
	 * is kept. */
	{"IFS", "JFS.IFS", BC_BOOT_IFS, "the JFS file system driver, needed when the boot volume is JFS"},
	{"IFS", "HPFS.IFS", BC_BOOT_IFS, "the HPFS file system driver, needed when the boot volume is HPFS"},
	/* FACTS, "CONFIG.SYS", networking lines: PROTMAN.OS2 must be the
	 * first NDIS driver; without it no MAC driver starts. */
	{"DEVICE", "PROTMAN.OS2", BC_PROTMAN,
	 "the NDIS protocol manager; without it no network driver starts"},
	/* FACTS, same: CALL=...NETBIND.EXE binds the protocols to the MAC
	 * drivers; RUN= is the form LAN Manager writes (docs/config-files.md,
	 * "The boot model"). */
	{"CALL", "NETBIND.EXE", BC_NETBIND, "NETBIND, which binds the protocols to the network adapters"},
	{"RUN", "NETBIND.EXE", BC_NETBIND, "NETBIND, which binds the protocols to the network adapters"},
};

const size_t boot_critical_count = sizeof boot_critical_table / sizeof boot_critical_table[0];
