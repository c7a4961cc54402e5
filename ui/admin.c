/* warpdrv-admin: the vendor's program (keys, packing, indexes, subscriptions). */
#include "trust/keys.h"
#include "ui/commands.h"
#include "ui/interrupt.h"

static const struct wd_cmd commands[] = {
	{"issue", cmd_issue,
	 "--key LICENSE.key --customer N --entitlements LIST --expires DATE",
	 "print a subscription key signed by a licence key",
	 "Options: --key FILE (the licence private key), --customer N, --entitlements\n"
	 "drivers,acpi, --expires YYYY-MM-DD, --issued YYYY-MM-DD (default today),\n"
	 "--seats N (installations, default 1). The key goes to stdout, its id to stderr.\n",
	 cmd_issue_opts, NULL},
	{"keygen", cmd_admin_keygen, "--out PREFIX", "make an Ed25519 key pair (PREFIX.key, PREFIX.pub)", NULL,
	 cmd_keygen_opts, NULL},
	{"pack", cmd_admin_pack, "RECIPE_DIR --key KEY --out FILE.wdp", "pack and sign a package",
	 NULL, cmd_pack_opts, NULL},
	{"index", cmd_admin_index, "REPO_DIR --key KEY", "sign the index of a repository folder",
	 NULL, cmd_index_opts, NULL},
	{"verify", cmd_admin_verify, "FILE --keys DIR", "check a package's or an index's signature", NULL, NULL, NULL},
	{0},
};

int main(int argc, char **argv)
{
	ui_catch_signals("warpdrv-admin", "");
	key_crypto_legacy_names(); /* the vendor's private keys, however encrypted */
	return ui_main(argc, argv, "warpdrv-admin", commands,
		       "Usage: warpdrv-admin [OPTIONS] COMMAND [ARGS]\n\n"
		       "The vendor's side of warpdrv: signing keys, packages, repository\n"
		       "indexes and subscription keys.");
}
