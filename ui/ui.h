/* The front end: global options, output helpers, and the commands. */
#ifndef WD_UI_H
#define WD_UI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/err.h"
#include "ui/json.h"


#define WD_MAX_REPOS 16

struct wd_ctx {
	const char *prog;       /* "warpdrv" or "warpdrv-admin" */
	const char *root;       /* --root or WARPDRV_ROOT */
	const char *disk;       /* --disk IMAGE: the volume of a disk image (ui/source.c) */
	const char *disk_format;/* --disk-format FMT */
	long partition;         /* --partition N (0: the one with CONFIG.SYS) */
	const char *vm;         /* --vm MACHINE: a VirtualBox machine's boot disk and NICs */
	char *vbox_dir;         /* VirtualBox's folder (VBOX_USER_HOME, ...): its registry */
	char *pci_vm;           /* "vbox:FILE" of --vm's machine: the --pci default */
	const char *pci;        /* --pci SOURCE */
	const char *pci_ids;    /* --pci-ids FILE */
	const char *repos[WD_MAX_REPOS];
	int nrepos;
	const char *keys;       /* --keys DIR */
	const char *host_state; /* --host-state DIR or WARPDRV_HOST_STATE (NULL: the default) */
	char boot_drive;        /* --boot-drive X: (0: from CONFIG.SYS) */
	const char *cacert;     /* --cacert FILE: a private CA for https repositories */
	long connect_timeout;   /* --connect-timeout S (0: catalog/fetch.h's default) */
	long speed_limit;       /* --speed-limit B: bytes/s under which ... */
	long speed_time;        /* --speed-time S: ... for S seconds a transfer is abandoned */
	long max_time;          /* --max-time S: the deadline of one whole transfer */
	long lock_wait;         /* --lock-wait S or WARPDRV_LOCK_WAIT (when lock_wait_set) */
	bool lock_wait_set;
	const char *config_file; /* the configuration file read (ui/config.h), or NULL */
	char *config_text;      /* its text, which the settings point into */
	char *system_keys;      /* the administrator's key folder, or NULL */
	bool json, dry_run, yes, quiet;
	bool color;             /* colour on stdout */
	bool color_err;         /* colour on stderr */
	int verbose;
	char *exe_dir;          /* folder of the running program */
	struct json j;          /* the --json document on stdout */
	/* The command being run ("install", "bench report"): usage errors name
	 * its --help; and the options given to it, in order (ui_opt below). */
	char cmd_path[48];
	const struct wd_cmd *cmd;
	struct wd_optval *optv;
	int noptv;
	void *args;             /* cmd's argument struct (UI_ARGS) */
	const char **argvals;   /* the values its repeatable options point into */
	/* The run's session (session/session.h): opened by ui_main before the
	 * command runs, closed after it; the command asks it for the volume,
	 * the database, the keys, the catalog and the subscription. */
	struct session *s;
};

/* One option of a command (or of both programs), declared as data: the
 * parser in ui/cli.c accepts what the table names and nothing else, with
 * getopt_long's forms: -ny (short flags bundled), -b32k and -b 32k, --opt
 * VALUE and --opt=VALUE, and -- ending the options. A command's option is
 * bound to a field of the command's own argument struct (WD_OPT_* below,
 * which check the field's type when they compile); the command reads the
 * struct (UI_ARGS). */
enum wd_optkind { WD_OPT_GLOBAL, WD_OPT_FLAG, WD_OPT_STR, WD_OPT_LIST };

/* A repeatable option's values, in order. */
struct wd_optlist {
	const char **v;
	int n;
};

struct wd_opt {
	const char *name;   /* "section": --section */
	char letter;        /* 's': -s, or 0 for none */
	const char *arg;    /* "NAME": takes a value; NULL: a flag */
	const char *help;   /* one line for COMMAND --help */
	bool repeat;        /* may be given more than once */
	enum wd_optkind kind;
	size_t off;         /* the field of the command's argument struct */
};

/* The offset of field f of struct T, which must be of type ty: another
 * type does not compile (a negative array size). */
#define WD_FIELD(T, f, ty)                                                                 \
	(offsetof(T, f) +                                                                  \
	 0 * sizeof(char[__builtin_types_compatible_p(__typeof__(((T *)0)->f), ty) ? 1 : -1]))
/* --name (-letter): sets bool field f of T. */
#define WD_OPT_BOOL(T, f, name, letter, help)                                              \
	{name, letter, NULL, help, false, WD_OPT_FLAG, WD_FIELD(T, f, bool)}
/* --name ARG: sets const char *field f of T to the (last) value. */
#define WD_OPT_STRING(T, f, name, letter, arg, help)                                       \
	{name, letter, arg, help, false, WD_OPT_STR, WD_FIELD(T, f, const char *)}
/* --name ARG, repeatable: every value, in struct wd_optlist field f of T. */
#define WD_OPT_REPEAT(T, f, name, letter, arg, help)                                       \
	{name, letter, arg, help, true, WD_OPT_LIST, WD_FIELD(T, f, struct wd_optlist)}

struct wd_optval {
	const struct wd_opt *opt;
	const char *val;    /* NULL for a flag */
};

/* What a command needs of the volume's database: the session opens it so
 * when the command first asks (session_cmd_db; session/session.h's modes). */
enum wd_cmd_db {
	CMD_DB_NONE,    /* none (bench, warpdrv-admin) */
	CMD_DB_READ,    /* read only; an interrupted run told, never recovered */
	CMD_DB_RECOVER, /* an interrupted run finished or undone first */
	CMD_DB_CREATE,  /* made when there is none */
	CMD_DB_PLAIN,   /* as it is: the command's own transaction recovers first */
};

/* A command, as data (designated initialisers: a field not named is 0):
 * what it is called, runs and says in --help, and what it needs: its
 * database mode, whether it writes to the volume (with writes_with: only
 * when that option of its own is given) and whether it may ask. A command
 * that does not write reads the volume only: its database opens read only
 * (ui_cmd_reads_only), and tests/e2e/test_readonly.sh takes the list of
 * such commands from this table (warpdrv's test hook WARPDRV_COMMAND_TABLE). */
struct wd_cmd {
	const char *name;
	int (*run)(struct wd_ctx *ctx, int argc, char **argv);
	const char *args;    /* "PKG..." */
	const char *summary; /* one line for --help */
	const char *help;    /* the rest of COMMAND --help, or NULL */
	const struct wd_opt *opts;  /* its options, ended by {0}; NULL: none */
	const struct wd_cmd *subs;  /* its subcommands ({0}-ended): run gets the
				     * arguments after the subcommand's name */
	size_t args_size;           /* its argument struct's (the options' fields) */
	/* Checks of its arguments before the volume opens (a disk image's
	 * costs an appliance start): 0, or ui_usage's exit code; NULL: none. */
	int (*check)(struct wd_ctx *ctx);
	enum wd_cmd_db db;
	bool writes;                /* changes the volume (but under --dry-run) */
	/* ... or only when this says so of its arguments (verify --fix) */
	bool (*writes_if)(const struct wd_ctx *ctx);
	bool asks;                  /* may ask the user (--yes answers) */
};

/* The command's argument struct, filled from its options (all 0 for
 * those not given): UI_ARGS(ctx, struct setup_args). size must be the
 * table's args_size (a mismatch aborts: a command reading another's). */
const void *ui_args(const struct wd_ctx *ctx, size_t size);
#define UI_ARGS(ctx, T) ((const T *)ui_args((ctx), sizeof(T)))
/* The distance between two words (insertions, deletions, substitutions and
 * swaps of neighbours, case ignored), for "did you mean". */
int ui_edit_distance(const char *a, const char *b);

/* Prints the error (text on stderr, or {"error": ...} under --json) and
 * returns the exit code to use. r is the negative code a library call returned. */
int ui_fail(struct wd_ctx *ctx, int r, const struct wd_err *err);
/* A usage error: message and a hint on stderr (JSON error under --json); returns 2. */
int ui_usage(struct wd_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Human output: nothing under --json or -q. */
void ui_say(struct wd_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ui_warn(struct wd_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text from the volume or its database (CONFIG.SYS lines, names, URLs, rows)
 * made safe for a terminal: each control byte (below 0x20, 0x7f) and each
 * byte that is not part of valid UTF-8 (0x80-0x9f alone are C1 controls to a
 * terminal not in UTF-8) becomes \xNN, and a C1 control written in UTF-8
 * (U+0080-U+009F) \u00NN, so an escape sequence planted there is shown, not
 * obeyed; valid UTF-8 text passes. s itself when it is plain ASCII;
 * otherwise a buffer valid for 16 more calls.
 * ui_fail and ui_warn do the same to their messages (keeping the newlines
 * of the message's own format); --json strings are escaped by ui/json.c. */
const char *ui_esc(const char *s);
/* The same for text of several lines (a diff, a message): its newlines and
 * tabs kept, every other control byte (a NUL too) escaped; n bytes of p. */
const char *ui_esc_text(const char *p, size_t n);
/* "1 package", "2 packages", "0 revoked keys": n and the noun, plural but
 * for one (each noun warpdrv counts takes an s). A buffer valid for 16 more
 * calls of the ui_esc family. */
const char *ui_count(size_t n, const char *noun);
/* Text from the volume (a CONFIG.SYS line, a section or file name of it)
 * for a terminal: decoded from the volume's code page into UTF-8, then
 * escaped as ui_esc does; ui_vol_text keeps newlines as ui_esc_text. */
const char *ui_vol(const struct wd_ctx *ctx, const char *s);
const char *ui_vol_text(const struct wd_ctx *ctx, const char *p, size_t n);
/* A message of warpdrv's that may quote the volume (a check finding, a
 * note): its valid UTF-8 kept, its other bytes decoded from the code page
 * (json_mixed's rule); ui_mixed_text keeps newlines. */
const char *ui_mixed(const struct wd_ctx *ctx, const char *s);
const char *ui_mixed_text(const struct wd_ctx *ctx, const char *s);
/* Chooses the code page the volume's text is read in, before the command
 * runs: WARPDRV_CODEPAGE when set (a number warpdrv knows, or a usage
 * error), else the first number of CONFIG.SYS's CODEPAGE= statement, else
 * 850. Sets ctx->j.cp; 0 or the exit code of the usage error. */
int ui_codepage_setup(struct wd_ctx *ctx);
/* A time warpdrv recorded in UTC (json_utc_parse) in the local time zone
 * with its name: "2026-12-01 19:00:48 CET"; the text itself when it is not
 * such a time. A buffer valid for 16 more calls of the ui_esc family. */
const char *ui_local_time(const char *utc);
/* Colour escape for a terminal, or "" when colour is off: ui_color for
 * stdout, ui_color_err for stderr (each stream decides for itself). */
const char *ui_color(const struct wd_ctx *ctx, const char *which);
const char *ui_color_err(const struct wd_ctx *ctx, const char *which);
/* A unified diff on stdout (escaped as ui_esc_text does), coloured on a
 * terminal as git colours one: file headers bold, hunk headers cyan,
 * removed lines red, added lines green. */
void ui_show_diff(const struct wd_ctx *ctx, const char *p, size_t n);
/* A terminal on fd that can take cursor controls (a progress line rewritten
 * in place): isatty, and TERM is not "dumb". */
bool ui_term_ok(int fd);

/* The one confirmation rule, for every command that rewrites CONFIG.SYS or
 * PROTOCOL.INI, removes a package, downloads to plan, or replaces the
 * activated key (its plan already shown): 0 with --yes or a yes typed at the
 * terminal on stdin; refused (WD_EUSAGE, exit 2) under --json or with no
 * terminal, the message saying why (fmt: "remove changes the volume") and
 * to add --yes or --dry-run; a no is WD_EFAIL ("nothing changed"). */
int ui_confirm(struct wd_ctx *ctx, const char *question, struct wd_err *err, const char *fmt,
	       ...) __attribute__((format(printf, 4, 5)));

/* A bundled data folder ("repo", "keys"): WARPDRV_DATA/NAME, then beside the
 * program (the build tree), then ../share/warpdrv/NAME. NULL when none exists. */
char *ui_data_dir(const struct wd_ctx *ctx, const char *name);

/* A warning, once per run, when the bundled keys are development keys (in the
 * installed programs; ui/cli.c). Every command that loads the trusted keys calls it. */
void ui_warn_dev_keys(struct wd_ctx *ctx);

#endif
