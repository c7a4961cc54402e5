/* Turning one part of a setup off (`configure acpi --off`, `configure nic
 * --off`) without the rest: the package's statements out of CONFIG.SYS
 * (and, for a NIC, its PROTOCOL.INI section through the NIC planner) and
 * what they displaced back. What was displaced is read from the generation
 * copies (installer/generation.h): the CONFIG.SYS from before the
 * generation that added the statements. Nothing here prints. */
#ifndef WD_CONFIG_OFF_H
#define WD_CONFIG_OFF_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/manifest.h"
#include "common/buf.h"
#include "common/err.h"
#include "installer/setup.h"
#include "os2/config_sys.h"
#include "trust/keys.h"

/* Does cs hold a statement m's config-need asks for (PSD=ACPI.PSD ...)? */
bool config_off_has_needs(const struct pkg_manifest *m, const struct config_sys *cs);
/* The CONFIG.SYS from before the package's generations: of each statement
 * m needs that CONFIG.SYS holds, the generation that added it (the newest
 * whose "before" copy lacks it); the copy from before the oldest of those.
 * *gen its number, or 0 and *before empty when no generation added any:
 * then *guests says whether generations were there (the statements were
 * the guest's before warpdrv's first change) or none (no copy to tell). */
int config_off_before(struct setup *s, const struct pkg_manifest *m, struct wd_buf *before,
		      long *gen, bool *guests, struct wd_err *err);
/* Edits cs: each statement m needs goes; each line of before that m
 * displaces (or that m needs, written another way) comes back where the
 * package's statement took its place (as acpi_plan chose it), else after
 * the nearest line of before still here as it was. A statement before
 * holds as it is now was the guest's own and stays. before may be NULL:
 * nothing comes back.
 * *restored: how many came back. Returns the lines changed, or -1 when the
 * model refused an edit. */
int config_off_plan(const struct pkg_manifest *m, const struct config_sys *before,
		    struct config_sys *cs, size_t *restored);

/* configure nic --off: of the NIC packages pkgs, the one whose driver file
 * CONFIG.SYS loads now (*cur), and the one to go back to (*prev): the
 * package whose driver CONFIG.SYS loaded before the generation that made it
 * load *cur's; NULL when none is known: then the free default (the best
 * ranked driver needing no entitlement). An error (WD_EFAIL) when CONFIG.SYS
 * loads no package's NIC driver, or one needing no entitlement where no
 * driver needing none was before it (off never turns a subscription's
 * driver on). */
/* configure acpi --off, planned on s (setup_new's): the installed ACPI PSD
 * package's statements out of CONFIG.SYS and what they displaced back
 * (config_off_before, config_off_plan), rendered and checked
 * (setup_verify). The installed manifest's signature is checked with kr
 * (WD_ETRUST when it does not verify), and no boot-critical statement may
 * go (boot_critical_guard); the caller shows setup_diff, asks and calls setup_apply.
 * An error (WD_EFAIL) when no PSD package is installed or CONFIG.SYS holds
 * none of its statements: nothing to turn off. */
struct acpi_off {
	char *name, *version;  /* the package */
	const char *config;    /* CONFIG.SYS below the root */
	size_t restored;       /* displaced lines put back */
	long from_gen;         /* the generation they were read from; 0: none */
};
int setup_plan_acpi_off(struct setup *s, const struct keyring *kr, struct acpi_off *out,
			struct wd_err *err);
void acpi_off_free(struct acpi_off *o);

int config_off_nic(struct setup *s, const struct package *pkgs, size_t n,
		   const struct package **cur, const struct package **prev, long *gen,
		   struct wd_err *err);

#endif
