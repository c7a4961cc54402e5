#include "catalog/names.h"

#include <ctype.h>
#include <string.h>

#include "common/date.h"

static bool word_of(struct wd_sv v, size_t max, const char *extra, bool lower_only)
{
	if (!v.n || v.n > max)
		return false;
	for (size_t i = 0; i < v.n; i++) {
		unsigned char c = (unsigned char)v.p[i];
		bool ok = lower_only ? islower(c) || isdigit(c) : isalnum(c) != 0;
		if (!ok && !strchr(extra, c))
			return false;
	}
	return true;
}

bool names_package_ok(struct wd_sv v)
{
	return word_of(v, NAMES_PACKAGE_MAX, ".+-", true) &&
	       (islower((unsigned char)v.p[0]) || isdigit((unsigned char)v.p[0]));
}

bool names_version_ok(struct wd_sv v)
{
	return word_of(v, NAMES_VERSION_MAX, ".+-~_", false);
}

bool names_file_ok(struct wd_sv v)
{
	if (!v.n || v.n > NAMES_FILE_MAX || (v.n == 1 && v.p[0] == '.') ||
	    (v.n == 2 && v.p[0] == '.' && v.p[1] == '.'))
		return false;
	for (size_t i = 0; i < v.n; i++) {
		unsigned char c = (unsigned char)v.p[i];
		if (c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == ':')
			return false;
	}
	return true;
}

int names_date(struct wd_sv v, int *days)
{
	char d[WD_DATE_LEN] = "";
	if (v.n != 10)
		return -1;
	memcpy(d, v.p, 10);
	return wd_date_parse(d, days) ? 0 : -1;
}
