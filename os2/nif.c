#include "os2/nif.h"

#include <stdlib.h>
#include <string.h>

/* "text" loses its quotes; a list such as "YES", "NO" keeps them. */
static char *unquote(struct wd_sv v)
{
	if (v.n >= 2 && v.p[0] == '"' && v.p[v.n - 1] == '"' && !memchr(v.p + 1, '"', v.n - 2))
		v = wd_sv_make(v.p + 1, v.n - 2);
	return wd_sv_dup(v);
}

/* A value that opens a quote and does not close it on its line runs on to
 * the line with the closing quote (Help texts do). Returns the last line
 * it uses and the value, joined by "\n", quotes off. */
static size_t read_value(const struct textlines *t, size_t i, struct wd_sv first, char **out)
{
	size_t quotes = 0;
	for (size_t k = 0; k < first.n; k++)
		quotes += first.p[k] == '"';
	if (!first.n || first.p[0] != '"' || quotes != 1) {
		*out = unquote(first);
		return i;
	}
	struct wd_buf b = {0};
	wd_buf_add(&b, first.p + 1, first.n - 1);
	while (i + 1 < t->n) {
		struct wd_sv l = tl_text(t, ++i);
		const char *q = memchr(l.p, '"', l.n);
		wd_buf_addc(&b, '\n');
		wd_buf_add(&b, l.p, q ? (size_t)(q - l.p) : l.n);
		if (q)
			break;
	}
	*out = wd_xstrndup(b.p, b.len);
	wd_buf_free(&b);
	return i;
}

static void set_field(char **field, char *value)
{
	free(*field); /* a repeated keyword: the last one counts */
	*field = value;
}

static char **driver_field(struct nif *nif, struct wd_sv key)
{
	static const char *const names[] = {"Type", "Title", "Version", "DriverName", "XPORTS"};
	char **fields[] = {&nif->type, &nif->title, &nif->version, &nif->drivername, &nif->xports};
	for (int k = 0; k < 5; k++)
		if (wd_sv_ieq(key, names[k]))
			return fields[k];
	return NULL;
}

static char **keyword_field(struct nif_keyword *kw, struct wd_sv key)
{
	static const char *const names[] = {"Display", "Type", "StrLength", "Range", "Set",
					    "Default", "Optional", "Editable", "Help"};
	char **fields[] = {&kw->display, &kw->type, &kw->strlength, &kw->range, &kw->set,
			   &kw->deflt, &kw->optional, &kw->editable, &kw->help};
	for (int k = 0; k < 9; k++)
		if (wd_sv_ieq(key, names[k]))
			return fields[k];
	return NULL;
}

enum part { PART_NONE, PART_DRIVER, PART_FILE, PART_KEYWORD };

static enum part open_section(struct nif *nif, struct wd_sv name, size_t line)
{
	if (!nif->section) {
		nif->section = wd_sv_dup(name);
		return PART_DRIVER;
	}
	if (wd_sv_ieq(name, "FILE"))
		return PART_FILE;
	if (nif->nkw == nif->kwcap) {
		nif->kwcap = nif->kwcap ? nif->kwcap * 2 : 16;
		nif->kw = wd_xrealloc(nif->kw, nif->kwcap * sizeof *nif->kw);
	}
	struct nif_keyword *kw = &nif->kw[nif->nkw++];
	memset(kw, 0, sizeof *kw);
	kw->name = wd_sv_dup(name);
	kw->line = line;
	return PART_KEYWORD;
}

static char **field_for(struct nif *nif, enum part part, struct wd_sv key)
{
	switch (part) {
	case PART_DRIVER: return driver_field(nif, key);
	case PART_FILE:
		if (wd_sv_ieq(key, "Name"))
			return &nif->file_name;
		if (wd_sv_ieq(key, "Path"))
			return &nif->file_path;
		return NULL;
	case PART_KEYWORD: return keyword_field(&nif->kw[nif->nkw - 1], key);
	default: return NULL;
	}
}

int nif_parse(struct nif *nif, const char *p, size_t n, struct wd_err *err)
{
	memset(nif, 0, sizeof *nif);
	tl_parse(&nif->t, p, n);
	enum part part = PART_NONE;
	for (size_t i = 0; i < nif->t.n; i++) {
		struct wd_sv a, b;
		enum ini_kind k = tl_ini_line(tl_text(&nif->t, i), &a, &b);
		if (k == INI_HEADER) {
			part = open_section(nif, a, i);
			continue;
		}
		if (k != INI_KEY)
			continue;
		char *value;
		i = read_value(&nif->t, i, b, &value);
		char **field = field_for(nif, part, a);
		if (field)
			set_field(field, value);
		else
			free(value);
	}
	for (size_t k = 0; k < nif->nkw; k++)
		ni_put(&nif->kwix, wd_sv_cstr(nif->kw[k].name), k, NULL);
	if (!nif->section)
		return wd_err_set(err, WD_EFAIL, "not a NIF: it has no [driver] section");
	if (!nif->drivername || !*nif->drivername)
		return wd_err_set(err, WD_EFAIL, "its [%s] section names no DriverName", nif->section);
	return 0;
}

static void free_keyword(struct nif_keyword *kw)
{
	char *fields[] = {kw->name, kw->display, kw->type, kw->strlength, kw->range,
			  kw->set, kw->deflt, kw->optional, kw->editable, kw->help};
	for (size_t k = 0; k < sizeof fields / sizeof *fields; k++)
		free(fields[k]);
}

void nif_free(struct nif *nif)
{
	tl_free(&nif->t);
	char *fields[] = {nif->section, nif->type, nif->title, nif->version, nif->drivername,
			  nif->xports, nif->file_name, nif->file_path};
	for (size_t k = 0; k < sizeof fields / sizeof *fields; k++)
		free(fields[k]);
	for (size_t k = 0; k < nif->nkw; k++)
		free_keyword(&nif->kw[k]);
	free(nif->kw);
	ni_free(&nif->kwix);
	memset(nif, 0, sizeof *nif);
}

void nif_write(const struct nif *nif, struct wd_buf *out)
{
	tl_write(&nif->t, out);
}

const struct nif_keyword *nif_keyword(const struct nif *nif, const char *name)
{
	const size_t *k = ni_get(&nif->kwix, wd_sv_cstr(name));
	return k ? &nif->kw[*k] : NULL;
}

bool nif_keyword_optional(const struct nif_keyword *k)
{
	return k->optional && tl_sv_ieq(wd_sv_trim(wd_sv_cstr(k->optional)), wd_sv_cstr("YES"));
}

size_t nif_mac_section(const struct nif *nif, struct nif_kv **out)
{
	struct nif_kv *kv = wd_xcalloc(nif->nkw + 1, sizeof *kv);
	size_t n = 0;
	kv[n].key = wd_xstrdup("DriverName");
	kv[n++].value = wd_xstrdup(nif->drivername ? nif->drivername : "");
	for (size_t k = 0; k < nif->nkw; k++) {
		const struct nif_keyword *w = &nif->kw[k];
		if (nif_keyword_optional(w) || !w->deflt)
			continue;
		bool str = w->type && tl_sv_ieq(wd_sv_trim(wd_sv_cstr(w->type)), wd_sv_cstr("STRING"));
		kv[n].key = wd_xstrdup(w->name);
		kv[n++].value = str ? wd_xasprintf("\"%s\"", w->deflt) : wd_xstrdup(w->deflt);
	}
	*out = kv;
	return n;
}

void nif_kv_free(struct nif_kv *kv, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		free(kv[k].key);
		free(kv[k].value);
	}
	free(kv);
}
