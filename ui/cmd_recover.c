/* warpdrv recover [--abandon]: finishes or undoes what an interrupted run
 * left (every writing command does so first anyway); --abandon forgets an
 * interrupted transaction that cannot be finished (docs/recovery.md). */
#include <stdlib.h>
#include <string.h>

#include "txn/txn.h"
#include "session/session.h"
#include "ui/commands.h"

static void report(struct wd_ctx *ctx, bool abandon, bool found, const struct txn_abandoned *a,
		   const struct txn_pending_desc *d)
{
	char what[512] = "";
	if (!abandon && found)
		txn_pending_text(d, what, sizeof what);
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_bool(&ctx->j, abandon ? "abandoned" : "recovered", found);
		if (abandon) {
			json_str(&ctx->j, "transaction", found ? (a->install ? "install" : "remove")
							       : NULL);
			json_str(&ctx->j, "name", a->name);
			json_int(&ctx->j, "put_back", (long long)a->put_back);
		} else {
			json_str(&ctx->j, "outcome", found ? d->outcome : NULL);
			json_str(&ctx->j, "transaction", found ? (d->install ? "install" : "remove")
							       : NULL);
			json_str(&ctx->j, "name", found ? d->name : NULL);
			json_arr_begin(&ctx->j, "packages");
			for (size_t i = 0; found && i < d->npkgs; i++)
				json_str(&ctx->j, NULL, d->pkgs[i]);
			json_arr_end(&ctx->j);
		}
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	} else if (!found) {
		ui_say(ctx, "No interrupted transaction on the volume; nothing to do.\n");
	} else if (!abandon) {
		ui_say(ctx, "%s the interrupted %s.\n",
		       !strcmp(d->outcome, "undone") ? "Undid" : "Finished", ui_esc(what));
	} else {
		ui_say(ctx, "Abandoned the interrupted %s of %s: the files stay as they are%s; "
		       "'warpdrv verify' shows what differs from the database.\n",
		       a->install ? "install" : "removal", ui_esc(a->name),
		       a->put_back ? " (the files it had moved aside are back in place)" : "");
	}
}

int cmd_recover(struct wd_ctx *ctx, int argc, char **argv)
{
	bool abandon = UI_ARGS(ctx, struct recover_args)->abandon;
	if (argc > 0)
		return ui_usage(ctx, "recover: unexpected argument '%s'", argv[0]);
	if (ctx->dry_run)
		return ui_usage(ctx, "recover: --dry-run has nothing to show; run it without");
	struct wd_err err = {0};
	struct volume *v;
	struct txn_abandoned a = {0};
	struct txn_pending_desc d = {0};
	int r = session_volume(ctx->s, &v, &err);
	if (r)
		return ui_fail(ctx, r, &err);
	r = abandon ? txn_abandon(v, &a, &err) : txn_recover_volume(v, &d, &err);
	if (!r)
		report(ctx, abandon, abandon ? a.found : d.found, &a, &d);
	free(a.name);
	txn_pending_desc_free(&d);
	return r ? ui_fail(ctx, r, &err) : 0;
}

const struct wd_opt cmd_recover_opts[] = {
	WD_OPT_BOOL(struct recover_args, abandon, "abandon", 0,
		    "forget an interrupted transaction that cannot be finished"),
	{0},
};
