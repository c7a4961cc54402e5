/* warpdrv clean: removes the packages downloaded into the volume's cache
 * (var/cache/warpdrv/packages) and says how much it freed; --dry-run says
 * what it would free. The work is installer/clean.h's. */
#include <stdio.h>

#include "installer/clean.h"
#include "session/session.h"
#include "ui/commands.h"

/* "12345 bytes (12.1 KiB)". */
static void human(uint64_t n, char *out, size_t size)
{
	if (n < 1024)
		snprintf(out, size, "%llu bytes", (unsigned long long)n);
	else if (n < 1024 * 1024)
		snprintf(out, size, "%llu bytes (%.1f KiB)", (unsigned long long)n, n / 1024.0);
	else
		snprintf(out, size, "%llu bytes (%.1f MiB)", (unsigned long long)n,
			 n / (1024.0 * 1024.0));
}

static const char *why_left(const struct clean_file *f)
{
	return f->what == CLEAN_BUSY ? "being downloaded by another warpdrv now" : f->kind;
}

static void show_json(struct wd_ctx *ctx, const struct clean_report *rep)
{
	struct json *j = &ctx->j;
	json_obj_begin(j, NULL);
	json_str(j, "cache_dir", rep->dir);
	json_bool(j, "dry_run", ctx->dry_run);
	json_int(j, "freed_bytes", (long long)rep->bytes);
	json_arr_begin(j, "files");
	for (size_t i = 0; i < rep->n; i++) {
		const struct clean_file *f = &rep->files[i];
		if (f->what != CLEAN_PACKAGE && f->what != CLEAN_PARTIAL)
			continue;
		json_obj_begin(j, NULL);
		json_str(j, "name", f->name);
		json_int(j, "size", (long long)f->size);
		json_bool(j, "partial", f->what == CLEAN_PARTIAL);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "left");
	for (size_t i = 0; i < rep->n; i++) {
		const struct clean_file *f = &rep->files[i];
		if (f->what != CLEAN_BUSY && f->what != CLEAN_OTHER)
			continue;
		json_obj_begin(j, NULL);
		json_str(j, "name", f->name);
		json_str(j, "reason", why_left(f));
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
	json_finish(j);
}

static void show_text(struct wd_ctx *ctx, const struct clean_report *rep)
{
	char size[64];
	for (size_t i = 0; i < rep->n; i++) {
		const struct clean_file *f = &rep->files[i];
		if (f->what == CLEAN_BUSY || f->what == CLEAN_OTHER)
			ui_warn(ctx, "%s/%s: %s: left as it is%s\n", ui_esc(rep->dir), ui_esc(f->name),
				why_left(f), f->what == CLEAN_OTHER ? " (warpdrv does not follow it; "
				"remove it by hand)" : "");
		else if (ctx->dry_run || ctx->verbose) {
			human(f->size, size, sizeof size);
			ui_say(ctx, "  %s %s%s, %s\n", ctx->dry_run ? "would remove" : "removed",
			       ui_esc(f->name), f->what == CLEAN_PARTIAL ? " (a partial download)" : "",
			       size);
		}
	}
	human(rep->bytes, size, sizeof size);
	if (!rep->removed && !rep->left)
		ui_say(ctx, "The download cache is empty (%s): nothing to free.\n", ui_esc(rep->dir));
	else if (ctx->dry_run)
		ui_say(ctx, "Would remove %zu file%s from %s, freeing %s (--dry-run: nothing "
		       "removed).\n", rep->removed, rep->removed == 1 ? "" : "s", ui_esc(rep->dir), size);
	else
		ui_say(ctx, "Removed %zu file%s from %s: freed %s.\n", rep->removed,
		       rep->removed == 1 ? "" : "s", ui_esc(rep->dir), size);
}

int cmd_clean(struct wd_ctx *ctx, int argc, char **argv)
{
	(void)argv;
	if (argc > 0)
		return ui_usage(ctx, "clean: takes no arguments");
	struct wd_err err = {0};
	struct volume *v;
	struct clean_report rep = {0};
	int r = session_volume(ctx->s, &v, &err);
	if (r)
		return ui_fail(ctx, r, &err);
	if (!(r = cache_clean(v, ctx->dry_run, &rep, &err))) {
		if (ctx->json)
			show_json(ctx, &rep);
		else
			show_text(ctx, &rep);
	}
	clean_report_free(&rep);
	return r ? ui_fail(ctx, r, &err) : 0;
}
