/* `warpdrv check`: what is wrong today with a volume's CONFIG.SYS and
 * PROTOCOL.INI, as findings a user can act on. Reads only. The networking
 * findings are the boot model's (installer/boot_model.h); the rules and the
 * choices behind them are in docs/config-files.md. */
#ifndef WD_CHECK_H
#define WD_CHECK_H

#include <stddef.h>

#include "catalog/manifest.h"
#include "common/err.h"
#include "installer/boot_model.h"
#include "installer/finding.h"
#include "os2/config_sys.h"
#include "os2/volume.h"

#define CHECK_PROTOCOL_INI WD_IBMCOM_PROTOCOL_INI

struct session;
/* `warpdrv check` on the session's volume (its boot drive resolved):
 * check_volume with the bundled repository's NIC packages, under the
 * volume's shared lock, and an interrupted transaction the database records
 * as an error finding (txn-pending). */
int check_run(struct session *ss, struct check_report *rep, struct wd_err *err);

/* Everything: reads CONFIG.SYS, the PROTOCOL.INI PROTMAN reads and the NIFs
 * in IBMCOM\MACS from the volume, runs every rule, sorts the findings by
 * file and line. pkgs: the NIC packages known (their DriverNames make an
 * instance's certain). Fails only when a file cannot be read. */
int check_volume(const struct volume *v, const struct pkg_manifest *const *pkgs, size_t npkgs,
		 struct check_report *rep, struct wd_err *err);

/* The rules on CONFIG.SYS alone: line endings, files not on the volume,
 * PSD= paths, ACPI mixed with APM or OS2APIC. */
void check_config_sys(const struct volume *v, const struct config_sys *cs,
		      struct check_report *rep);
/* The networking rules: the findings of the boot model built from in. */
void check_network(const struct boot_input *in, struct check_report *rep);
/* NETBIND.EXE in PROTMAN's folder\PROTOCOL: 1 on the volume, -1 not, 0 that
 * folder is on another drive (struct boot_input's netbind_file). */
int check_netbind_file(const struct volume *v, const struct pi_location *loc);

#endif
