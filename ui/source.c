/* The volume's source on the command line (ui/source.h). */
#include "ui/source.h"

#include <string.h>

#include "common/buf.h"
#include "session/session.h"

int ui_source_check(struct wd_ctx *ctx, const char *env_root)
{
	/* before any volume opens: a disk image's costs an appliance start */
	if (ctx->disk && ctx->root && ctx->root != env_root)
		return ui_usage(ctx, "--root and --disk are two volumes; name one");
	if (ctx->vm && ((ctx->root && ctx->root != env_root) || ctx->disk))
		return ui_usage(ctx, "--vm names the machine's own disk; leave out --%s",
				ctx->disk ? "disk" : "root");
	if (ctx->disk || ctx->vm)
		ctx->root = NULL; /* WARPDRV_ROOT stands for the folder not named */
	if (!ctx->disk && !ctx->vm && ctx->partition)
		return ui_usage(ctx, "--partition names a partition of --disk IMAGE or --vm MACHINE");
	if (!ctx->disk && ctx->disk_format)
		return ui_usage(ctx, "--disk-format is the format of --disk IMAGE");
	static const char *const formats[] = {"vdi", "vmdk", "vpc", "vhdx", "qcow2", "raw", NULL};
	if (ctx->disk_format) {
		for (int i = 0; formats[i]; i++)
			if (!strcmp(ctx->disk_format, formats[i]))
				return 0;
		return ui_usage(ctx, "--disk-format %s: one of vdi, vmdk, vpc (VHD), vhdx, qcow2, raw",
				ui_esc(ctx->disk_format));
	}
	return 0;
}

int ui_source_open(struct wd_ctx *ctx)
{
	if (!ctx->vm)
		return 0;
	const struct vbox_machine *m;
	struct wd_err err = {0};
	int r = session_machine(ctx->s, &m, &err);
	if (r)
		return ui_fail(ctx, r, &err);
	if (!ctx->pci)
		ctx->pci = ctx->pci_vm = wd_xasprintf("vbox:%s", m->file);
	return 0;
}

int ui_unswitch_nic(struct wd_ctx *ctx, long gen, struct wd_err *err)
{
	struct vbox_switch done;
	int r = session_unswitch_nic(ctx->s, gen, &done, err);
	for (int i = 0; !r && i < done.n; i++)
		ui_say(ctx, "The machine's adapter %d is an %s again, as before setup --switch-nic.\n",
		       done.slots[i] + 1, ui_esc(done.types[i]));
	return r;
}

bool ui_volume_given(const struct wd_ctx *ctx)
{
	return ctx->root || ctx->disk || ctx->vm;
}

/* A command that does not write reads the volume only (its table entry,
 * ui/ui.h: writes, writes_if); so does every command under --dry-run. */
bool ui_cmd_reads_only(const struct wd_ctx *ctx)
{
	const struct wd_cmd *c = ctx->cmd;
	if (ctx->dry_run || !c)
		return true;
	return !c->writes && !(c->writes_if && c->writes_if(ctx));
}
