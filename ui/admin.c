/* warpdrv-admin: the vendor's program (keys, packing, indexes, subscriptions). */
#include "ui/commands.h"

static const struct wd_cmd commands[] = {
	{"issue", cmd_issue,
	 "--key LICENSE.key --customer N --entitlements LIST --expires DATE",
	 "print a subscription key signed by a licence key",
	 "Options: --key FILE (the licence private key), --customer N, --entitlements\n"
	 "drivers,acpi, --expires YYYY-MM-DD, --issued YYYY-MM-DD (default today),\n"
	 "--seats N (installations, default 1). The key goes to stdout, its id to stderr.\n"},
	{0},
};

int main(int argc, char **argv)
{
	return ui_main(argc, argv, "warpdrv-admin", commands,
		       "Usage: warpdrv-admin [OPTIONS] COMMAND [ARGS]\n\n"
		       "The vendor's side of warpdrv: signing keys, packages, repository\n"
		       "indexes and subscription keys.");
}
