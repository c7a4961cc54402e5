#include "os2/boot_drive.h"

#include "os2/volfiles.h"

#include <string.h>

#include "common/file.h"

/* The drive of the first "X:\OS2" (followed by '\', ';', space or the end)
 * in v, or 0. */
static char os2_drive_in(struct wd_sv v)
{
	for (size_t k = 0; k + 6 <= v.n; k++) {
		char c = v.p[k];
		if (c >= 'a' && c <= 'z')
			c = (char)(c - 32);
		if (c < 'A' || c > 'Z' || v.p[k + 1] != ':')
			continue;
		if (k > 0 && v.p[k - 1] != ';' && v.p[k - 1] != ' ' && v.p[k - 1] != '=' &&
		    v.p[k - 1] != '\t')
			continue;
		if (!wd_sv_istarts(wd_sv_make(v.p + k + 2, v.n - k - 2), "\\OS2"))
			continue;
		char after = k + 6 < v.n ? v.p[k + 6] : ';';
		if (after == '\\' || after == ';' || after == ' ' || after == '\t')
			return c;
	}
	return 0;
}

static char drive_of(const struct config_sys *cs, const char *keyword, const char *setvar)
{
	for (size_t i = 0; i < config_sys_lines(cs); i++) {
		struct cs_stmt st;
		if (!config_sys_stmt(cs, i, &st))
			continue;
		if (keyword && !wd_sv_ieq(st.keyword, keyword))
			continue;
		if (setvar && !wd_sv_ieq(st.setvar, setvar))
			continue;
		char d = os2_drive_in(st.value);
		if (d)
			return d;
	}
	return 0;
}

char boot_drive_detect(const struct config_sys *cs)
{
	char d = drive_of(cs, "LIBPATH", NULL);
	if (!d)
		d = drive_of(cs, "SET", "OS2_SHELL");
	if (!d)
		d = drive_of(cs, "PROTSHELL", NULL);
	if (!d)
		d = drive_of(cs, NULL, NULL);
	return d;
}

void boot_drive_set(struct volume *v, char override, const struct config_sys *cs)
{
	char d = override;
	if (!d && cs)
		d = boot_drive_detect(cs);
	v->boot_drive = d ? d : 'C';
}

int boot_volume_open(struct volume *v, struct config_sys *cs, const char *root,
		     char override, struct wd_err *err)
{
	int r = volume_open(v, root, err);
	if (r)
		return r;
	struct wd_buf b = {0};
	r = volfile_config_sys(v, &b, err);
	if (r) {
		volume_close(v);
		wd_buf_free(&b);
		return r;
	}
	config_sys_parse(cs, b.p ? b.p : "", b.len);
	wd_buf_free(&b);
	boot_drive_set(v, override, cs);
	return 0;
}
