/* warpdrv: the user's program. */
#include "ui/commands.h"
#include "ui/interrupt.h"

static const struct wd_cmd commands[] = {
	/* the main job */
	{.name = "detect", .run = cmd_detect, .args = "",
	 .summary = "PCI devices, the VirtualBox NIC models, the driver each would get",
	 .help = "Reads the PCI devices (--pci SOURCE: sysfs, sysfs:DIR, lspci:FILE, vbox:FILE;\n"
	 "vbox: reads VBoxManage's machine-readable output or the VM's .vbox file),\n"
	 "names them from the PCI ID database (--pci-ids FILE), tells whether this is a\n"
	 "VirtualBox guest, which VirtualBox NIC model each network controller is, and\n"
	 "the driver package each would get (with --root, under the volume's subscription).\n",
	 .db = CMD_DB_READ},
	{.name = "setup", .run = cmd_setup, .args = "[--section NAME] [--frame FRAME]",
	 .summary = "detect, then configure the NIC and the ACPI PSD in one step",
	 .help = "Plans the NIC and ACPI changes, shows them and one unified diff of CONFIG.SYS\n"
	 "and PROTOCOL.INI, asks (--yes does not ask; with no terminal and no --yes it\n"
	 "refuses), then installs the packages and rewrites both files in one transaction,\n"
	 "recorded as a generation that 'warpdrv rollback' undoes. --dry-run writes nothing.\n"
	 "Every plan is checked with the boot model check uses before anything is written;\n"
	 "where the old adapter's section cannot be told for sure, --section NAME says it.\n",
	 .opts = cmd_setup_opts, .args_size = sizeof(struct setup_args),
	 .check = cmd_setup_check,
	 .db = CMD_DB_RECOVER, .writes = true, .asks = true},
	{.name = "configure", .args = "nic [--driver NAME] [--slot SLOT] [--section NAME] | acpi",
	 .summary = "configure the NIC driver, or the ACPI PSD", .subs = cmd_configure_subs},
	{.name = "check", .run = cmd_check, .args = "", .summary = "findings about CONFIG.SYS and PROTOCOL.INI on the volume",
	 .help = "Reads CONFIG.SYS, the PROTOCOL.INI that PROTMAN reads (its /I: followed) and the\n"
	 "NIFs in IBMCOM\\MACS, works out what the guest will do at boot, and reports each\n"
	 "problem with its file, line, severity and a stable code; an error only where the\n"
	 "guest is sure to fail, a warning where a fact could not be verified. Writes nothing.\n"
	 "Exit status 0 when there is no error, 1 when there is one.\n",
	 .db = CMD_DB_READ},
	{.name = "history", .run = cmd_history, .args = "",
	 .summary = "configuration generations, and what was installed and removed",
	 .db = CMD_DB_READ},
	{.name = "rollback", .run = cmd_rollback, .args = "[--packages] [GEN]",
	 .summary = "put CONFIG.SYS and PROTOCOL.INI back as they were before generation GEN",
	 .help = "GEN defaults to the last generation. The rollback is a generation too; packages\n"
	 "stay installed, unless --packages: then the packages generations GEN and later\n"
	 "installed are removed too (the originals they replaced put back), in the same\n"
	 "transaction. Shows the diff and asks (--yes does not ask; with no terminal\n"
	 "and no --yes it refuses); --dry-run writes nothing.\n", .opts = cmd_rollback_opts, .args_size = sizeof(struct rollback_args),
	 .db = CMD_DB_RECOVER, .writes = true, .asks = true},
	/* packages */
	{.name = "list", .run = cmd_list, .args = "[--installed|--upgradable] [PATTERN]",
	 .summary = "the packages on offer, or those installed, or those with a newer version",
	 .help = "Each package once, at the newest version any repository offers, with the\n"
	 "version installed on the volume (--root) and where a newer one comes from;\n"
	 "held packages say so. --installed: what the volume has. --upgradable: the\n"
	 "installed packages a newer version of which is on offer. PATTERN: only the\n"
	 "names it matches, a glob ('e*', 'pcnt?d'; quote it from the shell); case is\n"
	 "ignored. Exit 1 when PATTERN matches none. In name order; stdout is the listing\n"
	 "alone (-v with --root: the download cache's size, on stderr).\n", .opts = cmd_list_opts, .args_size = sizeof(struct list_args),
	 .db = CMD_DB_READ},
	{.name = "search", .run = cmd_search, .args = "TERM", .summary = "the packages whose name or summary has TERM",
	 .help = "Looks in every repository (as list does, each package once at its newest\n"
	 "version); case is ignored. Exit 1 when none has it.\n",
	 .db = CMD_DB_READ},
	{.name = "info", .run = cmd_info, .args = "PKG|FILE.wdp...", .summary = "packages' versions, devices and files",
	 .help = "Names are matched whatever their case (PCNTND is pcntnd). The devices are\n"
	 "condensed: the VirtualBox NIC models the package drives, then the PCI device\n"
	 "ids by vendor and rank. With several packages, --json gives {\"packages\": [...]}.\n",
	 .db = CMD_DB_READ},
	{.name = "install", .run = cmd_install, .args = "PKG|PKG=VERSION|FILE.wdp...", .summary = "install packages on the volume",
	 .help = "An installed package at another version is upgraded in place, in one transaction;\n"
	 "an older version (a downgrade) must be named as PKG=VERSION, and is shown and asked\n"
	 "first (--yes does not ask; with no terminal and no --yes it refuses).\n",
	 .db = CMD_DB_PLAIN, .writes = true, .asks = true},
	{.name = "upgrade", .run = cmd_upgrade, .args = "[PKG...]", .summary = "upgrade installed packages to the newest allowed",
	 .help = "For each installed package (or each named), the newest version any repository\n"
	 "offers that the subscription allows: a package that needs an entitlement only\n"
	 "in versions released on or before the key's expiry (what a renewal would add is\n"
	 "said). One transaction replaces the old files with the new; files a package\n"
	 "replaced from the OS stay kept. Shows the plan and asks before downloading\n"
	 "anything (--yes does not ask; with no terminal and no --yes it refuses);\n"
	 "--dry-run downloads and writes nothing. Held packages stay. Nothing to\n"
	 "upgrade is exit 0.\n",
	 .db = CMD_DB_RECOVER, .writes = true, .asks = true},
	{.name = "hold", .run = cmd_hold, .args = "PKG...", .summary = "keep installed packages at their version (upgrade skips them)",
	 .db = CMD_DB_PLAIN, .writes = true},
	{.name = "unhold", .run = cmd_unhold, .args = "PKG...", .summary = "let held packages upgrade again",
	 .db = CMD_DB_PLAIN, .writes = true},
	{.name = "owns", .run = cmd_owns, .args = "FILE", .summary = "which installed package put FILE on the volume",
	 .help = "FILE is an OS/2 path (C:\\IBMCOM\\MACS\\MMLEM.OS2 or \\IBMCOM\\MACS\\MMLEM.OS2) or a\n"
	 "host path below the volume's root. Exit 1 when no package installed it.\n",
	 .db = CMD_DB_READ},
	{.name = "remove", .run = cmd_remove, .args = "PKG...", .summary = "remove packages, putting back the files they replaced",
	 .help = "Shows the plan and asks (--yes does not ask; with no terminal and no --yes it\n"
	 "refuses); --dry-run writes nothing.\n",
	 .db = CMD_DB_RECOVER, .writes = true, .asks = true},
	{.name = "verify", .run = cmd_verify, .args = "[--fix] [PKG]", .summary = "check installed files and the database",
	 .help = "Each installed file's size and SHA-256 against what was installed, and the\n"
	 "database's integrity; exit 3 on a difference. --fix reinstalls the packages\n"
	 "whose files differ (as 'warpdrv reinstall' does) and checks them again.\n",
	 .opts = cmd_verify_opts, .args_size = sizeof(struct verify_args),
	 .db = CMD_DB_READ, .writes_if = cmd_verify_writes},
	{.name = "reinstall", .run = cmd_reinstall, .args = "PKG...", .summary = "put an installed package's files back from the package",
	 .help = "The installed version of each package, read again from its repository (its\n"
	 "signature checked), rewrites every file of it in one transaction, also files\n"
	 "CONFIG.SYS loads (the guest is off while warpdrv writes); the originals the\n"
	 "first install kept stay kept; CONFIG.SYS and PROTOCOL.INI are not touched.\n"
	 "Does not ask, as install does not; --dry-run shows the plan.\n",
	 .db = CMD_DB_RECOVER, .writes = true},
	{.name = "recover", .run = cmd_recover, .args = "[--abandon]", .summary = "finish or undo what an interrupted run left",
	 .help = "Every command that writes does this first; --abandon forgets an interrupted\n"
	 "transaction that cannot be finished (a file it needs was removed by hand),\n"
	 "leaving every file as it is (docs/recovery.md tells what it keeps and loses).\n",
	 .opts = cmd_recover_opts, .args_size = sizeof(struct recover_args),
	 .db = CMD_DB_PLAIN, .writes = true},
	/* the subscription */
	{.name = "activate", .run = cmd_activate, .args = "KEY | --file F", .summary = "activate a subscription key (- for stdin)",
	 .help = "Checks the key against the trusted licence keys and stores it on the volume;\n"
	 "a new key replaces the old one, which stays in the history (asked first: --yes\n"
	 "does not ask; with no terminal and no --yes it refuses). An expired key is\n"
	 "stored with a warning: it still covers packages released before it expired.\n"
	 "With --dry-run the key is checked and nothing is stored.\n", .opts = cmd_activate_opts, .args_size = sizeof(struct activate_args),
	 .db = CMD_DB_CREATE, .writes = true, .asks = true},
	{.name = "license", .run = cmd_license, .args = "", .summary = "show the subscription: state, entitlements, expiry",
	 .help = "States: none, active, expired, revoked, clock (the date is behind one already\n"
	 "seen). Exits 0 when active, 4 otherwise. Never shows the key itself.\n",
	 .db = CMD_DB_READ},
	{.name = "deactivate", .run = cmd_deactivate, .args = "", .summary = "deactivate the subscription key (kept in the history)",
	 .db = CMD_DB_PLAIN, .writes = true},
	/* repositories */
	{.name = "repo", .args = "add NAME URL|list|remove NAME", .summary = "the remote repositories of the volume", .subs = cmd_repo_subs},
	{.name = "update", .run = cmd_update, .args = "", .summary = "refresh the catalog from the remote repositories",
	 .help = "Fetches each repository's signed index (mirrors in order), refuses an older\n"
	 "serial than the one held or an expired index, records revoked keys, then\n"
	 "replaces the stored catalog. A failed repository keeps its previous catalog.\n",
	 .db = CMD_DB_PLAIN, .writes = true},
	{.name = "clean", .run = cmd_clean, .args = "", .summary = "remove the downloaded packages from the volume's cache",
	 .help = "Removes what var/cache/warpdrv/packages holds (downloads and partial ones) and\n"
	 "says how much it freed; --dry-run says what it would free. A link or folder in\n"
	 "the cache is left and named, never followed; a download under way is left.\n",
	 .db = CMD_DB_NONE, .writes = true},
	/* measuring */
	{.name = "bench", .args = "server|client|import|report ...",
	 .summary = "netio-compatible throughput test and before/after table", .help = cmd_bench_help,
	 .subs = cmd_bench_subs},
	{0},
};

int main(int argc, char **argv)
{
	ui_catch_signals("warpdrv", "; no transaction was under way, so no change is left half made");
	return ui_main(argc, argv, "warpdrv", commands,
		       "Usage: warpdrv [OPTIONS] COMMAND [ARGS]\n\n"
		       "Installs and configures OS/2 driver packages (NIC drivers, the ACPI PSD)\n"
		       "on an OS/2 boot volume, and manages the subscription that entitles them.");
}
