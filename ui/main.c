/* warpdrv: the user's program. */
#include "ui/commands.h"

static const struct wd_cmd commands[] = {
	{"detect", cmd_detect, "",
	 "PCI devices, the VirtualBox NIC models, the driver each would get",
	 "Reads the PCI devices (--pci SOURCE: sysfs, sysfs:DIR, lspci:FILE, vbox:FILE),\n"
	 "names them from the PCI ID database (--pci-ids FILE), tells whether this is a\n"
	 "VirtualBox guest and which VirtualBox NIC model each network controller is.\n"},
	{0},
};

int main(int argc, char **argv)
{
	return ui_main(argc, argv, "warpdrv", commands,
		       "Usage: warpdrv [OPTIONS] COMMAND [ARGS]\n\n"
		       "Installs and configures OS/2 driver packages (NIC drivers, the ACPI PSD)\n"
		       "on an OS/2 boot volume, and manages the subscription that entitles them.");
}
