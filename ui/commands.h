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

/* Each command's argument struct: its options, bound to these fields by
 * its table (ui/ui.h's WD_OPT_*), read with UI_ARGS. */
struct setup_args {
	const char *section, *frame;
	bool switch_nic;
};
struct configure_nic_args {
	const char *driver, *slot, *section, *frame;
	bool off;
};
struct configure_acpi_args {
	bool off;
};
struct rollback_args {
	bool packages;
};
struct list_args {
	bool installed, upgradable;
};
struct verify_args {
	bool fix;
};
struct recover_args {
	bool abandon;
};
struct activate_args {
	const char *file;
};
struct repo_add_args {
	struct wd_optlist mirror;
	bool subscription;
};
/* bench server, client, import and report share theirs */
struct bench_args {
	const char *db, *label, *bind, *port, *seconds, *block, *rounds, *labels, *svg, *runs;
	bool tcp, udp;
};
/* warpdrv-admin's */
struct issue_args {
	const char *key, *customer, *entitlements, *expires, *issued, *seats;
	struct wd_optlist repo;
};
struct keygen_args {
	const char *out;
};
struct pack_args {
	const char *key, *out, *vendor_files;
};
struct index_args {
	const char *key, *serial, *expires;
	struct wd_optlist revoke, mirror;
};
/* verify --fix: the command writes (ui/ui.h's writes_if) */
bool cmd_verify_writes(const struct wd_ctx *ctx);
/* setup --switch-nic needs --vm: said before the volume opens */
int cmd_setup_check(struct wd_ctx *ctx);

/* The options of each command, and the subcommands of those that have them
 * (beside the command, in its file). */
extern const struct wd_opt cmd_setup_opts[], cmd_list_opts[], cmd_recover_opts[],
	cmd_activate_opts[], cmd_issue_opts[], cmd_keygen_opts[], cmd_pack_opts[],
	cmd_index_opts[], cmd_verify_opts[], cmd_rollback_opts[];
extern const struct wd_cmd cmd_configure_subs[], cmd_repo_subs[], cmd_bench_subs[];


#endif
