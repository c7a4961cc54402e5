/* warpdrv bench report: the runs of each label as the announcement's table
 * (Tx and Rx per block size, the ratio of the last label to the first, the
 * peak lines), TCP and UDP apart, as Markdown, JSON or an SVG chart. A label
 * with several runs shows the median of each figure and its range, and a
 * ratio the two ranges cannot tell from none is marked as within the spread. */
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/file.h"
#include "netbench/bench_spread.h"
#include "ui/cmd_bench.h"

#define MIB BENCH_MIB
#define MAX_ROWS (NETIO_MAX_RESULTS * 2)

/* The runs of one label for one protocol, oldest first (n 0: none). */
struct label_runs {
	char label[128];
	struct bench_run *runs;
	int n;
};

/* One protocol's table: a label_runs per label asked for. */
struct section {
	enum netio_proto proto;
	struct label_runs *labels;
	int n, found;
	int blocks[MAX_ROWS];
	int nb;
	char lines[2][200];
};

/* One figure of a label: its rounds' spread (s.n 0: not measured) and the
 * median loss. */
struct cell {
	struct bench_spread s;
	bool has_loss;
	int loss;
};

struct peak {
	double rate;
	int block;
};

/* The rows any of the runs has, smallest first (32767 and 32768 are one row). */
static void all_blocks(struct section *s)
{
	s->nb = 0;
	for (int i = 0; i < s->n; i++)
		for (int j = 0; j < s->labels[i].n; j++) {
			const struct netio_listing *l = &s->labels[i].runs[j].l;
			for (int k = 0; k < l->n; k++) {
				int b = netio_block_row(l->r[k].block), at = 0;
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

/* A label's figure at a row and direction over its runs. */
static struct cell cell_at(const struct label_runs *lr, int row, bool tx)
{
	struct cell c;
	memset(&c, 0, sizeof c);
	double *v = wd_xmalloc(sizeof *v * (size_t)(lr->n ? lr->n : 1));
	double *loss = wd_xmalloc(sizeof *loss * (size_t)(lr->n ? lr->n : 1));
	int n = 0, nl = 0;
	for (int j = 0; j < lr->n; j++) {
		const struct netio_dir *d = dir_at(&lr->runs[j], row, tx);
		if (!d)
			continue;
		v[n++] = d->rate;
		if (d->has_loss)
			loss[nl++] = d->loss;
	}
	bench_spread_of(v, n, &c.s);
	if (nl) {
		struct bench_spread ls;
		bench_spread_of(loss, nl, &ls);
		c.has_loss = true;
		c.loss = (int)(ls.median + 0.5); /* losses are whole percents, never negative */
	}
	free(v);
	free(loss);
	return c;
}

/* The highest median of a label's rows. */
static struct peak peak_of(const struct section *s, int i, bool tx)
{
	struct peak p = {0, 0};
	for (int k = 0; k < s->nb; k++) {
		struct cell c = cell_at(&s->labels[i], s->blocks[k], tx);
		if (c.s.n && c.s.median > p.rate) {
			p.rate = c.s.median;
			p.block = s->blocks[k];
		}
	}
	return p;
}

/* Whether any label has more than one run of a figure. */
static bool any_rounds(const struct section *s)
{
	for (int i = 0; i < s->n; i++)
		if (s->labels[i].n > 1)
			return true;
	return false;
}

static void cell_rate(struct wd_buf *b, const struct cell *c, bool loss)
{
	if (c->s.n > 1)
		wd_buf_addf(b, " %.2f (%.2f-%.2f) |", c->s.median / MIB, c->s.min / MIB,
			    c->s.max / MIB);
	else if (c->s.n)
		wd_buf_addf(b, " %.2f |", c->s.median / MIB);
	else
		wd_buf_adds(b, " - |");
	if (!loss)
		return;
	if (c->s.n && c->has_loss)
		wd_buf_addf(b, " %d%% |", c->loss);
	else
		wd_buf_adds(b, " - |");
}

static void cell_ratio(struct wd_buf *b, const struct cell *first, const struct cell *last)
{
	if (first->s.n && last->s.n && first->s.median > 0)
		wd_buf_addf(b, " %.2fx%s |", last->s.median / first->s.median,
			    bench_within_spread(&first->s, &last->s) ? ", within the spread" : "");
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
			wd_buf_addf(b, " %s %s |%s", s->labels[i].label, t ? "Tx" : "Rx",
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
			for (int t = 1; t >= 0; t--) {
				struct cell c = cell_at(&s->labels[i], s->blocks[k], t);
				cell_rate(b, &c, loss);
			}
		if (ratio)
			for (int t = 1; t >= 0; t--) {
				struct cell a = cell_at(&s->labels[0], s->blocks[k], t);
				struct cell z = cell_at(&s->labels[s->n - 1], s->blocks[k], t);
				cell_ratio(b, &a, &z);
			}
		wd_buf_adds(b, "\n");
	}
	wd_buf_adds(b, "| peak |");
	for (int i = 0; i < s->n; i++)
		for (int t = 1; t >= 0; t--) {
			struct peak p = peak_of(s, i, t);
			char label[16];
			netio_block_label(p.block, label, sizeof label);
			if (p.rate > 0)
				wd_buf_addf(b, " %.2f (%s) |%s", p.rate / MIB, label, loss ? " |" : "");
			else
				wd_buf_addf(b, " - |%s", loss ? " |" : "");
		}
	if (ratio)
		for (int t = 1; t >= 0; t--) {
			struct peak a = peak_of(s, 0, t), z = peak_of(s, s->n - 1, t);
			wd_buf_addf(b, " %.2fx |", a.rate > 0 ? z.rate / a.rate : 0);
		}
	wd_buf_adds(b, "\n");
}

/* "E1000: E1000.OS2 (e1000 5.07), run 3, client 10.231.77.1:18767, ..." or,
 * for several runs, "..., 5 runs (3 to 11), client ..., the latest at ...". */
static void run_lines(struct wd_buf *b, const struct section *s)
{
	for (int i = 0; i < s->n; i++) {
		const struct label_runs *lr = &s->labels[i];
		if (!lr->n)
			continue;
		const struct bench_run *r = &lr->runs[lr->n - 1];
		wd_buf_addf(b, "  %s: ", lr->label);
		if (r->driver[0])
			wd_buf_addf(b, "%s%s%s%s, ", r->driver, r->version[0] ? " (" : "",
				    r->version, r->version[0] ? ")" : "");
		if (lr->n == 1)
			wd_buf_addf(b, "run %lld, %s %s, %s\n", r->id, r->source, r->peer, r->recorded);
		else
			wd_buf_addf(b, "%d runs (%lld to %lld), %s %s, the latest at %s\n", lr->n,
				    lr->runs[0].id, r->id, r->source, r->peer, r->recorded);
	}
}

/* What the figures are: medians with their range, or one run each. */
static void spread_note(struct wd_buf *b, const struct section *s)
{
	if (any_rounds(s))
		wd_buf_adds(b, "Each figure is the median of the label's runs, with their range "
			    "(lowest-highest) when there are several; \"within the spread\": the "
			    "two labels' ranges overlap, so the runs cannot tell that difference "
			    "from none.\n");
	else
		wd_buf_adds(b, "One run per label: the spread is not known. Several runs under "
			    "each label (bench client --rounds N, or netio's client run N times "
			    "against the server) show it.\n");
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
			if (peak_of(s, i, t).rate / MIB > top)
				top = peak_of(s, i, t).rate / MIB;
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
			struct cell c = cell_at(&s->labels[i], s->blocks[k], t == 0);
			if (!c.s.n)
				continue;
			double v = c.s.median / MIB;
			int h = (int)(PLOT_H * v / ymax + 0.5);
			wd_buf_addf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				    "fill=\"%s\" fill-opacity=\"%s\"><title>", gx + (i * 2 + t) * BAR,
				    TOP_Y + PLOT_H - h, BAR - 2, h, colors[i % 6], t == 0 ? "1" : "0.45");
			xml_text(b, s->labels[i].label);
			wd_buf_addf(b, " %s %s: %.2f MByte/s", label, t == 0 ? "Tx" : "Rx", v);
			if (c.s.n > 1)
				wd_buf_addf(b, " (median of %d runs, %.2f-%.2f)", c.s.n, c.s.min / MIB,
					    c.s.max / MIB);
			wd_buf_adds(b, "</title></rect>\n");
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
		xml_text(b, s->labels[i].label);
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

/* A label's figure: the median, and with several runs their range and count. */
static void json_cell(struct json *j, const char *key, const char *loss_key, const struct cell *c)
{
	char k[48];
	if (c->s.n)
		json_num(j, key, c->s.median / MIB, 2);
	else
		json_null(j, key);
	if (loss_key && c->s.n && c->has_loss)
		json_int(j, loss_key, c->loss);
	else if (loss_key)
		json_null(j, loss_key);
	snprintf(k, sizeof k, "%.2s_rounds", key);
	json_int(j, k, c->s.n);
	snprintf(k, sizeof k, "%.2s_min", key);
	if (c->s.n)
		json_num(j, k, c->s.min / MIB, 2);
	else
		json_null(j, k);
	snprintf(k, sizeof k, "%.2s_max", key);
	if (c->s.n)
		json_num(j, k, c->s.max / MIB, 2);
	else
		json_null(j, k);
}

static void json_runs(struct json *j, const struct section *s)
{
	json_arr_begin(j, "runs");
	for (int i = 0; i < s->n; i++) {
		const struct label_runs *lr = &s->labels[i];
		json_obj_begin(j, NULL);
		json_str(j, "label", lr->label);
		if (lr->n) {
			const struct bench_run *r = &lr->runs[lr->n - 1];
			json_int(j, "run", r->id);
			json_int(j, "rounds", lr->n);
			json_str(j, "source", r->source);
			json_time(j, "recorded_at", r->recorded);
			json_str(j, "driver", r->driver[0] ? r->driver : NULL);
			json_str(j, "version", r->version[0] ? r->version : NULL);
		} else {
			json_null(j, "run");
			json_int(j, "rounds", 0);
		}
		for (int t = 1; t >= 0; t--) {
			struct peak p = peak_of(s, i, t);
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
		struct cell tx = cell_at(&s->labels[i], s->blocks[k], true);
		struct cell rx = cell_at(&s->labels[i], s->blocks[k], false);
		json_obj_begin(j, NULL);
		json_str(j, "label", s->labels[i].label);
		json_cell(j, "tx_mbyte_per_second", udp ? "tx_loss" : NULL, &tx);
		json_cell(j, "rx_mbyte_per_second", udp ? "rx_loss" : NULL, &rx);
		json_obj_end(j);
	}
	json_arr_end(j);
	if (s->n > 1)
		for (int t = 1; t >= 0; t--) {
			struct cell a = cell_at(&s->labels[0], s->blocks[k], t);
			struct cell z = cell_at(&s->labels[s->n - 1], s->blocks[k], t);
			const char *key = t ? "tx_ratio" : "rx_ratio";
			const char *within = t ? "tx_within_spread" : "rx_within_spread";
			if (a.s.n && z.s.n && a.s.median > 0) {
				json_num(j, key, z.s.median / a.s.median, 2);
				if (a.s.n > 1 || z.s.n > 1)
					json_bool(j, within, bench_within_spread(&a.s, &z.s));
				else
					json_null(j, within);
			} else {
				json_null(j, key);
				json_null(j, within);
			}
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

/* The runs of each label and protocol (the latest max of them); a label
 * with neither protocol is an error. */
static int load_sections(struct wd_ctx *ctx, struct db *db, char **labels, int n, int max,
			 struct section sec[2])
{
	struct wd_err err = {0};
	for (int p = 0; p < 2; p++) {
		sec[p].proto = p ? NETIO_UDP : NETIO_TCP;
		sec[p].labels = wd_xcalloc((size_t)n, sizeof *sec[p].labels);
		sec[p].n = n;
	}
	for (int i = 0; i < n; i++) {
		bool found[2];
		for (int p = 0; p < 2; p++) {
			struct label_runs *lr = &sec[p].labels[i];
			snprintf(lr->label, sizeof lr->label, "%s", labels[i]);
			lr->runs = wd_xcalloc((size_t)max, sizeof *lr->runs);
			int r = bench_db_recent(db, labels[i], sec[p].proto, max, lr->runs, &lr->n,
						&err);
			if (r)
				return ui_fail(ctx, r, &err);
			found[p] = lr->n > 0;
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
				summary_line(peak_of(s, 0, t == 0), peak_of(s, s->n - 1, t == 0),
					     t == 0 ? "Tx" : "Rx", s->lines[t], sizeof s->lines[t]);
	}
	return 0;
}

static void free_sections(struct section sec[2])
{
	for (int p = 0; p < 2; p++) {
		for (int i = 0; sec[p].labels && i < sec[p].n; i++)
			free(sec[p].labels[i].runs);
		free(sec[p].labels);
	}
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
		wd_buf_adds(&b, "\n");
		spread_note(&b, s);
		printf("%snetio %s throughput in MByte/s (1 MByte = 1048576 bytes)%s, %s:\n\n%s",
		       p && sec[0].found ? "\n" : "", p ? "UDP" : "TCP",
		       p ? " with the loss of datagrams" : "",
		       any_rounds(s) ? "the runs of each label" : "the latest run of each label",
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
	int rc = load_sections(ctx, db, labels, n, o->runs, sec);
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
	free_sections(sec);
	return rc;
}

int bench_report(struct wd_ctx *ctx, int argc, char **argv)
{
	struct bench_opts o = {.runs = BENCH_MAX_ROUNDS};
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
