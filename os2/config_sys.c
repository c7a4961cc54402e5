#include "os2/config_sys.h"

#include <string.h>

static const char *const loaders[] = {"DEVICE", "BASEDEV", "PSD", "IFS", "RUN", "CALL", NULL};

void config_sys_parse(struct config_sys *cs, const char *p, size_t n)
{
	tl_parse(&cs->t, p, n);
}

void config_sys_free(struct config_sys *cs)
{
	tl_free(&cs->t);
}

void config_sys_write(const struct config_sys *cs, struct wd_buf *out)
{
	tl_write(&cs->t, out);
}

size_t config_sys_lines(const struct config_sys *cs)
{
	return cs->t.n;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static struct wd_sv skip_space(struct wd_sv v)
{
	while (v.n && is_space(*v.p)) {
		v.p++;
		v.n--;
	}
	return v;
}

bool config_sys_is_rem(const struct config_sys *cs, size_t i)
{
	struct wd_sv v = skip_space(tl_text(&cs->t, i));
	return v.n >= 3 && (v.p[0] == 'R' || v.p[0] == 'r') && wd_sv_istarts(v, "REM") &&
	       (v.n == 3 || is_space(v.p[3]));
}

void cs_split_path(struct wd_sv path, char *drive, struct wd_sv *dir, struct wd_sv *name)
{
	*drive = 0;
	if (path.n >= 2 && path.p[1] == ':') {
		char c = path.p[0];
		if (c >= 'a' && c <= 'z')
			c = (char)(c - 32);
		if (c >= 'A' && c <= 'Z')
			*drive = c;
		path.p += 2;
		path.n -= 2;
	}
	size_t cut = 0;
	for (size_t k = 0; k < path.n; k++)
		if (path.p[k] == '\\' || path.p[k] == '/')
			cut = k + 1;
	*dir = wd_sv_make(path.p, cut);
	*name = wd_sv_make(path.p + cut, path.n - cut);
}

static void read_load(struct cs_stmt *st)
{
	struct wd_sv v = st->value;
	size_t k = 0;
	while (k < v.n && !is_space(v.p[k]))
		k++;
	st->path = wd_sv_make(v.p, k);
	st->args = wd_sv_trim(wd_sv_make(v.p + k, v.n - k));
	cs_split_path(st->path, &st->drive, &st->dir, &st->name);
}

bool config_sys_stmt(const struct config_sys *cs, size_t i, struct cs_stmt *st)
{
	memset(st, 0, sizeof *st);
	if (i >= cs->t.n || config_sys_is_rem(cs, i))
		return false;
	struct wd_sv line = tl_text(&cs->t, i);
	const char *eq = memchr(line.p, '=', line.n);
	if (!eq)
		return false;
	struct wd_sv key = wd_sv_trim(wd_sv_make(line.p, (size_t)(eq - line.p)));
	struct wd_sv val = wd_sv_trim(wd_sv_make(eq + 1, line.n - (size_t)(eq - line.p) - 1));
	/* "SET  PATH=..." is the SET statement with "PATH=..." as its value. */
	if (key.n > 3 && (key.p[0] == 'S' || key.p[0] == 's') && wd_sv_istarts(key, "SET") &&
	    is_space(key.p[3])) {
		st->keyword = wd_sv_make(key.p, 3);
		st->setvar = skip_space(wd_sv_make(key.p + 3, key.n - 3));
		struct wd_sv rest = skip_space(wd_sv_make(key.p + 3, line.n - (size_t)(key.p + 3 - line.p)));
		st->value = wd_sv_trim(rest);
		return true;
	}
	if (!key.n)
		return false;
	st->keyword = key;
	st->value = val;
	/* By length first: this runs for every line of every pass. */
	if (key.n >= 3 && key.n <= 7)
		for (int k = 0; loaders[k] && !st->loads; k++)
			st->loads = strlen(loaders[k]) == key.n &&
				    tl_sv_ieq(key, wd_sv_make(loaders[k], key.n));
	if (st->loads)
		read_load(st);
	return true;
}

long config_sys_find(const struct config_sys *cs, size_t from, const char *keyword,
		     const char *file)
{
	struct wd_sv kw = wd_sv_cstr(keyword ? keyword : ""), fn = wd_sv_cstr(file ? file : "");
	for (size_t i = from; i < cs->t.n; i++) {
		struct cs_stmt st;
		if (!config_sys_stmt(cs, i, &st))
			continue;
		if (keyword && !tl_sv_ieq(st.keyword, kw))
			continue;
		if (file && (!st.loads || !tl_sv_ieq(st.name, fn)))
			continue;
		return (long)i;
	}
	return -1;
}

int config_sys_replace(struct config_sys *cs, size_t i, const char *text)
{
	return tl_replace(&cs->t, i, text, strlen(text));
}

int config_sys_insert_before(struct config_sys *cs, size_t i, const char *text)
{
	return tl_insert(&cs->t, i, text, strlen(text));
}

int config_sys_insert_after(struct config_sys *cs, size_t i, const char *text)
{
	if (i >= cs->t.n)
		return -1;
	return tl_insert(&cs->t, i + 1, text, strlen(text));
}

int config_sys_append(struct config_sys *cs, const char *text)
{
	return tl_insert(&cs->t, cs->t.n, text, strlen(text));
}

int config_sys_delete(struct config_sys *cs, size_t i)
{
	if (i >= cs->t.n)
		return -1;
	tl_delete(&cs->t, i);
	return 0;
}

size_t config_sys_delete_marked(struct config_sys *cs, const bool *gone)
{
	return tl_delete_marked(&cs->t, gone);
}
