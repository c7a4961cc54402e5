/* warpdrv recover [--abandon]: finishes or undoes what an interrupted run
 * left (every writing command does so first anyway); --abandon forgets an
 * interrupted transaction that cannot be finished (docs/recovery.md). */
#include <stdlib.h>

#include "installer/txn.h"
#include "ui/commands.h"

static void report(struct wd_ctx *ctx, bool abandon, bool found, const struct txn_abandoned *a)
{
	if (ctx->json) {
		json_obj_begin(&ctx->j, NULL);
		json_bool(&ctx->j, abandon ? "abandoned" : "recovered", found);
		if (abandon) {
			json_str(&ctx->j, "transaction", found ? (a->install ? "install" : "remove")
							       : NULL);
			json_str(&ctx->j, "name", a->name);
			json_int(&ctx->j, "put_back", (long long)a->put_back);
		}
		json_obj_end(&ctx->j);
		json_finish(&ctx->j);
	} else if (!found) {
		ui_say(ctx, "No interrupted transaction on the volume; nothing to do.\n");
	} else if (!abandon) {
		ui_say(ctx, "Finished or undone the interrupted transaction.\n");
	} else {
		ui_say(ctx, "Abandoned the interrupted %s of %s: the files stay as they are%s; "
		       "'warpdrv verify' shows what differs from the database.\n",
		       a->install ? "install" : "removal", ui_esc(a->name),
		       a->put_back ? " (the files it had moved aside are back in place)" : "");
	}
}

int cmd_recover(struct wd_ctx *ctx, int argc, char **argv)
{
	bool abandon = ui_opt(ctx, "abandon");
	if (argc > 0)
		return ui_usage(ctx, "recover: unexpected argument '%s'", argv[0]);
	if (ctx->dry_run)
		return ui_usage(ctx, "recover: --dry-run has nothing to show; run it without");
	struct wd_err err = {0};
	struct volume v;
	struct txn_abandoned a = {0};
	bool found = false;
	int r = volume_open(&v, ctx->root, &err);
	if (r)
		return ui_fail(ctx, r, &err);
	r = abandon ? txn_abandon(&v, &a, &err) : txn_recover_volume(&v, &found, &err);
	if (!r)
		report(ctx, abandon, abandon ? a.found : found, &a);
	free(a.name);
	volume_close(&v);
	return r ? ui_fail(ctx, r, &err) : 0;
}

const struct wd_opt cmd_recover_opts[] = {
	{"abandon", 0, NULL, "forget an interrupted transaction that cannot be finished", false},
	{0},
};
