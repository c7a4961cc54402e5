/* warpdrv activate KEY | --file F: check a subscription key against the
 * trusted licence keys and make it the volume's current key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/date.h"
#include "common/file.h"
#include "installer/activate.h"
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

static int activate(struct wd_ctx *ctx, const struct wd_buf *text, struct wd_err *err)
{
	struct key_activation ka;
	int r = activate_check(ctx->s, text->p, text->len, &ka, err);
	if (!r && ka.st == SUB_EXPIRED)
		warn_expired(ctx, &ka.sub);
	/* replacing the activated key asks first (a first activation does not) */
	if (!r && !ctx->dry_run && !ka.same && ka.old_id[0]) {
		if (!ctx->json && !ctx->yes)
			ui_say(ctx, "Key %s would replace the activated key %s (which stays in the "
			       "history).\n", ka.sub.id, ka.old_id);
		r = ui_confirm(ctx, "Replace the activated key?", err,
			       "activate replaces the activated key %s", ka.old_id);
	}
	/* The state folder and database appear only once the key is accepted. */
	if (!r && !ctx->dry_run && !ka.same)
		r = activate_store(ctx->s, &ka, err);
	if (!r)
		report(ctx, &ka.sub, ka.st, ka.today, ka.old_id, !ctx->dry_run && !ka.same);
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
