#include "installer/volume.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/buf.h"
#include "common/file.h"

char *volume_find_entry(const char *dir, const char *name)
{
	char *exact = wd_path_join(dir, name);
	struct stat st;
	int have = lstat(exact, &st) == 0;
	free(exact);
	if (have)
		return wd_xstrdup(name);
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char *best = NULL;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcasecmp(e->d_name, name) != 0)
			continue;
		if (!best || strcmp(e->d_name, best) < 0) {
			free(best);
			best = wd_xstrdup(e->d_name);
		}
	}
	closedir(d);
	return best;
}

int volume_open(struct volume *v, const char *root, struct wd_err *err)
{
	memset(v, 0, sizeof *v);
	if (!root || !*root)
		return wd_err_set(err, WD_EUSAGE,
				  "no OS/2 volume given: use --root DIR or set WARPDRV_ROOT");
	if (!wd_is_dir(root))
		return wd_err_set(err, WD_EFAIL, "%s: no such folder (--root names the OS/2 boot volume)",
				  root);
	char *name = volume_find_entry(root, "CONFIG.SYS");
	if (!name)
		return wd_err_set(err, WD_EFAIL,
				  "%s: not an OS/2 boot volume (no CONFIG.SYS at its top); "
				  "--root must name the volume's top folder", root);
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	v->root = wd_xstrndup(root, n);
	v->config_sys = wd_path_join(v->root, name);
	free(name);
	return 0;
}

void volume_close(struct volume *v)
{
	free(v->root);
	free(v->config_sys);
	memset(v, 0, sizeof *v);
}

int volume_resolve(const struct volume *v, const char *os2path, char **out, bool *found,
		   struct wd_err *err)
{
	const char *p = os2path;
	if (((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':')
		p += 2;
	char *path = wd_xstrdup(v->root);
	bool all = true;
	const char *s = p;
	int parts = 0;
	while (*s) {
		while (*s == '\\' || *s == '/')
			s++;
		size_t n = strcspn(s, "\\/");
		if (!n)
			break;
		char *comp = wd_xstrndup(s, n);
		s += n;
		if (!strcmp(comp, ".")) {
			free(comp);
			continue;
		}
		if (!strcmp(comp, "..")) {
			free(comp);
			free(path);
			return wd_err_set(err, WD_ETRUST, "%s: a path inside the volume may not use '..'",
					  os2path);
		}
		char *name = all ? volume_find_entry(path, comp) : NULL;
		if (!name) {
			all = false;
			name = comp;
		} else {
			free(comp);
		}
		char *next = wd_path_join(path, name);
		free(name);
		free(path);
		path = next;
		parts++;
	}
	if (!parts) {
		free(path);
		return wd_err_set(err, WD_EFAIL, "'%s': empty path inside the volume", os2path);
	}
	*out = path;
	if (found)
		*found = all;
	return 0;
}
