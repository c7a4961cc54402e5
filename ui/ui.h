/* The front end: global options, output helpers, and the commands. */
#ifndef WD_UI_H
#define WD_UI_H

#include <stdbool.h>
#include <stdio.h>

#include "common/err.h"
#include "ui/json.h"


#define WD_MAX_REPOS 16

struct wd_ctx {
	const char *prog;       /* "warpdrv" or "warpdrv-admin" */
	const char *root;       /* --root or WARPDRV_ROOT */
	const char *pci;        /* --pci SOURCE */
	const char *pci_ids;    /* --pci-ids FILE */
	const char *repos[WD_MAX_REPOS];
	int nrepos;
	const char *keys;       /* --keys DIR */
	char boot_drive;        /* --boot-drive X: (0: from CONFIG.SYS) */
	const char *cacert;     /* --cacert FILE: a private CA for https repositories */
	long connect_timeout;   /* --connect-timeout S (0: catalog/fetch.h's default) */
	long speed_limit;       /* --speed-limit B: bytes/s under which ... */
	long speed_time;        /* --speed-time S: ... for S seconds a transfer is abandoned */
	long max_time;          /* --max-time S: the deadline of one whole transfer */
	bool json, dry_run, yes, quiet, color;
	int verbose;
	char *exe_dir;          /* folder of the running program */
	struct json j;          /* the --json document on stdout */
};

struct wd_cmd {
	const char *name;
	int (*run)(struct wd_ctx *ctx, int argc, char **argv);
	const char *args;    /* "PKG..." */
	const char *summary; /* one line for --help */
	const char *help;    /* the rest of COMMAND --help, or NULL */
};

/* Prints the error (text on stderr, or {"error": ...} under --json) and
 * returns the exit code to use. r is the negative code a library call returned. */
int ui_fail(struct wd_ctx *ctx, int r, const struct wd_err *err);
/* A usage error: message and a hint on stderr (JSON error under --json); returns 2. */
int ui_usage(struct wd_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Human output: nothing under --json or -q. */
void ui_say(struct wd_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ui_warn(struct wd_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text from the volume or its database (CONFIG.SYS lines, names, URLs, rows)
 * made safe for a terminal: each control byte (below 0x20, 0x7f, 0x80-0x9f)
 * becomes \xNN, so an escape sequence planted there is shown, not obeyed.
 * s itself when it has none; otherwise a buffer valid for 16 more calls.
 * ui_fail and ui_warn do the same to their messages (keeping the newlines
 * of the message's own format); --json strings are escaped by ui/json.c. */
const char *ui_esc(const char *s);
/* The same for text of several lines (a diff, a message): its newlines and
 * tabs kept, every other control byte (a NUL too) escaped; n bytes of p. */
const char *ui_esc_text(const char *p, size_t n);
/* Colour escape for a terminal, or "" when colour is off. */
const char *ui_color(const struct wd_ctx *ctx, const char *which);

/* Option helpers for a command's own arguments: true when argv[*i] is opt;
 * with a value, "--opt VALUE" and "--opt=VALUE" both work (*i moves past it). */
bool ui_flag(char **argv, int i, const char *opt);
int ui_opt_value(struct wd_ctx *ctx, int argc, char **argv, int *i, const char *opt,
		 const char **val, bool *matched);

/* A bundled data folder ("repo", "keys"): WARPDRV_DATA/NAME, then beside the
 * program (the build tree), then ../share/warpdrv/NAME. NULL when none exists. */
char *ui_data_dir(const struct wd_ctx *ctx, const char *name);

/* A warning, once per run, when the bundled keys are development keys (in the
 * installed programs; ui/cli.c). Every command that loads the trusted keys calls it. */
void ui_warn_dev_keys(struct wd_ctx *ctx);

#endif
