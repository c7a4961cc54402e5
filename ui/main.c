/* warpdrv: the user's program. */
#include "ui/commands.h"

static const struct wd_cmd commands[] = {
	{"list", cmd_list, "[--installed]", "the packages on offer, or those installed", NULL},
	{"info", cmd_info, "PKG|FILE.wdp", "a package's version, devices and files", NULL},
	{"install", cmd_install, "PKG|FILE.wdp...", "install packages on the volume", NULL},
	{"remove", cmd_remove, "PKG...", "remove packages, putting back the files they replaced", NULL},
	{"verify", cmd_verify, "[PKG]", "check installed files and the database", NULL},
	{"history", cmd_history, "", "what was installed and removed, and when", NULL},
	{0},
};

int main(int argc, char **argv)
{
	return ui_main(argc, argv, "warpdrv", commands,
		       "Usage: warpdrv [OPTIONS] COMMAND [ARGS]\n\n"
		       "Installs and configures OS/2 driver packages (NIC drivers, the ACPI PSD)\n"
		       "on an OS/2 boot volume, and manages the subscription that entitles them.");
}
