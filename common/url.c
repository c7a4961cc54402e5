/* URLs: where a request goes (common/url.h). */
#include "common/url.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

char *wd_url_origin(const char *url)
{
	const char *sep = strstr(url, "://");
	if (!sep)
		return NULL;
	const char *h = sep + 3;
	size_t hl = strcspn(h, "/?#");
	for (size_t i = hl; i-- > 0;)
		if (h[i] == '@') { /* a user part is not where the request goes */
			hl -= i + 1;
			h += i + 1;
			break;
		}
	struct wd_buf b = {0};
	for (const char *p = url; p < sep; p++)
		wd_buf_addc(&b, (char)tolower((unsigned char)*p));
	wd_buf_adds(&b, "://");
	for (size_t i = 0; i < hl; i++)
		wd_buf_addc(&b, (char)tolower((unsigned char)h[i]));
	/* the default port said or not is the same place */
	const char *o = wd_buf_cstr(&b);
	size_t n = b.len;
	if ((!strncmp(o, "https://", 8) && n > 12 && !strcmp(o + n - 4, ":443")) ||
	    (!strncmp(o, "http://", 7) && n > 10 && !strcmp(o + n - 3, ":80")))
		b.p[b.len = (size_t)(strrchr(o, ':') - o)] = '\0';
	return b.p;
}

bool wd_url_same_place(const char *a, const char *b)
{
	char *x = wd_url_origin(a), *y = wd_url_origin(b);
	bool same = x && y && !strcmp(x, y);
	free(x);
	free(y);
	return same;
}
