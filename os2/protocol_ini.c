#include "os2/protocol_ini.h"

#include <stdlib.h>
#include <string.h>

#include "os2/nameidx.h"

/* Built when first asked for, dropped by the edits that could change them:
 * names by a section added, removed or renamed, DriverNames also by an
 * edit of a DriverName line. The DriverNames are copies (an edit frees the
 * line a view would point into). */
struct pi_index {
	bool names_ok, drivers_ok;
	struct nameidx names;   /* section name -> first section */
	struct nameidx drivers; /* DriverName -> first section with it */
	char **dn;              /* the copies, one per section or NULL */
	size_t ndn;
};

static struct pi_index *index_of(const struct protocol_ini *pi)
{
	return pi->ix;
}

static void drop_drivers(struct protocol_ini *pi)
{
	struct pi_index *ix = pi->ix;
	if (!ix)
		return;
	ni_free(&ix->drivers);
	for (size_t k = 0; k < ix->ndn; k++)
		free(ix->dn[k]);
	free(ix->dn);
	ix->dn = NULL;
	ix->ndn = 0;
	ix->drivers_ok = false;
}

static void drop_names(struct protocol_ini *pi)
{
	if (!pi->ix)
		return;
	ni_free(&pi->ix->names);
	pi->ix->names_ok = false;
}

static void free_index(struct protocol_ini *pi)
{
	drop_names(pi);
	drop_drivers(pi);
	for (size_t s = 0; s < pi->nsec; s++)
		free(pi->sec[s].name);
	free(pi->sec);
	pi->sec = NULL;
	pi->nsec = 0;
}

static enum ini_kind line_kind(const struct protocol_ini *pi, size_t i, struct wd_sv *a,
			       struct wd_sv *b)
{
	return tl_ini_line(tl_text(&pi->t, i), a, b);
}

/* The sections, from the lines: after parsing and after an edit that adds
 * or removes a header. */
static void reindex(struct protocol_ini *pi)
{
	free_index(pi);
	size_t cap = 0;
	for (size_t i = 0; i < pi->t.n; i++) {
		struct wd_sv a, b;
		if (line_kind(pi, i, &a, &b) != INI_HEADER)
			continue;
		if (pi->nsec == cap) {
			cap = cap ? cap * 2 : 16;
			pi->sec = wd_xrealloc(pi->sec, cap * sizeof *pi->sec);
		}
		if (pi->nsec)
			pi->sec[pi->nsec - 1].end = i;
		pi->sec[pi->nsec++] = (struct pi_section){wd_sv_dup(a), i, pi->t.n};
	}
}

/* n lines that are no headers went in before line at: the sections from
 * there move down. */
static void shift_n(struct protocol_ini *pi, size_t at, size_t n)
{
	for (size_t s = pi->nsec; n && s-- > 0;) {
		struct pi_section *x = &pi->sec[s];
		if (x->end < at)
			break;
		x->end += n;
		if (x->header >= at)
			x->header += n;
	}
}

/* A line that is no header went in before line at (+1) or line at went
 * (-1). */
static void shift(struct protocol_ini *pi, size_t at, int delta)
{
	if (delta > 0) {
		shift_n(pi, at, 1);
		return;
	}
	for (size_t s = pi->nsec; s-- > 0;) {
		struct pi_section *x = &pi->sec[s];
		if (x->end <= at)
			break;
		x->end--;
		if (x->header > at)
			x->header--;
	}
}

static bool is_drivername(const char *key)
{
	return wd_sv_ieq(wd_sv_cstr(key), "DriverName");
}

void protocol_ini_parse(struct protocol_ini *pi, const char *p, size_t n)
{
	memset(pi, 0, sizeof *pi);
	pi->ix = wd_xcalloc(1, sizeof *pi->ix);
	tl_parse(&pi->t, p, n);
	reindex(pi);
}

void protocol_ini_free(struct protocol_ini *pi)
{
	free_index(pi);
	free(pi->ix);
	tl_free(&pi->t);
	memset(pi, 0, sizeof *pi);
}

void protocol_ini_write(const struct protocol_ini *pi, struct wd_buf *out)
{
	tl_write(&pi->t, out);
}

long pi_section(const struct protocol_ini *pi, const char *name)
{
	struct pi_index *ix = index_of(pi);
	if (!ix) {
		for (size_t s = 0; s < pi->nsec; s++)
			if (tl_sv_ieq(wd_sv_cstr(pi->sec[s].name), wd_sv_cstr(name)))
				return (long)s;
		return -1;
	}
	if (!ix->names_ok) {
		ni_reserve(&ix->names, pi->nsec);
		for (size_t s = 0; s < pi->nsec; s++)
			ni_put(&ix->names, wd_sv_cstr(pi->sec[s].name), s, NULL);
		ix->names_ok = true;
	}
	const size_t *s = ni_get(&ix->names, wd_sv_cstr(name));
	return s ? (long)*s : -1;
}

bool pi_line_key(const struct protocol_ini *pi, size_t i, struct wd_sv *key, struct wd_sv *val)
{
	return i < pi->t.n && line_kind(pi, i, key, val) == INI_KEY;
}

long pi_key_line(const struct protocol_ini *pi, size_t s, const char *key)
{
	if (s >= pi->nsec)
		return -1;
	for (size_t i = pi->sec[s].header + 1; i < pi->sec[s].end; i++) {
		struct wd_sv k, v;
		if (pi_line_key(pi, i, &k, &v) && wd_sv_ieq(k, key))
			return (long)i;
	}
	return -1;
}

bool pi_get(const struct protocol_ini *pi, size_t s, const char *key, struct wd_sv *val)
{
	long i = pi_key_line(pi, s, key);
	struct wd_sv k;
	return i >= 0 && pi_line_key(pi, (size_t)i, &k, val);
}

static void index_drivers(const struct protocol_ini *pi, struct pi_index *ix)
{
	ix->dn = wd_xcalloc(pi->nsec + 1, sizeof *ix->dn);
	ix->ndn = pi->nsec;
	ni_reserve(&ix->drivers, pi->nsec);
	for (size_t s = 0; s < pi->nsec; s++) {
		struct wd_sv v;
		if (!pi_get(pi, s, "DriverName", &v))
			continue;
		ix->dn[s] = wd_xmalloc(v.n + 1);
		memcpy(ix->dn[s], v.p, v.n);
		ix->dn[s][v.n] = '\0';
		ni_put(&ix->drivers, wd_sv_make(ix->dn[s], v.n), s, NULL);
	}
	ix->drivers_ok = true;
}

long pi_first_with_driver(const struct protocol_ini *pi, struct wd_sv dn)
{
	struct pi_index *ix = index_of(pi);
	if (ix) {
		if (!ix->drivers_ok)
			index_drivers(pi, ix);
		const size_t *s = ni_get(&ix->drivers, dn);
		return s ? (long)*s : -1;
	}
	for (size_t s = 0; s < pi->nsec; s++) {
		struct wd_sv v;
		if (pi_get(pi, s, "DriverName", &v) && tl_sv_ieq(v, dn))
			return (long)s;
	}
	return -1;
}

long pi_section_by_driver(const struct protocol_ini *pi, size_t from, const char *drivername)
{
	struct pi_index *ix = index_of(pi);
	if (ix && from == 0) {
		if (!ix->drivers_ok)
			index_drivers(pi, ix);
		const size_t *s = ni_get(&ix->drivers, wd_sv_cstr(drivername));
		return s ? (long)*s : -1;
	}
	for (size_t s = from; s < pi->nsec; s++) {
		struct wd_sv v;
		if (pi_get(pi, s, "DriverName", &v) && wd_sv_ieq(v, drivername))
			return (long)s;
	}
	return -1;
}

/* ---- layout ---- */

static bool is_blank(const struct protocol_ini *pi, size_t i)
{
	struct wd_sv a, b;
	return i < pi->t.n && line_kind(pi, i, &a, &b) == INI_BLANK;
}

/* The first keyword line of section s, else of the file; -1 when none. */
static long sample_key_line(const struct protocol_ini *pi, long s)
{
	struct wd_sv k, v;
	if (s >= 0)
		for (size_t i = pi->sec[s].header + 1; i < pi->sec[s].end; i++)
			if (pi_line_key(pi, i, &k, &v))
				return (long)i;
	for (size_t i = 0; i < pi->t.n; i++)
		if (pi_line_key(pi, i, &k, &v))
			return (long)i;
	return -1;
}

/* "   key = value" in the layout of line sample (when have): its indent,
 * its spaces around '='; MPTS's is a three-space indent and " = ". */
static char *key_line_like(struct wd_sv t, bool have, const char *key, const char *value)
{
	const char *indent = "   ";
	size_t nindent = 3;
	const char *before = " ", *after = " ";
	if (have) {
		nindent = 0;
		while (nindent < t.n && (t.p[nindent] == ' ' || t.p[nindent] == '\t'))
			nindent++;
		indent = t.p;
		const char *eq = memchr(t.p, '=', t.n);
		size_t at = (size_t)(eq - t.p);
		before = at > 0 && (t.p[at - 1] == ' ' || t.p[at - 1] == '\t') ? " " : "";
		after = at + 1 < t.n && (t.p[at + 1] == ' ' || t.p[at + 1] == '\t') ? " " : "";
	}
	return wd_xasprintf("%.*s%s%s=%s%s", (int)nindent, indent, key, before, after, value);
}

/* A new keyword line for section s, in the layout of its (or the file's)
 * first keyword line. */
static char *key_line(const struct protocol_ini *pi, long s, const char *key, const char *value)
{
	long i = sample_key_line(pi, s);
	struct wd_sv t = i >= 0 ? tl_text(&pi->t, (size_t)i) : wd_sv_make("", 0);
	return key_line_like(t, i >= 0, key, value);
}

static bool section_has_key_line(const struct protocol_ini *pi, size_t s)
{
	struct wd_sv k, v;
	for (size_t i = pi->sec[s].header + 1; i < pi->sec[s].end; i++)
		if (pi_line_key(pi, i, &k, &v))
			return true;
	return false;
}

/* Does the file put a blank line after each header? (MPTS does.) */
static bool blank_after_header(const struct protocol_ini *pi)
{
	for (size_t s = 0; s < pi->nsec; s++)
		if (pi->sec[s].header + 1 < pi->t.n)
			return is_blank(pi, pi->sec[s].header + 1);
	return true;
}

/* Does the file put a blank line between sections? */
static bool blank_between(const struct protocol_ini *pi)
{
	for (size_t s = 1; s < pi->nsec; s++)
		return is_blank(pi, pi->sec[s].header - 1);
	return true;
}

static bool one_line(const char *s)
{
	return tl_one_line(s, strlen(s));
}

static int insert(struct protocol_ini *pi, size_t at, const char *text)
{
	return tl_insert(&pi->t, at, text, strlen(text));
}

/* ---- edits ---- */

static int replace_value(struct protocol_ini *pi, size_t i, const char *value)
{
	struct wd_sv t = tl_text(&pi->t, i);
	const char *eq = memchr(t.p, '=', t.n);
	size_t vs = (size_t)(eq - t.p) + 1;
	while (vs < t.n && (t.p[vs] == ' ' || t.p[vs] == '\t'))
		vs++;
	size_t ve = t.n;
	while (ve > vs && (t.p[ve - 1] == ' ' || t.p[ve - 1] == '\t'))
		ve--;
	/* Built byte by byte: the line's other bytes stay as they were. */
	struct wd_buf line = {0};
	wd_buf_add(&line, t.p, vs);
	wd_buf_adds(&line, value);
	wd_buf_add(&line, t.p + ve, t.n - ve);
	int r = tl_replace(&pi->t, i, line.p, line.len);
	wd_buf_free(&line);
	return r;
}

/* Where a new keyword of section s goes: after its last keyword, else
 * after the header and the blank line that follows it. */
static size_t new_key_at(const struct protocol_ini *pi, size_t s)
{
	const struct pi_section *sec = &pi->sec[s];
	size_t at = sec->header + 1;
	struct wd_sv k, v;
	bool any = false;
	for (size_t i = sec->header + 1; i < sec->end; i++) {
		if (line_kind(pi, i, &k, &v) == INI_KEY || line_kind(pi, i, &k, &v) == INI_OTHER) {
			at = i + 1;
			any = true;
		}
	}
	if (!any && at < sec->end && is_blank(pi, at))
		at++;
	return at;
}

static bool valid_key(const char *key)
{
	return *key && one_line(key) && !strchr(key, '=') && key[0] != '[' && key[0] != ';' &&
	       key[0] != ' ' && key[0] != '\t';
}

static int set_at(struct protocol_ini *pi, size_t s, const char *key, const char *value,
		  long at)
{
	if (s >= pi->nsec || !valid_key(key) || !one_line(value))
		return -1;
	long i = pi_key_line(pi, s, key);
	int r;
	if (i >= 0) {
		/* In place: the line stays a keyword line, no section moves. */
		r = replace_value(pi, (size_t)i, value);
	} else {
		char *line = key_line(pi, (long)s, key, value);
		size_t where = at >= 0 ? (size_t)at : new_key_at(pi, s);
		r = insert(pi, where, line);
		if (!r)
			shift(pi, where, +1);
		free(line);
	}
	if (is_drivername(key))
		drop_drivers(pi);
	return r;
}

int pi_set(struct protocol_ini *pi, size_t s, const char *key, const char *value)
{
	return set_at(pi, s, key, value, -1);
}

int pi_unset(struct protocol_ini *pi, size_t s, const char *key)
{
	long i = pi_key_line(pi, s, key);
	if (i < 0)
		return -1;
	tl_delete(&pi->t, (size_t)i);
	shift(pi, (size_t)i, -1);
	if (is_drivername(key))
		drop_drivers(pi);
	return 0;
}

size_t pi_drop_keys(struct protocol_ini *pi, size_t s,
		    bool (*drop)(void *ud, struct wd_sv key, struct wd_sv value), void *ud)
{
	if (s >= pi->nsec)
		return 0;
	struct pi_section *sec = &pi->sec[s];
	size_t w = sec->header + 1, gone = 0;
	for (size_t i = sec->header + 1; i < sec->end; i++) {
		struct wd_sv k, v;
		if (pi_line_key(pi, i, &k, &v) && drop(ud, k, v)) {
			tl_line_free(&pi->t.v[i]);
			gone++;
			continue;
		}
		pi->t.v[w++] = pi->t.v[i];
	}
	if (!gone)
		return 0;
	memmove(pi->t.v + w, pi->t.v + sec->end, (pi->t.n - sec->end) * sizeof *pi->t.v);
	pi->t.n -= gone;
	sec->end -= gone;
	for (size_t x = s + 1; x < pi->nsec; x++) {
		pi->sec[x].header -= gone;
		pi->sec[x].end -= gone;
	}
	drop_drivers(pi);
	return gone;
}

int pi_add_keys(struct protocol_ini *pi, size_t s, const char *const *keys,
		const char *const *values, size_t n)
{
	if (s >= pi->nsec)
		return -1;
	for (size_t k = 0; k < n; k++)
		if (!valid_key(keys[k]) || !one_line(values[k]))
			return -1;
	/* Which go in: each key the section lacks, once. Decided before any
	 * edit, while the views into the lines hold. */
	struct nameidx have = {0};
	for (size_t i = pi->sec[s].header + 1; i < pi->sec[s].end; i++) {
		struct wd_sv k, v;
		if (pi_line_key(pi, i, &k, &v))
			ni_put(&have, k, i, NULL);
	}
	char **lines = wd_xcalloc(n + 1, sizeof *lines);
	size_t *lens = wd_xcalloc(n + 1, sizeof *lens), m = 0;
	bool dn = false, own = section_has_key_line(pi, s);
	for (size_t k = 0; k < n; k++) {
		bool added;
		ni_put(&have, wd_sv_cstr(keys[k]), 0, &added);
		if (!added)
			continue;
		/* The layout pi_set would give it: the section's first keyword
		 * line's, which is the first one added when it had none. */
		if (m && !own)
			lines[m] = key_line_like(wd_sv_make(lines[0], lens[0]), true, keys[k], values[k]);
		else
			lines[m] = key_line(pi, (long)s, keys[k], values[k]);
		lens[m] = strlen(lines[m]);
		m++;
		dn = dn || is_drivername(keys[k]);
	}
	ni_free(&have);
	size_t at = new_key_at(pi, s);
	int r = tl_insert_many(&pi->t, at, (const char *const *)lines, lens, m);
	if (!r)
		shift_n(pi, at, m);
	for (size_t k = 0; k < m; k++)
		free(lines[k]);
	free(lines);
	free(lens);
	if (dn)
		drop_drivers(pi);
	return r;
}

int pi_rename_key(struct protocol_ini *pi, size_t s, const char *key, const char *name,
		  const char *value)
{
	long i = pi_key_line(pi, s, key);
	struct wd_sv k, v;
	if (i < 0 || !valid_key(name) || (value && !one_line(value)) ||
	    !pi_line_key(pi, (size_t)i, &k, &v))
		return -1;
	struct wd_sv t = tl_text(&pi->t, (size_t)i);
	struct wd_buf line = {0};
	wd_buf_add(&line, t.p, (size_t)(k.p - t.p));
	wd_buf_adds(&line, name);
	const char *after_key = k.p + k.n, *vend = v.p + v.n;
	if (value) {
		wd_buf_add(&line, after_key, (size_t)(v.p - after_key));
		wd_buf_adds(&line, value);
	} else {
		wd_buf_add(&line, after_key, (size_t)(vend - after_key));
	}
	wd_buf_add(&line, vend, (size_t)(t.p + t.n - vend));
	int r = tl_replace(&pi->t, (size_t)i, line.p, line.len);
	wd_buf_free(&line);
	if (is_drivername(key) || is_drivername(name))
		drop_drivers(pi);
	return r;
}

static bool valid_section_name(const char *name)
{
	return *name && one_line(name) && !strpbrk(name, "[]");
}

long pi_add_section(struct protocol_ini *pi, const char *name, long after)
{
	if (!valid_section_name(name) || after >= (long)pi->nsec || after < -1)
		return -1;
	bool bah = blank_after_header(pi), sep = blank_between(pi);
	size_t at = after < 0 ? pi->t.n : pi->sec[after].end;
	bool at_end = at == pi->t.n;
	if (at_end && sep && at > 0 && !is_blank(pi, at - 1))
		insert(pi, at++, "");
	char *header = wd_xasprintf("[%s]", name);
	insert(pi, at, header);
	free(header);
	size_t next = at + 1;
	if (bah)
		insert(pi, next++, "");
	if (!at_end && sep)
		insert(pi, next, "");
	reindex(pi);
	for (size_t s = 0; s < pi->nsec; s++)
		if (pi->sec[s].header == at)
			return (long)s;
	return -1;
}

int pi_remove_section(struct protocol_ini *pi, size_t s)
{
	if (s >= pi->nsec)
		return -1;
	size_t from = pi->sec[s].header, to = pi->sec[s].end;
	/* The last section takes the blank lines before it along, so that the
	 * file does not end in the separator of a section that is gone. */
	if (s + 1 == pi->nsec && s > 0)
		while (from > pi->sec[s - 1].header + 1 && is_blank(pi, from - 1))
			from--;
	tl_delete_range(&pi->t, from, to);
	reindex(pi);
	return 0;
}

int pi_rename_section(struct protocol_ini *pi, size_t s, const char *name)
{
	if (s >= pi->nsec || !valid_section_name(name))
		return -1;
	size_t i = pi->sec[s].header;
	struct wd_sv t = tl_text(&pi->t, i);
	const char *open = memchr(t.p, '[', t.n);
	const char *close = memchr(open, ']', t.n - (size_t)(open - t.p));
	struct wd_buf line = {0};
	wd_buf_add(&line, t.p, (size_t)(open + 1 - t.p));
	wd_buf_adds(&line, name);
	wd_buf_add(&line, close, t.n - (size_t)(close - t.p));
	int r = tl_replace(&pi->t, i, line.p, line.len);
	wd_buf_free(&line);
	/* Still a header, of the same lines: only the name changes. */
	struct wd_sv a, b;
	if (!r && line_kind(pi, i, &a, &b) == INI_HEADER) {
		free(pi->sec[s].name);
		pi->sec[s].name = wd_sv_dup(a);
		drop_names(pi);
	} else {
		reindex(pi);
	}
	return r;
}

/* ---- Bindings ---- */

static void add_slot(struct pi_bindings *b, struct wd_sv v)
{
	/* A name is text: a NUL byte (a damaged file) ends it, as it would
	 * end the name when the list is written back. */
	const char *nul = memchr(v.p, '\0', v.n);
	if (nul)
		v.n = (size_t)(nul - v.p);
	/* A stray CR is no part of a name either (and must not end the line). */
	while (v.n && (v.p[v.n - 1] == '\r' || v.p[v.n - 1] == ' ' || v.p[v.n - 1] == '\t'))
		v.n--;
	v = wd_sv_trim(v);
	if (v.n >= 2 && v.p[0] == '"' && v.p[v.n - 1] == '"') {
		b->quoted = true;
		v = wd_sv_trim(wd_sv_make(v.p + 1, v.n - 2));
	}
	b->slot = wd_xrealloc(b->slot, (b->n + 1) * sizeof *b->slot);
	b->slot[b->n++] = wd_sv_dup(v);
}

static void split_bindings(struct wd_sv v, struct pi_bindings *b)
{
	memset(b, 0, sizeof *b);
	const char *p = v.p, *end = v.p + v.n;
	for (;;) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		add_slot(b, wd_sv_make(p, (size_t)((comma ? comma : end) - p)));
		if (!comma)
			break;
		p = comma + 1;
	}
}

bool pi_bindings_get(const struct protocol_ini *pi, size_t s, struct pi_bindings *b)
{
	memset(b, 0, sizeof *b);
	struct wd_sv v;
	if (!pi_get(pi, s, "Bindings", &v))
		return false;
	split_bindings(v, b);
	return true;
}

void pi_bindings_free(struct pi_bindings *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->slot[i]);
	free(b->slot);
	memset(b, 0, sizeof *b);
}

/* Does any Bindings in the file quote its names? */
static bool file_quotes_bindings(const struct protocol_ini *pi)
{
	for (size_t s = 0; s < pi->nsec; s++) {
		struct wd_sv v;
		if (pi_get(pi, s, "Bindings", &v) && memchr(v.p, '"', v.n))
			return true;
	}
	return false;
}

static int write_bindings(struct protocol_ini *pi, size_t s, const struct pi_bindings *b)
{
	size_t n = b->n;
	while (n > 0 && !b->slot[n - 1][0])
		n--;
	if (!n)
		return pi_key_line(pi, s, "Bindings") >= 0 ? pi_unset(pi, s, "Bindings") : 0;
	struct wd_sv old;
	bool spaced = false;
	if (pi_get(pi, s, "Bindings", &old))
		for (size_t i = 0; i + 1 < old.n; i++)
			spaced = spaced || (old.p[i] == ',' && old.p[i + 1] == ' ');
	struct wd_buf v = {0};
	for (size_t i = 0; i < n; i++) {
		if (i)
			wd_buf_adds(&v, spaced ? ", " : ",");
		if (b->slot[i][0])
			wd_buf_addf(&v, b->quoted ? "\"%s\"" : "%s", b->slot[i]);
	}
	long at = -1;
	if (pi_key_line(pi, s, "Bindings") < 0) {
		/* MPTS writes Bindings right after DriverName. */
		long dn = pi_key_line(pi, s, "DriverName");
		at = dn >= 0 ? dn + 1 : -1;
	}
	int r = set_at(pi, s, "Bindings", wd_buf_cstr(&v), at);
	wd_buf_free(&v);
	return r;
}

static bool valid_binding(const char *name)
{
	return *name && one_line(name) && !strpbrk(name, ",\"");
}

int pi_bind_add(struct protocol_ini *pi, size_t s, const char *name)
{
	if (s >= pi->nsec || !valid_binding(name))
		return -1;
	struct pi_bindings b;
	if (!pi_bindings_get(pi, s, &b))
		b.quoted = file_quotes_bindings(pi);
	size_t i = 0;
	while (i < b.n && b.slot[i][0])
		i++;
	if (i == b.n) {
		b.slot = wd_xrealloc(b.slot, (b.n + 1) * sizeof *b.slot);
		b.slot[b.n++] = NULL;
	}
	free(b.slot[i]);
	b.slot[i] = wd_xstrdup(name);
	int r = write_bindings(pi, s, &b);
	pi_bindings_free(&b);
	return r;
}

int pi_bind_replace(struct protocol_ini *pi, size_t s, const char *old, const char *name)
{
	if (s >= pi->nsec || !valid_binding(name))
		return -1;
	struct pi_bindings b;
	if (!pi_bindings_get(pi, s, &b))
		return 0;
	int count = 0;
	for (size_t i = 0; i < b.n; i++) {
		if (!tl_sv_ieq(wd_sv_cstr(b.slot[i]), wd_sv_cstr(old)))
			continue;
		free(b.slot[i]);
		b.slot[i] = wd_xstrdup(name);
		count++;
	}
	int r = count ? write_bindings(pi, s, &b) : 0;
	pi_bindings_free(&b);
	return r < 0 ? r : count;
}

int pi_bind_remove(struct protocol_ini *pi, size_t s, const char *name)
{
	struct pi_bindings b;
	if (s >= pi->nsec || !pi_bindings_get(pi, s, &b))
		return 0;
	int count = 0;
	for (size_t i = 0; i < b.n; i++) {
		if (!b.slot[i][0] || !tl_sv_ieq(wd_sv_cstr(b.slot[i]), wd_sv_cstr(name)))
			continue;
		b.slot[i][0] = '\0';
		count++;
	}
	int r = count ? write_bindings(pi, s, &b) : 0;
	pi_bindings_free(&b);
	return r < 0 ? r : count;
}

int pi_rebind(struct protocol_ini *pi, const char *old, const char *name)
{
	int total = 0;
	for (size_t s = 0; s < pi->nsec; s++) {
		int r = pi_bind_replace(pi, s, old, name);
		if (r < 0)
			return r;
		total += r;
	}
	return total;
}

/* ---- [IBMLXCFG] ---- */

int pi_lxcfg_set(struct protocol_ini *pi, const char *name, const char *nif)
{
	long s = pi_section(pi, "IBMLXCFG");
	if (s < 0)
		s = pi_add_section(pi, "IBMLXCFG", pi_section(pi, "PROT_MAN"));
	if (s < 0)
		return -1;
	return pi_set(pi, (size_t)s, name, nif);
}

int pi_lxcfg_remove(struct protocol_ini *pi, const char *name)
{
	long s = pi_section(pi, "IBMLXCFG");
	if (s < 0 || pi_key_line(pi, (size_t)s, name) < 0)
		return 0;
	return pi_unset(pi, (size_t)s, name);
}

/* ---- many sections at once ---- */

struct drop_left {
	struct nameidx *left; /* name -> how many removals of it are left */
};

static bool drop_lxcfg(void *ud, struct wd_sv key, struct wd_sv value)
{
	(void)value;
	size_t *left = (size_t *)ni_get(((struct drop_left *)ud)->left, key);
	if (!left || !*left)
		return false;
	--*left;
	return true;
}

static void drop_one_by_one(struct protocol_ini *pi, char *const *names, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		for (size_t s = 0; s < pi->nsec; s++)
			pi_bind_remove(pi, s, names[k]);
		pi_lxcfg_remove(pi, names[k]);
		long s = pi_section(pi, names[k]);
		if (s >= 0)
			pi_remove_section(pi, (size_t)s);
	}
}

void pi_drop_sections(struct protocol_ini *pi, char *const *names, size_t n)
{
	if (!n)
		return;
	struct nameidx set = {0}, left = {0};
	bool lx = false;
	for (size_t k = 0; k < n; k++) {
		ni_put(&set, wd_sv_cstr(names[k]), k, NULL);
		lx = lx || tl_sv_ieq(wd_sv_cstr(names[k]), wd_sv_cstr("IBMLXCFG"));
	}
	if (lx) {
		/* Removing [IBMLXCFG] itself midway changes what the later
		 * names find: done in turn. */
		ni_free(&set);
		drop_one_by_one(pi, names, n);
		return;
	}
	/* Bindings: every slot naming one of them emptied, written once. */
	for (size_t s = 0; s < pi->nsec; s++) {
		struct pi_bindings b;
		if (!pi_bindings_get(pi, s, &b))
			continue;
		int count = 0;
		for (size_t i = 0; i < b.n; i++) {
			if (!b.slot[i][0] || !ni_get(&set, wd_sv_cstr(b.slot[i])))
				continue;
			b.slot[i][0] = '\0';
			count++;
		}
		if (count)
			write_bindings(pi, s, &b);
		pi_bindings_free(&b);
	}
	/* [IBMLXCFG] and the sections: the first one of each name per time
	 * the name is given. */
	for (size_t k = 0; k < n; k++)
		++*ni_put(&left, wd_sv_cstr(names[k]), 0, NULL);
	long lxs = pi_section(pi, "IBMLXCFG");
	struct drop_left dl = {&left};
	if (lxs >= 0)
		pi_drop_keys(pi, (size_t)lxs, drop_lxcfg, &dl);
	for (size_t k = 0; k < n; k++) {
		/* Counted again: the [IBMLXCFG] pass used them up. */
		*(size_t *)ni_get(&left, wd_sv_cstr(names[k])) = 0;
	}
	for (size_t k = 0; k < n; k++)
		++*(size_t *)ni_get(&left, wd_sv_cstr(names[k]));
	bool *gone = wd_xcalloc(pi->t.n + 1, sizeof *gone);
	bool *sec_gone = wd_xcalloc(pi->nsec + 1, sizeof *sec_gone);
	for (size_t s = 0; s < pi->nsec; s++) {
		size_t *l = (size_t *)ni_get(&left, wd_sv_cstr(pi->sec[s].name));
		if (!l || !*l)
			continue;
		--*l;
		sec_gone[s] = true;
		for (size_t i = pi->sec[s].header; i < pi->sec[s].end; i++)
			gone[i] = true;
	}
	/* Sections gone at the end of the file: the last one left loses its
	 * trailing blank lines, as pi_remove_section of a last section takes
	 * them along. */
	size_t last = pi->nsec;
	while (last > 0 && sec_gone[last - 1])
		last--;
	if (last < pi->nsec && last > 0) {
		size_t from = pi->sec[last].header;
		while (from > pi->sec[last - 1].header + 1 && is_blank(pi, from - 1))
			gone[--from] = true;
	}
	bool any = false;
	for (size_t s = 0; s < pi->nsec; s++)
		any = any || sec_gone[s];
	if (any) {
		tl_delete_marked(&pi->t, gone);
		reindex(pi);
	}
	free(gone);
	free(sec_gone);
	ni_free(&set);
	ni_free(&left);
}
