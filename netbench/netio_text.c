/* netio's result lines: formatting them byte for byte, and reading back the
 * text a netio client printed (pasted from an OS/2 guest). Pure functions: no
 * I/O, so the unit tests and the fuzz target call them directly. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "netbench/netio.h"

const int netio_sizes[NETIO_NSIZES] = {1024, 2048, 4096, 8192, 16384, 32768};
const int netio_udp_sizes[NETIO_NSIZES] = {1024, 2048, 4096, 8192, 16384, 32767};

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * 1024.0 * 1024.0)

int netio_proto_block(enum netio_proto proto, int block)
{
	return proto == NETIO_UDP && block == NETIO_MAX_BLOCK ? NETIO_MAX_DATAGRAM : block;
}

int netio_block_row(int block)
{
	return block == NETIO_MAX_DATAGRAM ? NETIO_MAX_BLOCK : block;
}

void netio_put_ctl(unsigned char m[8], uint32_t cmd, uint32_t data)
{
	uint32_t a = htonl(cmd), b = htonl(data);
	memcpy(m, &a, 4);
	memcpy(m + 4, &b, 4);
}

void netio_get_ctl(const unsigned char m[8], uint32_t *cmd, uint32_t *data)
{
	uint32_t a, b;
	memcpy(&a, m, 4);
	memcpy(&b, m + 4, 4);
	*cmd = ntohl(a);
	*data = ntohl(b);
}

void netio_block_label(int block, char *out, size_t n)
{
	if (block == NETIO_MAX_DATAGRAM)
		snprintf(out, n, "32k");
	else if (block > 0 && block % 1024 == 0)
		snprintf(out, n, "%dk", block / 1024);
	else
		snprintf(out, n, "%d", block);
}

/* In double: an imported rate times six seconds may not fit in 64 bits. */
static void format_rate(double b, double secs, char *out, size_t n)
{
	double rate = secs > 0 ? b / secs : 0;
	if (b < 60 * KIB)
		snprintf(out, n, "%.0f Byte/s", rate);
	else if (b < 60 * MIB)
		snprintf(out, n, "%.2f KByte/s", rate / KIB);
	else if (b < 6 * GIB)
		snprintf(out, n, "%.2f MByte/s", rate / MIB);
	else
		snprintf(out, n, "%.3f GByte/s", rate / GIB);
}

void netio_format_rate(uint64_t bytes, double secs, char *out, size_t n)
{
	format_rate((double)bytes, secs, out, n);
}

int netio_loss(uint64_t sent, uint64_t received)
{
	if (sent == 0 || received >= sent)
		return 0;
	return (int)((sent - received) * 100 / sent);
}

static void format_dir(const struct netio_dir *d, char *out, size_t n)
{
	char rate[48];
	if (!d->set)
		snprintf(rate, sizeof rate, "failed");
	else if (d->secs > 0)
		netio_format_rate(d->bytes, d->secs, rate, sizeof rate);
	else /* imported: only the rate is known; six seconds of it stand in for the bytes */
		format_rate(d->rate * NETIO_SECONDS, NETIO_SECONDS, rate, sizeof rate);
	if (d->set && d->has_loss)
		snprintf(out, n, "%s (%d%%)", rate, d->loss);
	else
		snprintf(out, n, "%s", rate);
}

void netio_format_line(const struct netio_result *r, char *out, size_t n)
{
	char label[16], tx[64], rx[64];
	netio_block_label(r->block, label, sizeof label);
	format_dir(&r->tx, tx, sizeof tx);
	format_dir(&r->rx, rx, sizeof rx);
	snprintf(out, n, "Packet size %3s bytes:  %s Tx,  %s Rx.", label, tx, rx);
}

/* 0 and the size; -1 not a size at all; -2 a size out of netio's range. */
static int block_from_sv(struct wd_sv v, int *block)
{
	size_t i = 0;
	long val = 0;
	while (i < v.n && v.p[i] >= '0' && v.p[i] <= '9' && i < 7)
		val = val * 10 + (v.p[i++] - '0');
	if (i == 0)
		return -1;
	bool k = false;
	if (i < v.n && (v.p[i] == 'k' || v.p[i] == 'K')) {
		k = true;
		i++;
	}
	if (i != v.n)
		return -1;
	if (k)
		val *= 1024;
	if (val < NETIO_MIN_BLOCK || val > NETIO_MAX_BLOCK)
		return -2;
	*block = (int)val;
	return 0;
}

int netio_parse_block(const char *s, int *block, struct wd_err *err)
{
	int r = block_from_sv(wd_sv_cstr(s), block);
	if (r == -1)
		return wd_err_set(err, WD_EUSAGE,
				  "'%s' is not a block size: use 1k, 2k, 4k, 8k, 16k, 32k or a "
				  "number of bytes", s);
	if (r == -2)
		return wd_err_set(err, WD_EFAIL,
				  "block size %s is out of range: netio blocks are 1k to 32k "
				  "(1024 to 32768 bytes)", s);
	return 0;
}

struct netio_result *netio_find(struct netio_listing *l, int block)
{
	for (int i = 0; i < l->n; i++)
		if (l->r[i].block == block)
			return &l->r[i];
	return NULL;
}

const struct netio_result *netio_find_const(const struct netio_listing *l, int block)
{
	return netio_find((struct netio_listing *)l, block);
}

struct netio_result *netio_find_or_add(struct netio_listing *l, int block)
{
	struct netio_result *r = netio_find(l, block);
	if (r || l->n == NETIO_MAX_RESULTS)
		return r;
	r = &l->r[l->n++];
	memset(r, 0, sizeof *r);
	r->block = block;
	return r;
}

/* A tiny cursor over one line: words separated by spaces or tabs. */
struct cursor {
	struct wd_sv s;
	size_t i;
};

static struct wd_sv next_word(struct cursor *c)
{
	while (c->i < c->s.n && (c->s.p[c->i] == ' ' || c->s.p[c->i] == '\t'))
		c->i++;
	size_t start = c->i;
	while (c->i < c->s.n && c->s.p[c->i] != ' ' && c->s.p[c->i] != '\t')
		c->i++;
	return wd_sv_make(c->s.p + start, c->i - start);
}

/* "15.04", "9168" -> value; digits with at most one decimal point. */
static bool parse_number(struct wd_sv v, double *out)
{
	double val = 0, scale = 0;
	int digits = 0;
	for (size_t i = 0; i < v.n; i++) {
		char ch = v.p[i];
		if (ch == '.' && scale == 0 && digits > 0) {
			scale = 1;
		} else if (ch >= '0' && ch <= '9' && digits < 15) {
			val = val * 10 + (ch - '0');
			if (scale)
				scale *= 10;
			digits++;
		} else {
			return false;
		}
	}
	if (digits == 0 || (v.n > 0 && v.p[v.n - 1] == '.'))
		return false;
	*out = scale ? val / scale : val;
	return true;
}

static bool parse_unit(struct wd_sv v, double *mult)
{
	static const struct {
		const char *name;
		double mult;
	} units[] = {{"Byte/s", 1}, {"KByte/s", KIB}, {"MByte/s", MIB}, {"GByte/s", GIB}};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (wd_sv_ieq(v, units[i].name)) {
			*mult = units[i].mult;
			return true;
		}
	return false;
}

/* "(1%)": netio's UDP loss. netio prints it as (sent - received) * 100 /
 * sent, signed for Tx and unsigned for Rx, so more datagrams received than
 * counted as sent shows as a negative number or a huge one (an unsigned
 * wrap): both are read, as no loss. */
static bool parse_loss(struct wd_sv v, int *loss)
{
	if (v.n < 4 || v.n > 24 || v.p[0] != '(' || v.p[v.n - 2] != '%' || v.p[v.n - 1] != ')')
		return false;
	size_t i = 1;
	bool neg = v.p[i] == '-';
	i += neg;
	if (i == v.n - 2)
		return false;
	unsigned long long val = 0;
	for (; i < v.n - 2; i++) {
		if (v.p[i] < '0' || v.p[i] > '9')
			return false;
		val = val * 10 + (unsigned)(v.p[i] - '0');
	}
	if (!neg && val > 100 && val < (1ull << 31))
		return false; /* no netio prints that */
	*loss = neg || val > 100 ? 0 : (int)val;
	return true;
}

/* "NUMBER UNIT [(N%)]" then the word that must follow ("Tx," or "Rx."). */
static bool parse_rate(struct cursor *c, const char *after, struct netio_dir *d)
{
	double val, mult;
	if (!parse_number(next_word(c), &val) || !parse_unit(next_word(c), &mult))
		return false;
	struct wd_sv w = next_word(c);
	if (w.n && w.p[0] == '(') {
		if (!parse_loss(w, &d->loss))
			return false;
		d->has_loss = true;
		w = next_word(c);
	}
	if (!wd_sv_eq(w, after))
		return false;
	d->set = true;
	d->rate = val * mult;
	return true;
}

static int parse_result_line(struct wd_sv line, const char *where, struct netio_result *r,
			     struct wd_err *err)
{
	struct cursor c = {line, 0};
	memset(r, 0, sizeof *r);
	next_word(&c); /* "Packet" */
	next_word(&c); /* "size" */
	struct wd_sv size = next_word(&c);
	int b = block_from_sv(size, &r->block);
	if (b == -2)
		return wd_err_set(err, WD_EFAIL, "%s: block size %.*s is out of netio's range "
				  "(1k to 32k)", where, (int)size.n, size.p);
	if (b < 0 || !wd_sv_eq(next_word(&c), "bytes:") || !parse_rate(&c, "Tx,", &r->tx) ||
	    !parse_rate(&c, "Rx.", &r->rx) || next_word(&c).n != 0)
		return wd_err_set(err, WD_EFAIL,
				  "%s: not a netio result line; expected "
				  "\"Packet size 1k bytes: 15.04 MByte/s Tx, 9168.71 KByte/s Rx.\"",
				  where);
	return 0;
}

/* The next line without its CR and trailing blanks (a Ctrl-Z from an OS/2
 * editor counts as blank); *pos moves past the line feed. */
static struct wd_sv next_line(const char *text, size_t len, size_t *pos)
{
	size_t start = *pos, end = start;
	while (end < len && text[end] != '\n')
		end++;
	*pos = end < len ? end + 1 : end;
	while (end > start && (text[end - 1] == '\r' || text[end - 1] == ' ' ||
			       text[end - 1] == '\t' || text[end - 1] == 0x1a))
		end--;
	return wd_sv_trim(wd_sv_make(text + start, end - start));
}

static int add_result(struct netio_listing *out, const struct netio_result *r,
		      const char *where, struct wd_err *err)
{
	char label[16];
	netio_block_label(r->block, label, sizeof label);
	if (netio_find(out, r->block))
		return wd_err_set(err, WD_EFAIL, "%s: block size %s appears a second time; "
				  "import one netio listing per label", where, label);
	if (out->n == NETIO_MAX_RESULTS)
		return wd_err_set(err, WD_EFAIL, "%s: more than %d block sizes in one listing",
				  where, NETIO_MAX_RESULTS);
	out->r[out->n++] = *r;
	return 0;
}

int netio_parse_listing(const char *text, size_t len, const char *name,
			struct netio_listing *out, struct wd_err *err)
{
	memset(out, 0, sizeof *out);
	if (memchr(text, '\0', len))
		return wd_err_set(err, WD_EFAIL, "%s: not text (it holds NUL bytes); import the "
				  "lines a netio client printed", name);
	size_t pos = 0;
	int lineno = 0;
	while (pos < len) {
		struct wd_sv line = next_line(text, len, &pos);
		lineno++;
		if (wd_sv_eq(line, "UDP connection established."))
			out->proto = NETIO_UDP;
		if (!wd_sv_istarts(line, "Packet size"))
			continue;
		char where[320];
		snprintf(where, sizeof where, "%s line %d", name, lineno);
		struct netio_result r;
		int rc = parse_result_line(line, where, &r, err);
		if (rc)
			return rc;
		r.block = netio_proto_block(out->proto, r.block);
		if ((rc = add_result(out, &r, where, err)))
			return rc;
	}
	if (out->n == 0)
		return wd_err_set(err, WD_EFAIL,
				  "%s: no netio result lines in it (such as \"Packet size 1k bytes: "
				  "15.04 MByte/s Tx, 9168.71 KByte/s Rx.\"); is it the output of a "
				  "netio client?", name);
	return 0;
}
