/* warpdrv bench: a netio-compatible throughput test (server, client), the
 * import of what an OS/2 guest's netio printed, and the before/after report. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/file.h"
#include "netbench/bench_db.h"
#include "ui/commands.h"
#include "netbench/netio.h"

#define MIB (1024.0 * 1024.0)
#define IMPORT_MAX (1024 * 1024)

struct opts {
	const char *db, *label, *bind, *labels, *svg, *host, *file;
	int port, block;
	double seconds;
	enum netio_proto proto;
};

/* ------------------------------------------------------------ options */

static int parse_seconds(struct wd_ctx *ctx, const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v >= 0.01 && v <= 3600))
		return -ui_usage(ctx, "--seconds %s: expected a number of seconds from 0.01 to 3600",
				 s);
	*out = v;
	return 0;
}

static int parse_port(struct wd_ctx *ctx, const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (end == s || *end || v < 1 || v > 65534)
		return -ui_usage(ctx, "--port %s: expected a port from 1 to 65534 (UDP uses the "
				 "next one)", s);
	*out = (int)v;
	return 0;
}

/* The options every subcommand shares; `allowed` names the valued ones this
 * subcommand takes, e.g. "db label port". Returns 1 when argv[*i] was one. */
static int common_opt(struct wd_ctx *ctx, int argc, char **argv, int *i, const char *allowed,
		      struct opts *o)
{
	static const char *names[] = {"db", "label", "port", "bind", "seconds", "labels", "svg"};
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		if (!strstr(allowed, names[k]))
			continue;
		char opt[16];
		snprintf(opt, sizeof opt, "--%s", names[k]);
		const char *val;
		bool m;
		int r = ui_opt_value(ctx, argc, argv, i, opt, &val, &m);
		if (r)
			return r;
		if (!m)
			continue;
		switch (k) {
		case 0: o->db = val; break;
		case 1: o->label = val; break;
		case 2: return parse_port(ctx, val, &o->port) ? -WD_EUSAGE : 1;
		case 3: o->bind = val; break;
		case 4: return parse_seconds(ctx, val, &o->seconds) ? -WD_EUSAGE : 1;
		case 5: o->labels = val; break;
		case 6: o->svg = val; break;
		}
		return 1;
	}
	return 0;
}

static int open_db(struct wd_ctx *ctx, const struct opts *o, bool create, bool *exists,
		   struct db *db)
{
	char *path = o->db ? wd_xstrdup(o->db) : bench_db_default_path();
	struct wd_err err = {0};
	if (!path) {
		wd_err_set(&err, WD_EFAIL, "no place for the results: set HOME or XDG_STATE_HOME, "
			   "or name a file with --db");
		return ui_fail(ctx, -WD_EFAIL, &err);
	}
	int r = bench_db_open(db, path, create, exists, &err);
	free(path);
	return r ? ui_fail(ctx, r, &err) : 0;
}

/* ------------------------------------------------------------ output */

struct live {
	struct wd_ctx *ctx;
	bool progress;  /* a terminal on stderr: one line that is rewritten */
	bool server;
};

static void clear_progress(struct live *lv)
{
	if (lv->progress)
		fprintf(stderr, "\r\033[K");
}

static void on_progress(void *arg, int block, char dir)
{
	struct live *lv = arg;
	if (!lv->progress)
		return;
	char label[16];
	netio_block_label(block, label, sizeof label);
	fprintf(stderr, "\r\033[Krunning: packet size %s, %s ...", label,
		dir == 'T' ? "Tx (client to server)" : "Rx (server to client)");
	fflush(stderr);
}

static void on_result(void *arg, const struct netio_result *r)
{
	struct live *lv = arg;
	if (lv->ctx->json)
		return;
	char line[NETIO_LINE_MAX];
	netio_format_line(r, line, sizeof line);
	clear_progress(lv);
	printf("%s\n", line);
	fflush(stdout);
}

static void on_note(void *arg, const char *msg)
{
	struct live *lv = arg;
	if (lv->ctx->json || (lv->server && lv->ctx->quiet))
		return;
	clear_progress(lv);
	printf("%s\n", msg);
	fflush(stdout);
}

static void json_dir(struct json *j, const char *key, const struct netio_dir *d)
{
	if (!d->set) {
		json_null(j, key);
		return;
	}
	json_obj_begin(j, key);
	json_num(j, "bytes_per_second", d->rate, 1);
	json_num(j, "mbyte_per_second", d->rate / MIB, 2);
	if (d->secs > 0) {
		char t[48];
		json_int(j, "bytes", (long long)d->bytes);
		json_num(j, "seconds", d->secs, 3);
		netio_format_rate(d->bytes, d->secs, t, sizeof t);
		json_str(j, "text", t);
	}
	json_obj_end(j);
}

static void json_run(struct json *j, const struct bench_run *run, const char *db)
{
	json_obj_begin(j, NULL);
	json_int(j, "run", run->id);
	json_str(j, "label", run->label);
	json_str(j, "source", run->source);
	json_str(j, "proto", run->l.proto == NETIO_UDP ? "udp" : "tcp");
	json_str(j, "peer", run->peer);
	json_str(j, "recorded", run->recorded);
	json_str(j, "db", db);
	json_arr_begin(j, "results");
	for (int i = 0; i < run->l.n; i++) {
		const struct netio_result *r = &run->l.r[i];
		char label[16], line[NETIO_LINE_MAX];
		netio_block_label(r->block, label, sizeof label);
		netio_format_line(r, line, sizeof line);
		json_obj_begin(j, NULL);
		json_int(j, "block", r->block);
		json_str(j, "size", label);
		json_dir(j, "tx", &r->tx);
		json_dir(j, "rx", &r->rx);
		json_str(j, "line", line);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
	json_finish(j);
}

static int record(struct wd_ctx *ctx, struct db *db, struct bench_run *run)
{
	struct wd_err err = {0};
	int r = bench_db_add(db, run, &err);
	if (r)
		return ui_fail(ctx, r, &err);
	if (ctx->json) {
		struct json j;
		json_init(&j, stdout);
		json_run(&j, run, db->path);
	} else {
		ui_say(ctx, "Recorded as run %lld under label '%s' in %s.\n", run->id, run->label,
		       db->path);
	}
	fflush(stdout);
	return 0;
}

/* ------------------------------------------------------------ client */

static int parse_client(struct wd_ctx *ctx, int argc, char **argv, struct opts *o)
{
	for (int i = 1; i < argc; i++) {
		int c = common_opt(ctx, argc, argv, &i, "db label port seconds", o);
		if (c < 0)
			return -c;
		if (c)
			continue;
		const char *val;
		bool m;
		if (ui_flag(argv, i, "-t")) {
			o->proto = NETIO_TCP;
		} else if (ui_flag(argv, i, "-u")) {
			o->proto = NETIO_UDP;
		} else if (ui_flag(argv, i, "-b") || !strncmp(argv[i], "-b", 2)) {
			if (argv[i][2])
				val = argv[i] + 2; /* netio's own spelling: -b32k */
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return ui_usage(ctx, "option -b needs a block size (1k .. 32k)");
			struct wd_err err = {0};
			int r = netio_parse_block(val, &o->block, &err);
			if (r == -WD_EUSAGE)
				return ui_usage(ctx, "-b %s", err.msg);
			if (r)
				return ui_fail(ctx, r, &err);
		} else if (!ui_opt_value(ctx, argc, argv, &i, "--block", &val, &m) && m) {
			struct wd_err err = {0};
			int r = netio_parse_block(val, &o->block, &err);
			if (r)
				return r == -WD_EUSAGE ? ui_usage(ctx, "--block: %s", err.msg)
						       : ui_fail(ctx, r, &err);
		} else if (argv[i][0] == '-') {
			return ui_usage(ctx, "bench client: unknown option '%s'", argv[i]);
		} else if (!o->host) {
			o->host = argv[i];
		} else {
			return ui_usage(ctx, "bench client: one HOST only ('%s' is extra)", argv[i]);
		}
	}
	if (!o->host)
		return ui_usage(ctx, "bench client: name the HOST running a netio server");
	return 0;
}

static int bench_client(struct wd_ctx *ctx, int argc, char **argv)
{
	struct opts o = {.port = NETIO_PORT, .seconds = NETIO_SECONDS};
	int rc = parse_client(ctx, argc, argv, &o);
	if (rc)
		return rc;
	struct db db;
	if ((rc = open_db(ctx, &o, true, NULL, &db)))
		return rc;
	struct live lv = {ctx, !ctx->quiet && isatty(STDERR_FILENO), false};
	struct netio_events ev = {&lv, on_progress, on_result, on_note};
	struct netio_client_opts co = {o.host, o.port, o.proto, o.seconds, o.block};
	struct bench_run run = {0};
	struct wd_err err = {0};
	int r = netio_client_run(&co, &ev, &run.l, &err);
	clear_progress(&lv);
	if (r) {
		wd_err_prefix(&err, "bench client: nothing recorded");
		rc = ui_fail(ctx, r, &err);
	} else {
		if (!ctx->json)
			printf("Done.\n");
		snprintf(run.label, sizeof run.label, "%s", o.label ? o.label : o.host);
		snprintf(run.source, sizeof run.source, "client");
		snprintf(run.peer, sizeof run.peer, "%s:%d", o.host, o.port);
		rc = record(ctx, &db, &run);
	}
	bench_db_close(&db);
	return rc;
}

/* ------------------------------------------------------------ server */

static int bench_server(struct wd_ctx *ctx, int argc, char **argv)
{
	struct opts o = {.port = NETIO_PORT, .seconds = NETIO_SECONDS};
	for (int i = 1; i < argc; i++) {
		int c = common_opt(ctx, argc, argv, &i, "db label port bind seconds", &o);
		if (c < 0)
			return -c;
		if (!c)
			return ui_usage(ctx, "bench server: unknown argument '%s'", argv[i]);
	}
	struct db db;
	int rc = open_db(ctx, &o, true, NULL, &db);
	if (rc)
		return rc;
	struct netio_server s;
	struct wd_err err = {0};
	int r = netio_server_open(&s, o.bind, o.port, o.seconds, &err);
	if (r) {
		bench_db_close(&db);
		return ui_fail(ctx, r, &err);
	}
	if (!ctx->json)
		printf("Listening on %s TCP port %d and UDP port %d; each finished run is "
		       "recorded in %s.\n", o.bind ? o.bind : "every address", o.port, o.port + 1,
		       db.path);
	fflush(stdout);
	struct live lv = {ctx, false, true};
	struct netio_events ev = {&lv, NULL, NULL, on_note};
	/* One client at a time, for as long as the server runs: a client's fault
	 * is reported and forgotten, a database fault ends the server. */
	for (;;) {
		struct bench_run run = {0};
		char peer[128];
		wd_err_clear(&err);
		r = netio_server_serve_one(&s, &ev, &run.l, peer, sizeof peer, &err);
		if (r) {
			fprintf(stderr, "%s: %s; run not recorded\n", ctx->prog, err.msg);
			continue;
		}
		if (o.label) {
			snprintf(run.label, sizeof run.label, "%s", o.label);
		} else { /* the client's address without its port */
			snprintf(run.label, sizeof run.label, "%s", peer);
			char *colon = strrchr(run.label, ':');
			if (colon)
				*colon = '\0';
		}
		snprintf(run.source, sizeof run.source, "server");
		snprintf(run.peer, sizeof run.peer, "%s", peer);
		if (!ctx->json)
			for (int i = 0; i < run.l.n; i++)
				on_result(&lv, &run.l.r[i]);
		if ((rc = record(ctx, &db, &run)))
			break;
	}
	netio_server_close(&s);
	bench_db_close(&db);
	return rc;
}

/* ------------------------------------------------------------ import */

static int bench_import(struct wd_ctx *ctx, int argc, char **argv)
{
	struct opts o = {0};
	for (int i = 1; i < argc; i++) {
		int c = common_opt(ctx, argc, argv, &i, "db label", &o);
		if (c < 0)
			return -c;
		if (c)
			continue;
		if (argv[i][0] == '-' && argv[i][1])
			return ui_usage(ctx, "bench import: unknown option '%s'", argv[i]);
		if (o.file)
			return ui_usage(ctx, "bench import: one FILE only ('%s' is extra)", argv[i]);
		o.file = argv[i];
	}
	if (!o.file || !o.label)
		return ui_usage(ctx, "bench import: needs --label NAME and the FILE netio's output "
				"was saved in");
	struct wd_buf text = {0};
	struct wd_err err = {0};
	int r;
	if (!strcmp(o.file, "-")) {
		char tmp[4096];
		size_t n;
		while ((n = fread(tmp, 1, sizeof tmp, stdin)) > 0 && text.len <= IMPORT_MAX)
			wd_buf_add(&text, tmp, n);
		r = text.len > IMPORT_MAX
			    ? wd_err_set(&err, WD_EFAIL, "standard input: over 1 MiB; a netio "
					 "listing is a few lines")
			    : 0;
	} else {
		r = wd_read_file(o.file, IMPORT_MAX, &text, &err);
	}
	struct bench_run run = {0};
	if (!r)
		r = netio_parse_listing(text.p ? text.p : "", text.len, o.file, &run.l, &err);
	wd_buf_free(&text);
	if (r)
		return ui_fail(ctx, r, &err);
	struct db db;
	int rc = open_db(ctx, &o, true, NULL, &db);
	if (rc)
		return rc;
	snprintf(run.label, sizeof run.label, "%s", o.label);
	snprintf(run.source, sizeof run.source, "import");
	const char *base = strrchr(o.file, '/');
	snprintf(run.peer, sizeof run.peer, "%s", base ? base + 1 : o.file);
	if (!ctx->json)
		ui_say(ctx, "Read %d block sizes from %s.\n", run.l.n, o.file);
	rc = record(ctx, &db, &run);
	bench_db_close(&db);
	return rc;
}

/* ------------------------------------------------------------ report */

struct peak {
	double rate;
	int block;
};

static struct peak peak_of(const struct netio_listing *l, bool tx)
{
	struct peak p = {0, 0};
	for (int i = 0; i < l->n; i++) {
		const struct netio_dir *d = tx ? &l->r[i].tx : &l->r[i].rx;
		if (d->set && d->rate > p.rate) {
			p.rate = d->rate;
			p.block = l->r[i].block;
		}
	}
	return p;
}

/* The block sizes any of the runs has, smallest first. */
static int all_blocks(struct bench_run *runs, int n, int *blocks)
{
	int nb = 0;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < runs[i].l.n; k++) {
			int b = runs[i].l.r[k].block, at = 0;
			while (at < nb && blocks[at] < b)
				at++;
			if (at < nb && blocks[at] == b)
				continue;
			if (nb == NETIO_MAX_RESULTS * 2)
				return nb;
			memmove(blocks + at + 1, blocks + at, sizeof *blocks * (size_t)(nb - at));
			blocks[at] = b;
			nb++;
		}
	return nb;
}

static const struct netio_dir *dir_at(const struct bench_run *run, int block, bool tx)
{
	const struct netio_result *r = netio_find_const(&run->l, block);
	const struct netio_dir *d = r ? (tx ? &r->tx : &r->rx) : NULL;
	return d && d->set ? d : NULL;
}

static void cell_rate(struct wd_buf *b, const struct netio_dir *d)
{
	if (d)
		wd_buf_addf(b, " %.2f |", d->rate / MIB);
	else
		wd_buf_adds(b, " - |");
}

static void cell_ratio(struct wd_buf *b, const struct netio_dir *first,
		       const struct netio_dir *last)
{
	if (first && last && first->rate > 0)
		wd_buf_addf(b, " %.2fx |", last->rate / first->rate);
	else
		wd_buf_adds(b, " - |");
}

/* "peak Tx went from 24.83 MByte/s to 50.39 MByte/s at 16k: 2.03x" */
static void summary_line(struct peak a, struct peak b, const char *dir, char *out, size_t n)
{
	char la[16], lb[16];
	netio_block_label(a.block, la, sizeof la);
	netio_block_label(b.block, lb, sizeof lb);
	double ratio = a.rate > 0 ? b.rate / a.rate : 0;
	if (a.block == b.block)
		snprintf(out, n, "peak %s went from %.2f MByte/s to %.2f MByte/s at %s: %.2fx", dir,
			 a.rate / MIB, b.rate / MIB, la, ratio);
	else
		snprintf(out, n, "peak %s went from %.2f MByte/s at %s to %.2f MByte/s at %s: %.2fx",
			 dir, a.rate / MIB, la, b.rate / MIB, lb, ratio);
}

static void text_table(struct wd_buf *b, struct bench_run *runs, int n, const int *blocks,
		       int nb)
{
	bool ratio = n > 1;
	wd_buf_adds(b, "| block |");
	for (int i = 0; i < n; i++)
		wd_buf_addf(b, " %s Tx | %s Rx |", runs[i].label, runs[i].label);
	if (ratio)
		wd_buf_adds(b, " Tx ratio | Rx ratio |");
	wd_buf_adds(b, "\n|---|");
	for (int i = 0; i < n * 2 + (ratio ? 2 : 0); i++)
		wd_buf_adds(b, "---|");
	wd_buf_adds(b, "\n");
	for (int k = 0; k < nb; k++) {
		char label[16];
		netio_block_label(blocks[k], label, sizeof label);
		wd_buf_addf(b, "| %s |", label);
		for (int i = 0; i < n; i++) {
			cell_rate(b, dir_at(&runs[i], blocks[k], true));
			cell_rate(b, dir_at(&runs[i], blocks[k], false));
		}
		if (ratio)
			for (int t = 1; t >= 0; t--)
				cell_ratio(b, dir_at(&runs[0], blocks[k], t),
					   dir_at(&runs[n - 1], blocks[k], t));
		wd_buf_adds(b, "\n");
	}
	wd_buf_adds(b, "| peak |");
	for (int i = 0; i < n; i++)
		for (int t = 1; t >= 0; t--) {
			struct peak p = peak_of(&runs[i].l, t);
			char label[16];
			netio_block_label(p.block, label, sizeof label);
			wd_buf_addf(b, " %.2f (%s) |", p.rate / MIB, label);
		}
	if (ratio)
		for (int t = 1; t >= 0; t--) {
			struct peak a = peak_of(&runs[0].l, t), z = peak_of(&runs[n - 1].l, t);
			wd_buf_addf(b, " %.2fx |", a.rate > 0 ? z.rate / a.rate : 0);
		}
	wd_buf_adds(b, "\n");
}

static void xml_text(struct wd_buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': wd_buf_adds(b, "&amp;"); break;
		case '<': wd_buf_adds(b, "&lt;"); break;
		case '>': wd_buf_adds(b, "&gt;"); break;
		case '"': wd_buf_adds(b, "&quot;"); break;
		default: wd_buf_addc(b, *s);
		}
	}
}

/* Grouped bars: per block size, each label's Tx (solid) and Rx (light). */
static void svg_chart(struct wd_buf *b, struct bench_run *runs, int n, const int *blocks,
		      int nb)
{
	static const char *colors[] = {"#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#b07aa1",
				       "#76b7b2"};
	double top = 1;
	for (int i = 0; i < n; i++)
		for (int t = 0; t < 2; t++)
			if (peak_of(&runs[i].l, t).rate / MIB > top)
				top = peak_of(&runs[i].l, t).rate / MIB;
	/* The axis ends at the next multiple of a power of ten: 50.39 -> 60. */
	double step = 1;
	while (step * 10 <= top)
		step *= 10;
	double ymax = step;
	while (ymax < top)
		ymax += step;
	int bar = 14, gap = 24, left = 60, plot_h = 260, top_y = 50;
	int group = n * 2 * bar;
	int width = left + nb * (group + gap) + gap, height = top_y + plot_h + 50;
	wd_buf_addf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		    "font-family=\"sans-serif\" font-size=\"12\">\n"
		    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		    "<text x=\"%d\" y=\"20\" font-size=\"14\">netio throughput, MByte/s "
		    "(Tx solid, Rx light)</text>\n", width, height, left);
	for (int i = 0; i < n; i++) {
		int x = left + i * 160;
		wd_buf_addf(b, "<rect x=\"%d\" y=\"30\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			    "<text x=\"%d\" y=\"40\">", x, colors[i % 6], x + 16);
		xml_text(b, runs[i].label);
		wd_buf_adds(b, "</text>\n");
	}
	for (int t = 0; t <= 4; t++) {
		double v = ymax * t / 4;
		int y = top_y + plot_h - (int)(plot_h * t / 4);
		wd_buf_addf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>"
			    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%g</text>\n", left, y,
			    width - gap / 2, y, left - 6, y + 4, v);
	}
	for (int k = 0; k < nb; k++) {
		int gx = left + gap + k * (group + gap);
		char label[16];
		netio_block_label(blocks[k], label, sizeof label);
		for (int i = 0; i < n; i++)
			for (int t = 0; t < 2; t++) {
				const struct netio_dir *d = dir_at(&runs[i], blocks[k], t == 0);
				if (!d)
					continue;
				double v = d->rate / MIB;
				int h = (int)(plot_h * v / ymax + 0.5);
				wd_buf_addf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
					    "fill=\"%s\" fill-opacity=\"%s\"><title>", gx + (i * 2 + t) * bar,
					    top_y + plot_h - h, bar - 2, h, colors[i % 6],
					    t == 0 ? "1" : "0.45");
				xml_text(b, runs[i].label);
				wd_buf_addf(b, " %s %s: %.2f MByte/s</title></rect>\n", label,
					    t == 0 ? "Tx" : "Rx", v);
			}
		wd_buf_addf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			    gx + group / 2, top_y + plot_h + 18, label);
	}
	wd_buf_addf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n"
		    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">block size</text>\n</svg>\n",
		    left, top_y + plot_h, width - gap / 2, top_y + plot_h, width / 2,
		    top_y + plot_h + 38);
}

static void json_report(struct wd_ctx *ctx, struct bench_run *runs, int n, const int *blocks,
			int nb, char lines[2][200])
{
	struct json *j = &ctx->j;
	json_obj_begin(j, NULL);
	json_str(j, "unit", "MByte/s");
	json_arr_begin(j, "runs");
	for (int i = 0; i < n; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "label", runs[i].label);
		json_int(j, "run", runs[i].id);
		json_str(j, "source", runs[i].source);
		json_str(j, "recorded", runs[i].recorded);
		for (int t = 1; t >= 0; t--) {
			struct peak p = peak_of(&runs[i].l, t);
			json_obj_begin(j, t ? "peak_tx" : "peak_rx");
			json_num(j, "mbyte_per_second", p.rate / MIB, 2);
			json_int(j, "block", p.block);
			json_obj_end(j);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "rows");
	for (int k = 0; k < nb; k++) {
		char label[16];
		netio_block_label(blocks[k], label, sizeof label);
		json_obj_begin(j, NULL);
		json_int(j, "block", blocks[k]);
		json_str(j, "size", label);
		json_arr_begin(j, "values");
		for (int i = 0; i < n; i++) {
			json_obj_begin(j, NULL);
			json_str(j, "label", runs[i].label);
			for (int t = 1; t >= 0; t--) {
				const struct netio_dir *d = dir_at(&runs[i], blocks[k], t);
				if (d)
					json_num(j, t ? "tx" : "rx", d->rate / MIB, 2);
				else
					json_null(j, t ? "tx" : "rx");
			}
			json_obj_end(j);
		}
		json_arr_end(j);
		if (n > 1)
			for (int t = 1; t >= 0; t--) {
				const struct netio_dir *a = dir_at(&runs[0], blocks[k], t);
				const struct netio_dir *z = dir_at(&runs[n - 1], blocks[k], t);
				if (a && z && a->rate > 0)
					json_num(j, t ? "tx_ratio" : "rx_ratio", z->rate / a->rate, 2);
				else
					json_null(j, t ? "tx_ratio" : "rx_ratio");
			}
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "summary");
	if (n > 1)
		for (int t = 0; t < 2; t++)
			json_str(j, NULL, lines[t]);
	json_arr_end(j);
	json_obj_end(j);
	json_finish(j);
}

/* Splits "A,B" into the labels asked for, in that order. */
static int split_labels(const char *s, char ***out, int *n)
{
	*out = NULL;
	*n = 0;
	while (*s) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		if (len == 0)
			return -1;
		*out = wd_xrealloc(*out, sizeof **out * (size_t)(*n + 1));
		(*out)[(*n)++] = wd_xstrndup(s, len);
		s += len + (comma ? 1 : 0);
		if (comma && !*s)
			return -1;
	}
	return *n ? 0 : -1;
}

static void free_labels(char **l, int n)
{
	for (int i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

static int load_runs(struct wd_ctx *ctx, struct db *db, char **labels, int n,
		     struct bench_run *runs)
{
	struct wd_err err = {0};
	for (int i = 0; i < n; i++) {
		bool found;
		int r = bench_db_latest(db, labels[i], &runs[i], &found, &err);
		if (r)
			return ui_fail(ctx, r, &err);
		if (!found) {
			char **all;
			int na;
			struct wd_buf known = {0};
			if (!bench_db_labels(db, &all, &na, &err)) {
				for (int k = 0; k < na; k++)
					wd_buf_addf(&known, "%s'%s'", k ? ", " : "", all[k]);
				free_labels(all, na);
			}
			wd_err_set(&err, WD_EFAIL, "%s: no run recorded under label '%s' (labels "
				   "there: %s)", db->path, labels[i], known.len ? known.p : "none");
			wd_buf_free(&known);
			return ui_fail(ctx, -WD_EFAIL, &err);
		}
	}
	return 0;
}

static int write_svg(struct wd_ctx *ctx, const char *path, struct bench_run *runs, int n,
		     const int *blocks, int nb)
{
	struct wd_buf svg = {0};
	struct wd_err err = {0};
	svg_chart(&svg, runs, n, blocks, nb);
	int r = wd_write_atomic(path, svg.p, svg.len, 0644, &err);
	wd_buf_free(&svg);
	return r ? ui_fail(ctx, r, &err) : 0;
}

static int bench_report(struct wd_ctx *ctx, int argc, char **argv)
{
	struct opts o = {0};
	for (int i = 1; i < argc; i++) {
		int c = common_opt(ctx, argc, argv, &i, "db labels svg", &o);
		if (c < 0)
			return -c;
		if (!c)
			return ui_usage(ctx, "bench report: unknown argument '%s'", argv[i]);
	}
	char **labels = NULL;
	int n = 0;
	if (o.labels && split_labels(o.labels, &labels, &n)) {
		free_labels(labels, n);
		return ui_usage(ctx, "--labels %s: expected labels separated by commas, such as "
				"E1000,MMLEM", o.labels);
	}
	struct db db;
	bool exists;
	int rc = open_db(ctx, &o, false, &exists, &db);
	if (rc) {
		free_labels(labels, n);
		return rc;
	}
	struct wd_err err = {0};
	if (!exists) {
		wd_err_set(&err, WD_EFAIL, "no results yet: %s does not exist; record some with "
			   "'warpdrv bench client', 'bench server' or 'bench import'", db.path);
		rc = ui_fail(ctx, -WD_EFAIL, &err);
		goto out;
	}
	int r;
	if (!labels && (r = bench_db_labels(&db, &labels, &n, &err))) {
		rc = ui_fail(ctx, r, &err);
		goto out;
	}
	if (n == 0) {
		wd_err_set(&err, WD_EFAIL, "%s holds no runs yet", db.path);
		rc = ui_fail(ctx, -WD_EFAIL, &err);
		goto out;
	}
	struct bench_run *runs = wd_xcalloc((size_t)n, sizeof *runs);
	if (!(rc = load_runs(ctx, &db, labels, n, runs))) {
		int blocks[NETIO_MAX_RESULTS * 2];
		int nb = all_blocks(runs, n, blocks);
		char lines[2][200] = {"", ""};
		if (n > 1)
			for (int t = 0; t < 2; t++)
				summary_line(peak_of(&runs[0].l, t == 0), peak_of(&runs[n - 1].l, t == 0),
					     t == 0 ? "Tx" : "Rx", lines[t], sizeof lines[t]);
		if (o.svg)
			rc = write_svg(ctx, o.svg, runs, n, blocks, nb);
		if (!rc && ctx->json) {
			json_report(ctx, runs, n, blocks, nb, lines);
		} else if (!rc) {
			struct wd_buf b = {0};
			text_table(&b, runs, n, blocks, nb);
			printf("netio throughput in MByte/s (1 MByte = 1048576 bytes), the latest run "
			       "of each label:\n\n%s", wd_buf_cstr(&b));
			if (n > 1)
				printf("\n%s\n%s\n", lines[0], lines[1]);
			if (o.svg)
				printf("\nChart written to %s.\n", o.svg);
			wd_buf_free(&b);
		}
	}
	free(runs);
out:
	free_labels(labels, n);
	bench_db_close(&db);
	return rc;
}

/* ------------------------------------------------------------ dispatch */

const char cmd_bench_help[] =
	"  bench server [--port 18767] [--bind ADDR] [--label NAME] [--seconds N]\n"
	"      a netio server: TCP on the port, UDP on the port + 1, one client at a time;\n"
	"      records each finished run under the label (default: the client's address)\n"
	"  bench client HOST [-t|-u] [-b SIZE[k]] [--port N] [--label NAME] [--seconds N]\n"
	"      a netio 1.3x client, against warpdrv's server or a real netio -s\n"
	"  bench import --label NAME FILE\n"
	"      records the text a netio client printed (FILE - reads standard input)\n"
	"  bench report [--labels A,B] [--svg FILE]\n"
	"      the table per block size, the ratio of the last label to the first\n\n"
	"Every subcommand takes --db FILE (default $XDG_STATE_HOME/warpdrv/bench.db, else\n"
	"~/.local/state/warpdrv/bench.db). --seconds (default 6 per direction and block\n"
	"size) may be fractional. See docs/bench.md.\n";

int cmd_bench(struct wd_ctx *ctx, int argc, char **argv)
{
	if (argc < 1)
		return ui_usage(ctx, "bench: name a subcommand: server, client, import or report");
	/* The subcommand sees itself as argv[0]. */
	if (!strcmp(argv[0], "server"))
		return bench_server(ctx, argc, argv);
	if (!strcmp(argv[0], "client"))
		return bench_client(ctx, argc, argv);
	if (!strcmp(argv[0], "import"))
		return bench_import(ctx, argc, argv);
	if (!strcmp(argv[0], "report"))
		return bench_report(ctx, argc, argv);
	return ui_usage(ctx, "bench: unknown subcommand '%s' (server, client, import, report)",
			argv[0]);
}
