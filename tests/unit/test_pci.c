/* pci/: the parsers and the VirtualBox model table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/file.h"
#include "pci/pci.h"

static struct pci_list parse_lspci(const char *text)
{
	struct pci_list l;
	struct wd_err e;
	assert_int_equal(pci_parse_lspci(text, strlen(text), "t", &l, &e), 0);
	return l;
}

static void test_pcnet_models_differ_by_revision(void **state)
{
	(void)state;
	struct pci_dev d = {.vendor = 0x1022, .device = 0x2000, .class_code = 0x020000,
			    .revision = 0x40};
	assert_string_equal(vbox_model_of(&d)->nictype, "Am79C973");
	d.revision = 0x10;
	assert_string_equal(vbox_model_of(&d)->nictype, "Am79C970A");
	d.revision = 0x16;
	assert_string_equal(vbox_model_of(&d)->nictype, "Am79C970A");
	/* Not a network controller: no model, whatever the IDs. */
	d.class_code = 0x060000;
	assert_null(vbox_model_of(&d));
}

static void test_nictype_lookup_ignores_case(void **state)
{
	(void)state;
	assert_string_equal(vbox_model_by_nictype("82545em")->nictype, "82545EM");
	assert_int_equal(vbox_model_by_nictype("NE2000")->vendor, PCI_NONE);
	assert_null(vbox_model_by_nictype("82599"));
}

static void test_lspci_domain_slots_and_subsystem(void **state)
{
	(void)state;
	struct pci_list l = parse_lspci(
		"0000:00:03.0 Ethernet controller [0200]: Intel Corporation 82545EM [8086:100f] (rev 01)\r\n"
		"\tSubsystem: VMware PRO/1000 MT Single Port Adapter [15ad:0750]\r\n"
		"\tFlags: bus master, 66MHz, medium devsel, latency 64, IRQ 19\r\n"
		"\n"
		"00:0A.0 0200: 1af4:1000\n");
	assert_int_equal(l.n, 2);
	assert_string_equal(l.devs[0].slot, "0000:00:03.0");
	assert_int_equal(l.devs[0].subvendor, 0x15ad);
	assert_int_equal(l.devs[0].subdevice, 0x0750);
	assert_string_equal(l.devs[0].vbox_model, "82545EM");
	assert_string_equal(l.devs[1].slot, "0000:00:0a.0");
	assert_int_equal(l.devs[1].revision, PCI_NONE);
	assert_string_equal(l.devs[1].vbox_model, "virtio");
	assert_false(l.virtualbox);
	pci_list_free(&l);
}

static void test_lspci_rejects_half_lines(void **state)
{
	(void)state;
	static const char *bad[] = {
		"00:03.0 0200 8086:100e\n",
		"00:03.0 0200: 8086:100\n",
		"00:03.0 Ethernet controller: Intel Corporation\n",
		"0:03.0 0200: 8086:100e\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		struct pci_list l;
		struct wd_err e;
		assert_int_equal(pci_parse_lspci(bad[i], strlen(bad[i]), "f", &l, &e), -WD_EFAIL);
		assert_non_null(strstr(e.msg, "f line 1"));
		pci_list_free(&l);
	}
}

static void test_vbox_last_value_wins_and_order(void **state)
{
	(void)state;
	const char *t = "nic2=\"bridged\"\nnictype2=\"82543GC\"\nnic1=\"null\"\nnictype1=\"Am79C973\"\n"
			"\"nic 9\"=\"x\"\nnicspeed1=\"0\"\n";
	struct pci_list l;
	struct wd_err e;
	assert_int_equal(pci_parse_vbox(t, strlen(t), "v", &l, &e), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.devs[0].slot, "nic1");
	assert_string_equal(l.devs[0].vbox_model, "Am79C973");
	assert_int_equal(l.devs[0].revision, 0x40);
	assert_string_equal(l.devs[1].vbox_model, "82543GC");
	assert_string_equal(l.devs[1].attachment, "bridged");
	assert_true(l.virtualbox);
	pci_list_free(&l);
}

/* A pci.ids saved with CRLF line endings names devices as the LF one does:
 * no CR inside the vendor part of a name. */
static void test_pci_ids_crlf(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	char *tmpl = wd_xasprintf("%s/wdtest.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(tmpl));
	char *path = wd_path_join(tmpl, "pci.ids");
	const char *ids = "# CRLF\r\n8086  Intel Corporation \r\n\t100e  82540EM Gigabit Ethernet "
			  "Controller\r\n1022  AMD\r\n\t2000  79c970 [PCnet32 LANCE] \r\n";
	struct wd_err e;
	assert_int_equal(wd_write_atomic(path, ids, strlen(ids), 0644, &e), 0);
	struct pci_list l = parse_lspci("00:03.0 0200: 8086:100e (rev 02)\n00:04.0 0200: 1022:2000\n");
	assert_int_equal(pci_name_devices(&l, path, &e), 0);
	assert_string_equal(l.devs[0].name, "Intel Corporation 82540EM Gigabit Ethernet Controller");
	assert_string_equal(l.devs[1].name, "AMD 79c970 [PCnet32 LANCE]");
	pci_list_free(&l);
	unlink(path);
	rmdir(tmpl);
	free(path);
	free(tmpl);
}

/* A database in order, of 400 vendors with sections from none to 3,000
 * devices (with subsystems: sections of 200 KB, longer than a probe reads),
 * written out; what each device is called is known from how it was made.
 * Batches of devices in any order, some of them in no section, are named
 * as that says: the search by bisection, vendor after vendor from where the
 * one before ended, agrees with the database read line by line. */
static unsigned lcg(unsigned *x)
{
	*x = *x * 1103515245u + 12345u;
	return (*x >> 16) & 0x7fff;
}

static bool builtin_vendor(int v)
{
	return v == 0x80ee || v == 0x8086 || v == 0x106b || v == 0x1022 || v == 0x1af4;
}

static void test_pci_ids_in_order_named_as_read_line_by_line(void **state)
{
	(void)state;
	enum { NV = 400 };
	static int vid[NV], ndev[NV];
	static int *dev[NV]; /* every device of each section, in order */
	unsigned seed = 7;
	struct wd_buf db = {0};
	wd_buf_adds(&db, "# made by the test\n\n");
	int v = 0x0010;
	for (int i = 0; i < NV; i++) {
		do
			v += 1 + (int)(lcg(&seed) % 97);
		while (builtin_vendor(v));
		vid[i] = v;
		int big = i % 50 == 7; /* a few long sections */
		int n = big ? 3000 : (int)(lcg(&seed) % 12);
		wd_buf_addf(&db, "%04x  Vendor %04x Inc.\n", v, v);
		int d = 0;
		dev[i] = wd_xcalloc((size_t)n + 1, sizeof *dev[i]);
		for (int k = 0; k < n; k++) {
			d += 1 + (int)(lcg(&seed) % (big ? 20 : 900));
			if (d > 0xffff)
				break;
			dev[i][ndev[i]++] = d;
			/* some lines end in CR LF; subsystem names of every length put
			 * the line breaks at every place of a 64-byte block */
			wd_buf_addf(&db, "\t%04x  Device %04x of %04x%s\n", d, d, v,
				    k % 7 == 2 ? "\r" : "");
			for (int m = (int)(lcg(&seed) % 4); m > 0; m--)
				wd_buf_addf(&db, "\t\t%04x %04x  Board %d%.*s\n", v, m, m,
					    (int)(lcg(&seed) % 130),
					    "................................................................"
					    "................................................................"
					    "..");
			if (k % 500 == 3)
				wd_buf_adds(&db, "# a comment in the section\n");
		}
	}
	wd_buf_adds(&db, "\n# classes\nC 02  Network controller\n\t00  Ethernet controller\n");
	const char *tmp = getenv("TMPDIR");
	char *tmpl = wd_xasprintf("%s/wdtest.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	assert_non_null(mkdtemp(tmpl));
	char *path = wd_path_join(tmpl, "pci.ids");
	struct wd_err e;
	assert_int_equal(wd_write_atomic(path, db.p, db.len, 0644, &e), 0);
	for (int batch = 0; batch < 300; batch++) {
		struct pci_list l = {0};
		size_t n = 1 + lcg(&seed) % 12;
		l.devs = wd_xcalloc(n, sizeof *l.devs);
		int want_v[12], want_d[12];
		bool known[12];
		for (size_t k = 0; k < n; k++) {
			int i = (int)(lcg(&seed) % NV);
			known[k] = ndev[i] > 0 && lcg(&seed) % 4 != 0;
			want_v[k] = vid[i];
			/* one not in the section: often a device of another vendor's */
			int o = (int)(lcg(&seed) % NV);
			want_d[k] = known[k]      ? dev[i][lcg(&seed) % (unsigned)ndev[i]]
				    : ndev[o] > 0 ? dev[o][lcg(&seed) % (unsigned)ndev[o]]
						  : 0xffff - (int)k;
			if (!known[k] && lcg(&seed) % 3 == 0)
				want_v[k] = vid[i] + 1; /* no such vendor, most often */
			for (int j = 0; !known[k] && j < NV; j++)
				for (int m = 0; m < ndev[j]; m++)
					known[k] |= vid[j] == want_v[k] && dev[j][m] == want_d[k];
			l.devs[k] = (struct pci_dev){.vendor = want_v[k], .device = want_d[k],
						     .subvendor = PCI_NONE, .subdevice = PCI_NONE,
						     .class_code = PCI_NONE, .revision = PCI_NONE};
			l.devs[k].slot = wd_xasprintf("0000:00:%02zx.0", k);
			l.n++;
		}
		assert_int_equal(pci_name_devices(&l, path, &e), 0);
		for (size_t k = 0; k < n; k++) {
			if (!known[k]) {
				/* not in the database: no name, unless it is one built in */
				if (l.devs[k].name && builtin_vendor(want_v[k]))
					continue;
				assert_null(l.devs[k].name);
				continue;
			}
			char *expect = wd_xasprintf("Vendor %04x Inc. Device %04x of %04x", want_v[k],
						    want_d[k], want_v[k]);
			assert_non_null(l.devs[k].name);
			assert_string_equal(l.devs[k].name, expect);
			free(expect);
		}
		pci_list_free(&l);
	}
	for (int i = 0; i < NV; i++)
		free(dev[i]);
	unlink(path);
	rmdir(tmpl);
	free(path);
	free(tmpl);
	wd_buf_free(&db);
}

/* A machine-readable listing with no adapter lines at all (or an empty file)
 * is a VirtualBox guest without NICs, not an error. */
static void test_vbox_without_adapters(void **state)
{
	(void)state;
	static const char *texts[] = {"name=\"warp4\"\nmemory=256\n",
				      "<VirtualBox><Machine><Hardware/></Machine></VirtualBox>"};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		struct pci_list l;
		struct wd_err e;
		assert_int_equal(pci_parse_vbox(texts[i], strlen(texts[i]), "v", &l, &e), 0);
		assert_int_equal(l.n, 0);
		assert_true(l.virtualbox);
		pci_list_free(&l);
	}
}

/* Text that is neither format: an error naming the input, no list. */
static void test_vbox_neither_format(void **state)
{
	(void)state;
	static const char *texts[] = {"", "\n\n", "Name: warp4\nNIC 1: disabled\n",
				      "memory=256\n", "\xEF\xBB\xBF"};
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		struct pci_list l;
		struct wd_err e;
		assert_int_equal(pci_parse_vbox(texts[i], strlen(texts[i]), "vm.txt", &l, &e),
				 -WD_EFAIL);
		assert_non_null(strstr(e.msg, "vm.txt: neither a VirtualBox machine file"));
		assert_int_equal(l.n, 0);
		pci_list_free(&l);
	}
}

/* The XML machine file: slot order, defaults, attachments, and what is not
 * the machine's own (a snapshot, the disabled modes). */
static void test_vbox_xml_adapters(void **state)
{
	(void)state;
	static const char text[] =
		"\xEF\xBB\xBF<?xml version=\"1.0\"?>\r\n<!-- <Adapter slot=\"9\"> -->\r\n"
		"<VirtualBox xmlns=\"http://www.virtualbox.org/\"><Machine name=\"a&amp;b\">"
		"<Snapshot><Hardware><Network><Adapter slot=\"5\" enabled=\"true\"/></Network>"
		"</Hardware></Snapshot><Hardware><Network>"
		"<Adapter slot=\"2\" enabled=\"true\" type=\"82545EM\"><DisabledModes><NAT/>"
		"</DisabledModes><HostOnlyInterface name=\"vboxnet0\"/></Adapter>"
		"<Adapter slot=\"0\" enabled=\"true\"><![CDATA[<NAT/>]]></Adapter>"
		"<Adapter slot=\"1\" type=\"82540EM\"><NAT/></Adapter>"
		"</Network></Hardware></Machine></VirtualBox>\r\n";
	struct pci_list l;
	struct wd_err e;
	assert_int_equal(pci_parse_vbox(text, strlen(text), "m.vbox", &l, &e), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.devs[0].slot, "nic1");
	assert_string_equal(l.devs[0].vbox_model, "Am79C973"); /* the default type */
	assert_string_equal(l.devs[0].attachment, "null");     /* CDATA is no element */
	assert_int_equal(l.devs[0].revision, 0x40);
	assert_string_equal(l.devs[1].slot, "nic3");
	assert_int_equal(l.devs[1].adapter, 3);
	assert_string_equal(l.devs[1].attachment, "hostonly");
	assert_int_equal(l.devs[1].device, 0x100f);
	assert_true(l.virtualbox);
	assert_string_equal(l.source, "vbox:m.vbox");
	pci_list_free(&l);
}

/* Damaged XML names the file and the line of the fault. */
static void test_vbox_xml_damage_names_the_line(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{"<VirtualBox>\n<Machine>\n</VirtualBox>",
		 "m.vbox line 3: Opening and ending tag mismatch: Machine line 2 and VirtualBox"},
		{"<VirtualBox>\n<Machine", "m.vbox line 2: Couldn't find end of Start Tag Machine"},
		{"<VirtualBox>\n\n<", "m.vbox line 3: StartTag: invalid element name"},
		{"<VirtualBox a=1/>", "m.vbox line 1: AttValue: \" or ' expected"},
		{"<VirtualBox a/>", "m.vbox line 1: Specification mandates value for attribute a"},
		{"<VirtualBox a=\"1\"b=\"2\"/>", "m.vbox line 1: attributes construct error"},
		{"<VirtualBox></VirtualBox x>", "m.vbox line 1: expected '>'"},
		{"</VirtualBox>", "m.vbox line 1: StartTag: invalid element name"},
		{"<?xml version=\"1.0\"?>", "m.vbox line 1: Start tag expected"},
		{"<Machine/>", "m.vbox line 1: the first element is not <VirtualBox>"},
		{"<VirtualBox><Machine><Hardware><Network>\n<Adapter slot=\"64\"/>"
		 "</Network></Hardware></Machine></VirtualBox>",
		 "m.vbox line 2: an <Adapter> without a slot number from 0 to 63"},
		{"<VirtualBox><Machine><Hardware><Network><Adapter slot=\"1\"/>\n"
		 "<Adapter slot=\"1\"/></Network></Hardware></Machine></VirtualBox>",
		 "m.vbox line 2: a second <Adapter> of the same slot"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct pci_list l;
		struct wd_err e;
		assert_int_equal(pci_parse_vbox(cases[i][0], strlen(cases[i][0]), "m.vbox", &l, &e),
				 -WD_EFAIL);
		if (!strstr(e.msg, cases[i][1]))
			fail_msg("'%s': got '%s'", cases[i][0], e.msg);
		pci_list_free(&l);
	}
	/* nested past libxml2's limit (256 deep) */
	struct wd_buf b = {0};
	wd_buf_adds(&b, "<VirtualBox>");
	for (int i = 0; i < 300; i++)
		wd_buf_adds(&b, "<a>");
	for (int i = 0; i < 300; i++)
		wd_buf_adds(&b, "</a>");
	wd_buf_adds(&b, "</VirtualBox>");
	struct pci_list l;
	struct wd_err e;
	assert_int_equal(pci_parse_vbox(b.p, b.len, "m.vbox", &l, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "m.vbox line 1: Excessive depth in document: 256"));
	pci_list_free(&l);
	wd_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pcnet_models_differ_by_revision),
		cmocka_unit_test(test_nictype_lookup_ignores_case),
		cmocka_unit_test(test_lspci_domain_slots_and_subsystem),
		cmocka_unit_test(test_lspci_rejects_half_lines),
		cmocka_unit_test(test_vbox_last_value_wins_and_order),
		cmocka_unit_test(test_pci_ids_crlf),
		cmocka_unit_test(test_pci_ids_in_order_named_as_read_line_by_line),
		cmocka_unit_test(test_vbox_without_adapters),
		cmocka_unit_test(test_vbox_neither_format),
		cmocka_unit_test(test_vbox_xml_adapters),
		cmocka_unit_test(test_vbox_xml_damage_names_the_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
