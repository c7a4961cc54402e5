/* libFuzzer: the importer of netio listings (text pasted from an OS/2 guest),
 * and the formatting of what it read back into netio lines. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "netbench/netio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct netio_listing l;
	struct wd_err err;
	if (netio_parse_listing((const char *)data, size, "fuzz", &l, &err) != 0)
		return 0;
	for (int i = 0; i < l.n; i++) {
		char line[NETIO_LINE_MAX];
		netio_format_line(&l.r[i], line, sizeof line);
		if (strncmp(line, "Packet size ", 12) != 0)
			__builtin_trap();
	}
	return 0;
}
