/* The boot drive letter of a volume. CONFIG.SYS names it wherever it points
 * at the system folder \OS2: LIBPATH=.;D:\OS2\DLL, SET OS2_SHELL=D:\OS2\CMD.EXE,
 * PROTSHELL=D:\OS2\PMSHELL.EXE. */
#ifndef WD_BOOT_DRIVE_H
#define WD_BOOT_DRIVE_H

#include "common/err.h"
#include "os2/config_sys.h"
#include "os2/volume.h"

/* The drive CONFIG.SYS's absolute paths to \OS2 use ('C'..'Z'), or 0 when
 * none does (a boot CD's CONFIG.SYS writes "\OS2\DLL" without a drive).
 * LIBPATH's \OS2\DLL wins, then SET OS2_SHELL, then PROTSHELL, then the
 * first other statement with a path to \OS2. */
char boot_drive_detect(const struct config_sys *cs);

/* Sets v->boot_drive: the override when given (--boot-drive), else what
 * CONFIG.SYS says, else C:. */
void boot_drive_set(struct volume *v, char override, const struct config_sys *cs);

/* Opens the volume at root (NULL: usage error, exit 2), reads its CONFIG.SYS
 * into cs and sets the boot drive. On success the caller frees both. */
int boot_volume_open(struct volume *v, struct config_sys *cs, const char *root,
		     char override, struct wd_err *err);

#endif
