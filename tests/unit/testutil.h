/* Helpers shared by the unit tests of the configuration files. */
#ifndef WD_TESTUTIL_H
#define WD_TESTUTIL_H

#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/file.h"

/* A real OS/2 sample read in place, or NULL (the test then skips). */
static inline char *sample_path(const char *rel)
{
	const char *dir = getenv("WARPDRV_SAMPLES");
	if (!dir || !*dir || !wd_is_dir(dir))
		return NULL;
	return wd_path_join(dir, rel);
}

static inline char *fixture_path(const char *rel)
{
	const char *src = getenv("WARPDRV_SRC");
	char *base = wd_path_join(src && *src ? src : ".", "tests/fixtures/volumes");
	char *p = wd_path_join(base, rel);
	free(base);
	return p;
}

static inline void slurp(const char *path, struct wd_buf *b)
{
	struct wd_err e;
	if (wd_read_file(path, 0, b, &e)) {
		fprintf(stderr, "%s\n", e.msg);
		abort();
	}
}

#define SKIP_WITHOUT_SAMPLES(p)                                                      \
	do {                                                                         \
		if (!(p)) {                                                          \
			printf("SKIP: no samples folder (WARPDRV_SAMPLES)\n");       \
			skip();                                                      \
		}                                                                    \
	} while (0)

static const char *const fixture_volumes[] = {"ecs21-e1000", "arcaos-d-pcnet", "warp452-pcnet",
					      "two-nics", NULL};

#endif
