/* Global options and dispatch, shared by warpdrv and warpdrv-admin.
 * Global options may stand before or after the command; everything else
 * goes to the command in order. */
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/file.h"
#include "common/hooks.h"
#include "pci/vbox_machine.h"
#include "session/session.h"
#include "ui/commands.h"
#include "ui/config.h"
#include "ui/pkgutil.h"
#include "ui/source.h"

/* The options both programs take, before or after the command. Each says
 * where its value goes (kind and field), so the table is the whole rule. */
enum gkind { G_STR, G_REPO, G_DRIVE, G_COUNT, G_TRUE, G_INC, G_COLOR, G_HELP, G_VERSION, G_WAIT,
	     G_CONFIG };

struct gopt {
	struct wd_opt o; /* first: a struct wd_opt * found in the table is a struct gopt * */
	enum gkind kind;
	size_t off;      /* the field of struct wd_ctx */
	long max;        /* G_COUNT: the largest value */
};

#define F(field) offsetof(struct wd_ctx, field)
static const struct gopt global_opts[] = {
	{{"root", 0, "DIR", "the OS/2 boot volume (or WARPDRV_ROOT)", false, WD_OPT_GLOBAL, 0}, G_STR, F(root), 0},
	{{"disk", 0, "IMAGE", "the OS/2 volume of a disk image (VDI, VMDK, VHD, qcow2, raw)", false, WD_OPT_GLOBAL, 0},
	 G_STR, F(disk), 0},
	{{"partition", 0, "N", "with --disk: the partition of the OS/2 volume", false, WD_OPT_GLOBAL, 0}, G_COUNT,
	 F(partition), 128L},
	{{"vm", 0, "MACHINE", "a VirtualBox machine (.vbox file, name or UUID): its disk and NICs",
	  false, WD_OPT_GLOBAL, 0}, G_STR, F(vm), 0},
	{{"disk-format", 0, "FMT", "with --disk: vdi, vmdk, vpc, vhdx, qcow2 or raw", false, WD_OPT_GLOBAL, 0}, G_STR,
	 F(disk_format), 0},
	{{"pci", 0, "SOURCE", "sysfs (default), sysfs:DIR, lspci:FILE (- for stdin), vbox:FILE", false, WD_OPT_GLOBAL, 0},
	 G_STR, F(pci), 0},
	{{"pci-ids", 0, "FILE", "the PCI ID database for device names", false, WD_OPT_GLOBAL, 0}, G_STR, F(pci_ids), 0},
	{{"repo", 0, "URL", "another repository for this run (repeatable)", true, WD_OPT_GLOBAL, 0}, G_REPO, 0, 0},
	{{"keys", 0, "DIR", "another folder of trusted keys (repo/*.pub, license/*.pub)", false, WD_OPT_GLOBAL, 0}, G_STR,
	 F(keys), 0},
	{{"host-state", 0, "DIR", "what this host remembers of repositories (or WARPDRV_HOST_STATE; "
	  "default /var/lib/warpdrv for root, else $XDG_STATE_HOME/warpdrv)", false, WD_OPT_GLOBAL, 0}, G_STR,
	 F(host_state), 0},
	{{"boot-drive", 0, "X:", "the boot drive letter (default: from CONFIG.SYS)", false, WD_OPT_GLOBAL, 0}, G_DRIVE, 0, 0},
	{{"cacert", 0, "FILE", "trust this CA (PEM) for https repositories", false, WD_OPT_GLOBAL, 0}, G_STR, F(cacert), 0},
	{{"connect-timeout", 0, "S", "give up connecting after S seconds (default 15)", false, WD_OPT_GLOBAL, 0}, G_COUNT,
	 F(connect_timeout), 86400L},
	{{"speed-limit", 0, "B", "with --speed-time S: abandon a download slower than B bytes/s", false, WD_OPT_GLOBAL, 0},
	 G_COUNT, F(speed_limit), 1000000000L},
	{{"speed-time", 0, "S", "for S seconds (default 1000 bytes/s for 30 s)", false, WD_OPT_GLOBAL, 0}, G_COUNT,
	 F(speed_time), 86400L},
	{{"max-time", 0, "S", "give up on any one transfer after S seconds (default 600)", false, WD_OPT_GLOBAL, 0}, G_COUNT,
	 F(max_time), 86400L},
	{{"lock-wait", 0, "S", "wait S seconds for a volume another process holds (default 3; "
	  "or WARPDRV_LOCK_WAIT)", false, WD_OPT_GLOBAL, 0}, G_WAIT, F(lock_wait), 86400L},
	{{"config", 0, "FILE", "read FILE instead of the configuration file (warpdrv.conf(5))", false, WD_OPT_GLOBAL, 0},
	 G_CONFIG, 0, 0},
	{{"json", 0, NULL, "one JSON document on stdout", false, WD_OPT_GLOBAL, 0}, G_TRUE, F(json), 0},
	{{"dry-run", 'n', NULL, "show what would be done; write nothing", false, WD_OPT_GLOBAL, 0}, G_TRUE, F(dry_run), 0},
	{{"yes", 'y', NULL, "do not ask", false, WD_OPT_GLOBAL, 0}, G_TRUE, F(yes), 0},
	{{"quiet", 'q', NULL, "say less", false, WD_OPT_GLOBAL, 0}, G_TRUE, F(quiet), 0},
	{{"verbose", 'v', NULL, "say more", true, WD_OPT_GLOBAL, 0}, G_INC, F(verbose), 0},
	{{"color", 0, "WHEN", "auto (a terminal, no NO_COLOR, TERM not dumb), always, never",
	  false, WD_OPT_GLOBAL, 0}, G_COLOR, 0, 0},
	{{"help", 'h', NULL, "this help; COMMAND --help for a command", false, WD_OPT_GLOBAL, 0}, G_HELP, 0, 0},
	{{"version", 0, NULL, "the version", false, WD_OPT_GLOBAL, 0}, G_VERSION, 0, 0},
	{{0}, 0, 0, 0},
};
#undef F

static void print_opts(const struct wd_opt *o, size_t stride, size_t n)
{
	for (size_t k = 0; k < n; k++, o = (const struct wd_opt *)((const char *)o + stride)) {
		char left[64];
		snprintf(left, sizeof left, "%s%c%s--%s%s%s", o->letter ? "-" : "",
			 o->letter ? o->letter : ' ', o->letter ? ", " : "", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
		const char *l = o->letter ? left : left + 1;
		if (strlen(l) > 18)
			printf("  %s\n  %-18s %s\n", l, "", o->help);
		else
			printf("  %-18s %s\n", l, o->help);
	}
}

static size_t count_opts(const struct wd_opt *o)
{
	size_t n = 0;
	while (o && o[n].name)
		n++;
	return n;
}

/* The global options warpdrv-admin takes too; warpdrv takes every one. The
 * vendor's program reads and writes only the files its command names: no
 * volume, repository, device or network option, nothing to ask. */
static const char *const admin_globals[] = {"keys", "json", "dry-run", "quiet", "verbose",
					    "color", "help", "version", NULL};

static bool takes(bool admin, const struct gopt *g)
{
	for (const char *const *n = admin_globals; admin && *n; n++)
		if (!strcmp(*n, g->o.name))
			return true;
	return !admin;
}

static void print_help(const char *prog, bool admin, const struct wd_cmd *cmds,
		       const char *synopsis)
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
	printf("\nGlobal options:\n");
	for (const struct gopt *g = global_opts; g->o.name; g++)
		if (takes(admin, g))
			print_opts(&g->o, sizeof *g, 1);
	if (admin)
		printf("\nExit status: 0 done, 1 failed (or interrupted by a signal), 2 usage error,\n"
		       "3 integrity or trust failure.\n");
	else
		printf("\nExit status: 0 done, 1 failed (or interrupted by a signal), 2 usage error,\n"
		       "3 integrity or trust failure, 4 subscription problem, 5 no supported device\n"
		       "to configure.\n");
	printf("See %s(1).\n", prog);
}

static void print_cmd_help(const char *prog, const char *path, const struct wd_cmd *c)
{
	printf("Usage: %s [OPTIONS] %s %s\n\n%s\n", prog, path, c->args ? c->args : "",
	       c->summary);
	if (c->help)
		printf("\n%s", c->help);
	if (c->subs) {
		printf("\nSubcommands (%s %s SUBCOMMAND --help for each):\n", prog, path);
		for (const struct wd_cmd *s = c->subs; s->name; s++)
			printf("  %s %s %s\n      %s\n", path, s->name, s->args ? s->args : "",
			       s->summary);
	}
	if (c->opts && c->opts[0].name) {
		printf("\nOptions:\n");
		print_opts(c->opts, sizeof c->opts[0], count_opts(c->opts));
	}
	printf("\nGlobal options: see '%s --help'.\n", prog);
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

static int parse_range(const char *s, long min, long max, long *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (!*s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_count(const char *s, long max, long *out)
{
	return parse_range(s, 1, max, out);
}

/* A bad value: a usage error, naming the configuration file's line when
 * the value came from there. */
static int bad_value(struct wd_ctx *ctx, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad_value(struct wd_ctx *ctx, const char *where, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return -ui_usage(ctx, "%s%s%s", where ? where : "", where ? ": " : "", msg);
}

/* The lock wait, from --lock-wait or WARPDRV_LOCK_WAIT: seconds, 0 to 86400. */
static int set_lock_wait(struct wd_ctx *ctx, const char *where, const char *what, const char *val)
{
	if (parse_range(val, 0, 86400L, &ctx->lock_wait) < 0)
		return bad_value(ctx, where, "%s%s: expected seconds, a whole number from 0 to 86400",
				 what, val);
	ctx->lock_wait_set = true;
	return 0;
}

/* ------------------------------------------------------------ parsing */

enum color_when { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

struct parse {
	struct wd_ctx *ctx;
	const struct wd_cmd *cmds, *cmd, *sub;
	bool admin; /* warpdrv-admin: only the global options marked for it */
	const char *where; /* a setting of the configuration file: "FILE:LINE" */
	bool help, version;
	enum color_when color;
};

static bool is_global(const struct wd_opt *o)
{
	return o >= &global_opts[0].o &&
	       (const void *)o < (const void *)&global_opts[sizeof global_opts / sizeof global_opts[0]];
}

/* The tables in force: the subcommand's, the command's, then the global one. */
static const struct wd_opt *find_opt(const struct parse *p, const char *name, size_t n,
				     char letter)
{
	const struct wd_opt *tabs[2] = {p->sub ? p->sub->opts : NULL, p->cmd ? p->cmd->opts : NULL};
	for (int t = 0; t < 2; t++)
		for (const struct wd_opt *o = tabs[t]; o && o->name; o++)
			if (letter ? o->letter == letter
				   : strlen(o->name) == n && !strncmp(o->name, name, n))
				return o;
	for (const struct gopt *g = global_opts; g->o.name; g++)
		if (takes(p->admin, g) &&
		    (letter ? g->o.letter == letter
			    : strlen(g->o.name) == n && !strncmp(g->o.name, name, n)))
			return &g->o;
	return NULL;
}

int ui_edit_distance(const char *a, const char *b)
{
	/* optimal string alignment: Levenshtein plus a swap of two neighbours */
	size_t la = strlen(a), lb = strlen(b);
	if (la > 63 || lb > 63)
		return 64;
	int d[64][64];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			int v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

/* Keeps the nearer of *best and cand to word, when near enough to be meant. */
static void nearer(const char *word, const char *cand, const char **best, int *bestd)
{
	int d = ui_edit_distance(word, cand);
	int limit = strlen(word) <= 4 ? 1 : 2;
	if (d <= limit && d < *bestd) {
		*best = cand;
		*bestd = d;
	}
}

static const char *near_cmd(const struct wd_cmd *cmds, const char *word)
{
	const char *best = NULL;
	int d = 99;
	for (const struct wd_cmd *c = cmds; c->name; c++)
		nearer(word, c->name, &best, &d);
	return best;
}

static const char *near_opt(const struct parse *p, const char *word)
{
	const char *best = NULL;
	int d = 99;
	const struct wd_opt *tabs[2] = {p->sub ? p->sub->opts : NULL, p->cmd ? p->cmd->opts : NULL};
	for (int t = 0; t < 2; t++)
		for (const struct wd_opt *o = tabs[t]; o && o->name; o++)
			nearer(word, o->name, &best, &d);
	for (const struct gopt *g = global_opts; g->o.name; g++)
		if (takes(p->admin, g))
			nearer(word, g->o.name, &best, &d);
	return best;
}

static int unknown_opt(struct parse *p, const char *shown, const char *word, char letter)
{
	for (const struct gopt *g = global_opts; p->admin && g->o.name; g++)
		if (!takes(true, g) && (word ? !strcmp(g->o.name, word) : g->o.letter == letter))
			return -ui_usage(p->ctx, "unknown option '%s': it is warpdrv's, not %s's",
					 shown, p->ctx->prog);
	const char *m = word ? near_opt(p, word) : NULL;
	if (m)
		return -ui_usage(p->ctx, "unknown option '%s'; did you mean '--%s'?", shown, m);
	if (p->cmd)
		return -ui_usage(p->ctx, "unknown option '%s': %s does not take it", shown,
				 p->ctx->cmd_path);
	return -ui_usage(p->ctx, "unknown option '%s'", shown);
}

static int set_global(struct parse *p, const struct gopt *g, const char *val)
{
	struct wd_ctx *ctx = p->ctx;
	char *field = (char *)ctx + g->off;
	switch (g->kind) {
	case G_STR: *(const char **)field = val; break;
	case G_TRUE: *(bool *)field = true; break;
	case G_INC: (*(int *)field)++; break;
	case G_HELP: p->help = true; break;
	case G_VERSION: p->version = true; break;
	case G_REPO:
		if (ctx->nrepos == WD_MAX_REPOS)
			return bad_value(ctx, p->where, "at most %d --repo options (the configuration "
					 "file's repositories count too)", WD_MAX_REPOS);
		ctx->repos[ctx->nrepos++] = val;
		break;
	case G_DRIVE:
		if (parse_drive(val, &ctx->boot_drive) < 0)
			return -ui_usage(ctx, "--boot-drive %s: expected a drive letter such as D:", val);
		break;
	case G_COUNT:
		if (parse_count(val, g->max, (long *)field) < 0)
			return bad_value(ctx, p->where, "--%s %s: expected a whole number from 1 to %ld",
					 g->o.name, val, g->max);
		break;
	case G_WAIT:
		return set_lock_wait(ctx, p->where, "--lock-wait ", val);
	case G_CONFIG: /* read before the rest of the command line (ui_main) */
		break;
	case G_COLOR:
		if (!strcmp(val, "auto"))
			p->color = COLOR_AUTO;
		else if (!strcmp(val, "always"))
			p->color = COLOR_ALWAYS;
		else if (!strcmp(val, "never"))
			p->color = COLOR_NEVER;
		else
			return bad_value(ctx, p->where, "--color %s: expected auto, always or never", val);
		break;
	}
	return 0;
}

static int take(struct parse *p, const struct wd_opt *o, const char *val)
{
	if (is_global(o))
		return set_global(p, (const struct gopt *)o, val);
	struct wd_ctx *ctx = p->ctx;
	for (int k = 0; k < ctx->noptv && !o->repeat; k++)
		if (ctx->optv[k].opt == o) { /* given again: the last one counts, as getopt's */
			ctx->optv[k].val = val;
			return 0;
		}
	ctx->optv[ctx->noptv++] = (struct wd_optval){o, val};
	return 0;
}

/* A positional word: the command, the subcommand, or an argument of it. */
static int word(struct parse *p, const char *a, char **rest, int *nrest)
{
	struct wd_ctx *ctx = p->ctx;
	const struct wd_cmd *list = !p->cmd ? p->cmds : p->cmd->subs && !p->sub ? p->cmd->subs : NULL;
	if (!list) {
		rest[(*nrest)++] = (char *)a;
		return 0;
	}
	const struct wd_cmd *found = NULL;
	for (const struct wd_cmd *c = list; c->name; c++)
		if (!strcmp(c->name, a))
			found = c;
	if (!found) {
		const char *m = near_cmd(list, a);
		const char *what = p->cmd ? "subcommand" : "command";
		if (p->cmd && m)
			return -ui_usage(ctx, "%s: unknown subcommand '%s'; did you mean '%s'?",
					 ctx->cmd_path, a, m);
		if (p->cmd)
			return -ui_usage(ctx, "%s: unknown subcommand '%s'", ctx->cmd_path, a);
		if (m)
			return -ui_usage(ctx, "unknown %s '%s'; did you mean '%s'?", what, a, m);
		return -ui_usage(ctx, "unknown %s '%s'", what, a);
	}
	size_t len = strlen(ctx->cmd_path);
	snprintf(ctx->cmd_path + len, sizeof ctx->cmd_path - len, "%s%s", len ? " " : "",
		 found->name);
	if (p->cmd)
		p->sub = found;
	else
		p->cmd = found;
	return 0;
}

static int parse_args(struct parse *p, int argc, char **argv, char **rest, int *nrest)
{
	struct wd_ctx *ctx = p->ctx;
	bool dashdash = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int r;
		if (dashdash || a[0] != '-' || !a[1]) {
			if ((r = word(p, a, rest, nrest)))
				return r;
		} else if (!strcmp(a, "--")) {
			dashdash = true;
		} else if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t n = eq ? (size_t)(eq - name) : strlen(name);
			const struct wd_opt *o = find_opt(p, name, n, 0);
			if (!o) {
				char w[64];
				snprintf(w, sizeof w, "%.*s", (int)(n < 63 ? n : 63), name);
				return unknown_opt(p, a, w, 0);
			}
			const char *val = NULL;
			if (o->arg && eq)
				val = eq + 1;
			else if (o->arg && i + 1 < argc)
				val = argv[++i];
			else if (o->arg)
				return -ui_usage(ctx, "option --%s needs a value (%s)", o->name, o->arg);
			else if (eq)
				return -ui_usage(ctx, "option --%s takes no value ('%s')", o->name, a);
			if ((r = take(p, o, val)))
				return r;
		} else {
			for (int j = 1; a[j]; j++) {
				const struct wd_opt *o = find_opt(p, NULL, 0, a[j]);
				if (!o) {
					char sh[3] = {'-', a[j], 0};
					return unknown_opt(p, sh, NULL, a[j]);
				}
				const char *val = NULL;
				if (o->arg && a[j + 1])
					val = a + j + 1;
				else if (o->arg && i + 1 < argc)
					val = argv[++i];
				else if (o->arg)
					return -ui_usage(ctx, "option -%c needs a value (%s)", a[j], o->arg);
				if ((r = take(p, o, val)))
					return r;
				if (o->arg)
					break;
			}
		}
	}
	return 0;
}

static bool want_color(enum color_when w, int fd)
{
	if (w != COLOR_AUTO)
		return w == COLOR_ALWAYS;
	const char *nc = getenv("NO_COLOR");
	return ui_term_ok(fd) && !(nc && *nc);
}

/* The command's argument struct from the options given (each bound to its
 * field by the command's table: ui/ui.h's WD_OPT_*); a repeatable option's
 * values gathered in order. */
static void bind_args(struct wd_ctx *ctx, const struct wd_cmd *cmd)
{
	ctx->args = wd_xcalloc(1, cmd->args_size ? cmd->args_size : 1);
	ctx->argvals = wd_xcalloc((size_t)ctx->noptv + 1, sizeof *ctx->argvals);
	const char **next = ctx->argvals;
	for (int k = 0; k < ctx->noptv; k++) {
		const struct wd_opt *o = ctx->optv[k].opt;
		void *field = (char *)ctx->args + o->off;
		if (o->kind == WD_OPT_FLAG) {
			*(bool *)field = true;
		} else if (o->kind == WD_OPT_STR) {
			*(const char **)field = ctx->optv[k].val;
		} else if (o->kind == WD_OPT_LIST && !((struct wd_optlist *)field)->v) {
			struct wd_optlist *l = field;
			l->v = next;
			for (int i = k; i < ctx->noptv; i++)
				if (ctx->optv[i].opt == o) {
					*next++ = ctx->optv[i].val;
					l->n++;
				}
		}
	}
}

const void *ui_args(const struct wd_ctx *ctx, size_t size)
{
	if (!ctx->cmd || ctx->cmd->args_size != size || !ctx->args)
		abort(); /* a command reading another's arguments: a bug */
	return ctx->args;
}

static const char *sub_names(const struct wd_cmd *c)
{
	static char buf[128];
	size_t len = 0;
	buf[0] = '\0';
	for (const struct wd_cmd *s = c->subs; s->name && len < sizeof buf; s++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s %s", s == c->subs ? "" : ",",
					s->name);
	return buf;
}

/* A setting of the configuration file: as the global option of that name. */
static int apply_setting(void *ud, const char *name, const char *value, const char *where)
{
	struct parse *p = ud;
	for (const struct gopt *g = global_opts; g->o.name; g++)
		if (!strcmp(g->o.name, name)) {
			p->where = where;
			int r = set_global(p, g, value);
			p->where = NULL;
			return -r;
		}
	return ui_usage(p->ctx, "%s: '%s' is not a setting of the configuration file", where, name);
}

/* What --version says of the keys an administrator trusts and of the
 * configuration file. */
static void version_config(const struct wd_ctx *ctx)
{
	char *sys = ui_system_keys();
	if (sys)
		printf("trusted keys: %s (the administrator's)\n", sys);
	else
		printf("trusted keys: none in %s/keys (an administrator adds a vendor's there: "
		       "repo/*.pub, license/*.pub)\n", ui_sysconf_dir());
	free(sys);
	if (ctx->config_file)
		printf("configuration: %s\n", ctx->config_file);
	else
		printf("configuration: none read\n");
}

/* The test hook WARPDRV_COMMAND_TABLE: the command table as the tests read
 * it, one line a command: PATH, its database mode, whether it writes (or
 * the option it writes with), whether it asks (tab-separated). */
static void dump_table(const struct wd_cmd *cmds, const char *prefix)
{
	static const char *const dbs[] = {"none", "read", "recover", "create", "plain"};
	for (const struct wd_cmd *c = cmds; c->name; c++) {
		char path[64];
		snprintf(path, sizeof path, "%s%s%s", prefix, *prefix ? " " : "", c->name);
		if (c->subs) {
			dump_table(c->subs, path);
			continue;
		}
		printf("%s\t%s\t%s\t%s\n", path, dbs[c->db],
		       c->writes ? "writes" : c->writes_if ? "sometimes" : "reads",
		       c->asks ? "asks" : "-");
	}
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
	if (WD_TEST_HOOKS && getenv("WARPDRV_COMMAND_TABLE")) {
		dump_table(cmds, "");
		return 0;
	}
	oom_prog = prog;
	wd_on_out_of_memory(out_of_memory);
	ctx.root = getenv("WARPDRV_ROOT");
	const char *env_root = ctx.root;
	ctx.vbox_dir = vbox_config_dir(getenv("VBOX_USER_HOME"), getenv("HOME"));
	ctx.host_state = getenv("WARPDRV_HOST_STATE");
	ctx.exe_dir = wd_exe_dir();
	json_init(&ctx.j, stdout);
	json_hold_top(&ctx.j);

	char **rest = wd_xcalloc((size_t)argc + 1, sizeof *rest);
	ctx.optv = wd_xcalloc((size_t)argc + 1, sizeof *ctx.optv);
	int nrest = 0;
	struct parse p = {.ctx = &ctx, .cmds = cmds, .admin = strcmp(prog, "warpdrv") != 0};
	/* --json anywhere (before a --) makes a usage error met before it a
	 * JSON document too; --config FILE is read before the rest, which
	 * overrides what it sets, as the lock wait's variable does */
	const char *config = NULL;
	bool wait_given = false;
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		ctx.json |= !strcmp(argv[i], "--json");
		if (!strcmp(argv[i], "--config") && i + 1 < argc)
			config = argv[i + 1];
		else if (!strncmp(argv[i], "--config=", 9))
			config = argv[i] + 9;
		wait_given |= !strcmp(argv[i], "--lock-wait") || !strncmp(argv[i], "--lock-wait=", 12);
	}
	char *config_path = p.admin ? NULL : ui_config_path(config);
	int rc = config_path ? ui_config_read(&ctx, config_path, config != NULL, apply_setting, &p)
			     : 0;
	const char *wait = getenv("WARPDRV_LOCK_WAIT");
	if (!rc && !wait_given && wait && *wait && !p.admin)
		rc = -set_lock_wait(&ctx, NULL, "WARPDRV_LOCK_WAIT=", wait);
	if (!rc)
		rc = -parse_args(&p, argc, argv, rest, &nrest);
	if (rc || (rc = ui_source_check(&ctx, env_root)))
		goto out;
	ctx.color = want_color(p.color, STDOUT_FILENO);
	ctx.color_err = want_color(p.color, STDERR_FILENO);
	const struct wd_cmd *cmd = p.sub ? p.sub : p.cmd;
	ctx.cmd = cmd;
	bool version = p.version, help = p.help;
	if (version) {
		printf("%s %s\n", prog, WD_VERSION);
		if (!p.admin) {
			bool dev;
			char *dir = bundled_keys(&ctx, &dev);
			if (!dir)
				printf("trusted keys: none bundled with the program (only the "
				       "administrator's below and those of --keys DIR)\n");
			else if (dev)
				printf("trusted keys: %s: DEVELOPMENT KEYS made by the build, not a "
				       "vendor's; not for distribution\n", dir);
			else
				printf("trusted keys: %s\n", dir);
			free(dir);
			version_config(&ctx);
		}
		goto out;
	}
	if (help) {
		if (cmd)
			print_cmd_help(prog, ctx.cmd_path, cmd);
		else
			print_help(prog, p.admin, cmds, synopsis);
		goto out;
	}
	if (!cmd) {
		rc = ui_usage(&ctx, "no command given");
		goto out;
	}
	if (cmd->subs) {
		rc = ui_usage(&ctx, "%s: name a subcommand:%s", ctx.cmd_path, sub_names(cmd));
		goto out;
	}
	bind_args(&ctx, cmd);
	if (cmd->check && (rc = cmd->check(&ctx)))
		goto out;
	struct session s;
	ui_session_open(&ctx, &s);
	if (!(rc = ui_source_open(&ctx)) && !(rc = ui_codepage_setup(&ctx)))
		rc = cmd->run(&ctx, nrest, rest);
	int rc_close = ui_session_close(&ctx);
	if (!rc)
		rc = rc_close;
out:
	json_end_document(&ctx.j);
	fflush(stdout);
	ui_config_free(&ctx);
	free(config_path);
	free(rest);
	free(ctx.optv);
	free(ctx.args);
	free(ctx.argvals);
	free(ctx.exe_dir);
	free(ctx.pci_vm);
	free(ctx.vbox_dir);
	return rc;
}
