/* Walking a VirtualBox settings document (libxml2), shared by the machine
 * reader (vbox_machine.c) and the --pci vbox: reader (vbox_xml.c). */
#ifndef WD_VBOX_XML_NODE_H
#define WD_VBOX_XML_NODE_H

#include <libxml/tree.h>
#include <stdbool.h>
#include <string.h>

/* Whether n is an element named name. */
static inline bool vbox_is(const xmlNode *n, const char *name)
{
	return n && n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

/* n's first child element named name, or NULL. */
static inline const xmlNode *vbox_child(const xmlNode *n, const char *name)
{
	for (const xmlNode *c = n ? n->children : NULL; c; c = c->next)
		if (vbox_is(c, name))
			return c;
	return NULL;
}

#endif
