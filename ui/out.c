#include <errno.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/file.h"
#include "ui/ui.h"

static bool is_control(unsigned char c, bool keep_nl)
{
	if (keep_nl && (c == '\n' || c == '\t'))
		return false;
	return c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0);
}

/* Appends p[0..n) to b with every byte a terminal could take for a control
 * (below 0x20, 0x7f, and 0x80-0x9f, which a terminal not in UTF-8 reads as
 * C1 controls such as CSI) written as \xNN; keep_nl keeps a newline (and a
 * tab) that the text's own format put there. */
static void esc_into(struct wd_buf *b, const char *p, size_t n, bool keep_nl)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (is_control(c, keep_nl))
			wd_buf_addf(b, "\\x%02x", c);
		else
			wd_buf_addc(b, (char)c);
	}
}

#define ESC_RING 16

static const char *escn(const char *p, size_t n, bool keep_nl)
{
	static struct wd_buf ring[ESC_RING];
	static unsigned next;
	bool plain = true;
	for (size_t i = 0; i < n && plain; i++)
		plain = !is_control((unsigned char)p[i], keep_nl);
	if (plain)
		return p;
	struct wd_buf *b = &ring[next++ % ESC_RING];
	b->len = 0;
	esc_into(b, p, n, keep_nl);
	return wd_buf_cstr(b);
}

const char *ui_esc(const char *s)
{
	return s ? escn(s, strlen(s), false) : "(none)";
}

const char *ui_esc_text(const char *p, size_t n)
{
	return p ? escn(p, n, true) : "";
}

/* A message for stderr: its format's newlines kept, everything else escaped. */
static void put_msg(FILE *f, const char *msg)
{
	fputs(ui_esc_text(msg, strlen(msg)), f);
}

int ui_fail(struct wd_ctx *ctx, int r, const struct wd_err *err)
{
	int code = r < 0 ? -r : (r ? r : WD_EFAIL);
	if (err && err->code)
		code = err->code;
	const char *msg = err && err->msg[0] ? err->msg : "failed";
	if (ctx->json) {
		/* one document: the error goes into the one begun, if any */
		struct json *j = &ctx->j;
		if (!json_reopen_top(j)) {
			json_init(j, stdout);
			json_hold_top(j);
			json_obj_begin(j, NULL);
		}
		json_obj_begin(j, "error");
		json_int(j, "code", code);
		json_str(j, "message", msg);
		json_obj_end(j);
		json_obj_end(j);
		json_finish(j);
	} else {
		fprintf(stderr, "%s: %s", ctx->prog, ui_color_err(ctx, "red"));
		put_msg(stderr, msg);
		fprintf(stderr, "%s\n", ui_color_err(ctx, "reset"));
	}
	return code;
}

int ui_usage(struct wd_ctx *ctx, const char *fmt, ...)
{
	struct wd_err e;
	va_list ap;
	va_start(ap, fmt);
	wd_err_vset(&e, WD_EUSAGE, fmt, ap);
	va_end(ap);
	if (ctx->json)
		return ui_fail(ctx, -WD_EUSAGE, &e);
	fprintf(stderr, "%s: ", ctx->prog);
	put_msg(stderr, e.msg);
	if (ctx->cmd_path[0])
		fprintf(stderr, "\nTry '%s %s --help'.\n", ctx->prog, ctx->cmd_path);
	else
		fprintf(stderr, "\nTry '%s --help'.\n", ctx->prog);
	return WD_EUSAGE;
}

void ui_say(struct wd_ctx *ctx, const char *fmt, ...)
{
	if (ctx->json || ctx->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
}

void ui_warn(struct wd_ctx *ctx, const char *fmt, ...)
{
	if (ctx->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *msg = wd_xmalloc(n > 0 ? (size_t)n + 1 : 1);
	msg[0] = '\0';
	if (n > 0)
		vsnprintf(msg, (size_t)n + 1, fmt, ap2);
	va_end(ap2);
	fprintf(stderr, "%s: %swarning:%s ", ctx->prog, ui_color_err(ctx, "yellow"),
		ui_color_err(ctx, "reset"));
	put_msg(stderr, msg);
	free(msg);
}

static const char *color_of(bool on, const char *which)
{
	if (!on)
		return "";
	if (!strcmp(which, "red"))
		return "\033[31m";
	if (!strcmp(which, "green"))
		return "\033[32m";
	if (!strcmp(which, "yellow"))
		return "\033[33m";
	if (!strcmp(which, "bold"))
		return "\033[1m";
	if (!strcmp(which, "dim"))
		return "\033[2m";
	if (!strcmp(which, "cyan"))
		return "\033[36m";
	return "\033[0m";
}

int ui_confirm(struct wd_ctx *ctx, const char *question, struct wd_err *err, const char *fmt,
	       ...)
{
	if (ctx->yes)
		return 0;
	char why[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	if (ctx->json)
		return wd_err_set(err, WD_EUSAGE, "%s, and --json asks nothing: add --yes to apply, "
				  "or --dry-run to see the plan", why);
	if (!isatty(STDIN_FILENO))
		return wd_err_set(err, WD_EUSAGE, "%s, and there is no terminal to ask on: add --yes "
				  "to apply, or --dry-run to see the plan", why);
	printf("%s [y/N] ", question);
	fflush(stdout);
	char line[32];
	if (!fgets(line, sizeof line, stdin) || (line[0] != 'y' && line[0] != 'Y'))
		return wd_err_set(err, WD_EFAIL, "nothing changed: not confirmed");
	return 0;
}

void ui_show_diff(const struct wd_ctx *ctx, const char *p, size_t n)
{
	const char *t = ui_esc_text(p, n);
	if (!ctx->color) {
		fputs(t, stdout);
		return;
	}
	while (*t) {
		size_t len = strcspn(t, "\n");
		const char *col = !strncmp(t, "--- ", 4) || !strncmp(t, "+++ ", 4) ? "bold"
				: !strncmp(t, "@@", 2) ? "cyan"
				: t[0] == '-' ? "red"
				: t[0] == '+' ? "green" : NULL;
		if (col)
			printf("%s%.*s%s", ui_color(ctx, col), (int)len, t, ui_color(ctx, "reset"));
		else
			printf("%.*s", (int)len, t);
		t += len;
		if (*t == '\n')
			putchar(*t++);
	}
}

bool ui_term_ok(int fd)
{
	const char *term = getenv("TERM");
	return isatty(fd) && !(term && !strcmp(term, "dumb"));
}

const char *ui_color(const struct wd_ctx *ctx, const char *which)
{
	return color_of(ctx->color, which);
}

const char *ui_color_err(const struct wd_ctx *ctx, const char *which)
{
	return color_of(ctx->color_err, which);
}

char *ui_data_dir(const struct wd_ctx *ctx, const char *name)
{
	const char *env = getenv("WARPDRV_DATA");
	char *cand[3] = {0};
	int n = 0;
	if (env && *env)
		cand[n++] = wd_path_join(env, name);
	if (ctx->exe_dir) {
		cand[n++] = wd_path_join(ctx->exe_dir, name);
		cand[n++] = wd_xasprintf("%s/../share/warpdrv/%s", ctx->exe_dir, name);
	}
	char *found = NULL;
	for (int i = 0; i < n; i++) {
		if (!found && wd_is_dir(cand[i])) /* host: where the program's data may be */
			found = cand[i];
		else
			free(cand[i]);
	}
	return found;
}
