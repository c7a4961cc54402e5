#include "installer/acpi_plan.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"

static const char *base_name(const char *v)
{
	const char *b = strrchr(v, '\\');
	return b ? b + 1 : v;
}

static bool same_stem(struct wd_sv name, const char *file)
{
	size_t a = 0, b = strcspn(file, ".");
	while (a < name.n && name.p[a] != '.')
		a++;
	return a == b && !strncasecmp(name.p, file, a);
}

/* Is line i a statement the manifest displaces? */
static bool displaced(const struct pkg_manifest *m, const struct config_sys *cs, size_t i,
		      struct cs_stmt *st)
{
	if (!config_sys_stmt(cs, i, st) || !st->loads)
		return false;
	for (size_t k = 0; k < m->nconfig_displace; k++) {
		const struct pkg_config *d = &m->config_displace[k];
		if (wd_sv_ieq(st->keyword, d->keyword) && wd_sv_ieq(st->name, base_name(d->value)))
			return true;
	}
	return false;
}

static long last_of(const struct config_sys *cs, const char *keyword)
{
	long last = -1;
	for (long i = config_sys_find(cs, 0, keyword, NULL); i >= 0;
	     i = config_sys_find(cs, (size_t)i + 1, keyword, NULL))
		last = i;
	return last;
}

/* Where a new statement of this keyword goes, when nothing is replaced. */
static int place(struct config_sys *cs, const char *keyword, const char *text)
{
	long last = last_of(cs, keyword);
	if (last >= 0)
		return config_sys_insert_after(cs, (size_t)last, text);
	if (!strcasecmp(keyword, "PSD")) {
		long basedev = config_sys_find(cs, 0, "BASEDEV", NULL);
		if (basedev >= 0)
			return config_sys_insert_before(cs, (size_t)basedev, text);
		if (config_sys_lines(cs))
			return config_sys_insert_before(cs, 0, text);
		return config_sys_append(cs, text);
	}
	if (!strcasecmp(keyword, "BASEDEV") && (last = last_of(cs, "PSD")) >= 0)
		return config_sys_insert_after(cs, (size_t)last, text);
	return config_sys_append(cs, text);
}

static int need(const struct pkg_manifest *m, const struct pkg_config *n, char drive,
		struct config_sys *cs)
{
	const char *file = base_name(n->value);
	char *text = n->value[0] == '\\' ? wd_xasprintf("%s=%c:%s", n->keyword, drive, n->value)
					  : wd_xasprintf("%s=%s", n->keyword, n->value);
	int changed = 0;
	struct cs_stmt st;
	long have = config_sys_find(cs, 0, n->keyword, file);
	if (have >= 0) {
		/* There already: keep its switches; a PSD= with a path would not
		 * load, so it loses the path. */
		config_sys_stmt(cs, (size_t)have, &st);
		/* A program started from elsewhere (eCS's \ECS\BIN) would be an
		 * older one than the package installs: the line moves to the
		 * package's (docs/setup.md, "ACPI"). */
		bool moved = n->value[0] == '\\' && !wd_sv_ieq(st.path, text + strlen(n->keyword) + 1);
		if (moved || (!strcasecmp(n->keyword, "PSD") && (st.drive || st.dir.n))) {
			char *fixed = st.args.n ? wd_xasprintf("%s %.*s", text, (int)st.args.n, st.args.p)
						: wd_xstrdup(text);
			changed = config_sys_replace(cs, (size_t)have, fixed) ? -1 : 1;
			free(fixed);
		}
		free(text);
		return changed;
	}
	long at = -1;
	for (size_t i = 0; at < 0 && i < config_sys_lines(cs); i++)
		if (displaced(m, cs, i, &st) && wd_sv_ieq(st.keyword, n->keyword))
			at = (long)i;
	for (size_t i = 0; at < 0 && i < config_sys_lines(cs); i++)
		if (displaced(m, cs, i, &st) && same_stem(st.name, file))
			at = (long)i;
	int r = at >= 0 ? config_sys_replace(cs, (size_t)at, text) : place(cs, n->keyword, text);
	free(text);
	return r ? -1 : 1;
}

int acpi_plan(const struct pkg_manifest *m, char boot_drive, struct config_sys *cs)
{
	int changed = 0;
	char drive = boot_drive ? boot_drive : 'C';
	for (size_t k = 0; k < m->nconfig_need; k++) {
		int c = need(m, &m->config_need[k], drive, cs);
		if (c < 0)
			return -1;
		changed += c;
	}
	/* The displaced lines go in one pass: one by one, each would move
	 * every line after it. */
	bool *gone = wd_xcalloc(config_sys_lines(cs) + 1, sizeof *gone);
	for (size_t i = 0; i < config_sys_lines(cs); i++) {
		struct cs_stmt st;
		gone[i] = displaced(m, cs, i, &st);
	}
	changed += (int)config_sys_delete_marked(cs, gone);
	free(gone);
	return changed;
}
