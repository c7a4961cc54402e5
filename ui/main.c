/* warpdrv: the user's program. */
#include "ui/commands.h"

static const struct wd_cmd commands[] = {
	{"bench", cmd_bench, "server|client|import|report ...", "netio-compatible throughput test and before/after table", cmd_bench_help},
	{0},
};

int main(int argc, char **argv)
{
	return ui_main(argc, argv, "warpdrv", commands,
		       "Usage: warpdrv [OPTIONS] COMMAND [ARGS]\n\n"
		       "Installs and configures OS/2 driver packages (NIC drivers, the ACPI PSD)\n"
		       "on an OS/2 boot volume, and manages the subscription that entitles them.");
}
