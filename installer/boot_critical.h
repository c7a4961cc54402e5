/* What the guest needs to boot, and what no package may take away: the
 * boot disk's BASEDEV= drivers, the IFS= lines of the file systems it may
 * boot from, PROTMAN and NETBIND. Which statements these are is data, the
 * table in installer/boot_critical_table.c (each entry with its source);
 * this file holds the one matcher over it, the guard every planner's
 * CONFIG.SYS edits pass, the check of a manifest's own directives, and the
 * `warpdrv check` rules for a CONFIG.SYS that cannot boot. The rules:
 * docs/config-files.md, "Boot-critical statements". */
#ifndef WD_BOOT_CRITICAL_H
#define WD_BOOT_CRITICAL_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/manifest.h"
#include "common/err.h"
#include "installer/finding.h"
#include "os2/config_sys.h"
#include "os2/volume.h"

enum bc_class {
	BC_NONE,          /* matches, and is not boot-critical (an exception) */
	BC_DISK_MANAGER,  /* BASEDEV=OS2DASD.DMD */
	BC_DISK_ADAPTER,  /* BASEDEV= of an adapter driver (*.ADD) */
	BC_BOOT_IFS,      /* IFS= of a file system OS/2 boots from (JFS, HPFS) */
	BC_PROTMAN,       /* DEVICE=...PROTMAN.OS2 */
	BC_NETBIND,       /* CALL= or RUN= of NETBIND.EXE */
};

struct bc_entry {
	const char *keyword; /* "BASEDEV", "IFS", "DEVICE", "CALL", "RUN" */
	const char *file;    /* "OS2DASD.DMD", or "*.ADD": any file with that extension */
	enum bc_class cls;
	const char *what;    /* what the statement is, for messages */
};

/* The table, in the order it is matched (the first entry that matches a
 * statement decides): installer/boot_critical_table.c. */
extern const struct bc_entry boot_critical_table[];
extern const size_t boot_critical_count;

/* The entry a statement (keyword, loaded file name) matches, or NULL.
 * Keyword and file are compared without case; only the file's name counts
 * (no drive, no folder). An entry of class BC_NONE says "not critical". */
const struct bc_entry *boot_critical_match(struct wd_sv keyword, struct wd_sv file);
/* Line i of cs as a boot-critical statement: its entry (never BC_NONE), or
 * NULL when the line is not one (REM, blank, anything else). */
const struct bc_entry *boot_critical_line(const struct config_sys *cs, size_t i);

/* The guard. orig: CONFIG.SYS as it is on the volume; now: the model a
 * planner made of it for `who` ("acpi-psd 3.23.16"). Every boot-critical
 * line of orig must still be in now, its text unchanged (a line may move;
 * new lines may come). 0, or WD_ETRUST naming who, the CONFIG.SYS line, its
 * statement and what it is for: a package asked for what no package may do. */
int boot_critical_guard(const struct config_sys *orig, const struct config_sys *now,
			const char *who, struct wd_err *err);

/* A manifest's own directives: a config-displace naming a boot-critical
 * statement is refused (WD_ETRUST) whatever the volume holds; cs (may be
 * NULL) gives the CONFIG.SYS line that would go, for the message. */
int boot_critical_manifest(const struct pkg_manifest *m, const struct config_sys *cs,
			   struct wd_err *err);
/* The same with the volume's CONFIG.SYS (for install, which plans no
 * CONFIG.SYS edit), read only when the manifest is refused. */
int boot_critical_manifest_on(const struct volume *v, const struct pkg_manifest *m,
			      struct wd_err *err);

/* What check knows of the boot volume's file system. */
enum bc_fs { BC_FS_UNKNOWN, BC_FS_FAT, BC_FS_HPFS, BC_FS_JFS };
struct bc_volume_facts {
	enum bc_fs fs;       /* the file system the folder is on (a mounted volume), or unknown */
	bool holds_ifs;      /* JFS.IFS or HPFS.IFS is in \, \OS2 or \OS2\BOOT */
	bool holds_wps;      /* \OS2\DLL\PMWP.DLL, the Workplace Shell (OS/2 2.0 and later) */
	char boot_drive;     /* for the lines the messages suggest; 0: C */
};

/* `warpdrv check`: no disk manager (OS2DASD.DMD), no disk adapter driver
 * (*.ADD), on OS/2 2.0 and later only (boot_os2_v2); no IFS= of the boot
 * file system (the rule for FAT and for a volume whose file system cannot
 * be known is in docs/config-files.md): each an error, code no-disk-driver
 * or no-boot-ifs. */
void boot_critical_check(const struct volume *v, const struct config_sys *cs,
			 struct check_report *rep);
/* Is the volume OS/2 2.0 or later, whose disk drivers are BASEDEV= lines
 * (OS/2 1.x and LAN Manager boot disks have none: their kernel loads the
 * disk driver itself)? Yes when CONFIG.SYS has a BASEDEV= or PSD= line
 * (REMmed too: both are 2.0's statements) or SET RUNWORKPLACE=, or the
 * volume holds the Workplace Shell (docs/config-files.md). */
bool boot_os2_v2(const struct config_sys *cs, const struct bc_volume_facts *f);
/* The same rules on facts given (unit tests). */
void boot_critical_rules(const struct config_sys *cs, const struct bc_volume_facts *f,
			 struct check_report *rep);

#endif
