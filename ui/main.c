/* warpdrv: the user's program. */
#include "ui/commands.h"

static const struct wd_cmd commands[] = {
	{"check", cmd_check, "", "findings about CONFIG.SYS and PROTOCOL.INI on the volume",
	 "Reads CONFIG.SYS, IBMCOM\\PROTOCOL.INI and the NIFs in IBMCOM\\MACS and reports\n"
	 "each problem with its file, line, severity and a stable code. Writes nothing.\n"
	 "Exit status 0 when there is no error, 1 when there is one.\n"},
	{0},
};

int main(int argc, char **argv)
{
	return ui_main(argc, argv, "warpdrv", commands,
		       "Usage: warpdrv [OPTIONS] COMMAND [ARGS]\n\n"
		       "Installs and configures OS/2 driver packages (NIC drivers, the ACPI PSD)\n"
		       "on an OS/2 boot volume, and manages the subscription that entitles them.");
}
