/* warpdrv bench: a netio-compatible throughput test (server, client) and the
 * import of what an OS/2 guest's netio printed; the report is in
 * ui/cmd_bench_report.c. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/file.h"
#include "netbench/bench_db.h"
#include "netbench/bench_driver.h"
#include "netbench/bench_spread.h"
#include "netbench/netio.h"
#include "ui/cmd_bench.h"

#define MIB BENCH_MIB
#define IMPORT_MAX (1024 * 1024)

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

static int parse_count(struct wd_ctx *ctx, const char *opt, const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);
	if (end == s || *end || v < 1 || v > BENCH_MAX_ROUNDS)
		return -ui_usage(ctx, "--%s %s: expected a count from 1 to %d", opt, s,
				 BENCH_MAX_ROUNDS);
	*out = (int)v;
	return 0;
}

int bench_read_opts(struct wd_ctx *ctx, struct bench_opts *o)
{
	const struct bench_args *a = UI_ARGS(ctx, struct bench_args);
	o->db = a->db;
	o->label = a->label;
	o->bind = a->bind;
	o->labels = a->labels;
	o->svg = a->svg;
	if (a->port && parse_port(ctx, a->port, &o->port))
		return WD_EUSAGE;
	if (a->seconds && parse_seconds(ctx, a->seconds, &o->seconds))
		return WD_EUSAGE;
	if (a->rounds && parse_count(ctx, "rounds", a->rounds, &o->rounds))
		return WD_EUSAGE;
	if (a->runs && parse_count(ctx, "runs", a->runs, &o->runs))
		return WD_EUSAGE;
	return 0;
}

int bench_open_db(struct wd_ctx *ctx, const struct bench_opts *o, bool create, bool *exists,
		  struct db *db)
{
	char *path = o->db ? wd_xstrdup(o->db) : bench_db_default_path(getenv("XDG_STATE_HOME"), getenv("HOME"));
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
	if (d->has_loss)
		json_int(j, "loss_percent", d->loss);
	json_obj_end(j);
}

static void json_run_object(struct json *j, const struct bench_run *run, const char *db)
{
	json_obj_begin(j, NULL);
	json_int(j, "run", run->id);
	json_str(j, "label", run->label);
	json_str(j, "source", run->source);
	json_str(j, "proto", run->l.proto == NETIO_UDP ? "udp" : "tcp");
	json_str(j, "peer", run->peer);
	json_time(j, "recorded_at", run->recorded);
	json_str(j, "driver", run->driver[0] ? run->driver : NULL);
	json_str(j, "version", run->version[0] ? run->version : NULL);
	json_str(j, "db", db);
	json_arr_begin(j, "results");
	for (int i = 0; i < run->l.n; i++) {
		const struct netio_result *r = &run->l.r[i];
		char label[16], line[NETIO_LINE_MAX];
		netio_block_label(r->block, label, sizeof label);
		netio_format_line(r, line, sizeof line);
		json_obj_begin(j, NULL);
		json_int(j, "block", r->block);
		json_str(j, "block_name", label);
		json_dir(j, "tx", &r->tx);
		json_dir(j, "rx", &r->rx);
		json_str(j, "netio_line", line);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static void json_run(struct json *j, const struct bench_run *run, const char *db)
{
	json_run_object(j, run, db);
	json_finish(j);
}

/* Records a run; quiet: no words and no JSON (the caller reports it). */
static int record_run(struct wd_ctx *ctx, struct db *db, struct bench_run *run, bool quiet)
{
	struct wd_err err = {0};
	int r = bench_db_add(db, run, &err);
	if (r)
		return ui_fail(ctx, r, &err);
	if (quiet)
		return 0;
	if (ctx->json) {
		struct json j;
		json_init(&j, stdout);
		json_run(&j, run, db->path);
	} else {
		ui_say(ctx, "Recorded as run %lld under label '%s' in %s.\n", run->id,
		       ui_esc(run->label), ui_esc(db->path));
	}
	fflush(stdout);
	return 0;
}

static int record(struct wd_ctx *ctx, struct db *db, struct bench_run *run)
{
	return record_run(ctx, db, run, false);
}

/* With --root, the run is labelled with the NIC driver the volume loads
 * (unless --label names it) and records the driver and its package. */
static int label_from_volume(struct wd_ctx *ctx, const struct bench_opts *o,
			     struct bench_run *run)
{
	if (!ctx->root)
		return 0;
	struct bench_driver d;
	struct wd_err err = {0};
	int r = bench_driver_of_volume(ctx->root, &d, &err);
	if (r)
		return ui_fail(ctx, r, &err);
	snprintf(run->label, sizeof run->label, "%s", o->label ? o->label : d.label);
	snprintf(run->driver, sizeof run->driver, "%s", d.file);
	snprintf(run->version, sizeof run->version, "%s", d.version);
	if (!ctx->json)
		ui_say(ctx, "The volume's CONFIG.SYS loads %s (line %d)%s%s%s; runs are labelled "
		       "'%s'.\n", ui_esc(d.file), d.line, d.version[0] ? ", package " : "",
		       ui_esc(d.version), d.version[0] ? "" : ", installed by no package",
		       ui_esc(run->label));
	return 0;
}

/* ------------------------------------------------------------ client */

static int parse_client(struct wd_ctx *ctx, int argc, char **argv, struct bench_opts *o)
{
	int rc = bench_read_opts(ctx, o);
	if (rc)
		return rc;
	/* -t and -u: the last one given counts, as netio's */
	for (int k = 0; k < ctx->noptv; k++) {
		size_t off = ctx->optv[k].opt->off;
		if (off == offsetof(struct bench_args, tcp))
			o->proto = NETIO_TCP;
		else if (off == offsetof(struct bench_args, udp))
			o->proto = NETIO_UDP;
	}
	const char *val = UI_ARGS(ctx, struct bench_args)->block;
	if (val) { /* -b32k is netio's own spelling */
		struct wd_err err = {0};
		int r = netio_parse_block(val, &o->block, &err);
		if (r)
			return r == -WD_EUSAGE ? ui_usage(ctx, "--block: %s", err.msg)
					       : ui_fail(ctx, r, &err);
	}
	for (int i = 0; i < argc; i++) {
		if (o->host)
			return ui_usage(ctx, "bench client: one HOST only ('%s' is extra)", argv[i]);
		o->host = argv[i];
	}
	if (!o->host)
		return ui_usage(ctx, "bench client: name the HOST running a netio server");
	return 0;
}

/* The spread of one figure over the rounds: "1713.20 (1690.11-1730.55)". */
static void spread_text(const struct bench_spread *sp, char *out, size_t n)
{
	if (sp->n > 1)
		snprintf(out, n, "%.2f (%.2f-%.2f)", sp->median / MIB, sp->min / MIB, sp->max / MIB);
	else if (sp->n)
		snprintf(out, n, "%.2f", sp->median / MIB);
	else
		snprintf(out, n, "-");
}

/* A figure of one block size and direction over the rounds. */
static void round_spread(const struct bench_run *runs, int n, int block, bool tx,
			 struct bench_spread *sp)
{
	double v[BENCH_MAX_ROUNDS];
	int k = 0;
	for (int i = 0; i < n; i++) {
		const struct netio_result *r = netio_find_const(&runs[i].l, block);
		const struct netio_dir *d = r ? (tx ? &r->tx : &r->rx) : NULL;
		if (d && d->set)
			v[k++] = d->rate;
	}
	bench_spread_of(v, k, sp);
}

/* After several rounds: per block size, the median of each direction and
 * its range, as text or as the document's "spread". */
static void print_rounds(struct wd_ctx *ctx, const struct bench_run *runs, int n,
			 const char *db)
{
	const struct netio_listing *l = &runs[n - 1].l;
	if (ctx->json) {
		struct json j;
		json_init(&j, stdout);
		json_obj_begin(&j, NULL);
		json_int(&j, "rounds", n);
		json_str(&j, "label", runs[n - 1].label);
		json_str(&j, "db", db);
		json_arr_begin(&j, "runs");
		for (int i = 0; i < n; i++)
			json_run_object(&j, &runs[i], db);
		json_arr_end(&j);
		json_arr_begin(&j, "spread");
		for (int k = 0; k < l->n; k++) {
			char label[16];
			netio_block_label(l->r[k].block, label, sizeof label);
			json_obj_begin(&j, NULL);
			json_int(&j, "block", l->r[k].block);
			json_str(&j, "block_name", label);
			for (int t = 1; t >= 0; t--) {
				struct bench_spread sp;
				round_spread(runs, n, l->r[k].block, t, &sp);
				json_obj_begin(&j, t ? "tx" : "rx");
				json_num(&j, "mbyte_per_second", sp.median / MIB, 2);
				json_num(&j, "min", sp.min / MIB, 2);
				json_num(&j, "max", sp.max / MIB, 2);
				json_int(&j, "rounds", sp.n);
				json_obj_end(&j);
			}
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
		json_finish(&j);
		return;
	}
	printf("Medians of %d rounds in MByte/s (1048576 bytes), with their range (lowest-highest):\n",
	       n);
	for (int k = 0; k < l->n; k++) {
		char label[16], tx[64], rx[64];
		struct bench_spread a, b;
		netio_block_label(l->r[k].block, label, sizeof label);
		round_spread(runs, n, l->r[k].block, true, &a);
		round_spread(runs, n, l->r[k].block, false, &b);
		spread_text(&a, tx, sizeof tx);
		spread_text(&b, rx, sizeof rx);
		printf("  %3s  Tx %s  Rx %s\n", label, tx, rx);
	}
	ui_say(ctx, "Recorded as runs %lld to %lld under label '%s' in %s.\n", runs[0].id,
	       runs[n - 1].id, ui_esc(runs[n - 1].label), ui_esc(db));
}

static int bench_client(struct wd_ctx *ctx, int argc, char **argv)
{
	struct bench_opts o = {.port = NETIO_PORT, .seconds = NETIO_SECONDS, .rounds = 1};
	struct bench_run tmpl = {0};
	int rc = parse_client(ctx, argc, argv, &o);
	if (rc || (rc = label_from_volume(ctx, &o, &tmpl)))
		return rc;
	struct db db;
	if ((rc = bench_open_db(ctx, &o, true, NULL, &db)))
		return rc;
	struct live lv = {ctx, !ctx->quiet && ui_term_ok(STDERR_FILENO), false};
	struct netio_events ev = {&lv, on_progress, on_result, on_note};
	struct netio_client_opts co = {o.host, o.port, o.proto, o.seconds, o.block, o.bind};
	struct bench_run *runs = wd_xcalloc((size_t)o.rounds, sizeof *runs);
	int done = 0;
	while (!rc && done < o.rounds) {
		struct bench_run *run = &runs[done];
		*run = tmpl;
		if (o.rounds > 1 && !ctx->json)
			printf("%sRound %d of %d:\n", done ? "\n" : "", done + 1, o.rounds);
		struct wd_err err = {0};
		int r = netio_client_run(&co, &ev, &run->l, &err);
		clear_progress(&lv);
		if (r) {
			wd_err_prefix(&err, done ? "bench client: this round not recorded"
						 : "bench client: nothing recorded");
			rc = ui_fail(ctx, r, &err);
			break;
		}
		if (!ctx->json)
			printf("Done.\n");
		if (!run->label[0])
			snprintf(run->label, sizeof run->label, "%s", o.label ? o.label : o.host);
		snprintf(run->source, sizeof run->source, "client");
		snprintf(run->peer, sizeof run->peer, "%s:%d", o.host,
			 o.proto == NETIO_UDP ? o.port + 1 : o.port);
		rc = record_run(ctx, &db, run, o.rounds > 1 && ctx->json);
		done += !rc;
	}
	if (!rc && o.rounds > 1)
		print_rounds(ctx, runs, done, db.path);
	free(runs);
	bench_db_close(&db);
	return rc;
}

/* ------------------------------------------------------------ server */

/* The label of a run the server recorded: --label, the volume's driver,
 * else the client's address without its port. */
static void server_label(const struct bench_opts *o, const struct bench_run *tmpl,
			 const char *peer, struct bench_run *run)
{
	if (o->label || tmpl->label[0]) {
		snprintf(run->label, sizeof run->label, "%s", o->label ? o->label : tmpl->label);
	} else {
		snprintf(run->label, sizeof run->label, "%s", peer);
		char *colon = strrchr(run->label, ':');
		if (colon)
			*colon = '\0';
	}
	snprintf(run->driver, sizeof run->driver, "%s", tmpl->driver);
	snprintf(run->version, sizeof run->version, "%s", tmpl->version);
	snprintf(run->source, sizeof run->source, "server");
	snprintf(run->peer, sizeof run->peer, "%s", peer);
}

/* One client at a time, for as long as the server runs: a client's fault
 * is reported and forgotten, a database fault ends the server. */
static int serve(struct wd_ctx *ctx, struct netio_server *s, struct db *db,
		 const struct bench_opts *o, const struct bench_run *tmpl)
{
	struct live lv = {ctx, false, true};
	struct netio_events ev = {&lv, NULL, NULL, on_note};
	struct wd_err err = {0};
	for (;;) {
		struct bench_run run = {0};
		char peer[128];
		wd_err_clear(&err);
		int r = netio_server_serve_one(s, &ev, &run.l, peer, sizeof peer, &err);
		if (r) {
			fprintf(stderr, "%s: %s; run not recorded\n", ctx->prog, err.msg);
			continue;
		}
		server_label(o, tmpl, peer, &run);
		if (!ctx->json)
			for (int i = 0; i < run.l.n; i++)
				on_result(&lv, &run.l.r[i]);
		if ((r = record(ctx, db, &run)))
			return r;
	}
}

static int bench_server(struct wd_ctx *ctx, int argc, char **argv)
{
	struct bench_opts o = {.port = NETIO_PORT, .seconds = NETIO_SECONDS};
	int rc = bench_read_opts(ctx, &o);
	if (rc)
		return rc;
	if (argc > 0)
		return ui_usage(ctx, "bench server: unknown argument '%s'", argv[0]);
	struct bench_run tmpl = {0};
	rc = label_from_volume(ctx, &o, &tmpl);
	struct db db;
	if (rc || (rc = bench_open_db(ctx, &o, true, NULL, &db)))
		return rc;
	struct netio_server s;
	struct wd_err err = {0};
	int r = netio_server_open(&s, o.bind, o.port, o.seconds, &err);
	if (r) {
		bench_db_close(&db);
		return ui_fail(ctx, r, &err);
	}
	if (!ctx->json)
		printf("Listening on %s TCP port %d (the TCP test) and TCP and UDP port %d (the "
		       "UDP test); each finished run is recorded in %s.\n",
		       o.bind ? o.bind : "every address", o.port, o.port + 1, db.path);
	fflush(stdout);
	rc = serve(ctx, &s, &db, &o, &tmpl);
	netio_server_close(&s);
	bench_db_close(&db);
	return rc;
}

/* ------------------------------------------------------------ import */

static int bench_import(struct wd_ctx *ctx, int argc, char **argv)
{
	struct bench_opts o = {0};
	int rc = bench_read_opts(ctx, &o);
	if (rc)
		return rc;
	for (int i = 0; i < argc; i++) {
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
		r = wd_read_file(o.file, IMPORT_MAX, &text, &err); /* host: a file named on the command line */
	}
	struct bench_run run = {0};
	if (!r)
		r = netio_parse_listing(text.p ? text.p : "", text.len, o.file, &run.l, &err);
	wd_buf_free(&text);
	if (r)
		return ui_fail(ctx, r, &err);
	struct db db;
	rc = bench_open_db(ctx, &o, true, NULL, &db);
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

/* ------------------------------------------------------------ dispatch */

const char cmd_bench_help[] =
	"With --root VOL, client and server label their runs with the NIC driver the\n"
	"volume's CONFIG.SYS loads (and record its package version).\n"
	"Every subcommand takes --db FILE (default $XDG_STATE_HOME/warpdrv/bench.db, else\n"
	"~/.local/state/warpdrv/bench.db). --seconds (default 6 per direction and block\n"
	"size) may be fractional. See docs/bench.md.\n";

#define B struct bench_args
#define DB_OPT                                                                             \
	WD_OPT_STRING(B, db, "db", 0, "FILE",                                             \
		      "the results file (default ~/.local/state/warpdrv/bench.db)")
#define LABEL_OPT(what) WD_OPT_STRING(B, label, "label", 0, "NAME", what)
#define NET_OPTS                                                                           \
	WD_OPT_STRING(B, port, "port", 'p', "N",                                          \
		      "the TCP port (default 18767; the UDP test uses the next one)"),          \
	WD_OPT_STRING(B, bind, "bind", 0, "ADDR", "the local address to use"),            \
	WD_OPT_STRING(B, seconds, "seconds", 0, "N",                                      \
		      "seconds per direction and block size (default 6; may be fractional)")

static const struct wd_opt server_opts[] = {
	DB_OPT, LABEL_OPT("the label of the runs (default: the --root volume's NIC driver, else the client)"),
	NET_OPTS, {0},
};
static const struct wd_opt client_opts[] = {
	DB_OPT, LABEL_OPT("the label of the run (default: the --root volume's NIC driver)"),
	NET_OPTS,
	WD_OPT_BOOL(B, tcp, "tcp", 't', "the TCP test only"),
	WD_OPT_BOOL(B, udp, "udp", 'u', "the UDP test only"),
	WD_OPT_STRING(B, block, "block", 'b', "SIZE",
		      "one block size only, 1k to 32k (-b32k as netio spells it)"),
	WD_OPT_STRING(B, rounds, "rounds", 0, "N",
		      "run the whole test N times, each recorded; then each figure's median "
		      "and range"),
	{0},
};
static const struct wd_opt import_opts[] = {
	DB_OPT, LABEL_OPT("the label to record the runs under (required)"), {0},
};
static const struct wd_opt report_opts[] = {
	DB_OPT,
	WD_OPT_STRING(B, labels, "labels", 0, "A,B",
		      "these labels, in this order (default: every label)"),
	WD_OPT_STRING(B, svg, "svg", 0, "FILE",
		      "also draw the TCP and UDP charts (FILE-tcp.svg, FILE-udp.svg)"),
	WD_OPT_STRING(B, runs, "runs", 0, "N",
		      "the latest N runs of each label (default 100): medians and ranges"),
	{0},
};

const struct wd_cmd cmd_bench_subs[] = {
	{.name = "server", .run = bench_server, .args = "[--port 18767] [--bind ADDR] [--label NAME] [--seconds N]",
	 .summary = "a netio server: the TCP test on the port, the UDP test on the port + 1",
	 .help = "TCP control, UDP data, one client at a time; records each finished run under\n"
	 "the label (default: the --root volume's NIC driver, else the client).\n",
	 .opts = server_opts, .args_size = sizeof(B)},
	{.name = "client", .run = bench_client,
	 .args = "HOST [-t|-u] [-b SIZE[k]] [--rounds N] [--port N] [--bind ADDR] [--label NAME] [--seconds N]",
	 .summary = "a netio 1.3x client, against warpdrv's server or a real netio -s", .opts = client_opts, .args_size = sizeof(B)},
	{.name = "import", .run = bench_import, .args = "--label NAME FILE",
	 .summary = "records the text a netio client printed (FILE - reads standard input)",
	 .opts = import_opts, .args_size = sizeof(B)},
	{.name = "report", .run = bench_report, .args = "[--labels A,B] [--runs N] [--svg FILE]",
	 .summary = "the table per block size (medians of each label's runs, with their range), the ratio "
	 "of the last label to the first", .opts = report_opts, .args_size = sizeof(B)},
	{0},
};
