/* The VirtualBox machine file (NAME.vbox): XML, of which only this is read:
 *   <VirtualBox ...><Machine ...><Hardware ...><Network>   (not a <Snapshot>'s)
 *     <Adapter slot="0" enabled="true" MACAddress="..." type="82540EM">
 *       <NAT/>                      (the attachment: the first child element)
 *       <DisabledModes>...</DisabledModes>   (remembered settings: not used)
 *     </Adapter>
 * A small scanner of tags is enough for that: comments, processing
 * instructions, CDATA and the DOCTYPE are skipped, text is ignored, and every
 * element must be closed in order (a truncated or damaged file is refused,
 * naming its line). Attribute values are read as written: the values read
 * here never hold entities. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "pci/parse.h"

#define XML_DEPTH 64
#define XML_ATTRS 16
#define MAX_ADAPTERS 64
/* VirtualBox's default when an <Adapter> has no type attribute. */
#define DEFAULT_TYPE "Am79C973"

struct xml {
	const char *start, *p, *end;
	const char *name; /* the file, for messages */
	struct wd_err *err;
};

struct xml_tag {
	struct wd_sv name;
	bool close, empty; /* </x>, <x/> */
	struct wd_sv attr[XML_ATTRS][2];
	size_t nattr;
	const char *at;
};

struct adapter {
	int slot;
	bool enabled;
	char *type;
	const char *attach; /* NULL: not attached */
	int line;
};

static int line_of(const struct xml *x, const char *at)
{
	int n = 1;
	for (const char *c = x->start; c < at; c++)
		n += *c == '\n';
	return n;
}

static int bad(const struct xml *x, const char *at, const char *what)
{
	return wd_err_set(x->err, WD_EFAIL, "%s line %d: %s: not a VirtualBox machine file as "
			  "VirtualBox writes it", x->name, line_of(x, at), what);
}

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' || c == ':';
}

static void skip_space(const struct xml *x, const char **p)
{
	while (*p < x->end && isspace((unsigned char)**p))
		(*p)++;
}

static struct wd_sv read_name(const struct xml *x, const char **p)
{
	const char *s = *p;
	while (*p < x->end && name_char(**p))
		(*p)++;
	return wd_sv_make(s, (size_t)(*p - s));
}

/* name="value" or name='value' at *p. */
static int read_attr(const struct xml *x, const char **p, struct xml_tag *t)
{
	const char *at = *p;
	struct wd_sv n = read_name(x, p);
	skip_space(x, p);
	if (!n.n || *p >= x->end || **p != '=')
		return bad(x, at, "an attribute without '=\"value\"'");
	(*p)++;
	skip_space(x, p);
	if (*p >= x->end || (**p != '"' && **p != '\''))
		return bad(x, at, "an attribute value without quotes");
	const char *q = memchr(*p + 1, **p, (size_t)(x->end - *p - 1));
	if (!q)
		return bad(x, at, "an attribute value that never ends");
	if (t->nattr < XML_ATTRS) {
		t->attr[t->nattr][0] = n;
		t->attr[t->nattr++][1] = wd_sv_make(*p + 1, (size_t)(q - *p - 1));
	}
	*p = q + 1;
	return 0;
}

static int read_tag(struct xml *x, struct xml_tag *t)
{
	const char *p = x->p + 1;
	memset(t, 0, sizeof *t);
	t->at = x->p;
	if (p < x->end && *p == '/')
		t->close = true, p++;
	t->name = read_name(x, &p);
	if (!t->name.n)
		return bad(x, t->at, "a '<' that starts no tag");
	for (;;) {
		skip_space(x, &p);
		if (p >= x->end)
			return bad(x, t->at, "a tag that never ends");
		if (*p == '>') {
			p++;
			break;
		}
		if (!t->close && *p == '/' && p + 1 < x->end && p[1] == '>') {
			t->empty = true;
			p += 2;
			break;
		}
		if (t->close || (t->nattr && !isspace((unsigned char)p[-1])))
			return bad(x, p, "a malformed tag");
		int r = read_attr(x, &p, t);
		if (r)
			return r;
	}
	x->p = p;
	return 0;
}

static bool starts(const struct xml *x, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(x->end - x->p) >= n && !memcmp(x->p, s, n);
}

/* Moves past the next `what`, for the parts of XML skipped whole. */
static int skip_past(struct xml *x, const char *what, const char *name)
{
	const char *at = x->p;
	size_t n = strlen(what);
	for (const char *c = x->p; c + n <= x->end; c++)
		if (!memcmp(c, what, n)) {
			x->p = c + n;
			return 0;
		}
	return bad(x, at, name);
}

/* The next tag; *done at the end of the text. */
static int next_tag(struct xml *x, struct xml_tag *t, bool *done)
{
	for (;;) {
		const char *lt = memchr(x->p, '<', (size_t)(x->end - x->p));
		*done = !lt;
		if (!lt)
			return 0;
		x->p = lt;
		int r = starts(x, "<!--")        ? skip_past(x, "-->", "a comment that never ends")
			: starts(x, "<?")        ? skip_past(x, "?>", "a <? that never ends")
			: starts(x, "<![CDATA[") ? skip_past(x, "]]>", "a CDATA section that never ends")
			: starts(x, "<!")        ? skip_past(x, ">", "a <! that never ends")
						 : 1;
		if (r < 0)
			return r;
		if (r == 1)
			return read_tag(x, t);
	}
}

/* The attachment an <Adapter>'s child element names, in VBoxManage's words
 * (what showvminfo --machinereadable prints as nicN). */
static const char *attachment_of(struct wd_sv name)
{
	static const char *const map[][2] = {
		{"NAT", "nat"}, {"BridgedInterface", "bridged"}, {"InternalNetwork", "intnet"},
		{"HostOnlyInterface", "hostonly"}, {"GenericInterface", "generic"},
		{"NATNetwork", "natnetwork"}, {"CloudNetwork", "cloud"},
		{"HostOnlyNetwork", "hostonlynet"},
	};
	for (size_t i = 0; i < sizeof map / sizeof *map; i++)
		if (wd_sv_eq(name, map[i][0]))
			return map[i][1];
	return NULL;
}

static const struct wd_sv *attr(const struct xml_tag *t, const char *name)
{
	for (size_t i = 0; i < t->nattr; i++)
		if (wd_sv_eq(t->attr[i][0], name))
			return &t->attr[i][1];
	return NULL;
}

static int new_adapter(const struct xml *x, const struct xml_tag *t, struct adapter *a,
		       size_t n)
{
	const struct wd_sv *slot = attr(t, "slot"), *en = attr(t, "enabled"), *ty = attr(t, "type");
	unsigned long long v;
	if (!slot || wd_sv_u64(*slot, MAX_ADAPTERS - 1, &v))
		return bad(x, t->at, "an <Adapter> without a slot number from 0 to 63");
	for (size_t i = 0; i < n; i++)
		if (a[i].slot == (int)v)
			return bad(x, t->at, "a second <Adapter> of the same slot");
	if (en && !wd_sv_eq(*en, "true") && !wd_sv_eq(*en, "false"))
		return bad(x, t->at, "an <Adapter> enabled neither \"true\" nor \"false\"");
	if (ty && (!ty->n || ty->n > 32))
		return bad(x, t->at, "an <Adapter> type of no or over 32 characters");
	memset(&a[n], 0, sizeof a[n]);
	a[n].slot = (int)v;
	a[n].enabled = en && wd_sv_eq(*en, "true"); /* VirtualBox's default: off */
	a[n].type = ty ? wd_sv_dup(*ty) : wd_xstrdup(DEFAULT_TYPE);
	a[n].line = line_of(x, t->at);
	return 0;
}

static int cmp_slot(const void *a, const void *b)
{
	return ((const struct adapter *)a)->slot - ((const struct adapter *)b)->slot;
}

/* The open elements, outermost first. */
struct stack {
	struct wd_sv name[XML_DEPTH];
	int depth;
	int adapter_depth; /* depth of the open <Adapter> of <Network>, or 0 */
};

/* Inside <VirtualBox><Machine><Hardware><Network>: the machine's own
 * adapters, not those a <Snapshot> remembers (which have a <Hardware> of
 * their own, deeper down). */
static bool in_machine_network(const struct stack *st)
{
	static const char *const path[] = {"VirtualBox", "Machine", "Hardware", "Network"};
	if (st->depth != 4)
		return false;
	for (int i = 0; i < 4; i++)
		if (!wd_sv_eq(st->name[i], path[i]))
			return false;
	return true;
}

/* One start tag: the root must be <VirtualBox>; an <Adapter> of <Network>
 * starts an adapter; a child of that adapter may name its attachment. */
static int on_start(const struct xml *x, const struct xml_tag *t, struct stack *st,
		    struct adapter *a, size_t *n)
{
	int r = 0;
	if (!st->depth && !wd_sv_eq(t->name, "VirtualBox"))
		return bad(x, t->at, "the first element is not <VirtualBox>");
	if (wd_sv_eq(t->name, "Adapter") && in_machine_network(st)) {
		if (*n == MAX_ADAPTERS)
			return bad(x, t->at, "more than 64 adapters");
		if ((r = new_adapter(x, t, a, *n)))
			return r;
		(*n)++;
		if (!t->empty)
			st->adapter_depth = st->depth + 1;
	} else if (st->adapter_depth && st->depth == st->adapter_depth) {
		const char *at = attachment_of(t->name);
		if (at && !a[*n - 1].attach)
			a[*n - 1].attach = at;
	}
	if (t->empty)
		return 0;
	if (st->depth == XML_DEPTH)
		return bad(x, t->at, "elements nested over 64 deep");
	st->name[st->depth++] = t->name;
	return 0;
}

static bool sv_same(struct wd_sv a, struct wd_sv b)
{
	return a.n == b.n && !memcmp(a.p, b.p, a.n);
}

static int on_end(const struct xml *x, const struct xml_tag *t, struct stack *st)
{
	if (!st->depth || !sv_same(st->name[st->depth - 1], t->name))
		return bad(x, t->at, st->depth ? "an end tag that closes another element"
					       : "an end tag with no element open");
	if (st->depth == st->adapter_depth)
		st->adapter_depth = 0;
	st->depth--;
	return 0;
}

static int scan(struct xml *x, struct adapter *a, size_t *n)
{
	struct stack st = {.depth = 0};
	bool done, rooted = false;
	int r = 0;
	struct xml_tag t;
	while (!r && !(r = next_tag(x, &t, &done)) && !done) {
		if (!st.depth && rooted && !t.close)
			return bad(x, t.at, "a second top element");
		rooted = true;
		r = t.close ? on_end(x, &t, &st) : on_start(x, &t, &st, a, n);
	}
	if (!r && !rooted)
		r = wd_err_set(x->err, WD_EFAIL, "%s: no element at all: not a VirtualBox machine "
			       "file", x->name);
	if (!r && st.depth)
		r = bad(x, x->end, "the file ends inside an element (cut short?)");
	return r;
}

int pci_parse_vbox_xml(const char *text, size_t len, const char *name, struct pci_list *out,
		       struct wd_err *err)
{
	memset(out, 0, sizeof *out);
	struct xml x = {text, text, text + len, name, err};
	struct adapter *a = wd_xcalloc(MAX_ADAPTERS, sizeof *a);
	size_t n = 0;
	int r = scan(&x, a, &n);
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
	return r;
}
