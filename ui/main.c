/* warpdrv: the user's program. */
#include "ui/commands.h"
#include "ui/interrupt.h"

static const struct wd_cmd commands[] = {
	/* the main job */
	{"detect", cmd_detect, "",
	 "PCI devices, the VirtualBox NIC models, the driver each would get",
	 "Reads the PCI devices (--pci SOURCE: sysfs, sysfs:DIR, lspci:FILE, vbox:FILE;\n"
	 "vbox: reads VBoxManage's machine-readable output or the VM's .vbox file),\n"
	 "names them from the PCI ID database (--pci-ids FILE), tells whether this is a\n"
	 "VirtualBox guest, which VirtualBox NIC model each network controller is, and\n"
	 "the driver package each would get (with --root, under the volume's subscription).\n", NULL, NULL},
	{"setup", cmd_setup, "[--section NAME] [--frame FRAME]",
	 "detect, then configure the NIC and the ACPI PSD in one step",
	 "Plans the NIC and ACPI changes, shows them and one unified diff of CONFIG.SYS\n"
	 "and PROTOCOL.INI, asks (--yes does not ask; with no terminal and no --yes it\n"
	 "refuses), then installs the packages and rewrites both files in one transaction,\n"
	 "recorded as a generation that 'warpdrv rollback' undoes. --dry-run writes nothing.\n"
	 "Every plan is checked with the boot model check uses before anything is written;\n"
	 "where the old adapter's section cannot be told for sure, --section NAME says it.\n",
	 cmd_setup_opts, NULL},
	{"configure", NULL, "nic [--driver NAME] [--slot SLOT] [--section NAME] | acpi",
	 "configure the NIC driver, or the ACPI PSD", NULL, NULL, cmd_configure_subs},
	{"check", cmd_check, "", "findings about CONFIG.SYS and PROTOCOL.INI on the volume",
	 "Reads CONFIG.SYS, the PROTOCOL.INI that PROTMAN reads (its /I: followed) and the\n"
	 "NIFs in IBMCOM\\MACS, works out what the guest will do at boot, and reports each\n"
	 "problem with its file, line, severity and a stable code; an error only where the\n"
	 "guest is sure to fail, a warning where a fact could not be verified. Writes nothing.\n"
	 "Exit status 0 when there is no error, 1 when there is one.\n", NULL, NULL},
	{"history", cmd_history, "",
	 "configuration generations, and what was installed and removed", NULL, NULL, NULL},
	{"rollback", cmd_rollback, "[--packages] [GEN]",
	 "put CONFIG.SYS and PROTOCOL.INI back as they were before generation GEN",
	 "GEN defaults to the last generation. The rollback is a generation too; packages\n"
	 "stay installed, unless --packages: then the packages generations GEN and later\n"
	 "installed are removed too (the originals they replaced put back), in the same\n"
	 "transaction. Shows the diff and asks (--yes does not ask; with no terminal\n"
	 "and no --yes it refuses); --dry-run writes nothing.\n", cmd_rollback_opts, NULL},
	/* packages */
	{"list", cmd_list, "[--installed|--upgradable] [PATTERN]",
	 "the packages on offer, or those installed, or those with a newer version",
	 "Each package once, at the newest version any repository offers, with the\n"
	 "version installed on the volume (--root) and where a newer one comes from;\n"
	 "held packages say so. --installed: what the volume has. --upgradable: the\n"
	 "installed packages a newer version of which is on offer. PATTERN: only the\n"
	 "names it matches, a glob ('e*', 'pcnt?d'; quote it from the shell); case is\n"
	 "ignored. Exit 1 when PATTERN matches none. In name order; stdout is the listing\n"
	 "alone (-v with --root: the download cache's size, on stderr).\n", cmd_list_opts, NULL},
	{"search", cmd_search, "TERM", "the packages whose name or summary has TERM",
	 "Looks in every repository (as list does, each package once at its newest\n"
	 "version); case is ignored. Exit 1 when none has it.\n", NULL, NULL},
	{"info", cmd_info, "PKG|FILE.wdp...", "packages' versions, devices and files",
	 "Names are matched whatever their case (PCNTND is pcntnd). The devices are\n"
	 "condensed: the VirtualBox NIC models the package drives, then the PCI device\n"
	 "ids by vendor and rank. With several packages, --json gives {\"packages\": [...]}.\n", NULL, NULL},
	{"install", cmd_install, "PKG|PKG=VERSION|FILE.wdp...", "install packages on the volume",
	 "An installed package at another version is upgraded in place, in one transaction;\n"
	 "an older version (a downgrade) must be named as PKG=VERSION, and is shown and asked\n"
	 "first (--yes does not ask; with no terminal and no --yes it refuses).\n", NULL, NULL},
	{"upgrade", cmd_upgrade, "[PKG...]", "upgrade installed packages to the newest allowed",
	 "For each installed package (or each named), the newest version any repository\n"
	 "offers that the subscription allows: a package that needs an entitlement only\n"
	 "in versions released on or before the key's expiry (what a renewal would add is\n"
	 "said). One transaction replaces the old files with the new; files a package\n"
	 "replaced from the OS stay kept. Shows the plan and asks before downloading\n"
	 "anything (--yes does not ask; with no terminal and no --yes it refuses);\n"
	 "--dry-run downloads and writes nothing. Held packages stay. Nothing to\n"
	 "upgrade is exit 0.\n", NULL, NULL},
	{"hold", cmd_hold, "PKG...", "keep installed packages at their version (upgrade skips them)",
	 NULL, NULL, NULL},
	{"unhold", cmd_unhold, "PKG...", "let held packages upgrade again", NULL, NULL, NULL},
	{"owns", cmd_owns, "FILE", "which installed package put FILE on the volume",
	 "FILE is an OS/2 path (C:\\IBMCOM\\MACS\\MMLEM.OS2 or \\IBMCOM\\MACS\\MMLEM.OS2) or a\n"
	 "host path below the volume's root. Exit 1 when no package installed it.\n", NULL, NULL},
	{"remove", cmd_remove, "PKG...", "remove packages, putting back the files they replaced",
	 "Shows the plan and asks (--yes does not ask; with no terminal and no --yes it\n"
	 "refuses); --dry-run writes nothing.\n", NULL, NULL},
	{"verify", cmd_verify, "[--fix] [PKG]", "check installed files and the database",
	 "Each installed file's size and SHA-256 against what was installed, and the\n"
	 "database's integrity; exit 3 on a difference. --fix reinstalls the packages\n"
	 "whose files differ (as 'warpdrv reinstall' does) and checks them again.\n",
	 cmd_verify_opts, NULL},
	{"reinstall", cmd_reinstall, "PKG...", "put an installed package's files back from the package",
	 "The installed version of each package, read again from its repository (its\n"
	 "signature checked), rewrites every file of it in one transaction, also files\n"
	 "CONFIG.SYS loads (the guest is off while warpdrv writes); the originals the\n"
	 "first install kept stay kept; CONFIG.SYS and PROTOCOL.INI are not touched.\n"
	 "Does not ask, as install does not; --dry-run shows the plan.\n", NULL, NULL},
	{"recover", cmd_recover, "[--abandon]", "finish or undo what an interrupted run left",
	 "Every command that writes does this first; --abandon forgets an interrupted\n"
	 "transaction that cannot be finished (a file it needs was removed by hand),\n"
	 "leaving every file as it is (docs/recovery.md tells what it keeps and loses).\n",
	 cmd_recover_opts, NULL},
	/* the subscription */
	{"activate", cmd_activate, "KEY | --file F", "activate a subscription key (- for stdin)",
	 "Checks the key against the trusted licence keys and stores it on the volume;\n"
	 "a new key replaces the old one, which stays in the history (asked first: --yes\n"
	 "does not ask; with no terminal and no --yes it refuses). An expired key is\n"
	 "stored with a warning: it still covers packages released before it expired.\n"
	 "With --dry-run the key is checked and nothing is stored.\n", cmd_activate_opts, NULL},
	{"license", cmd_license, "", "show the subscription: state, entitlements, expiry",
	 "States: none, active, expired, revoked, clock (the date is behind one already\n"
	 "seen). Exits 0 when active, 4 otherwise. Never shows the key itself.\n", NULL, NULL},
	{"deactivate", cmd_deactivate, "", "deactivate the subscription key (kept in the history)",
	 NULL, NULL, NULL},
	/* repositories */
	{"repo", NULL, "add NAME URL|list|remove NAME", "the remote repositories of the volume",
	 NULL, NULL, cmd_repo_subs},
	{"update", cmd_update, "", "refresh the catalog from the remote repositories",
	 "Fetches each repository's signed index (mirrors in order), refuses an older\n"
	 "serial than the one held or an expired index, records revoked keys, then\n"
	 "replaces the stored catalog. A failed repository keeps its previous catalog.\n", NULL, NULL},
	{"clean", cmd_clean, "", "remove the downloaded packages from the volume's cache",
	 "Removes what var/cache/warpdrv/packages holds (downloads and partial ones) and\n"
	 "says how much it freed; --dry-run says what it would free. A link or folder in\n"
	 "the cache is left and named, never followed; a download under way is left.\n",
	 NULL, NULL},
	/* measuring */
	{"bench", NULL, "server|client|import|report ...",
	 "netio-compatible throughput test and before/after table", cmd_bench_help, NULL,
	 cmd_bench_subs},
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
