/* The commands of both programs; each lives in ui/cmd_<name>.c. */
#ifndef WD_COMMANDS_H
#define WD_COMMANDS_H

#include "ui/ui.h"

int ui_main(int argc, char **argv, const char *prog, const struct wd_cmd *cmds,
	    const char *synopsis);

int cmd_check(struct wd_ctx *ctx, int argc, char **argv);


#endif
