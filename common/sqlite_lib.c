/* SQLite loaded with dlopen when the first database opens (sqlite_lib.h). */
#define WD_SQLITE_LIB_IMPL
#include "common/sqlite_lib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/hooks.h"

struct wd_sqlite_fns wd_sqlite;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = -1;   /* 0: loaded; -1: not (why says why, where tried) */
static char why[600];

static void load_once(void)
{
	const char *name = wd_test_hook("WARPDRV_LIBSQLITE");
	if (!name || !*name)
		name = WD_LIBSQLITE;
	void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(why, sizeof why, "SQLite is needed, and %s cannot be loaded "
			 "(%s); install the package %s (apt-get install %s)", name, dlerror(),
			 WD_LIBSQLITE_PACKAGE, WD_LIBSQLITE_PACKAGE);
		return;
	}
	struct wd_sqlite_fns t;
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define WD_SQLITE_SYM(n) {"sqlite3_" #n, offsetof(struct wd_sqlite_fns, p_##n)},
		WD_SQLITE_FNS(WD_SQLITE_SYM)
#undef WD_SQLITE_SYM
	};
	for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
		void *f = dlsym(lib, syms[i].name);
		if (!f) {
			snprintf(why, sizeof why, "%s has no %s (not SQLite 3.33 or later); install "
				 "the package %s", name, syms[i].name, WD_LIBSQLITE_PACKAGE);
			dlclose(lib);
			return;
		}
		/* POSIX: a function's address fits a void * */
		memcpy((char *)&t + syms[i].off, &f, sizeof f);
	}
	int v = t.p_libversion_number();
	if (v < WD_SQLITE_MIN) {
		snprintf(why, sizeof why, "%s is SQLite %d.%d.%d, and warpdrv needs 3.33 or later; "
			 "install a newer package %s", name, v / 1000000, v / 1000 % 1000, v % 1000,
			 WD_LIBSQLITE_PACKAGE);
		dlclose(lib);
		return;
	}
	wd_sqlite = t;
	loaded = 0;
}

int wd_sqlite_load(void)
{
	pthread_once(&once, load_once);
	return loaded;
}

const char *wd_sqlite_why(void)
{
	return why[0] ? why : "not open";
}

int wd_sqlite_open_v2(const char *name, sqlite3 **h, int flags, const char *vfs)
{
	if (wd_sqlite_load()) {
		*h = NULL;
		return SQLITE_CANTOPEN;
	}
	return wd_sqlite.p_open_v2(name, h, flags, vfs);
}

int wd_sqlite_close(sqlite3 *h)
{
	return h ? wd_sqlite.p_close(h) : SQLITE_OK;
}

int wd_sqlite_finalize(sqlite3_stmt *st)
{
	return st ? wd_sqlite.p_finalize(st) : SQLITE_OK;
}

void wd_sqlite_free(void *p)
{
	if (p)
		wd_sqlite.p_free(p);
}

const char *wd_sqlite_errmsg(sqlite3 *h)
{
	return h ? wd_sqlite.p_errmsg(h) : wd_sqlite_why();
}

char *wd_sqlite_mprintf(const char *fmt, ...)
{
	if (wd_sqlite_load())
		return NULL;
	va_list ap;
	va_start(ap, fmt);
	char *s = wd_sqlite.p_vmprintf(fmt, ap);
	va_end(ap);
	return s;
}

sqlite3_vfs *wd_sqlite_vfs_find(const char *name)
{
	return wd_sqlite_load() ? NULL : wd_sqlite.p_vfs_find(name);
}

int wd_sqlite_vfs_register(sqlite3_vfs *vfs, int make_default)
{
	return wd_sqlite_load() ? SQLITE_ERROR : wd_sqlite.p_vfs_register(vfs, make_default);
}
