#include "installer/install.h"
#include "ui/pkgutil.h"
#include "ui/source.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "catalog/versions.h"
#include "common/date.h"
#include "ui/config.h"
#include "session/session.h"
#include "ui/progress.h"

static void on_warn(void *ud, const char *msg)
{
	ui_warn(ud, "%s\n", msg);
}

static void on_keys(void *ud)
{
	ui_warn_dev_keys(ud);
}

static int on_ask(void *ud, const char *question, const char *refusal, struct wd_err *err)
{
	return ui_confirm(ud, ui_esc(question), err, "%s", refusal);
}

/* The host state folder (catalog/hoststate.h): the option or variable,
 * else /var/lib/warpdrv for root, else $XDG_STATE_HOME/warpdrv (by default
 * ~/.local/state/warpdrv); NULL where none can be named. */
static const char *ui_host_state(struct wd_ctx *ctx)
{
	static char buf[4096];
	if (ctx->host_state && *ctx->host_state)
		return ctx->host_state;
	if (geteuid() == 0)
		return "/var/lib/warpdrv";
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	if (xdg && *xdg == '/')
		snprintf(buf, sizeof buf, "%s/warpdrv", xdg);
	else if (home && *home == '/')
		snprintf(buf, sizeof buf, "%s/.local/state/warpdrv", home);
	else
		return NULL;
	return buf;
}

/* The session's mode of the database a command's table entry declares. */
static enum session_db_mode ui_db_mode(const struct wd_cmd *c)
{
	switch (c ? c->db : CMD_DB_NONE) {
	case CMD_DB_RECOVER: return SESSION_DB_RECOVER;
	case CMD_DB_CREATE: return SESSION_DB_CREATE;
	case CMD_DB_PLAIN: return SESSION_DB_PLAIN;
	default: return SESSION_DB_READ;
	}
}

void ui_session_open(struct wd_ctx *ctx, struct session *s)
{
	struct session_opts o = {
		.root = ctx->root,
		.disk = ctx->disk,
		.disk_format = ctx->disk_format,
		.partition = (int)ctx->partition,
		.vm = ctx->vm,
		.vbox_dir = ctx->vbox_dir,
		.readonly = ui_cmd_reads_only(ctx),
		.boot_drive = ctx->boot_drive,
		.keys_dir = ctx->keys,
		.system_keys = ctx->system_keys = ui_system_keys(),
		.host_state = ui_host_state(ctx),
		.bundled_keys = ui_data_dir(ctx, "keys"),
		.bundled_repo = ui_data_dir(ctx, "repo"),
		.repos = ctx->repos,
		.nrepos = ctx->nrepos,
		.net = ui_net(ctx),
		.dry_run = ctx->dry_run,
		.lock_wait = ctx->lock_wait_set ? (int)ctx->lock_wait : -1,
		.db_mode = ui_db_mode(ctx->cmd),
		.cb = {.warn = on_warn, .keys_loaded = on_keys, .ask = on_ask, .ud = ctx},
	};
	struct wd_err ignore; /* session_open opens nothing, and cannot fail */
	session_open(s, &o, &ignore);
	ctx->s = s;
}

int ui_session_close(struct wd_ctx *ctx)
{
	int rc = 0;
	struct wd_err err = {0};
	if (ctx->s) {
		int r = session_close_checked(ctx->s, &err);
		if (r)
			rc = ui_fail(ctx, r, &err);
	}
	ctx->s = NULL;
	free(ctx->system_keys);
	ctx->system_keys = NULL;
	return rc;
}

bool pkg_is_file(const char *a)
{
	return install_arg_is_file(a);
}

int pkg_need_repository(const struct catalog *cat, int argc, char *const *argv,
			struct wd_err *err)
{
	for (int i = 0; i < argc; i++)
		if (!pkg_is_file(argv[i]))
			return catalog_need_repository(cat, err);
	return 0;
}

void pkg_fold_names(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		char *a = argv[i];
		if (pkg_is_file(a))
			continue; /* a file: session_load's rule (and FOO.WDP is a file too) */
		for (char *c = a; *c && *c != '='; c++)
			*c = (char)tolower((unsigned char)*c);
	}
}

void pkg_date(int days, char out[11])
{
	wd_date_format(days, out);
}
