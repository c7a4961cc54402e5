#include "ui/pkgutil.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/date.h"
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

static void session_from(struct wd_ctx *ctx, struct session_opts *s)
{
	*s = (struct session_opts){
		.root = ctx->root,
		.boot_drive = ctx->boot_drive,
		.keys_dir = ctx->keys,
		.bundled_keys = ui_data_dir(ctx, "keys"),
		.bundled_repo = ui_data_dir(ctx, "repo"),
		.repos = ctx->repos,
		.nrepos = ctx->nrepos,
		.net = ui_net(ctx),
		.dry_run = ctx->dry_run,
		.cb = {.warn = on_warn, .keys_loaded = on_keys, .ud = ctx},
	};
}

void ui_session_open(struct wd_ctx *ctx, struct session *s)
{
	struct session_opts o;
	session_from(ctx, &o);
	struct wd_err ignore; /* session_open opens nothing, and cannot fail */
	session_open(s, &o, &ignore);
	ctx->s = s;
}

void ui_session_close(struct wd_ctx *ctx)
{
	if (ctx->s)
		session_close(ctx->s);
	ctx->s = NULL;
}

static void session_done(struct session_opts *s)
{
	free((char *)s->bundled_keys);
	free((char *)s->bundled_repo);
}

int pkg_keyring(struct wd_ctx *ctx, const struct volume *v, struct keyring *kr,
		struct wd_err *err)
{
	struct session_opts s;
	session_from(ctx, &s);
	int r = session_old_keyring(&s, v, kr, err);
	session_done(&s);
	if (!r)
		ui_warn_dev_keys(ctx);
	return r;
}

int pkg_catalog(struct wd_ctx *ctx, const struct keyring *kr, struct catalog *cat,
		struct wd_err *err)
{
	struct session_opts s;
	session_from(ctx, &s);
	int r = session_old_catalog(&s, kr, cat, err);
	session_done(&s);
	return r;
}

int pkg_use_cache(struct wd_ctx *ctx, const struct volume *v, struct catalog *cat,
		  struct wd_err *err)
{
	struct session_opts s;
	session_from(ctx, &s);
	int r = session_old_use_cache(&s, v, cat, err);
	session_done(&s);
	return r;
}

int pkg_load(struct wd_ctx *ctx, const struct keyring *kr, const struct catalog *cat,
	     const char *arg, struct package *p, struct wd_err *err)
{
	(void)ctx;
	return session_old_load(kr, cat, arg, p, err);
}

int pkg_state_read(struct wd_ctx *ctx, struct volume *v, struct db *db, bool *have,
		   struct wd_err *err)
{
	struct session_opts s;
	session_from(ctx, &s);
	int r = session_old_state_read(&s, v, db, have, err);
	session_done(&s);
	return r;
}

void pkg_fold_names(int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		char *a = argv[i];
		size_t n = strlen(a);
		if (strchr(a, '/') || (n > 4 && !strcasecmp(a + n - 4, ".wdp")))
			continue; /* a file: session_load's rule (and FOO.WDP is a file too) */
		for (char *c = a; *c && *c != '='; c++)
			*c = (char)tolower((unsigned char)*c);
	}
}

void pkg_date(int days, char out[11])
{
	wd_date_format(days, out);
}
