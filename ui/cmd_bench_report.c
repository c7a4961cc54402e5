/* warpdrv bench report: the latest run of each label as the announcement's
 * table (Tx and Rx per block size, the ratio of the last label to the first,
 * the peak lines), TCP and UDP apart, as Markdown, JSON or an SVG chart. */
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/file.h"
#include "ui/cmd_bench.h"

#define MIB BENCH_MIB
#define MAX_ROWS (NETIO_MAX_RESULTS * 2)

/* The runs of one protocol, one per label (l.n 0: none for that label). */
struct section {
	enum netio_proto proto;
	struct bench_run *runs;
	int n, found;
	int blocks[MAX_ROWS];
	int nb;
	char lines[2][200];
};

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

/* The rows any of the runs has, smallest first (32767 and 32768 are one row). */
static void all_blocks(struct section *s)
{
	s->nb = 0;
	for (int i = 0; i < s->n; i++)
		for (int k = 0; k < s->runs[i].l.n; k++) {
			int b = netio_block_row(s->runs[i].l.r[k].block), at = 0;
			while (at < s->nb && s->blocks[at] < b)
				at++;
			if ((at < s->nb && s->blocks[at] == b) || s->nb == MAX_ROWS)
				continue;
			memmove(s->blocks + at + 1, s->blocks + at,
				sizeof *s->blocks * (size_t)(s->nb - at));
			s->blocks[at] = b;
			s->nb++;
		}
}

static const struct netio_dir *dir_at(const struct bench_run *run, int row, bool tx)
{
	for (int i = 0; i < run->l.n; i++)
		if (netio_block_row(run->l.r[i].block) == row) {
			const struct netio_dir *d = tx ? &run->l.r[i].tx : &run->l.r[i].rx;
			return d->set ? d : NULL;
		}
	return NULL;
}

static void cell_rate(struct wd_buf *b, const struct netio_dir *d, bool loss)
{
	if (d)
		wd_buf_addf(b, " %.2f |", d->rate / MIB);
	else
		wd_buf_adds(b, " - |");
	if (!loss)
		return;
	if (d && d->has_loss)
		wd_buf_addf(b, " %d%% |", d->loss);
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
	if (a.rate <= 0 || b.rate <= 0)
		snprintf(out, n, "peak %s: not measured for both labels", dir);
	else if (netio_block_row(a.block) == netio_block_row(b.block))
		snprintf(out, n, "peak %s went from %.2f MByte/s to %.2f MByte/s at %s: %.2fx", dir,
			 a.rate / MIB, b.rate / MIB, la, ratio);
	else
		snprintf(out, n, "peak %s went from %.2f MByte/s at %s to %.2f MByte/s at %s: %.2fx",
			 dir, a.rate / MIB, la, b.rate / MIB, lb, ratio);
}

static void table_head(struct wd_buf *b, const struct section *s, bool loss, bool ratio)
{
	wd_buf_adds(b, "| block |");
	for (int i = 0; i < s->n; i++)
		for (int t = 1; t >= 0; t--)
			wd_buf_addf(b, " %s %s |%s", s->runs[i].label, t ? "Tx" : "Rx",
				    loss ? " loss |" : "");
	if (ratio)
		wd_buf_adds(b, " Tx ratio | Rx ratio |");
	wd_buf_adds(b, "\n|---|");
	for (int i = 0; i < s->n * 2 * (loss ? 2 : 1) + (ratio ? 2 : 0); i++)
		wd_buf_adds(b, "---|");
	wd_buf_adds(b, "\n");
}

static void text_table(struct wd_buf *b, const struct section *s)
{
	bool ratio = s->n > 1, loss = s->proto == NETIO_UDP;
	table_head(b, s, loss, ratio);
	for (int k = 0; k < s->nb; k++) {
		char label[16];
		netio_block_label(s->blocks[k], label, sizeof label);
		wd_buf_addf(b, "| %s |", label);
		for (int i = 0; i < s->n; i++)
			for (int t = 1; t >= 0; t--)
				cell_rate(b, dir_at(&s->runs[i], s->blocks[k], t), loss);
		if (ratio)
			for (int t = 1; t >= 0; t--)
				cell_ratio(b, dir_at(&s->runs[0], s->blocks[k], t),
					   dir_at(&s->runs[s->n - 1], s->blocks[k], t));
		wd_buf_adds(b, "\n");
	}
	wd_buf_adds(b, "| peak |");
	for (int i = 0; i < s->n; i++)
		for (int t = 1; t >= 0; t--) {
			struct peak p = peak_of(&s->runs[i].l, t);
			char label[16];
			netio_block_label(p.block, label, sizeof label);
			if (p.rate > 0)
				wd_buf_addf(b, " %.2f (%s) |%s", p.rate / MIB, label, loss ? " |" : "");
			else
				wd_buf_addf(b, " - |%s", loss ? " |" : "");
		}
	if (ratio)
		for (int t = 1; t >= 0; t--) {
			struct peak a = peak_of(&s->runs[0].l, t), z = peak_of(&s->runs[s->n - 1].l, t);
			wd_buf_addf(b, " %.2fx |", a.rate > 0 ? z.rate / a.rate : 0);
		}
	wd_buf_adds(b, "\n");
}

/* "E1000: E1000.OS2 (e1000 5.07), run 3 (client 10.231.77.1:18767) at ..." */
static void run_lines(struct wd_buf *b, const struct section *s)
{
	for (int i = 0; i < s->n; i++) {
		const struct bench_run *r = &s->runs[i];
		if (!r->id)
			continue;
		wd_buf_addf(b, "  %s: ", r->label);
		if (r->driver[0])
			wd_buf_addf(b, "%s%s%s%s, ", r->driver, r->version[0] ? " (" : "",
				    r->version, r->version[0] ? ")" : "");
		wd_buf_addf(b, "run %lld, %s %s, %s\n", r->id, r->source, r->peer, r->recorded);
	}
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

static const char *const colors[] = {"#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#b07aa1",
				     "#76b7b2"};

/* The axis ends at the next multiple of a power of ten: 50.39 -> 60. */
static double axis_max(const struct section *s)
{
	double top = 1;
	for (int i = 0; i < s->n; i++)
		for (int t = 0; t < 2; t++)
			if (peak_of(&s->runs[i].l, t).rate / MIB > top)
				top = peak_of(&s->runs[i].l, t).rate / MIB;
	double step = 1;
	while (step * 10 <= top)
		step *= 10;
	double ymax = step;
	while (ymax < top)
		ymax += step;
	return ymax;
}

enum { BAR = 14, GAP = 24, LEFT = 60, PLOT_H = 260, TOP_Y = 50 };

static void svg_bars(struct wd_buf *b, const struct section *s, int k, int gx, double ymax)
{
	char label[16];
	netio_block_label(s->blocks[k], label, sizeof label);
	for (int i = 0; i < s->n; i++)
		for (int t = 0; t < 2; t++) {
			const struct netio_dir *d = dir_at(&s->runs[i], s->blocks[k], t == 0);
			if (!d)
				continue;
			double v = d->rate / MIB;
			int h = (int)(PLOT_H * v / ymax + 0.5);
			wd_buf_addf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				    "fill=\"%s\" fill-opacity=\"%s\"><title>", gx + (i * 2 + t) * BAR,
				    TOP_Y + PLOT_H - h, BAR - 2, h, colors[i % 6], t == 0 ? "1" : "0.45");
			xml_text(b, s->runs[i].label);
			wd_buf_addf(b, " %s %s: %.2f MByte/s</title></rect>\n", label,
				    t == 0 ? "Tx" : "Rx", v);
		}
	wd_buf_addf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
		    gx + s->n * BAR, TOP_Y + PLOT_H + 18, label);
}

/* Grouped bars: per block size, each label's Tx (solid) and Rx (light). */
static void svg_chart(struct wd_buf *b, const struct section *s)
{
	double ymax = axis_max(s);
	int group = s->n * 2 * BAR;
	int width = LEFT + s->nb * (group + GAP) + GAP, height = TOP_Y + PLOT_H + 50;
	wd_buf_addf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		    "font-family=\"sans-serif\" font-size=\"12\">\n"
		    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
		    "<text x=\"%d\" y=\"20\" font-size=\"14\">netio %s throughput, MByte/s "
		    "(Tx solid, Rx light)</text>\n", width, height, LEFT,
		    s->proto == NETIO_UDP ? "UDP" : "TCP");
	for (int i = 0; i < s->n; i++) {
		int x = LEFT + i * 160;
		wd_buf_addf(b, "<rect x=\"%d\" y=\"30\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			    "<text x=\"%d\" y=\"40\">", x, colors[i % 6], x + 16);
		xml_text(b, s->runs[i].label);
		wd_buf_adds(b, "</text>\n");
	}
	for (int t = 0; t <= 4; t++) {
		int y = TOP_Y + PLOT_H - PLOT_H * t / 4;
		wd_buf_addf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>"
			    "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%g</text>\n", LEFT, y,
			    width - GAP / 2, y, LEFT - 6, y + 4, ymax * t / 4);
	}
	for (int k = 0; k < s->nb; k++)
		svg_bars(b, s, k, LEFT + GAP + k * (group + GAP), ymax);
	wd_buf_addf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n"
		    "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">block size</text>\n</svg>\n",
		    LEFT, TOP_Y + PLOT_H, width - GAP / 2, TOP_Y + PLOT_H, width / 2,
		    TOP_Y + PLOT_H + 38);
}

static void json_dir_value(struct json *j, const char *key, const char *loss_key,
			   const struct netio_dir *d)
{
	if (d)
		json_num(j, key, d->rate / MIB, 2);
	else
		json_null(j, key);
	if (d && d->has_loss)
		json_int(j, loss_key, d->loss);
	else if (loss_key)
		json_null(j, loss_key);
}

static void json_runs(struct json *j, const struct section *s)
{
	json_arr_begin(j, "runs");
	for (int i = 0; i < s->n; i++) {
		const struct bench_run *r = &s->runs[i];
		json_obj_begin(j, NULL);
		json_str(j, "label", r->label);
		if (r->id) {
			json_int(j, "run", r->id);
			json_str(j, "source", r->source);
			json_time(j, "recorded_at", r->recorded);
			json_str(j, "driver", r->driver[0] ? r->driver : NULL);
			json_str(j, "version", r->version[0] ? r->version : NULL);
		} else {
			json_null(j, "run");
		}
		for (int t = 1; t >= 0; t--) {
			struct peak p = peak_of(&r->l, t);
			json_obj_begin(j, t ? "peak_tx" : "peak_rx");
			json_num(j, "mbyte_per_second", p.rate / MIB, 2);
			json_int(j, "block", p.block);
			json_obj_end(j);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_row(struct json *j, const struct section *s, int k)
{
	char label[16];
	bool udp = s->proto == NETIO_UDP;
	netio_block_label(s->blocks[k], label, sizeof label);
	json_obj_begin(j, NULL);
	json_int(j, "block", s->blocks[k]);
	json_str(j, "block_name", label);
	json_arr_begin(j, "values");
	for (int i = 0; i < s->n; i++) {
		json_obj_begin(j, NULL);
		json_str(j, "label", s->runs[i].label);
		json_dir_value(j, "tx_mbyte_per_second", udp ? "tx_loss" : NULL,
			       dir_at(&s->runs[i], s->blocks[k], 1));
		json_dir_value(j, "rx_mbyte_per_second", udp ? "rx_loss" : NULL,
			       dir_at(&s->runs[i], s->blocks[k], 0));
		json_obj_end(j);
	}
	json_arr_end(j);
	if (s->n > 1)
		for (int t = 1; t >= 0; t--) {
			const struct netio_dir *a = dir_at(&s->runs[0], s->blocks[k], t);
			const struct netio_dir *z = dir_at(&s->runs[s->n - 1], s->blocks[k], t);
			if (a && z && a->rate > 0)
				json_num(j, t ? "tx_ratio" : "rx_ratio", z->rate / a->rate, 2);
			else
				json_null(j, t ? "tx_ratio" : "rx_ratio");
		}
	json_obj_end(j);
}

static void json_section(struct json *j, const char *key, const struct section *s)
{
	if (!s->found) {
		json_null(j, key);
		return;
	}
	json_obj_begin(j, key);
	json_runs(j, s);
	json_arr_begin(j, "rows");
	for (int k = 0; k < s->nb; k++)
		json_row(j, s, k);
	json_arr_end(j);
	json_arr_begin(j, "peak_lines");
	if (s->n > 1)
		for (int t = 0; t < 2; t++)
			json_str(j, NULL, s->lines[t]);
	json_arr_end(j);
	json_obj_end(j);
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

static int no_such_label(struct wd_ctx *ctx, struct db *db, const char *label)
{
	struct wd_err err = {0};
	char **all;
	int na;
	struct wd_buf known = {0};
	if (!bench_db_labels(db, &all, &na, &err)) {
		for (int k = 0; k < na; k++)
			wd_buf_addf(&known, "%s'%s'", k ? ", " : "", all[k]);
		free_labels(all, na);
	}
	wd_err_set(&err, WD_EFAIL, "%s: no run recorded under label '%s' (labels there: %s)",
		   db->path, label, known.len ? known.p : "none");
	wd_buf_free(&known);
	return ui_fail(ctx, -WD_EFAIL, &err);
}

/* The latest TCP and UDP run of each label; a label with neither is an error. */
static int load_sections(struct wd_ctx *ctx, struct db *db, char **labels, int n,
			 struct section sec[2])
{
	struct wd_err err = {0};
	for (int p = 0; p < 2; p++) {
		sec[p].proto = p ? NETIO_UDP : NETIO_TCP;
		sec[p].runs = wd_xcalloc((size_t)n, sizeof *sec[p].runs);
		sec[p].n = n;
	}
	for (int i = 0; i < n; i++) {
		bool found[2];
		for (int p = 0; p < 2; p++) {
			int r = bench_db_latest(db, labels[i], sec[p].proto, &sec[p].runs[i],
						&found[p], &err);
			if (r)
				return ui_fail(ctx, r, &err);
			snprintf(sec[p].runs[i].label, sizeof sec[p].runs[i].label, "%s", labels[i]);
			sec[p].found += found[p];
		}
		if (!found[0] && !found[1])
			return no_such_label(ctx, db, labels[i]);
	}
	for (int p = 0; p < 2; p++) {
		struct section *s = &sec[p];
		all_blocks(s);
		if (s->n > 1)
			for (int t = 0; t < 2; t++)
				summary_line(peak_of(&s->runs[0].l, t == 0),
					     peak_of(&s->runs[s->n - 1].l, t == 0), t == 0 ? "Tx" : "Rx",
					     s->lines[t], sizeof s->lines[t]);
	}
	return 0;
}

/* "chart.svg" -> "chart-udp.svg": the UDP chart beside the TCP one. */
static char *udp_svg_name(const char *path)
{
	size_t n = strlen(path);
	if (n > 4 && !strcmp(path + n - 4, ".svg"))
		n -= 4;
	return wd_xasprintf("%.*s-udp.svg", (int)n, path);
}

/* One chart per protocol measured: FILE, and FILE-udp.svg when both are. */
static int write_svgs(struct wd_ctx *ctx, const char *path, const struct section sec[2])
{
	struct wd_err err = {0};
	int r = 0;
	for (int p = 0; p < 2 && !r; p++) {
		if (!sec[p].found)
			continue;
		struct wd_buf svg = {0};
		svg_chart(&svg, &sec[p]);
		char *name = p == 1 && sec[0].found ? udp_svg_name(path) : wd_xstrdup(path);
		r = wd_write_atomic(name, svg.p, svg.len, 0644, &err); /* host: the picture the user asked for */
		free(name);
		wd_buf_free(&svg);
	}
	return r ? ui_fail(ctx, r, &err) : 0;
}

static void print_text(const struct section sec[2], const char *svg)
{
	for (int p = 0; p < 2; p++) {
		const struct section *s = &sec[p];
		if (!s->found)
			continue;
		struct wd_buf b = {0};
		text_table(&b, s);
		run_lines(&b, s);
		printf("%snetio %s throughput in MByte/s (1 MByte = 1048576 bytes)%s, the latest "
		       "run of each label:\n\n%s", p && sec[0].found ? "\n" : "",
		       p ? "UDP" : "TCP", p ? " with the loss of datagrams" : "",
		       ui_esc_text(wd_buf_cstr(&b), b.len));
		if (s->n > 1)
			printf("\n%s\n%s\n", ui_esc(s->lines[0]), ui_esc(s->lines[1]));
		wd_buf_free(&b);
	}
	if (svg)
		printf("\nChart written to %s.\n", svg);
}

static int report_labels(struct wd_ctx *ctx, struct db *db, char **labels, int n,
			 const struct bench_opts *o)
{
	struct section sec[2];
	memset(sec, 0, sizeof sec);
	int rc = load_sections(ctx, db, labels, n, sec);
	if (!rc && o->svg)
		rc = write_svgs(ctx, o->svg, sec);
	if (!rc && ctx->json) {
		struct json *j = &ctx->j;
		json_obj_begin(j, NULL);
		json_str(j, "unit", "MByte/s");
		json_section(j, "tcp", &sec[0]);
		json_section(j, "udp", &sec[1]);
		json_obj_end(j);
		json_finish(j);
	} else if (!rc) {
		print_text(sec, o->svg);
	}
	free(sec[0].runs);
	free(sec[1].runs);
	return rc;
}

int bench_report(struct wd_ctx *ctx, int argc, char **argv)
{
	struct bench_opts o = {0};
	int rc = bench_read_opts(ctx, &o);
	if (rc)
		return rc;
	if (argc > 0)
		return ui_usage(ctx, "bench report: unknown argument '%s'", argv[0]);
	char **labels = NULL;
	int n = 0;
	if (o.labels && split_labels(o.labels, &labels, &n)) {
		free_labels(labels, n);
		return ui_usage(ctx, "--labels %s: expected labels separated by commas, such as "
				"E1000,MMLEM", o.labels);
	}
	struct db db;
	bool exists;
	rc = bench_open_db(ctx, &o, false, &exists, &db);
	if (rc) {
		free_labels(labels, n);
		return rc;
	}
	struct wd_err err = {0};
	int r = 0;
	if (!exists)
		rc = ui_fail(ctx, -WD_EFAIL, (wd_err_set(&err, WD_EFAIL, "no results yet: %s does "
			     "not exist; record some with 'warpdrv bench client', 'bench server' or "
			     "'bench import'", db.path), &err));
	else if (!labels && (r = bench_db_labels(&db, &labels, &n, &err)))
		rc = ui_fail(ctx, r, &err);
	else if (n == 0)
		rc = ui_fail(ctx, -WD_EFAIL,
			     (wd_err_set(&err, WD_EFAIL, "%s holds no runs yet", db.path), &err));
	else
		rc = report_labels(ctx, &db, labels, n, &o);
	free_labels(labels, n);
	bench_db_close(&db);
	return rc;
}
