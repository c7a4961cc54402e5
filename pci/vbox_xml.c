/* The VirtualBox machine file (NAME.vbox), read with libxml2, of which only
 * this is used:
 *   <VirtualBox ...><Machine ...><Hardware ...><Network>   (not a <Snapshot>'s)
 *     <Adapter slot="0" enabled="true" MACAddress="..." type="82540EM">
 *       <NAT/>                      (the attachment: the first child element)
 *       <DisabledModes>...</DisabledModes>   (remembered settings: not used)
 *     </Adapter>
 * The file is parsed from memory with no network, no DTD and no entity
 * expansion; a damaged or truncated file is refused, naming its line. */
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "pci/parse.h"
#include "pci/vbox_xml_node.h"

#define MAX_ADAPTERS 64
/* VirtualBox's default when an <Adapter> has no type attribute. */
#define DEFAULT_TYPE "Am79C973"

struct adapter {
	int slot;
	bool enabled;
	char *type;
	const char *attach; /* NULL: not attached */
};

static int bad(const char *file, const xmlNode *n, const char *what, struct wd_err *err)
{
	return wd_err_set(err, WD_EFAIL, "%s line %ld: %s", file, xmlGetLineNo(n), what);
}

/* The attachment an <Adapter>'s child element names, in VBoxManage's words
 * (what showvminfo --machinereadable prints as nicN). */
static const char *attachment_of(const xmlNode *n)
{
	static const char *const map[][2] = {
		{"NAT", "nat"}, {"BridgedInterface", "bridged"}, {"InternalNetwork", "intnet"},
		{"HostOnlyInterface", "hostonly"}, {"GenericInterface", "generic"},
		{"NATNetwork", "natnetwork"}, {"CloudNetwork", "cloud"},
		{"HostOnlyNetwork", "hostonlynet"},
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (vbox_is(n, map[i][0]))
			return map[i][1];
	return NULL;
}

/* An attribute's value as a string view of a libxml2 string (freed by the
 * caller with xmlFree), or NULL. */
static char *prop(const xmlNode *n, const char *name)
{
	return (char *)xmlGetProp((xmlNode *)n, (const xmlChar *)name);
}

static int new_adapter(const char *file, const xmlNode *n, struct adapter *a, size_t count,
		       struct wd_err *err)
{
	char *slot = prop(n, "slot"), *en = prop(n, "enabled"), *ty = prop(n, "type");
	int r = 0;
	char *end = NULL;
	long v = slot && *slot >= '0' && *slot <= '9' ? strtol(slot, &end, 10) : -1;
	if (v < 0 || v >= MAX_ADAPTERS || *end)
		r = bad(file, n, "an <Adapter> without a slot number from 0 to 63", err);
	for (size_t i = 0; !r && i < count; i++)
		if (a[i].slot == (int)v)
			r = bad(file, n, "a second <Adapter> of the same slot", err);
	if (!r && en && strcmp(en, "true") && strcmp(en, "false"))
		r = bad(file, n, "an <Adapter> enabled neither \"true\" nor \"false\"", err);
	if (!r && ty && (!*ty || strlen(ty) > 32))
		r = bad(file, n, "an <Adapter> type of no or over 32 characters", err);
	if (!r) {
		memset(&a[count], 0, sizeof a[count]);
		a[count].slot = (int)v;
		a[count].enabled = en && !strcmp(en, "true"); /* VirtualBox's default: off */
		a[count].type = wd_xstrdup(ty ? ty : DEFAULT_TYPE);
		for (const xmlNode *c = n->children; c && !a[count].attach; c = c->next)
			if (c->type == XML_ELEMENT_NODE)
				a[count].attach = attachment_of(c);
	}
	xmlFree(slot);
	xmlFree(en);
	xmlFree(ty);
	return r;
}

static int cmp_slot(const void *a, const void *b)
{
	return ((const struct adapter *)a)->slot - ((const struct adapter *)b)->slot;
}

/* The first of libxml2's complaints: the later ones follow from it. */
static void first_error(void *arg, xmlErrorPtr e)
{
	xmlError *first = arg;
	if (!first->message && e && e->message) {
		first->line = e->line;
		first->message = (char *)xmlStrdup((const xmlChar *)e->message);
	}
}

int vbox_xml_read(const char *text, size_t len, const char *name, void **doc,
		  struct wd_err *err)
{
	if (len > 64u << 20)
		return wd_err_set(err, WD_EFAIL, "%s: over 64 MiB: not a VirtualBox settings file",
				  name);
	xmlError first = {0};
	xmlSetStructuredErrorFunc(&first, first_error);
	*doc = xmlReadMemory(text, (int)len, NULL, NULL,
			     XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	xmlSetStructuredErrorFunc(NULL, NULL);
	int r = 0;
	if (!*doc) {
		char msg[200] = "not XML";
		if (first.message) {
			snprintf(msg, sizeof msg, "%s", first.message);
			msg[strcspn(msg, "\n")] = 0;
		}
		r = wd_err_set(err, WD_EFAIL, "%s line %d: %s (cut short or damaged?)", name,
			       first.line, msg);
	}
	xmlFree(first.message);
	return r;
}

int pci_parse_vbox_xml(const char *text, size_t len, const char *name, struct pci_list *out,
		       struct wd_err *err)
{
	memset(out, 0, sizeof *out);
	void *d;
	int r = vbox_xml_read(text, len, name, &d, err);
	if (r)
		return r;
	xmlDoc *doc = d;
	const xmlNode *root = xmlDocGetRootElement(doc);
	struct adapter *a = wd_xcalloc(MAX_ADAPTERS, sizeof *a);
	size_t n = 0;
	if (!vbox_is(root, "VirtualBox"))
		r = root ? bad(name, root, "the first element is not <VirtualBox>", err)
			 : wd_err_set(err, WD_EFAIL, "%s: no element at all: not a VirtualBox "
				      "machine file", name);
	/* the machine's own adapters, not those a <Snapshot> remembers */
	const xmlNode *net = r ? NULL : vbox_child(vbox_child(vbox_child(root, "Machine"), "Hardware"), "Network");
	for (const xmlNode *c = net ? net->children : NULL; c && !r; c = c->next) {
		if (!vbox_is(c, "Adapter"))
			continue;
		if (n == MAX_ADAPTERS)
			r = bad(name, c, "more than 64 adapters", err);
		else if (!(r = new_adapter(name, c, a, n, err)))
			n++;
	}
	if (!r) {
		out->source = wd_xasprintf("vbox:%s", name);
		out->virtualbox = true;
		qsort(a, n, sizeof *a, cmp_slot);
		for (size_t i = 0; i < n; i++)
			if (a[i].enabled) /* not attached: VBoxManage says "null" */
				vbox_add_adapter(out, a[i].slot + 1, a[i].attach ? a[i].attach : "null",
						 a[i].type);
		pci_finish(out);
	}
	for (size_t i = 0; i < n; i++)
		free(a[i].type);
	free(a);
	xmlFreeDoc(doc);
	return r;
}
