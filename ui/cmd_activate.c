/* warpdrv activate KEY | --file F: check a subscription key against the
 * trusted licence keys and make it the volume's current key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state/db.h"
#include "common/buf.h"
#include "common/date.h"
#include "common/file.h"
#include "license/activation.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"
#include "ui/subscription_ui.h"

#define KEY_FILE_MAX (64 * 1024)

static int read_key_file(const char *path, struct wd_buf *out, struct wd_err *err)
{
	if (strcmp(path, "-") != 0)
		return sub_read_file(path, out, err);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) {
		wd_buf_add(out, chunk, n);
		if (out->len > KEY_FILE_MAX)
			return wd_err_set(err, WD_ELICENSE,
					  "standard input: more than %d bytes; a subscription key "
					  "has %d characters", KEY_FILE_MAX, SUB_TEXT_LEN);
	}
	return 0;
}

/* The key's text from the arguments (a key pasted with spaces may arrive
 * as several) or from --file. Returns 0, or the exit code of a usage error. */
static int key_text(struct wd_ctx *ctx, int argc, char **argv, struct wd_buf *text,
		    const char **file)
{
	*file = UI_ARGS(ctx, struct activate_args)->file;
	for (int i = 0; i < argc; i++) {
		wd_buf_adds(text, argv[i]);
		wd_buf_addc(text, ' ');
	}
	if (*file && text->len)
		return ui_usage(ctx, "activate: give the key or --file, not both");
	if (!*file && !text->len)
		return ui_usage(ctx, "activate: no key given (warpdrv activate KEY, or --file F with - "
				     "for standard input)");
	return 0;
}

static void warn_expired(struct wd_ctx *ctx, const struct subscription *s)
{
	char exp[WD_DATE_LEN], ents[128];
	wd_date_format(s->expires, exp);
	sub_entitlements_format(s->entitlements, ", ", ents, sizeof ents);
	ui_warn(ctx, "key %s expired on %s: it still covers %s packages released up to %s; "
		     "renew the subscription for newer releases\n", s->id, exp, ents, exp);
}

static void report(struct wd_ctx *ctx, const struct subscription *s, enum sub_state st,
		   int today, const char *old_id, bool stored)
{
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_bool(&ctx->j, "stored", stored);
		json_bool(&ctx->j, "dry_run", ctx->dry_run);
		if (old_id[0] && strcmp(old_id, s->id) != 0)
			json_str(&ctx->j, "replaced_key_id", old_id);
		else
			json_null(&ctx->j, "replaced_key_id");
		ui_sub_json(ctx, st, s, today);
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
		return;
	}
	if (!stored && ctx->dry_run)
		ui_say(ctx, "Key %s is valid; nothing stored (--dry-run).\n", s->id);
	else if (!stored)
		ui_say(ctx, "Key %s is already the activated key.\n", s->id);
	else if (old_id[0])
		ui_say(ctx, "Activated key %s; it replaces key %s, which stays in the history.\n",
		       s->id, old_id);
	else
		ui_say(ctx, "Activated key %s.\n", s->id);
	ui_sub_text(ctx, st, s, today);
}

/* Refuses a key the volume's state rules out: a clock set back, or revoked. */
static int state_of(struct db *db, const struct subscription *s, int today,
		    enum sub_state *st, struct wd_err *err)
{
	struct sub_ids rev = {0};
	struct entitlement_ctx c = {.sub = s, .today = today};
	int r = activation_last_seen(db, &c.last_seen, err);
	if (!r)
		r = activation_revoked_ids(db, &rev, err);
	if (!r) {
		c.revoked = (const char *const *)rev.ids;
		c.nrevoked = rev.n;
		*st = entitlement_state(&c);
		r = entitlement_usable(&c, err);
		if (r)
			wd_err_prefix(err, "key %s not activated", s->id);
	}
	sub_ids_free(&rev);
	return r;
}

static int activate(struct wd_ctx *ctx, const struct wd_buf *text, struct wd_err *err)
{
	struct volume *v;
	const struct keyring *kr;
	struct db *db = NULL;
	struct subscription s;
	enum sub_state st = SUB_NONE;
	char old_id[SUB_ID_HEX] = "";
	int today;
	int r = session_volume(ctx->s, &v, err);
	if (r)
		return r;
	if (!(r = session_keyring(ctx->s, &kr, err)) &&
	    !(r = sub_parse(text->p, text->len, kr, &s, err)) && !(r = wd_today(&today, err)) &&
	    !(r = session_db(ctx->s, SESSION_DB_PLAIN, &db, NULL, err)) &&
	    !(r = state_of(db, &s, today, &st, err)))
		r = activation_current_id(db, old_id, err);
	bool same = !r && !strcmp(old_id, s.id);
	if (!r && st == SUB_EXPIRED)
		warn_expired(ctx, &s);
	/* replacing the activated key asks first (a first activation does not) */
	if (!r && !ctx->dry_run && !same && old_id[0]) {
		if (!ctx->json && !ctx->yes)
			ui_say(ctx, "Key %s would replace the activated key %s (which stays in the "
			       "history).\n", s.id, old_id);
		r = ui_confirm(ctx, "Replace the activated key?", err,
			       "activate replaces the activated key %s", old_id);
	}
	/* The state folder and database appear only once the key is accepted. */
	if (!r && !ctx->dry_run && !same && !db->h)
		r = session_db(ctx->s, SESSION_DB_CREATE, &db, NULL, err);
	if (!r && !ctx->dry_run && !same)
		r = activation_store(db, &s, today, err);
	if (!r)
		report(ctx, &s, st, today, old_id, !ctx->dry_run && !same);
	return r;
}

int cmd_activate(struct wd_ctx *ctx, int argc, char **argv)
{
	struct wd_buf text = {0};
	struct wd_err err = {0};
	const char *file;
	int rc = key_text(ctx, argc, argv, &text, &file);
	if (!rc) {
		int r = file ? read_key_file(file, &text, &err) : 0;
		if (!r)
			r = activate(ctx, &text, &err);
		rc = r ? ui_fail(ctx, r, &err) : 0;
	}
	wd_buf_free(&text);
	return rc;
}

const struct wd_opt cmd_activate_opts[] = {
	WD_OPT_STRING(struct activate_args, file, "file", 0, "F",
		      "read the key from the file F (- for standard input)"),
	{0},
};
