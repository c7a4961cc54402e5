/* The commands of both programs; each lives in ui/cmd_<name>.c. */
#ifndef WD_COMMANDS_H
#define WD_COMMANDS_H

#include "ui/ui.h"

int ui_main(int argc, char **argv, const char *prog, const struct wd_cmd *cmds,
	    const char *synopsis);

int cmd_detect(struct wd_ctx *ctx, int argc, char **argv);
int cmd_setup(struct wd_ctx *ctx, int argc, char **argv);
int cmd_rollback(struct wd_ctx *ctx, int argc, char **argv);
/* configure acpi --off (ui/cmd_configure_off.c) */
int cmd_configure_acpi_off(struct wd_ctx *ctx, int argc, char **argv);
/* rollback --packages (ui/cmd_undo.c) */
int cmd_rollback_packages(struct wd_ctx *ctx, int argc, char **argv);

int cmd_activate(struct wd_ctx *ctx, int argc, char **argv);
int cmd_license(struct wd_ctx *ctx, int argc, char **argv);
int cmd_deactivate(struct wd_ctx *ctx, int argc, char **argv);
int cmd_issue(struct wd_ctx *ctx, int argc, char **argv);
extern const char cmd_bench_help[];
int cmd_list(struct wd_ctx *ctx, int argc, char **argv);
int cmd_search(struct wd_ctx *ctx, int argc, char **argv);
int cmd_info(struct wd_ctx *ctx, int argc, char **argv);
int cmd_install(struct wd_ctx *ctx, int argc, char **argv);
int cmd_upgrade(struct wd_ctx *ctx, int argc, char **argv);
int cmd_hold(struct wd_ctx *ctx, int argc, char **argv);
int cmd_unhold(struct wd_ctx *ctx, int argc, char **argv);
int cmd_owns(struct wd_ctx *ctx, int argc, char **argv);
int cmd_remove(struct wd_ctx *ctx, int argc, char **argv);
int cmd_verify(struct wd_ctx *ctx, int argc, char **argv);
int cmd_reinstall(struct wd_ctx *ctx, int argc, char **argv);
/* verify --fix [PKG] (ui/cmd_reinstall.c) */
int cmd_verify_fix(struct wd_ctx *ctx, const char *pkg);
int cmd_recover(struct wd_ctx *ctx, int argc, char **argv);
int cmd_clean(struct wd_ctx *ctx, int argc, char **argv);
int cmd_history(struct wd_ctx *ctx, int argc, char **argv);
int cmd_admin_keygen(struct wd_ctx *ctx, int argc, char **argv);
int cmd_admin_pack(struct wd_ctx *ctx, int argc, char **argv);
int cmd_admin_index(struct wd_ctx *ctx, int argc, char **argv);
int cmd_admin_verify(struct wd_ctx *ctx, int argc, char **argv);
int cmd_check(struct wd_ctx *ctx, int argc, char **argv);
int cmd_update(struct wd_ctx *ctx, int argc, char **argv);

/* The options of each command, and the subcommands of those that have them
 * (beside the command, in its file). */
extern const struct wd_opt cmd_setup_opts[], cmd_list_opts[], cmd_recover_opts[],
	cmd_activate_opts[], cmd_issue_opts[], cmd_keygen_opts[], cmd_pack_opts[],
	cmd_index_opts[], cmd_verify_opts[], cmd_rollback_opts[];
extern const struct wd_cmd cmd_configure_subs[], cmd_repo_subs[], cmd_bench_subs[];


#endif
