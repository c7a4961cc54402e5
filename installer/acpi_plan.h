/* The ACPI planner: the CONFIG.SYS edits the ACPI PSD package asks for in
 * its manifest (config-need, config-displace), made on the model given.
 * Rules: docs/setup.md. */
#ifndef WD_ACPI_PLAN_H
#define WD_ACPI_PLAN_H

#include "catalog/manifest.h"
#include "os2/config_sys.h"

/* Each needed statement is kept where it is (with its switches), or takes the
 * place of a displaced statement with its keyword (PSD=OS2APIC.PSD) or with
 * its file's stem (APM.SYS for APM.ADD), or goes where its keyword belongs:
 * PSD= after the last PSD= line or before the first BASEDEV= line; others
 * after the last line of their keyword. Displaced statements left go. A
 * needed value starting with \ gets the boot drive. Returns how many lines
 * changed, or -1 when the model refused an edit (a value that cannot be one
 * line). */
int acpi_plan(const struct pkg_manifest *m, char boot_drive, struct config_sys *cs);

#endif
