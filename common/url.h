/* URLs: where a request goes, the one rule every credential decision uses. */
#ifndef WD_URL_H
#define WD_URL_H

#include <stdbool.h>

/* "scheme://host[:port]" of url, lower case, without a user part and
 * without the scheme's default port (malloc'd); NULL without "://". */
char *wd_url_origin(const char *url);
/* Whether a and b lead to the same place (scheme, host and port). */
bool wd_url_same_place(const char *a, const char *b);

#endif
