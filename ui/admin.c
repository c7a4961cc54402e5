/* warpdrv-admin: the vendor's program (keys, packing, indexes, subscriptions). */
#include "trust/keys.h"
#include "ui/commands.h"
#include "ui/interrupt.h"

static const struct wd_cmd commands[] = {
	{.name = "issue", .run = cmd_issue,
	 .args = "--key LICENSE.key --customer N --entitlements LIST --expires DATE",
	 .summary = "print a subscription key signed by a licence key",
	 .help = "Options: --key FILE (the licence private key), --customer N, --entitlements\n"
	 "drivers,acpi, --expires YYYY-MM-DD, --issued YYYY-MM-DD (default today),\n"
	 "--seats N (installations, default 1). The key goes to stdout, its id to stderr.\n",
	 .opts = cmd_issue_opts, .args_size = sizeof(struct issue_args)},
	{.name = "keygen", .run = cmd_admin_keygen, .args = "--out PREFIX", .summary = "make an Ed25519 key pair (PREFIX.key, PREFIX.pub)",
	 .opts = cmd_keygen_opts, .args_size = sizeof(struct keygen_args)},
	{.name = "pack", .run = cmd_admin_pack, .args = "RECIPE_DIR --key KEY --out FILE.wdp", .summary = "pack and sign a package", .opts = cmd_pack_opts, .args_size = sizeof(struct pack_args)},
	{.name = "index", .run = cmd_admin_index, .args = "REPO_DIR --key KEY", .summary = "sign the index of a repository folder", .opts = cmd_index_opts, .args_size = sizeof(struct index_args)},
	{.name = "verify", .run = cmd_admin_verify, .args = "FILE --keys DIR", .summary = "check a package's or an index's signature"},
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
