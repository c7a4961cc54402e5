#include <errno.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/file.h"
#include "os2/codepage.h"
#include "os2/volfiles.h"
#include "os2/volume.h"
#include "session/session.h"
#include "ui/exit_code.h"
#include "ui/source.h"
#include "ui/ui.h"

static bool is_control(unsigned char c, bool keep_nl)
{
	if (keep_nl && (c == '\n' || c == '\t'))
		return false;
	return c < 0x20 || c == 0x7f;
}

/* Appends p[0..n) to b with every byte a terminal could take for a control
 * written as \xNN: below 0x20, 0x7f, and each byte that is not part of
 * valid UTF-8 (a terminal not in UTF-8 reads 0x80-0x9f as C1 controls such
 * as CSI), and the C1 controls written in UTF-8 (U+0080-U+009F) as \u00NN;
 * valid UTF-8 text passes. keep_nl keeps a newline (and a tab) that the
 * text's own format put there. */
static void esc_into(struct wd_buf *b, const char *p, size_t n, bool keep_nl)
{
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)p[i];
		unsigned u;
		size_t len = c < 0x80 ? 1 : utf8_seq(p + i, n - i, &u);
		if (c < 0x80 && is_control(c, keep_nl))
			wd_buf_addf(b, "\\x%02x", c);
		else if (!len)
			wd_buf_addf(b, "\\x%02x", c);
		else if (len > 1 && u < 0xa0)
			wd_buf_addf(b, "\\u%04x", u);
		else
			wd_buf_add(b, p + i, len);
		i += len ? len : 1;
	}
}

#define ESC_RING 16

static bool plain_text(const char *p, size_t n, bool keep_nl)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] >= 0x80 || is_control((unsigned char)p[i], keep_nl))
			return false;
	return true;
}

static struct wd_buf *ring_next(void)
{
	static struct wd_buf ring[ESC_RING];
	static unsigned next;
	struct wd_buf *b = &ring[next++ % ESC_RING];
	b->len = 0;
	return b;
}

const char *ui_count(size_t n, const char *noun)
{
	struct wd_buf *b = ring_next();
	wd_buf_addf(b, "%zu %s%s", n, noun, n == 1 ? "" : "s");
	return wd_buf_cstr(b);
}

static const char *escn(const char *p, size_t n, bool keep_nl)
{
	if (plain_text(p, n, keep_nl))
		return p;
	struct wd_buf *b = ring_next();
	esc_into(b, p, n, keep_nl);
	return wd_buf_cstr(b);
}

/* Text from the volume: decoded from its code page, then escaped; mixed:
 * valid UTF-8 sequences of two bytes or more are kept (a message of
 * warpdrv's quoting the volume). */
static const char *voln(const struct wd_ctx *ctx, const char *p, size_t n, bool keep_nl,
			bool mixed)
{
	if (plain_text(p, n, keep_nl))
		return p;
	const struct codepage *cp = ctx->j.cp ? ctx->j.cp : codepage_find(CODEPAGE_DEFAULT);
	struct wd_buf u = {0};
	for (size_t i = 0; i < n;) {
		unsigned c;
		size_t len = mixed ? utf8_seq(p + i, n - i, &c) : 0;
		if (len > 1) {
			wd_buf_add(&u, p + i, len);
			i += len;
		} else {
			codepage_to_utf8(cp, p + i, 1, &u);
			i++;
		}
	}
	struct wd_buf *b = ring_next();
	esc_into(b, u.p ? u.p : "", u.len, keep_nl);
	wd_buf_free(&u);
	return wd_buf_cstr(b);
}

const char *ui_vol(const struct wd_ctx *ctx, const char *s)
{
	return s ? voln(ctx, s, strlen(s), false, false) : "(none)";
}

const char *ui_mixed(const struct wd_ctx *ctx, const char *s)
{
	return s ? voln(ctx, s, strlen(s), false, true) : "(none)";
}

const char *ui_mixed_text(const struct wd_ctx *ctx, const char *s)
{
	return s ? voln(ctx, s, strlen(s), true, true) : "";
}

int ui_codepage_setup(struct wd_ctx *ctx)
{
	const char *env = getenv("WARPDRV_CODEPAGE");
	if (env && *env) {
		char *end;
		long n = strtol(env, &end, 10);
		const struct codepage *cp = *end || n <= 0 || n > 99999 ? NULL
					  : codepage_find((int)n);
		if (!cp)
			return ui_usage(ctx, "WARPDRV_CODEPAGE=%s is not a code page warpdrv can read "
					"(one of %s); unset it to use the one the volume's CONFIG.SYS "
					"selects", ui_esc(env), codepage_names());
		ctx->j.cp = cp;
		return 0;
	}
	ctx->j.cp = codepage_find(CODEPAGE_DEFAULT);
	if (!ui_volume_given(ctx))
		return 0;
	/* the volume's CODEPAGE=: a volume that cannot be opened or read is
	 * the command's to report, not this */
	struct wd_err err = {0};
	struct volume *v;
	if (session_volume(ctx->s, &v, &err))
		return 0;
	struct wd_buf text = {0};
	int n = 0;
	if (!volfile_config_sys(v, &text, &err)) {
		struct config_sys cs;
		config_sys_parse(&cs, text.p ? text.p : "", text.len);
		n = codepage_of_config_sys(&cs);
		config_sys_free(&cs);
	}
	wd_buf_free(&text);
	if (n && codepage_find(n))
		ctx->j.cp = codepage_find(n);
	else if (n)
		ui_warn(ctx, "CONFIG.SYS selects code page %d, which warpdrv cannot read (it reads "
			"%s): its text is shown as code page %d; set WARPDRV_CODEPAGE to choose\n",
			n, codepage_names(), CODEPAGE_DEFAULT);
	return 0;
}

const char *ui_esc(const char *s)
{
	return s ? escn(s, strlen(s), false) : "(none)";
}

const char *ui_esc_text(const char *p, size_t n)
{
	return p ? escn(p, n, true) : "";
}

const char *ui_vol_text(const struct wd_ctx *ctx, const char *p, size_t n)
{
	return p ? voln(ctx, p, n, true, false) : "";
}

/* A message for stderr: its format's newlines kept, everything else escaped. */
static void put_msg(FILE *f, const char *msg)
{
	fputs(ui_esc_text(msg, strlen(msg)), f);
}

int ui_fail(struct wd_ctx *ctx, int r, const struct wd_err *err)
{
	int code = ui_exit_code(err, r);
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
		json_int(j, "exit_code", code);
		json_str(j, "message", msg);
		json_obj_end(j);
		json_obj_end(j);
		json_finish(j);
	} else {
		/* each line its own, named by the program (update names each
		 * repository that failed on a line) */
		const char *t = ui_esc_text(msg, strlen(msg));
		do {
			size_t len = strcspn(t, "\n");
			fprintf(stderr, "%s: %s%.*s%s\n", ctx->prog, ui_color_err(ctx, "red"), (int)len, t,
				ui_color_err(ctx, "reset"));
			t += len + (t[len] == '\n');
		} while (*t);
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
	const char *t = ui_vol_text(ctx, p, n);
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

const char *ui_local_time(const char *utc)
{
	struct tm tm, local;
	if (!utc || !json_utc_parse(utc, &tm))
		return ui_esc(utc);
	time_t t = timegm(&tm);
	tzset(); /* TZ as it is now: localtime_r need not read it */
	if (t == (time_t)-1 || !localtime_r(&t, &local))
		return ui_esc(utc);
	char s[64];
	/* the zone's name, or its offset when the name is not one (TZ=<+0530>-5:30) */
	size_t n = strftime(s, sizeof s, "%Y-%m-%d %H:%M:%S %Z", &local);
	if (!n || s[n - 1] == ' ' || s[20] == '+' || s[20] == '-')
		strftime(s, sizeof s, "%Y-%m-%d %H:%M:%S %z", &local);
	struct wd_buf *b = ring_next();
	wd_buf_adds(b, s);
	return wd_buf_cstr(b);
}
