#include "ui/progress.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

void progress_bytes(uint64_t n, char *out, size_t size)
{
	static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB"};
	if (n < 1024) {
		snprintf(out, size, "%llu B", (unsigned long long)n);
		return;
	}
	double v = (double)n / 1024;
	int u = 0;
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(out, size, "%.1f %s", v, unit[u]);
}

static void clock_text(double s, char *out, size_t size)
{
	long t = s < 0 ? 0 : s > 359999 ? 359999 : (long)(s + 0.5);
	if (t >= 3600)
		snprintf(out, size, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(out, size, "%ld:%02ld", t / 60, t % 60);
}

void progress_line(const char *label, uint64_t done, uint64_t total, double seconds, int width,
		   char *out, size_t size)
{
	char have[32], all[32], rate[32], left[32] = "";
	double bps = seconds > 0 ? (double)done / seconds : 0;
	progress_bytes(done, have, sizeof have);
	progress_bytes(total, all, sizeof all);
	progress_bytes((uint64_t)bps, rate, sizeof rate);
	if (total && done < total && bps > 0) {
		clock_text((double)(total - done) / bps, left, sizeof left - 6);
		strcat(left, " left");
	} else if (total && done >= total) {
		strcpy(left, "done");
	}
	char tail[128];
	if (total)
		snprintf(tail, sizeof tail, "  %s/%s  %s/s  %s", have, all, rate, left);
	else
		snprintf(tail, sizeof tail, "  %s  %s/s", have, rate);
	int name_w = 20;
	/* a fixed width, so the bar does not jump as the numbers change */
	int bar_w = width - name_w - 4 - 42;
	if (bar_w > 40)
		bar_w = 40;
	char bar[48] = "";
	if (total && bar_w >= 10) {
		int fill = (int)((double)bar_w * (double)(done > total ? total : done) / (double)total);
		bar[0] = '[';
		for (int i = 0; i < bar_w; i++)
			bar[1 + i] = i < fill ? '#' : '.';
		bar[1 + bar_w] = ']';
		bar[2 + bar_w] = '\0';
	}
	snprintf(out, size, "%-*.*s  %s%s", name_w, name_w, label ? label : "", bar, tail);
	if (width > 0 && (size_t)width < size)
		out[width] = '\0';
}

/* The state of the drawing: one download at a time. draw: a terminal that
 * takes cursor controls (the bar, rewritten in place); plain: a terminal
 * that does not (TERM=dumb), which gets a line as each file begins, as apt
 * prints one. */
static struct {
	struct wd_ctx *ctx;
	struct fetch_net net;
	bool draw, plain, shown;
	double start, first, last;
	uint64_t done, total, bytes_before;
	int files;
} P;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int columns(void)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40)
		return ws.ws_col > 160 ? 160 : ws.ws_col;
	return 80;
}

/* Two lines, the cursor left at the end of the second; drawing again goes
 * back up one line first. */
static void draw(const char *label)
{
	char line[256], sum[256], all[32];
	double t = now();
	int w = columns() - 1;
	progress_line(label, P.done, P.total, t - P.start, w, line, sizeof line);
	progress_bytes(P.bytes_before + P.done, all, sizeof all);
	double rate = t > P.first ? (double)(P.bytes_before + P.done) / (t - P.first) : 0;
	char r[32];
	progress_bytes((uint64_t)rate, r, sizeof r);
	snprintf(sum, sizeof sum, "overall: %d done, %s, %s/s", P.files, all, r);
	printf("%s\r\033[K%s\n\033[K%s", P.shown ? "\r\033[1A" : "", line, sum);
	fflush(stdout);
	P.shown = true;
	P.last = t;
}

static void on_progress(void *ud, const char *label, uint64_t done, uint64_t total)
{
	(void)ud;
	double t = now();
	if (!P.start) {
		P.start = t;
		if (!P.first)
			P.first = t;
	}
	P.done = done;
	P.total = total;
	if (P.plain && !P.shown) {
		char size[32] = "size not known yet";
		if (total)
			progress_bytes(total, size, sizeof size);
		printf("Downloading %s (%s)\n", label ? label : "", size);
		fflush(stdout);
		P.shown = true;
	} else if (P.draw && t - P.last >= 0.1) {
		draw(label);
	}
}

static void on_finished(void *ud, const char *label, int r)
{
	(void)ud;
	if (P.shown && P.draw) {
		draw(label);
		/* keep the finished bar, clear the overall line for the next one */
		printf("\r\033[1A\n\033[K");
		fflush(stdout);
	}
	if (!r) {
		P.files++;
		P.bytes_before += P.done;
	}
	P.shown = false;
	P.start = 0;
	P.done = P.total = 0;
}

static void on_note(void *ud, const char *msg)
{
	struct wd_ctx *ctx = ud;
	if (ctx->verbose)
		fprintf(stderr, "%s: %s\n", ctx->prog, msg);
}

const struct fetch_net *ui_net(struct wd_ctx *ctx)
{
	P.ctx = ctx;
	P.draw = ui_term_ok(STDOUT_FILENO) && !ctx->json && !ctx->quiet;
	P.plain = !P.draw && isatty(STDOUT_FILENO) && !ctx->json && !ctx->quiet;
	P.net = (struct fetch_net){
		.cacert = ctx->cacert,
		.connect_timeout = ctx->connect_timeout,
		.speed_limit = ctx->speed_limit,
		.speed_time = ctx->speed_time,
		.max_time = ctx->max_time,
		.progress = P.draw || P.plain ? on_progress : NULL,
		.finished = P.draw || P.plain ? on_finished : NULL,
		.note = on_note,
		.ud = ctx,
	};
	return &P.net;
}
