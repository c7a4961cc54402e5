/* Global options and dispatch, shared by warpdrv and warpdrv-admin.
 * Global options may stand before or after the command; everything else
 * goes to the command in order. */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/file.h"
#include "common/hooks.h"
#include "ui/commands.h"

static const char global_help[] =
	"Global options:\n"
	"  --root DIR         the OS/2 boot volume (or WARPDRV_ROOT)\n"
	"  --pci SOURCE       sysfs (default), sysfs:DIR, lspci:FILE (- for stdin), vbox:FILE\n"
	"  --pci-ids FILE     the PCI ID database for device names\n"
	"  --repo URL         another repository for this run (repeatable)\n"
	"  --keys DIR         another folder of trusted keys (repo/*.pub, license/*.pub)\n"
	"  --boot-drive X:    the boot drive letter (default: from CONFIG.SYS)\n"
	"  --cacert FILE      trust this CA (PEM) for https repositories\n"
	"  --connect-timeout S  give up connecting after S seconds (default 15)\n"
	"  --speed-limit B, --speed-time S  abandon a download slower than B bytes/s\n"
	"                     for S seconds (default 1 byte/s for 30 s)\n"
	"  --max-time S       give up on any one transfer after S seconds (default 600)\n"
	"  --json             one JSON document on stdout\n"
	"  -n, --dry-run      show what would be done; write nothing\n"
	"  -y, --yes          do not ask\n"
	"  -q, --quiet        say less\n"
	"  -v, --verbose      say more\n"
	"  -h, --help         this help; COMMAND --help for a command\n"
	"  --version          the version\n";

static void print_help(const char *prog, const struct wd_cmd *cmds, const char *synopsis)
{
	printf("%s\n\nCommands:\n", synopsis);
	for (const struct wd_cmd *c = cmds; c->name; c++) {
		char left[96];
		snprintf(left, sizeof left, "%s %s", c->name, c->args ? c->args : "");
		if (strlen(left) > 26)
			printf("  %s\n  %-26s %s\n", left, "", c->summary);
		else
			printf("  %-26s %s\n", left, c->summary);
	}
	printf("\n%s\nExit status: 0 done, 1 failed (or interrupted by a signal), 2 usage error,\n"
	       "3 integrity or trust failure, 4 subscription problem, 5 no supported device\n"
	       "to configure.\n"
	       "See %s(1).\n",
	       global_help, prog);
}

static void print_cmd_help(const char *prog, const struct wd_cmd *c)
{
	printf("Usage: %s [OPTIONS] %s %s\n\n%s\n", prog, c->name, c->args ? c->args : "",
	       c->summary);
	if (c->help)
		printf("\n%s", c->help);
	printf("\nGlobal options: see '%s --help'.\n", prog);
}

static char *exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	return wd_dirname(buf);
}

/* The bundled keys folder, and whether the build marked its keys as the
 * development keys it made (Makefile: KEYS=DIR builds with a vendor's). */
static char *bundled_keys(const struct wd_ctx *ctx, bool *dev)
{
	char *dir = ui_data_dir(ctx, "keys");
	char *real = dir ? realpath(dir, NULL) : NULL; /* host: the program's own data */
	if (real) {
		free(dir);
		dir = real;
	}
	char *mark = dir ? wd_path_join(dir, "DEVELOPMENT") : NULL;
	*dev = mark && wd_exists(mark); /* host: the program's own data */
	free(mark);
	return dir;
}

void ui_warn_dev_keys(struct wd_ctx *ctx)
{
	/* The programs of the build folder (test hooks) are the developers' own. */
	static bool warned;
	bool dev;
	if (WD_TEST_HOOKS || warned)
		return;
	char *dir = bundled_keys(ctx, &dev);
	if (dev) {
		warned = true;
		ui_warn(ctx, "trusting the development keys in %s: anyone with the build folder can "
			"sign for them; a vendor's build is made with KEYS=DIR (see %s --version)\n",
			dir, ctx->prog);
	}
	free(dir);
}

static int parse_drive(const char *s, char *out)
{
	if (!s || !isalpha((unsigned char)s[0]) || (s[1] && (s[1] != ':' || s[2])))
		return -1;
	*out = (char)toupper((unsigned char)s[0]);
	return 0;
}

static int parse_count(const char *s, long max, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < 1 || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Returns 1 when argv[*i] was a global option (consumed), 0 when not, or
 * -code on a usage error. */
static int global_opt(struct wd_ctx *ctx, int argc, char **argv, int *i)
{
	static const char *valued[] = {"--root", "--pci", "--pci-ids", "--repo", "--keys",
				       "--boot-drive", "--cacert", "--connect-timeout",
				       "--speed-limit", "--speed-time", "--max-time", NULL};
	const char *a = argv[*i];
	if (!strcmp(a, "--json"))
		ctx->json = true;
	else if (!strcmp(a, "-n") || !strcmp(a, "--dry-run"))
		ctx->dry_run = true;
	else if (!strcmp(a, "-y") || !strcmp(a, "--yes"))
		ctx->yes = true;
	else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
		ctx->quiet = true;
	else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
		ctx->verbose++;
	else {
		for (int k = 0; valued[k]; k++) {
			const char *val;
			bool m;
			int r = ui_opt_value(ctx, argc, argv, i, valued[k], &val, &m);
			if (r)
				return r;
			if (!m)
				continue;
			switch (k) {
			case 0: ctx->root = val; break;
			case 1: ctx->pci = val; break;
			case 2: ctx->pci_ids = val; break;
			case 3:
				if (ctx->nrepos == WD_MAX_REPOS)
					return -ui_usage(ctx, "at most %d --repo options", WD_MAX_REPOS);
				ctx->repos[ctx->nrepos++] = val;
				break;
			case 4: ctx->keys = val; break;
			case 5:
				if (parse_drive(val, &ctx->boot_drive) < 0)
					return -ui_usage(ctx, "--boot-drive %s: expected a drive letter such as D:", val);
				break;
			case 6: ctx->cacert = val; break;
			default: {
				long max = k == 8 ? 1000000000L : 86400L;
				long *to = k == 7 ? &ctx->connect_timeout
					 : k == 8 ? &ctx->speed_limit
					 : k == 9 ? &ctx->speed_time : &ctx->max_time;
				if (parse_count(val, max, to) < 0)
					return -ui_usage(ctx, "%s %s: expected a whole number from 1 to "
							 "%ld", valued[k], val, max);
				break;
			}
			}
			return 1;
		}
		return 0;
	}
	return 1;
}

static const char *oom_prog = "warpdrv";

/* Out of memory: a message and exit 1, as for any other failure (under
 * --json too: no document can be made without memory). */
static void out_of_memory(void)
{
	static const char tail[] = ": out of memory (a limit such as ulimit -v is too low for this "
				   "package or volume)\n";
	if (write(STDERR_FILENO, oom_prog, strlen(oom_prog)) < 0 ||
	    write(STDERR_FILENO, tail, sizeof tail - 1) < 0)
		_exit(WD_EFAIL);
	_exit(WD_EFAIL);
}

int ui_main(int argc, char **argv, const char *prog, const struct wd_cmd *cmds,
	    const char *synopsis)
{
	struct wd_ctx ctx = {0};
	ctx.prog = prog;
	oom_prog = prog;
	wd_on_out_of_memory(out_of_memory);
	ctx.root = getenv("WARPDRV_ROOT");
	ctx.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
	ctx.exe_dir = exe_dir();
	json_init(&ctx.j, stdout);
	json_hold_top(&ctx.j);

	char **rest = wd_xcalloc((size_t)argc + 1, sizeof *rest);
	int nrest = 0;
	const struct wd_cmd *cmd = NULL;
	bool help = false, version = false, dashdash = false;
	int rc = 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (dashdash) {
			rest[nrest++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			dashdash = true;
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			help = true;
			continue;
		}
		if (!strcmp(a, "--version")) {
			version = true;
			continue;
		}
		int g = global_opt(&ctx, argc, argv, &i);
		if (g < 0) {
			rc = -g;
			goto out;
		}
		if (g)
			continue;
		if (!cmd && a[0] != '-') {
			for (const struct wd_cmd *c = cmds; c->name; c++)
				if (!strcmp(c->name, a))
					cmd = c;
			if (!cmd) {
				rc = ui_usage(&ctx, "unknown command '%s'", a);
				goto out;
			}
			continue;
		}
		if (!cmd) {
			rc = ui_usage(&ctx, "unknown option '%s'", a);
			goto out;
		}
		rest[nrest++] = argv[i];
	}
	if (version) {
		printf("%s %s\n", prog, WD_VERSION);
		if (!strcmp(prog, "warpdrv")) {
			bool dev;
			char *dir = bundled_keys(&ctx, &dev);
			if (!dir)
				printf("trusted keys: none bundled; only those given with --keys DIR\n");
			else if (dev)
				printf("trusted keys: %s: DEVELOPMENT KEYS made by the build, not a "
				       "vendor's; not for distribution\n", dir);
			else
				printf("trusted keys: %s\n", dir);
			free(dir);
		}
		goto out;
	}
	if (help) {
		if (cmd)
			print_cmd_help(prog, cmd);
		else
			print_help(prog, cmds, synopsis);
		goto out;
	}
	if (!cmd) {
		rc = ui_usage(&ctx, "no command given");
		goto out;
	}
	rc = cmd->run(&ctx, nrest, rest);
out:
	json_end_document(&ctx.j);
	fflush(stdout);
	free(rest);
	free(ctx.exe_dir);
	return rc;
}
