/* The configuration file (docs/warpdrv.conf.5): defaults for warpdrv's
 * global options, read before the command line, which overrides them; and
 * the system-wide folder of keys an administrator trusts. */
#ifndef WD_UI_CONFIG_H
#define WD_UI_CONFIG_H

#include <stdbool.h>

#include "ui/ui.h"

/* The system-wide folder, /etc/warpdrv (in the programs built for the
 * tests, WARPDRV_SYSCONFDIR when set, so that no test reads the host's). */
const char *ui_sysconf_dir(void);
/* The folder of keys an administrator trusts, SYSCONF/keys (its repo and
 * license folders of .pub files, and revoked), when it is there; malloc'd,
 * or NULL. */
char *ui_system_keys(void);
/* The file to read: given (--config FILE), else for root
 * SYSCONF/warpdrv.conf, else $XDG_CONFIG_HOME/warpdrv/warpdrv.conf
 * (~/.config/warpdrv/warpdrv.conf). malloc'd. */
char *ui_config_path(const char *given);
/* Whether NAME (a global option's long name) may be set in the file. */
bool ui_config_settable(const char *name);
/* Reads the file at path (one a run; its text is kept in ctx until
 * ui_config_free): each "name = value" line to apply, which returns 0 or
 * the exit code of a usage error (its message names where, "FILE:LINE").
 * Blank lines and lines starting with # are passed over. A file that is not
 * there is no error unless must (--config named it). 0 or an exit code (2:
 * a line that is not a setting; a file that cannot be read). */
int ui_config_read(struct wd_ctx *ctx, const char *path, bool must,
		   int (*apply)(void *ud, const char *name, const char *value, const char *where),
		   void *ud);
void ui_config_free(struct wd_ctx *ctx);

#endif
