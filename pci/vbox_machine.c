/* A VirtualBox machine's settings, read with libxml2 (vbox_machine.h). */
#include "pci/vbox_machine.h"

#include <fcntl.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/file.h"
#include "pci/parse.h"
#include "pci/vbox_xml_node.h"

/* A settings file is a few kilobytes; a registry of many machines, more. */
#define VBOX_MAX (4u << 20)

/* An attribute's value, newly allocated, or NULL. */
static char *attr(const xmlNode *n, const char *name)
{
	xmlChar *v = xmlGetProp((xmlNode *)n, (const xmlChar *)name);
	if (!v)
		return NULL;
	char *s = wd_xstrdup((const char *)v);
	xmlFree(v);
	return s;
}

static bool attr_is(const xmlNode *n, const char *name, const char *want)
{
	char *v = attr(n, name);
	bool yes = v && !strcasecmp(v, want);
	free(v);
	return yes;
}

/* The document of a VirtualBox settings file (root <VirtualBox>). No network,
 * no DTD, no entity expansion: a settings file needs none. */
static int load(const char *path, const char *what, xmlDoc **doc, struct wd_err *err)
{
	struct wd_buf b = {0};
	int r = wd_read_file(path, VBOX_MAX, &b, err);
	if (r) {
		wd_buf_free(&b);
		return r;
	}
	void *d = NULL;
	r = vbox_xml_read(b.p ? b.p : "", b.len, path, &d, err);
	wd_buf_free(&b);
	*doc = d;
	if (r) {
		char why[sizeof err->msg];
		memcpy(why, err->msg, sizeof why);
		return wd_err_set(err, WD_EFAIL, "%.900s: not a VirtualBox %s", why, what);
	}
	const xmlNode *root = xmlDocGetRootElement(*doc);
	if (!vbox_is(root, "VirtualBox")) {
		xmlFreeDoc(*doc);
		*doc = NULL;
		return wd_err_set(err, WD_EFAIL, "%s: the first element is not <VirtualBox>: not a "
				  "VirtualBox %s", path, what);
	}
	return 0;
}

char *vbox_config_dir(const char *vbox_user_home, const char *home)
{
	if (vbox_user_home && *vbox_user_home)
		return wd_xstrdup(vbox_user_home);
	if (!home || !*home)
		return NULL;
	char *cfg = wd_xasprintf("%s/.config/VirtualBox", home);
	if (wd_is_dir(cfg))
		return cfg;
	free(cfg);
	return wd_xasprintf("%s/.VirtualBox", home);
}

/* A path of a Windows host (C:\..., C:/..., \\server\...): a machine
 * copied from one; kept as written, to be named in the error. */
static bool windows_path(const char *p)
{
	return (((p[0] | 0x20) >= 'a' && (p[0] | 0x20) <= 'z' && p[1] == ':' &&
		 (p[2] == '\\' || p[2] == '/')) || p[0] == '\\');
}

static char *relative_to(const char *file, const char *loc)
{
	if (loc[0] == '/' || windows_path(loc))
		return wd_xstrdup(loc);
	char *dir = wd_dirname(file);
	char *p = wd_path_join(dir, loc);
	free(dir);
	return p;
}

/* ------------------------------------------------------------ the media registry */

/* The <HardDisk> of uuid below n (children are differencing images). */
static const xmlNode *find_disk(const xmlNode *n, const char *uuid, bool *is_child, int depth)
{
	for (const xmlNode *c = n ? n->children : NULL; c; c = c->next) {
		if (!vbox_is(c, "HardDisk"))
			continue;
		if (attr_is(c, "uuid", uuid)) {
			*is_child = depth > 0;
			return c;
		}
		const xmlNode *d = find_disk(c, uuid, is_child, depth + 1);
		if (d)
			return d;
	}
	return NULL;
}

static const xmlNode *registry_disks(const xmlNode *holder)
{
	return vbox_child(vbox_child(holder, "MediaRegistry"), "HardDisks");
}

/* ------------------------------------------------------------ the boot disk */

struct pick {
	char *uuid;
	int port, device;
	bool found;
};

static int num(const xmlNode *n, const char *name)
{
	char *v = attr(n, name);
	int k = v ? atoi(v) : 0;
	free(v);
	return k;
}

/* The first hard disk attached: the first controller that has one, its
 * lowest port and device. */
static void pick_disk(const xmlNode *controllers, struct pick *p)
{
	for (const xmlNode *c = controllers ? controllers->children : NULL; c && !p->found;
	     c = c->next) {
		if (!vbox_is(c, "StorageController"))
			continue;
		for (const xmlNode *a = c->children; a; a = a->next) {
			if (!vbox_is(a, "AttachedDevice") || !attr_is(a, "type", "HardDisk"))
				continue;
			const xmlNode *img = vbox_child(a, "Image");
			char *u = img ? attr(img, "uuid") : NULL;
			if (!u)
				continue;
			int port = num(a, "port"), dev = num(a, "device");
			if (!p->uuid || port < p->port || (port == p->port && dev < p->device)) {
				free(p->uuid);
				p->uuid = u;
				p->port = port;
				p->device = dev;
			} else {
				free(u);
			}
		}
		p->found = p->uuid != NULL;
	}
}

static int read_machine(const char *file, const char *config_dir, struct vbox_machine *m,
			struct wd_err *err)
{
	xmlDoc *doc;
	int r = load(file, "machine file (.vbox)", &doc, err);
	if (r)
		return r;
	const xmlNode *mach = vbox_child(xmlDocGetRootElement(doc), "Machine");
	if (!mach) {
		xmlFreeDoc(doc);
		return wd_err_set(err, WD_EFAIL, "%s: no <Machine>: not a VirtualBox machine file",
				  file);
	}
	m->file = wd_xstrdup(file);
	m->name = attr(mach, "name");
	m->state_file = attr(mach, "stateFile");
	for (const xmlNode *c = vbox_child(mach, "ExtraData") ? vbox_child(mach, "ExtraData")->children : NULL;
	     c && !m->switched; c = c->next)
		if (vbox_is(c, "ExtraDataItem") && attr_is(c, "name", VBOX_SWITCH_KEY))
			m->switched = attr(c, "value");
	/* the current state's controllers: in <Hardware> since settings 1.?,
	 * beside it in older files */
	struct pick p = {0};
	pick_disk(vbox_child(vbox_child(mach, "Hardware"), "StorageControllers"), &p);
	if (!p.found)
		pick_disk(vbox_child(mach, "StorageControllers"), &p);
	if (p.uuid) {
		bool is_child = false;
		const xmlNode *d = find_disk(registry_disks(mach), p.uuid, &is_child, 0);
		xmlDoc *global = NULL;
		if (!d && config_dir) { /* before VirtualBox 4.0: the global registry */
			char *g = wd_path_join(config_dir, "VirtualBox.xml");
			struct wd_err ignore;
			if (!load(g, "settings file", &global, &ignore))
				d = find_disk(registry_disks(vbox_child(xmlDocGetRootElement(global),
								   "Global")),
					      p.uuid, &is_child, 0);
			free(g);
		}
		char *loc = d ? attr(d, "location") : NULL;
		if (!loc)
			r = wd_err_set(err, WD_EFAIL, "%s: the boot disk %s is in no media registry "
				       "(a damaged machine file?)", file, p.uuid);
		else {
			m->disk = relative_to(file, loc);
			m->disk_format = attr(d, "format");
			m->disk_child = is_child;
		}
		free(loc);
		if (global)
			xmlFreeDoc(global);
	}
	free(p.uuid);
	xmlFreeDoc(doc);
	if (r)
		vbox_machine_free(m);
	return r;
}

/* ------------------------------------------------------------ the registry */

static bool same_uuid(const char *entry, const char *want)
{
	size_t n = strlen(want);
	if (want[0] == '{')
		return !strcasecmp(entry, want);
	return entry[0] == '{' && strlen(entry) == n + 2 && !strncasecmp(entry + 1, want, n);
}

/* The file's name without its folder (either slash) and .vbox. */
static char *file_name(const char *src)
{
	const char *base = strrchr(src, '/');
	const char *bs = strrchr(src, '\\');
	if (bs && (!base || bs > base))
		base = bs;
	base = base ? base + 1 : src;
	size_t n = strlen(base);
	return wd_xstrndup(base, n > 5 && !strcasecmp(base + n - 5, ".vbox") ? n - 5 : n);
}

static int find_registered(const char *machine, const char *config_dir, char **file,
			   struct wd_err *err)
{
	char *reg = wd_path_join(config_dir, "VirtualBox.xml");
	xmlDoc *doc;
	int r = load(reg, "settings file", &doc, err);
	if (r) {
		free(reg);
		return wd_err_prefix(err, "--vm %s: no machine file of that name, and no registry",
				     machine);
	}
	const xmlNode *list = vbox_child(vbox_child(xmlDocGetRootElement(doc), "Global"), "MachineRegistry");
	struct wd_buf names = {0};
	for (const xmlNode *e = list ? list->children : NULL; e && !*file; e = e->next) {
		if (!vbox_is(e, "MachineEntry"))
			continue;
		char *src = attr(e, "src"), *uuid = attr(e, "uuid");
		if (src) {
			char *path = relative_to(reg, src), *base = file_name(src);
			if (!strcmp(base, machine) || (uuid && same_uuid(uuid, machine)))
				*file = wd_xstrdup(path);
			else {
				/* a machine renamed after its file was: its own name= */
				struct vbox_machine m = {0};
				struct wd_err ignore;
				if (!read_machine(path, NULL, &m, &ignore) && m.name &&
				    !strcmp(m.name, machine))
					*file = wd_xstrdup(path);
				wd_buf_addf(&names, "%s%s", names.len ? ", " : "",
					    m.name ? m.name : base);
				vbox_machine_free(&m);
			}
			free(path);
			free(base);
		}
		free(src);
		free(uuid);
	}
	if (!*file)
		r = wd_err_set(err, WD_EFAIL, "--vm %s: no machine of that name or UUID in %s%s%s%s",
			       machine, reg, names.len ? " (it registers: " : "",
			       names.len ? wd_buf_cstr(&names) : "", names.len ? ")" : "");
	wd_buf_free(&names);
	xmlFreeDoc(doc);
	free(reg);
	return r;
}

int vbox_machine_find(const char *machine, const char *config_dir, struct vbox_machine *m,
		      struct wd_err *err)
{
	memset(m, 0, sizeof *m);
	size_t n = strlen(machine);
	if (strchr(machine, '/') || (n > 5 && !strcasecmp(machine + n - 5, ".vbox")))
		return read_machine(machine, config_dir, m, err);
	if (!config_dir)
		return wd_err_set(err, WD_EFAIL, "--vm %s: no VirtualBox folder to look the name up "
				  "in (set VBOX_USER_HOME or HOME), and no .vbox file", machine);
	char *file = NULL;
	int r = find_registered(machine, config_dir, &file, err);
	if (!r) {
		r = read_machine(file, config_dir, m, err);
		if (r)
			wd_err_prefix(err, "--vm %s: registered in %s/VirtualBox.xml", machine,
				      config_dir);
	}
	free(file);
	return r;
}

static bool pcnet(const char *type)
{
	return !type || !strcmp(type, "Am79C970A") || !strcmp(type, "Am79C973");
}

int vbox_switch_parse(const char *rec, struct vbox_switch *sw)
{
	memset(sw, 0, sizeof *sw);
	char *end;
	sw->gen = strtol(rec, &end, 10);
	if (end == rec || *end != ':' || sw->gen < 0)
		return -1;
	const char *p = end + 1;
	while (*p && sw->n < VBOX_SWITCH_MAX) {
		long slot = strtol(p, &end, 10);
		if (end == p || *end != '=' || slot < 0 || slot > 63)
			return -1;
		p = end + 1;
		size_t len = strcspn(p, ",");
		if (!len || len > 32)
			return -1;
		sw->slots[sw->n] = (int)slot;
		memcpy(sw->types[sw->n], p, len);
		sw->types[sw->n][len] = 0;
		sw->n++;
		p += len;
		if (*p == ',')
			p++;
	}
	return sw->n ? 0 : -1;
}

char *vbox_switch_format(const struct vbox_switch *sw)
{
	struct wd_buf b = {0};
	wd_buf_addf(&b, "%ld:", sw->gen);
	for (int i = 0; i < sw->n; i++)
		wd_buf_addf(&b, "%s%d=%s", i ? "," : "", sw->slots[i], sw->types[i]);
	wd_buf_cstr(&b);
	return b.p;
}

/* Sets (value) or removes (NULL) the record in <Machine><ExtraData>. */
static void set_record(xmlNode *mach, const char *value)
{
	xmlNode *extra = (xmlNode *)vbox_child(mach, "ExtraData");
	for (xmlNode *c = extra ? extra->children : NULL; c; c = c->next) {
		if (!vbox_is(c, "ExtraDataItem") || !attr_is(c, "name", VBOX_SWITCH_KEY))
			continue;
		if (value) {
			xmlSetProp(c, (const xmlChar *)"value", (const xmlChar *)value);
			return;
		}
		xmlUnlinkNode(c);
		xmlFreeNode(c);
		/* an <ExtraData> only the record was in goes too */
		bool more = false;
		for (const xmlNode *k = extra->children; k && !more; k = k->next)
			more = k->type == XML_ELEMENT_NODE;
		if (!more) {
			xmlUnlinkNode(extra);
			xmlFreeNode(extra);
		}
		return;
	}
	if (!value)
		return;
	if (!extra)
		extra = xmlNewChild(mach, mach->ns, (const xmlChar *)"ExtraData", NULL);
	xmlNode *item = xmlNewChild(extra, extra->ns, (const xmlChar *)"ExtraDataItem", NULL);
	xmlSetProp(item, (const xmlChar *)"name", (const xmlChar *)VBOX_SWITCH_KEY);
	xmlSetProp(item, (const xmlChar *)"value", (const xmlChar *)value);
}

/* The text of doc after edit: each adapter of the current state in turn. */
static int rewrite(const char *file, bool on, struct vbox_switch *sw, struct wd_buf *out,
		   struct wd_err *err)
{
	xmlDoc *doc;
	int r = load(file, "machine file (.vbox)", &doc, err);
	if (r)
		return r;
	xmlNode *mach = (xmlNode *)vbox_child(xmlDocGetRootElement(doc), "Machine");
	const xmlNode *net = vbox_child(vbox_child(mach, "Hardware"), "Network");
	int n = 0;
	for (xmlNode *a = net ? net->children : NULL; a; a = a->next) {
		if (!vbox_is(a, "Adapter"))
			continue;
		int slot = num(a, "slot");
		char *type = attr(a, "type");
		if (on && attr_is(a, "enabled", "true") && pcnet(type) && n < VBOX_SWITCH_MAX) {
			sw->slots[n] = slot;
			snprintf(sw->types[n], sizeof sw->types[n], "%s", type ? type : "Am79C973");
			xmlSetProp(a, (const xmlChar *)"type", (const xmlChar *)"82540EM");
			n++;
		}
		for (int i = 0; !on && i < sw->n; i++)
			if (sw->slots[i] == slot)
				xmlSetProp(a, (const xmlChar *)"type", (const xmlChar *)sw->types[i]);
		free(type);
	}
	if (on)
		sw->n = n;
	if (sw->n) {
		char *rec = on ? vbox_switch_format(sw) : NULL;
		set_record(mach, rec);
		free(rec);
		xmlChar *text = NULL;
		int len = 0;
		xmlDocDumpMemoryEnc(doc, &text, &len, "UTF-8");
		if (!text)
			r = wd_err_set(err, WD_EFAIL, "%s: cannot write the machine file", file);
		else
			wd_buf_add(out, text, (size_t)len);
		xmlFree(text);
	}
	xmlFreeDoc(doc);
	return r;
}

int vbox_switch_nic_text(const char *file, struct vbox_switch *sw, struct wd_buf *out,
			 struct wd_err *err)
{
	return rewrite(file, true, sw, out, err);
}

int vbox_unswitch_nic_text(const char *file, const struct vbox_switch *sw, struct wd_buf *out,
			   struct wd_err *err)
{
	struct vbox_switch copy = *sw;
	return rewrite(file, false, &copy, out, err);
}

extern char **environ;

void vbox_machine_vmstate(const struct vbox_machine *m, char *state, size_t cap)
{
	state[0] = 0;
	int fd[2];
	if (!m->name || pipe(fd))
		return;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	char *argv[] = {"VBoxManage", "showvminfo", m->name, "--machinereadable", NULL};
	pid_t pid;
	int bad = posix_spawnp(&pid, "VBoxManage", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	struct wd_buf b = {0};
	char chunk[4096];
	ssize_t n;
	while (!bad && b.len < (1u << 20) && (n = read(fd[0], chunk, sizeof chunk)) > 0)
		wd_buf_add(&b, chunk, (size_t)n);
	close(fd[0]);
	int st;
	if (!bad && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st)) {
		const char *t = wd_buf_cstr(&b), *k = strstr(t, "\nVMState=\"");
		if (!strncmp(t, "VMState=\"", 9))
			k = t - 1;
		if (k) {
			k += 10;
			size_t len = strcspn(k, "\"\n");
			if (len < cap)
				snprintf(state, cap, "%.*s", (int)len, k);
		}
	}
	wd_buf_free(&b);
}

void vbox_machine_free(struct vbox_machine *m)
{
	free(m->file);
	free(m->name);
	free(m->state_file);
	free(m->disk);
	free(m->disk_format);
	free(m->switched);
	memset(m, 0, sizeof *m);
}
