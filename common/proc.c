#include "common/proc.h"

#include <stdio.h>

#include "common/buf.h"
#include "common/file.h"

char *wd_process_cmdline(long pid)
{
	if (pid <= 0)
		return NULL;
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
	struct wd_buf b = {0};
	struct wd_err ignore;
	if (wd_read_file(path, 4096, &b, &ignore) || !b.len) { /* host: the process table */
		wd_buf_free(&b);
		return NULL;
	}
	size_t n = b.len;
	while (n && !b.p[n - 1])
		n--;
	if (n > 200)
		n = 200;
	for (size_t i = 0; i < n; i++) /* one line: the arguments and their own lines */
		if ((unsigned char)b.p[i] < 0x20 || b.p[i] == 0x7f)
			b.p[i] = ' ';
	b.len = n;
	wd_buf_cstr(&b);
	return b.p;
}
