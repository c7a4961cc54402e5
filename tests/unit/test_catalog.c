/* catalog/: manifests, the tar and gzip layers, signed packages and indexes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/gz.h"
#include "catalog/repo.h"
#include "catalog/index.h"
#include "catalog/manifest.h"
#include "catalog/package.h"
#include "trust/signed.h"
#include "catalog/tar.h"
#include "catalog/versions.h"
#include "common/date.h"
#include "common/file.h"

static const char nic[] =
	"# a comment\n"
	"format 1\n"
	"name mmlem\n"
	"version 2.06\n"
	"released 2023-05-01\n"
	"summary MultiMac Legacy EM\n"
	"kind nic\n"
	"entitlement drivers\n"
	"pci 8086:100e rank 1\n"
	"pci 8086:100f subsys 15ad:0750 rev 02 rank 3\n"
	"driver MMLEM.OS2\n"
	"nif MMLEM.NIF\n"
	"drivername MMLEM$\n"
	"file MMLEM.OS2 \\IBMCOM\\MACS\\MMLEM.OS2\n"
	"file MMLEM.NIF \\IBMCOM\\MACS\\MMLEM.NIF\n";

static void test_manifest_gives_the_planner_its_data(void **state)
{
	(void)state;
	struct pkg_manifest m;
	struct wd_err e;
	assert_int_equal(manifest_parse(nic, strlen(nic), true, "t", &m, &e), 0);
	assert_string_equal(m.name, "mmlem");
	assert_int_equal(m.kind, PKG_KIND_NIC);
	assert_string_equal(m.entitlement, "drivers");
	assert_string_equal(m.driver_name, "MMLEM$");
	assert_int_equal(m.npci, 2);
	assert_int_equal(m.pci[1].subsys_vendor, 0x15ad);
	assert_int_equal(m.pci[1].revision, 2);
	assert_non_null(manifest_find_dest(&m, "\\ibmcom\\macs\\mmlem.nif"));
	manifest_free(&m);
	/* a packed manifest needs sizes and hashes */
	assert_int_equal(manifest_parse(nic, strlen(nic), false, "t", &m, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "t line 14: file: the size and SHA-256 are missing"));
}

static void expect_bad(const char *replace, const char *with, const char *msg)
{
	char *text = wd_xstrdup(nic);
	char *at = strstr(text, replace);
	assert_non_null(at);
	char *bad = wd_xasprintf("%.*s%s%s", (int)(at - text), text, with, at + strlen(replace));
	struct pkg_manifest m;
	struct wd_err e;
	assert_int_equal(manifest_parse(bad, strlen(bad), true, "M", &m, &e), -WD_ETRUST);
	if (!strstr(e.msg, msg))
		fail_msg("'%s' lacks '%s'", e.msg, msg);
	free(bad);
	free(text);
}

static void test_manifest_refuses_malformed_fields(void **state)
{
	(void)state;
	expect_bad("format 1", "format 2", "line 2: format 2 is not one");
	expect_bad("name mmlem", "name MMLEM", "name: lowercase");
	expect_bad("released 2023-05-01", "released 2023-13-01", "released: expected a date");
	expect_bad("kind nic", "kind usb", "kind: expected");
	expect_bad("pci 8086:100e rank 1", "pci 8086:100e", "a rank is required");
	expect_bad("pci 8086:100e rank 1", "pci 8086-100e rank 1", "VENDOR:DEVICE");
	expect_bad("rev 02", "rev 2", "rev must be two hex digits");
	expect_bad("drivername MMLEM$\n", "", "a nic package needs driver");
	expect_bad("\\IBMCOM\\MACS\\MMLEM.OS2", "C:\\IBMCOM\\MACS\\MMLEM.OS2", "unsafe destination");
	expect_bad("\\IBMCOM\\MACS\\MMLEM.NIF", "\\IBMCOM\\MACS\\MMLEM.OS2", "listed twice");
	/* a destination is the same file in any case (OS/2 has one) */
	expect_bad("\\IBMCOM\\MACS\\MMLEM.NIF", "\\ibmcom\\macs\\mmlem.os2",
		   "line 15: file: destination '\\ibmcom\\macs\\mmlem.os2' listed twice");
	/* a source is one name of the recipe's folder, in its own case */
	expect_bad("file MMLEM.NIF", "file MMLEM.OS2", "line 15: file: 'MMLEM.OS2' listed twice");
	expect_bad("file MMLEM.NIF \\IBMCOM\\MACS\\MMLEM.NIF\n",
		   "file mmlem.os2 \\IBMCOM\\MACS\\A.NIF\nfile mmlem.os2 \\IBMCOM\\MACS\\B.NIF\n",
		   "line 16: file: 'mmlem.os2' listed twice");
	/* of two files listed before, the first is named (its destination here) */
	expect_bad("file MMLEM.NIF \\IBMCOM\\MACS\\MMLEM.NIF\n",
		   "file B.SYS \\OS2\\TWO.SYS\nfile B.SYS \\IBMCOM\\MACS\\MMLEM.OS2\n",
		   "line 16: file: destination '\\IBMCOM\\MACS\\MMLEM.OS2' listed twice");
	expect_bad("name mmlem\n", "name mmlem\nname again\n", "'name' given twice");
	expect_bad("kind nic", "kind nic\x01", "control character");
	expect_bad("file MMLEM.NIF \\IBMCOM\\MACS\\MMLEM.NIF\n", "", "'MMLEM.NIF' is named but no file");
}

/* Sources differing only in case are two files of the recipe's folder. */
static void test_manifest_sources_differ_in_case(void **state)
{
	(void)state;
	const char *text = "format 1\nname p\nversion 1\nreleased 2024-01-01\nsummary s\n"
			   "kind psd\nfile a.sys \\OS2\\A.SYS\nfile A.SYS \\OS2\\B.SYS\n"
			   "file A.sys \\OS2\\C.SYS\n";
	struct pkg_manifest m;
	struct wd_err e;
	assert_int_equal(manifest_parse(text, strlen(text), true, "t", &m, &e), 0);
	assert_int_equal(m.nfiles, 3);
	assert_string_equal(m.files[2].src, "A.sys");
	manifest_free(&m);
}

static void test_safe_names(void **state)
{
	(void)state;
	assert_true(pkg_safe_member("MMLEM.OS2"));
	assert_true(pkg_safe_member("sub/FILE"));
	const char *bad[] = {"", "/etc/passwd", "../x", "a/../b", "a/./b", "C:X", "a\\b", "a//b",
			     "a/", NULL};
	for (int i = 0; bad[i]; i++)
		if (pkg_safe_member(bad[i]))
			fail_msg("'%s' passed", bad[i]);
	assert_true(pkg_safe_dest("\\OS2\\BOOT\\ACPI.PSD"));
	const char *bad_dest[] = {"OS2\\X", "\\OS2\\..\\X", "\\.\\X", "\\OS2\\", "C:\\X",
				  "\\OS2/X", "\\OS2\\\\X", "\\A\\...\\B", NULL};
	for (int i = 0; bad_dest[i]; i++)
		if (pkg_safe_dest(bad_dest[i]))
			fail_msg("'%s' passed", bad_dest[i]);
}

static void test_tar_and_gzip_round_trip(void **state)
{
	(void)state;
	struct wd_buf tar = {0}, gz = {0}, data = {0};
	tar_add(&tar, "A", "hello", 5);
	tar_add(&tar, "dir/B", "", 0);
	tar_end(&tar);
	assert_int_equal(tar.len % 512, 0);
	struct wd_err e;
	assert_int_equal(gz_compress(tar.p, tar.len, &gz, &e), 0);
	struct gz_reader g;
	assert_int_equal(gz_reader_init(&g, gz.p, gz.len, tar.len, "t", &e), 0);
	unsigned char *back = malloc(tar.len);
	assert_int_equal(gz_read(&g, back, tar.len, &e), 0);
	assert_memory_equal(back, tar.p, tar.len);
	assert_int_equal(gz_finish(&g, &e), 0);
	gz_reader_free(&g);
	/* one byte under the real size is a bomb */
	assert_int_equal(gz_reader_init(&g, gz.p, gz.len, tar.len - 1, "t", &e), 0);
	assert_int_equal(gz_read(&g, back, tar.len, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "more data"));
	gz_reader_free(&g);
	free(back);

	struct wd_sv src = {tar.p, tar.len};
	struct tar_reader r = {tar_mem_read, &src, "t"};
	struct tar_entry ent;
	assert_int_equal(tar_next(&r, &ent, &e), 1);
	assert_string_equal(ent.name, "A");
	assert_int_equal(tar_data(&r, &ent, &data, &e), 0);
	assert_memory_equal(data.p, "hello", 5);
	assert_int_equal(tar_next(&r, &ent, &e), 1);
	assert_string_equal(ent.name, "dir/B");
	assert_int_equal(tar_data(&r, &ent, &data, &e), 0);
	assert_int_equal(tar_next(&r, &ent, &e), 0);
	/* a flipped header byte breaks the checksum */
	tar.p[10] ^= 1;
	src = (struct wd_sv){tar.p, tar.len};
	assert_int_equal(tar_next(&r, &ent, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "bad checksum"));
	wd_buf_free(&tar);
	wd_buf_free(&gz);
	wd_buf_free(&data);
}

struct fixture {
	char dir[64];
	struct keyring kr;
	struct wd_key *key;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);
	strcpy(f->dir, "/tmp/wd-cat-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	char *prefix = wd_path_join(f->dir, "k"), *key = wd_path_join(f->dir, "k.key"),
	     *pub = wd_path_join(f->dir, "k.pub"), fpr[WD_FPR_HEX];
	struct wd_err e;
	if (key_generate(prefix, fpr, &e) || key_load_private(key, &f->key, &e) ||
	    keyring_add_key(&f->kr, pub, KEY_ROLE_REPO, &e))
		return -1;
	free(prefix);
	free(key);
	free(pub);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char *cmd = wd_xasprintf("rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(cmd);
	key_free(f->key);
	keyring_free(&f->kr);
	free(f);
	return 0;
}

static void put(const char *dir, const char *name, const char *text)
{
	char *p = wd_path_join(dir, name);
	struct wd_err e;
	assert_int_equal(wd_write_atomic(p, text, strlen(text), 0644, &e), 0);
	free(p);
}

static void test_package_pack_and_read(void **state)
{
	struct fixture *f = *state;
	put(f->dir, "MANIFEST", nic);
	put(f->dir, "MMLEM.OS2", "stand-in driver");
	put(f->dir, "MMLEM.NIF", "[MMLEM]\n");
	struct wd_buf wdp = {0};
	struct pkg_manifest m;
	struct wd_err e;
	assert_int_equal(package_pack(f->dir, NULL, f->key, &wdp, &m, &e), 0);
	assert_true(m.files[0].has_hash);
	assert_int_equal(m.files[0].size, 15);
	char *name = package_file_name(&m);
	assert_string_equal(name, "mmlem-2.06.wdp");
	free(name);
	manifest_free(&m);
	struct package p;
	assert_int_equal(package_read(wdp.p, wdp.len, &f->kr, "p", &p, &e), 0);
	assert_string_equal(p.signer, key_fingerprint(f->key));
	assert_memory_equal(p.data[0].p, "stand-in driver", 15);
	package_free(&p);
	/* an untrusted signer */
	struct keyring empty = {0};
	assert_int_equal(package_read(wdp.p, wdp.len, &empty, "p", &p, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "p: MANIFEST: signed by unknown key"));
	/* every truncation is refused, none crashes */
	for (size_t n = 0; n < wdp.len; n += 7)
		assert_int_equal(package_read(wdp.p, n, &f->kr, "p", &p, &e), -WD_ETRUST);
	wd_buf_free(&wdp);
}

static void test_index_signed_round_trip_and_revocations(void **state)
{
	struct fixture *f = *state;
	struct repo_index idx = {.serial = 7, .issued = 19000, .expires = 19365};
	idx.pkgs = wd_xcalloc(1, sizeof *idx.pkgs);
	idx.pkgs[0] = (struct index_entry){wd_xstrdup("e1000"), wd_xstrdup("4.02"), 11848,
					   PKG_KIND_NIC, NULL, wd_xstrdup("e1000-4.02.wdp"), 1077,
					   "", wd_xstrdup("IBM/Intel PRO/1000 driver"), false, NULL,
					   0, NULL, NULL, NULL, NULL, NULL, false};
	memset(idx.pkgs[0].sha256, 'a', 64);
	idx.npkgs = 1;
	idx.revoked = wd_xcalloc(1, sizeof *idx.revoked);
	idx.revoked[0] = wd_xstrdup("CUST-0042");
	idx.nrevoked = 1;
	struct wd_buf b = {0};
	index_write(&idx, &b);
	struct wd_err e;
	assert_int_equal(signed_append(&b, f->key, &e), 0);
	index_free(&idx);
	assert_int_equal(index_read(b.p, b.len, &f->kr, 19100, "I", &idx, &e), 0);
	assert_int_equal(idx.serial, 7);
	assert_true(index_is_revoked(&idx, "CUST-0042"));
	assert_false(index_is_revoked(&idx, "CUST-0043"));
	assert_null(index_find(&idx, "e1000")->entitlement);
	assert_string_equal(index_find(&idx, "e1000")->summary, "IBM/Intel PRO/1000 driver");
	index_free(&idx);
	/* stale */
	assert_int_equal(index_read(b.p, b.len, &f->kr, 19366, "I", &idx, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "expired on"));
	/* one changed byte */
	b.p[20] ^= 1;
	assert_int_equal(index_read(b.p, b.len, &f->kr, 19100, "I", &idx, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "bad signature"));
	wd_buf_free(&b);
}

/* The lines setup chooses by: written from the entry, read back the same;
 * one that does not follow its package line is refused. */
static void test_index_choose_and_nic_lines(void **state)
{
	(void)state;
	static const char text[] =
		"format 1\nserial 1\nissued 2024-01-01\nexpires 2030-01-01\n"
		"package mmlem 2.06 2023-05-01 nic drivers mmlem-2.06.wdp 10 "
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa MultiMac\n"
		"choose mmlem 8086:100e=1,8086:100f+15ad:0750~02=3\n"
		"nic mmlem MMLEM.OS2 MMLEM.NIF MMLEM$ MMLEM%d$ /A%d\n"
		"package old 1.0 2023-05-01 psd - old-1.0.wdp 10 "
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa An older entry\n";
	struct repo_index idx;
	struct wd_err e;
	assert_int_equal(index_parse(text, sizeof text - 1, "I", &idx, &e), 0);
	const struct index_entry *m = index_find(&idx, "mmlem");
	assert_true(m->choice);
	assert_int_equal(m->npci, 2);
	assert_int_equal(m->pci[0].device, 0x100e);
	assert_int_equal(m->pci[0].rank, 1);
	assert_false(m->pci[0].has_subsys);
	assert_int_equal(m->pci[0].revision, -1);
	assert_true(m->pci[1].has_subsys);
	assert_int_equal(m->pci[1].subsys_vendor, 0x15ad);
	assert_int_equal(m->pci[1].subsys_device, 0x0750);
	assert_int_equal(m->pci[1].revision, 2);
	assert_int_equal(m->pci[1].rank, 3);
	assert_string_equal(m->driver_name, "MMLEM$");
	assert_string_equal(m->instance_switch, "/A%d");
	assert_false(index_find(&idx, "old")->choice);
	struct wd_buf b = {0};
	index_write(&idx, &b);
	wd_buf_cstr(&b);
	assert_non_null(strstr(b.p, "choose mmlem 8086:100e=1,8086:100f+15ad:0750~02=3\n"
				    "nic mmlem MMLEM.OS2 MMLEM.NIF MMLEM$ MMLEM%d$ /A%d\n"));
	assert_null(strstr(b.p, "choose old"));
	wd_buf_free(&b);
	index_free(&idx);
	static const char stray[] = "format 1\nserial 1\nissued 2024-01-01\nexpires 2030-01-01\n"
				    "choose mmlem 8086:100e=1\n";
	assert_int_equal(index_parse(stray, sizeof stray - 1, "I", &idx, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "I line 5: choose: must follow the package line"));
	index_free(&idx);
}

/* A field a newer build adds is passed over; a newer format, or a field
 * that could not be one, is refused with a message that says so. */
static void test_index_fields_of_a_newer_build(void **state)
{
	(void)state;
	static const char newer[] =
		"format 1\nserial 1\nissued 2024-01-01\nexpires 2030-01-01\n"
		"mirror-of https://example.invalid/repo/\n"
		"package old 1.0 2023-05-01 psd - old-1.0.wdp 10 "
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa An entry\n"
		"yanked2 old 1.0\n";
	struct repo_index idx;
	struct wd_err e;
	assert_int_equal(index_parse(newer, sizeof newer - 1, "I", &idx, &e), 0);
	assert_non_null(index_find(&idx, "old"));
	struct wd_buf b = {0};
	index_write(&idx, &b);
	wd_buf_cstr(&b);
	assert_null(strstr(b.p, "mirror-of"));
	wd_buf_free(&b);
	index_free(&idx);
	static const char format2[] = "format 2\nserial 1\n";
	assert_int_equal(index_parse(format2, sizeof format2 - 1, "I", &idx, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "I line 1: format 2: this index is for a newer warpdrv "
				      "(this one reads format 1): upgrade warpdrv"));
	index_free(&idx);
	static const char odd[] = "format 1\nserial 1\nissued 2024-01-01\nexpires 2030-01-01\n"
				  "Frobnicate yes\n";
	assert_int_equal(index_parse(odd, sizeof odd - 1, "I", &idx, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "I line 5: unknown field 'Frobnicate'"));
	index_free(&idx);
	static const char nul[] = "format 1\nserial 1\nissued 2024-01-01\nexpires 2030-01-01\n"
				  "package ol\0d 1.0 2023-05-01 psd - old-1.0.wdp 10 "
				  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa An entry\n";
	assert_int_equal(index_parse(nul, sizeof nul - 1, "I", &idx, &e), -WD_ETRUST);
	index_free(&idx);
}

/* "mirror URL": the repository's own mirrors, written back as read; a URL
 * with a user part, another scheme or a space is refused, as a 17th mirror. */
static void test_index_mirror_lines(void **state)
{
	(void)state;
	static const char text[] =
		"format 1\nserial 1\nissued 2024-01-01\nexpires 2030-01-01\n"
		"mirror https://m1.example/warpdrv/\nmirror HTTP://m2.example:8080\n";
	struct repo_index idx;
	struct wd_err e;
	assert_int_equal(index_parse(text, sizeof text - 1, "I", &idx, &e), 0);
	assert_int_equal(idx.nmirrors, 2);
	assert_string_equal(idx.mirrors[0], "https://m1.example/warpdrv/");
	struct wd_buf b = {0};
	index_write(&idx, &b);
	assert_non_null(strstr(wd_buf_cstr(&b), "mirror https://m1.example/warpdrv/\n"
						"mirror HTTP://m2.example:8080\n"));
	wd_buf_free(&b);
	index_free(&idx);
	static const char *bad_urls[] = {"https://user:pw@evil.example/", "ftp://m.example/",
					 "https://", "https:///path", "https://a b/"};
	for (size_t i = 0; i < sizeof bad_urls / sizeof *bad_urls; i++) {
		char *t = wd_xasprintf("format 1\nserial 1\nissued 2024-01-01\nexpires "
				       "2030-01-01\nmirror %s\n", bad_urls[i]);
		assert_int_equal(index_parse(t, strlen(t), "I", &idx, &e), -WD_ETRUST);
		assert_non_null(strstr(e.msg, "I line 5: mirror: one http:// or https:// URL"));
		index_free(&idx);
		free(t);
	}
	struct wd_buf many = {0};
	wd_buf_adds(&many, "format 1\nserial 1\nissued 2024-01-01\nexpires 2030-01-01\n");
	for (int i = 0; i <= INDEX_MAX_MIRRORS; i++)
		wd_buf_addf(&many, "mirror https://m%d.example/\n", i);
	assert_int_equal(index_parse(many.p, many.len, "I", &idx, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "mirror: at most 16"));
	index_free(&idx);
	wd_buf_free(&many);
	/* where credentials would go: scheme, host and port, no user part */
	char *o = repo_origin("HTTPS://User@Repo.Example:443/a/b");
	assert_string_equal(o, "https://repo.example");
	free(o);
	o = repo_origin("https://good.example@evil.example:8443/x");
	assert_string_equal(o, "https://evil.example:8443");
	free(o);
	assert_null(repo_origin("/no/scheme"));
}

#define SHA64 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define HEAD "format 1\nserial 1\nissued 2026-01-01\nexpires 2027-01-01\n"

static int day(const char *s)
{
	int d = 0;
	assert_true(wd_date_parse(s, &d));
	return d;
}

/* An index of several versions a name, two repositories, and the choice the
 * entitlement rule makes among every version of the catalog. */
static void test_index_older_versions_and_the_pick(void **state)
{
	(void)state;
	const char *a = HEAD
		"package m 2.07 2026-08-01 nic drivers m-2.07.wdp 10 " SHA64 " M\n"
		"choose m 8086:100e=1\n"
		"older m 2.06 2023-05-01 nic drivers m-2.06.wdp 10 " SHA64 " M\n"
		"older-choose m 8086:100e=1\n"
		"older-nic m MMLEM.OS2 MMLEM.NIF MMLEM$ - -\n"
		"older e 4.02 2002-06-10 nic - e-4.02.wdp 10 " SHA64 " E\n"
		"package e 4.04 2006-09-15 nic - e-4.04.wdp 10 " SHA64 " E\n";
	const char *b = HEAD
		"package m 2.06 2023-05-01 nic drivers m-2.06.wdp 10 " SHA64 " M, elsewhere\n"
		"older m 2.5 2022-01-01 nic drivers m-2.5.wdp 10 " SHA64 " M\n";
	struct repo_index ia, ib;
	struct wd_err e;
	assert_int_equal(index_parse(a, strlen(a), "A", &ia, &e), 0);
	assert_int_equal(ia.npkgs, 4);
	assert_string_equal(index_find(&ia, "m")->version, "2.07");
	assert_string_equal(index_find(&ia, "e")->version, "4.04");
	assert_true(ia.pkgs[1].older && ia.pkgs[1].choice && ia.pkgs[1].driver);
	/* written back, the same text */
	struct wd_buf w = {0};
	index_write(&ia, &w);
	assert_non_null(strstr(wd_buf_cstr(&w), "older-nic m MMLEM.OS2 MMLEM.NIF MMLEM$ - -\n"));
	wd_buf_free(&w);
	assert_int_equal(index_parse(b, strlen(b), "B", &ib, &e), 0);
	struct catalog c;
	catalog_init(&c, NULL);
	catalog_add_index(&c, "a", "file:///a", NULL, 0, false, &ia);
	catalog_add_index(&c, "b", "file:///b", NULL, 0, false, &ib);
	size_t n;
	struct catalog_version *v = catalog_versions(&c, "m", &n);
	assert_int_equal(n, 3); /* 2.06 once: the first repository's */
	assert_string_equal(v[0].e->version, "2.07");
	assert_string_equal(v[1].e->version, "2.06");
	assert_string_equal(v[1].from->name, "a");
	assert_string_equal(v[2].e->version, "2.5");
	free(v);
	v = catalog_newest_each(&c, &n); /* in name order, whatever the indexes' */
	assert_int_equal(n, 2);
	assert_string_equal(v[0].e->name, "e");
	assert_string_equal(v[0].e->version, "4.04");
	assert_string_equal(v[1].e->name, "m");
	assert_string_equal(v[1].e->version, "2.07");
	free(v);
	assert_string_equal(catalog_find(&c, "m", NULL)->version, "2.07");
	/* a key of 'drivers' that expired on 2026-06-30 */
	struct subscription sub = {.entitlements = 1, .issued = day("2026-01-01"),
				   .expires = day("2026-06-30"), .id = "0123456789abcdef"};
	struct entitlement_ctx ctx = {.sub = &sub, .today = day("2026-12-01"), .last_seen = -1};
	bool allowed;
	const struct repo *from;
	const struct index_entry *got = catalog_pick(&c, "m", &ctx, &from, &allowed, NULL);
	assert_true(allowed);
	assert_string_equal(got->version, "2.06");
	assert_string_equal(from->name, "a");
	v = catalog_pick_each(&c, &ctx, &n); /* every name at once: the same picks */
	assert_int_equal(n, 2);
	assert_string_equal(v[0].e->version, "2.06");
	assert_ptr_equal(v[0].e, got);
	assert_string_equal(v[1].e->version, "4.04");
	free(v);
	char why[256];
	assert_string_equal(entitlement_why_not(&ctx, "drivers", day("2026-08-01"), why, sizeof why),
			    "released after your subscription expired on 2026-06-30");
	assert_null(entitlement_why_not(&ctx, NULL, day("2026-08-01"), why, sizeof why));
	/* no key: the newest, refused, with the reason */
	got = catalog_pick(&c, "m", NULL, &from, &allowed, &e);
	assert_false(allowed);
	assert_string_equal(got->version, "2.07");
	assert_non_null(strstr(e.msg, "no subscription is activated"));
	/* a free package: its newest */
	assert_string_equal(catalog_pick(&c, "e", NULL, NULL, &allowed, NULL)->version, "4.04");
	assert_true(allowed);
	assert_null(catalog_pick(&c, "nosuch", &ctx, NULL, NULL, NULL));
	catalog_free(&c);
}

/* Each broken rule of the older lines is refused, naming the line. */
static void test_index_older_lines_refused(void **state)
{
	(void)state;
	static const struct {
		const char *body, *msg;
	} bad[] = {
		{"package m 2.07 2026-08-01 nic - m.wdp 1 " SHA64 " M\n"
		 "older m 2.7 2026-08-01 nic - n.wdp 1 " SHA64 " M\n", "B line 6: older: 'm' 2.7 listed twice"},
		{"package m 2.07 2026-08-01 nic - m.wdp 1 " SHA64 " M\n"
		 "package m 2.06 2026-08-01 nic - n.wdp 1 " SHA64 " M\n", "B line 6: package: 'm' listed twice"},
		{"older m 2.06 2026-08-01 nic - m.wdp 1 " SHA64 " M\n", "older: 'm' has older lines but no package line"},
		{"package m 2.06 2026-08-01 nic - m.wdp 1 " SHA64 " M\n"
		 "older m 2.10 2026-08-01 nic - n.wdp 1 " SHA64 " M\n", "has an older line newer than its package line"},
		{"package m 2.06 2026-08-01 nic - m.wdp 1 " SHA64 " M\n"
		 "older-choose m 8086:100e=1\n", "older-choose: must follow the older line"},
		{"package m 2.06 2026-08-01 nic - m.wdp 1 " SHA64 " M\n"
		 "older m 2.05 2026-08-01 nic - n.wdp 1 " SHA64 " M\n"
		 "choose m 8086:100e=1\n", "choose: must follow the package line"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char *text = wd_xasprintf("%s%s", HEAD, bad[i].body);
		struct repo_index idx;
		struct wd_err e = {0};
		assert_int_equal(index_parse(text, strlen(text), "B", &idx, &e), -WD_ETRUST);
		if (!strstr(e.msg, bad[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, e.msg, bad[i].msg);
		free(text);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manifest_gives_the_planner_its_data),
		cmocka_unit_test(test_manifest_refuses_malformed_fields),
		cmocka_unit_test(test_manifest_sources_differ_in_case),
		cmocka_unit_test(test_safe_names),
		cmocka_unit_test(test_index_choose_and_nic_lines),
		cmocka_unit_test(test_index_fields_of_a_newer_build),
		cmocka_unit_test(test_index_mirror_lines),
		cmocka_unit_test(test_index_older_versions_and_the_pick),
		cmocka_unit_test(test_index_older_lines_refused),
		cmocka_unit_test(test_tar_and_gzip_round_trip),
		cmocka_unit_test_setup_teardown(test_package_pack_and_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index_signed_round_trip_and_revocations, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
