/* warpdrv-admin: the vendor's program (keys, packing, indexes, subscriptions). */
#include "ui/commands.h"
#include "ui/interrupt.h"

static const struct wd_cmd commands[] = {
	{"issue", cmd_issue,
	 "--key LICENSE.key --customer N --entitlements LIST --expires DATE",
	 "print a subscription key signed by a licence key",
	 "Options: --key FILE (the licence private key), --customer N, --entitlements\n"
	 "drivers,acpi, --expires YYYY-MM-DD, --issued YYYY-MM-DD (default today),\n"
	 "--seats N (installations, default 1). The key goes to stdout, its id to stderr.\n"},
	{"keygen", cmd_admin_keygen, "--out PREFIX", "make an Ed25519 key pair (PREFIX.key, PREFIX.pub)", NULL},
	{"pack", cmd_admin_pack, "RECIPE_DIR --key KEY --out FILE.wdp", "pack and sign a package",
	 "  --vendor-files DIR   pack files found in DIR instead of the recipe's stand-ins\n"},
	{"index", cmd_admin_index, "REPO_DIR --key KEY", "sign the index of a repository folder",
	 "  --serial N           the serial (default: one more than the index there)\n"
	 "  --expires YYYY-MM-DD the expiry (default: a year from today)\n"
	 "  --revoke KEYID       list a revoked subscription key (repeatable)\n"
	 "  --mirror URL         list a mirror of the repository (repeatable): a subscription\n"
	 "                       repository's key is sent only to its own host and these\n"},
	{"verify", cmd_admin_verify, "FILE --keys DIR", "check a package's or an index's signature", NULL},
	{0},
};

int main(int argc, char **argv)
{
	ui_catch_signals("warpdrv-admin", "");
	return ui_main(argc, argv, "warpdrv-admin", commands,
		       "Usage: warpdrv-admin [OPTIONS] COMMAND [ARGS]\n\n"
		       "The vendor's side of warpdrv: signing keys, packages, repository\n"
		       "indexes and subscription keys.");
}
