/* Where the volume comes from, as the command line says it: --root DIR,
 * --disk IMAGE (with --partition N, --disk-format FMT), --vm MACHINE. The session opens
 * it (session/session.h); the front end checks the options' consistency and
 * tells the session whether the command writes. */
#ifndef WD_UI_SOURCE_H
#define WD_UI_SOURCE_H

#include <stdbool.h>

#include "ui/ui.h"

/* A usage error for options that do not go together (--root and --disk,
 * --partition without --disk); WARPDRV_ROOT (env_root) gives way to --disk.
 * 0 or the exit code, the error reported. */
int ui_source_check(struct wd_ctx *ctx, const char *env_root);
/* With --vm: the machine's settings read (a usage or read error reported,
 * its exit code returned) and, without --pci, its NICs made the PCI source
 * (vbox:FILE). Before the command runs; starts no appliance. */
int ui_source_open(struct wd_ctx *ctx);
/* After a rollback with --vm to before generation gen: the adapters a setup
 * --switch-nic of gen or later switched are given back their types, and
 * the user told. 0 or the error (err filled). */
int ui_unswitch_nic(struct wd_ctx *ctx, long gen, struct wd_err *err);
/* A volume was given, in any of the ways. */
bool ui_volume_given(const struct wd_ctx *ctx);
/* The command writes nothing to the volume (detect, check, list, ... or
 * --dry-run): a disk image is then opened read-only. */
bool ui_cmd_reads_only(const struct wd_ctx *ctx);

#endif
