/* The floor of the work of reading a volume's configuration files: read
 * each file named, whole, and split it into its CR LF (or LF) lines, as
 * warpdrv must before anything else. Prints the line count, so that the
 * work cannot be optimised away. Run by bench/large_volume.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	unsigned long long lines = 0, crlf = 0;
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			perror(argv[i]);
			return 1;
		}
		size_t n;
		char last = 0;
		while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
			for (const char *p = buf, *end = buf + n; p < end;) {
				const char *lf = memchr(p, '\n', (size_t)(end - p));
				if (!lf)
					break;
				lines++;
				crlf += (lf > p ? lf[-1] : last) == '\r';
				p = lf + 1;
			}
			last = buf[n - 1];
		}
		fclose(f);
	}
	printf("%llu lines, %llu ending in CR LF\n", lines, crlf);
	return 0;
}
