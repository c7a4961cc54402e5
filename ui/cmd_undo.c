/* warpdrv rollback --packages [GEN]: CONFIG.SYS and PROTOCOL.INI as before
 * generation GEN (as rollback puts them back) and the packages generations
 * GEN and later installed removed, the originals they had replaced put
 * back, in one transaction (installer/undo.h); the plan is shown and asked
 * as every change of the boot files is (ui_confirm). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "installer/undo.h"
#include "ui/commands.h"
#include "ui/pkgutil.h"
#include "ui/source.h"

static void show_plan(struct wd_ctx *ctx, const struct undo_set *u)
{
	if (u->n) {
		ui_say(ctx, "Remove");
		for (size_t i = 0; i < u->n; i++)
			ui_say(ctx, "%s %s %s", i ? "," : "", ui_esc(u->names[i]), ui_esc(u->versions[i]));
		ui_say(ctx, ":\n");
	}
	for (size_t k = 0; k < u->plan.nops; k++) {
		const struct txn_op *o = &u->plan.ops[k];
		if (o->kind == TXN_RETIRE)
			ui_say(ctx, "  %-30s %s\n", o->kept ? "delete; put back the original"
							    : "delete", ui_esc(o->os2 ? o->os2 : o->host));
	}
	struct setup_view sv;
	setup_view(u->s, &sv);
	if (sv.diff_len && !ctx->quiet) {
		ui_say(ctx, "\n");
		ui_show_diff(ctx, sv.diff, sv.diff_len);
	}
}

static void show_json(struct wd_ctx *ctx, const struct undo_set *u, bool applied)
{
	struct json *js = &ctx->j;
	struct setup_view sv;
	setup_view(u->s, &sv);
	json_obj_begin(js, NULL);
	json_str(js, "command", sv.command);
	json_bool(js, "dry_run", ctx->dry_run);
	json_bool(js, "applied", applied);
	json_arr_begin(js, "remove");
	for (size_t i = 0; i < u->n; i++) {
		json_obj_begin(js, NULL);
		json_str(js, "name", u->names[i]);
		json_str(js, "version", u->versions[i]);
		json_obj_end(js);
	}
	json_arr_end(js);
	json_voln(js, "diff", sv.diff, sv.diff_len);
	if (applied && sv.generation > 0)
		json_int(js, "generation", sv.generation);
	else
		json_null(js, "generation");
	json_obj_end(js);
	json_finish(js);
}

static void show_done(struct wd_ctx *ctx, const struct undo_set *u)
{
	ui_say(ctx, "\n");
	for (size_t i = 0; i < u->n; i++)
		ui_say(ctx, "Removed %s %s.\n", ui_esc(u->names[i]), ui_esc(u->versions[i]));
	struct setup_view sv;
	setup_view(u->s, &sv);
	if (sv.generation)
		ui_say(ctx, "Done: generation %ld; CONFIG.SYS and PROTOCOL.INI are as before "
		       "generation %ld.\n", sv.generation, u->gen);
	else
		ui_say(ctx, "Done: CONFIG.SYS and PROTOCOL.INI did not change.\n");
}

static int undo(struct wd_ctx *ctx, struct undo_set *u, long gen, struct wd_err *err)
{
	int r = undo_run_prepare(ctx->s, gen, u, err);
	if (!r && !u->anything) {
		if (ctx->json)
			show_json(ctx, u, false);
		else
			ui_say(ctx, "Nothing to do: the files are as before generation %ld, and no "
			       "package it installed is installed.\n", u->gen);
		return 0;
	}
	if (!r && !ctx->json)
		show_plan(ctx, u);
	bool applied = false;
	if (!r && !ctx->dry_run) {
		r = ui_confirm(ctx, "Apply these changes?", err, "rollback --packages changes the "
			       "volume");
		if (!r && !(r = undo_commit(u, err)))
			applied = true;
	}
	if (!r && ctx->json)
		show_json(ctx, u, applied);
	else if (!r && applied)
		show_done(ctx, u);
	else if (!r)
		ui_say(ctx, "\nDry run: nothing was written.\n");
	if (!r && applied && ctx->vm) /* an adapter --switch-nic switched goes back too */
		r = ui_unswitch_nic(ctx, u->gen, err);
	return r;
}

int cmd_rollback_packages(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc > 1)
		return ui_usage(ctx, "rollback --packages takes at most one generation number");
	char *end = NULL;
	long gen = argc ? strtol(argv[0], &end, 10) : 0;
	if (argc && (!*argv[0] || *end || gen < 1))
		return ui_usage(ctx, "rollback %s: expected a generation number ('warpdrv history' "
				"lists them)", argv[0]);
	struct wd_err err = {0};
	struct undo_set u = {0};
	int r = undo(ctx, &u, gen, &err);
	undo_set_free(&u);
	return r ? ui_fail(ctx, r, &err) : 0;
}
