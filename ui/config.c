/* The configuration file: "name = value" lines naming warpdrv's global
 * options (docs/warpdrv.conf.5). */
#include "ui/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/file.h"
#include "common/hooks.h"

/* The settings the file may hold: the network, the PCI source, the
 * repositories and key folders, the lock wait. What names one run's volume
 * or changes what a command does (--root, --yes, --dry-run, --json) is the
 * command line's alone. */
static const char *const settable[] = {
	"pci", "pci-ids", "repo", "keys", "cacert", "connect-timeout", "speed-limit",
	"speed-time", "max-time", "lock-wait", "color", NULL,
};

#define CONFIG_MAX_BYTES (64 * 1024)

bool ui_config_settable(const char *name)
{
	for (const char *const *s = settable; *s; s++)
		if (!strcmp(*s, name))
			return true;
	return false;
}

const char *ui_sysconf_dir(void)
{
	const char *t = wd_test_hook("WARPDRV_SYSCONFDIR");
	return t && *t ? t : "/etc/warpdrv";
}

char *ui_system_keys(void)
{
	char *dir = wd_path_join(ui_sysconf_dir(), "keys");
	if (wd_is_dir(dir)) /* host: the administrator's keys */
		return dir;
	free(dir);
	return NULL;
}

char *ui_config_path(const char *given)
{
	if (given)
		return wd_xstrdup(given);
	if (geteuid() == 0)
		return wd_path_join(ui_sysconf_dir(), "warpdrv.conf");
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (xdg && *xdg == '/')
		return wd_xasprintf("%s/warpdrv/warpdrv.conf", xdg);
	return wd_xasprintf("%s/.config/warpdrv/warpdrv.conf", home && *home ? home : "/");
}

static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		s[--n] = '\0';
	return s;
}

int ui_config_read(struct wd_ctx *ctx, const char *path, bool must,
		   int (*apply)(void *ud, const char *name, const char *value, const char *where),
		   void *ud)
{
	struct wd_buf b = {0};
	struct wd_err err = {0};
	if (!must && !wd_exists(path)) /* host: the configuration file */
		return 0;
	if (wd_read_file(path, CONFIG_MAX_BYTES, &b, &err)) { /* host: the configuration file */
		wd_buf_free(&b);
		return ui_usage(ctx, "configuration file %s", err.msg);
	}
	wd_buf_cstr(&b);
	ctx->config_text = b.p;
	ctx->config_file = path;
	int line = 0;
	for (char *p = b.p, *next; p && *p; p = next) {
		next = strchr(p, '\n');
		if (next)
			*next++ = '\0';
		line++;
		char where[600];
		snprintf(where, sizeof where, "%s:%d", path, line);
		char *s = trim(p);
		if (!*s || *s == '#')
			continue;
		char *eq = strchr(s, '=');
		if (!eq)
			return ui_usage(ctx, "%s: expected 'name = value' (a setting such as "
					"'cacert = /etc/ssl/my-ca.pem'), not '%s'", where, s);
		*eq = '\0';
		char *name = trim(s), *value = trim(eq + 1);
		if (!ui_config_settable(name))
			return ui_usage(ctx, "%s: '%s' is not a setting of the configuration file "
					"(warpdrv.conf(5) lists them)", where, name);
		if (!*value)
			return ui_usage(ctx, "%s: %s has no value", where, name);
		int rc = apply(ud, name, value, where);
		if (rc)
			return rc;
	}
	return 0;
}

void ui_config_free(struct wd_ctx *ctx)
{
	free(ctx->config_text);
	ctx->config_text = NULL;
}
