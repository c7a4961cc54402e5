/* common/, os2/volume and trust/keys: the helpers everything stands on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/date.h"
#include "common/file.h"
#include "common/hash.h"
#include "fs/fs.h"
#include "os2/volume.h"
#include "state/db.h"
#include "trust/keys.h"

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/wd-unit-XXXXXX";
	char *d = mkdtemp(tmpl);
	assert_non_null(d);
	return wd_xstrdup(d);
}

static void rmrf(const char *d)
{
	char *cmd = wd_xasprintf("rm -rf '%s'", d);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static void touch(const char *dir, const char *rel)
{
	char *p = wd_path_join(dir, rel);
	struct wd_err e;
	char *d = wd_dirname(p);
	assert_int_equal(wd_mkdirs(d, &e), 0);
	assert_int_equal(wd_write_atomic(p, "x", 1, 0644, &e), 0);
	free(d);
	free(p);
}

static void test_buf_grows_and_formats(void **state)
{
	(void)state;
	struct wd_buf b = {0};
	for (int i = 0; i < 1000; i++)
		wd_buf_addf(&b, "%d,", i);
	assert_true(b.len > 3000);
	assert_memory_equal(b.p, "0,1,2,", 6);
	assert_int_equal(b.p[b.len], '\0');
	wd_buf_reset(&b);
	assert_int_equal(b.len, 0);
	wd_buf_free(&b);
}

static void test_sv_trim_and_compare(void **state)
{
	(void)state;
	struct wd_sv v = wd_sv_trim(wd_sv_cstr(" \tDEVICE \t"));
	assert_true(wd_sv_eq(v, "DEVICE"));
	assert_true(wd_sv_ieq(v, "device"));
	assert_false(wd_sv_ieq(v, "devic"));
	assert_true(wd_sv_istarts(v, "dev"));
}

static void test_path_join_and_dirname(void **state)
{
	(void)state;
	const char *cases[][3] = {
		{"/vol", "IBMCOM", "/vol/IBMCOM"},
		{"/vol/", "IBMCOM", "/vol/IBMCOM"},
		{"", "x", "/x"},
		{"a", "", "a/"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *p = wd_path_join(cases[i][0], cases[i][1]);
		assert_string_equal(p, cases[i][2]);
		free(p);
	}
	char *d = wd_dirname("/vol/IBMCOM/MACS");
	assert_string_equal(d, "/vol/IBMCOM");
	free(d);
}

static void test_dates(void **state)
{
	(void)state;
	int d;
	assert_true(wd_date_parse("1970-01-01", &d));
	assert_int_equal(d, 0);
	assert_true(wd_date_parse("2024-02-29", &d));
	char s[WD_DATE_LEN];
	wd_date_format(d, s);
	assert_string_equal(s, "2024-02-29");
	assert_false(wd_date_parse("2023-02-29", &d));
	assert_false(wd_date_parse("2023-13-01", &d));
	assert_false(wd_date_parse("2023-1-01", &d));
	assert_false(wd_date_parse("2023-01-01x", &d));
	setenv("WARPDRV_NOW", "2026-11-29", 1);
	struct wd_err e;
	assert_int_equal(wd_today(&d, &e), 0);
	wd_date_format(d, s);
	assert_string_equal(s, "2026-11-29");
	setenv("WARPDRV_NOW", "tomorrow", 1);
	assert_int_equal(wd_today(&d, &e), -WD_EUSAGE);
	assert_non_null(strstr(e.msg, "WARPDRV_NOW"));
	unsetenv("WARPDRV_NOW");
}

static void test_sha256_known_answer(void **state)
{
	(void)state;
	char hex[WD_SHA256_HEX];
	wd_sha256_hex("abc", 3, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void test_atomic_write_replaces(void **state)
{
	(void)state;
	char *d = tmpdir();
	char *p = wd_path_join(d, "f");
	struct wd_err e;
	assert_int_equal(wd_write_atomic(p, "one", 3, 0644, &e), 0);
	assert_int_equal(wd_write_atomic(p, "two!", 4, 0644, &e), 0);
	struct wd_buf b = {0};
	assert_int_equal(wd_read_file(p, 0, &b, &e), 0);
	assert_string_equal(b.p, "two!");
	char *tmp = wd_xasprintf("%s.wd-new", p);
	assert_false(wd_exists(tmp));
	assert_int_equal(wd_read_file(tmp, 0, &b, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, tmp));
	free(tmp);
	wd_buf_free(&b);
	free(p);
	rmrf(d);
	free(d);
}

static void test_volume_refuses_folder_without_config_sys(void **state)
{
	(void)state;
	char *d = tmpdir();
	struct volume v;
	struct wd_err e;
	assert_int_equal(volume_open(&v, d, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "not an OS/2 boot volume"));
	assert_int_equal(volume_open(&v, NULL, &e), -WD_EUSAGE);
	rmrf(d);
	free(d);
}

static void test_volume_resolves_without_case(void **state)
{
	(void)state;
	char *d = tmpdir();
	touch(d, "config.sys");
	touch(d, "ibmcom/Macs/e1000.os2");
	struct volume v;
	struct wd_err e;
	assert_int_equal(volume_open(&v, d, &e), 0);
	char *p;
	bool found;
	assert_int_equal(volume_resolve(&v, "C:\\IBMCOM\\MACS\\E1000.OS2", &p, &found, &e), 0);
	assert_true(found);
	char *want = wd_path_join(d, "ibmcom/Macs/e1000.os2");
	assert_string_equal(p, want);
	free(want);
	free(p);
	/* A missing file keeps the spelling given, below the folders found. */
	assert_int_equal(volume_resolve(&v, "\\IBMCOM\\MACS\\MMLEM.OS2", &p, &found, &e), 0);
	assert_false(found);
	want = wd_path_join(d, "ibmcom/Macs/MMLEM.OS2");
	assert_string_equal(p, want);
	free(want);
	free(p);
	assert_int_equal(volume_resolve(&v, "IBMCOM\\..\\..\\etc", &p, &found, &e), -WD_ETRUST);
	volume_close(&v);
	rmrf(d);
	free(d);
}

/* A folder's listing is kept for the next lookups: a name created in it
 * afterwards, by anyone, must still be found, whatever its case; and of two
 * spellings the exact one wins, else the first in byte order. */
static void test_volume_sees_names_made_after_a_lookup(void **state)
{
	(void)state;
	char *d = tmpdir();
	touch(d, "config.sys");
	touch(d, "ibmcom/Foo");
	touch(d, "ibmcom/FOO");
	char *ibmcom = wd_path_join(d, "ibmcom");
	/* an old time, so that the next change shows whatever the clock's grain */
	struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
	assert_int_equal(utimensat(AT_FDCWD, ibmcom, old, 0), 0);
	struct volume v;
	struct wd_err e;
	assert_int_equal(volume_open(&v, d, &e), 0);
	char *p, *want;
	bool found;
	assert_int_equal(volume_resolve(&v, "\\IBMCOM\\PROTOCOL.INI", &p, &found, &e), 0);
	assert_false(found);
	free(p);
	char *name = volume_find_entry(&v, ibmcom, "foo");
	assert_string_equal(name, "FOO");
	free(name);
	name = volume_find_entry(&v, ibmcom, "Foo");
	assert_string_equal(name, "Foo");
	free(name);
	/* another program makes the file, spelled otherwise */
	touch(d, "ibmcom/protocol.ini");
	assert_int_equal(volume_resolve(&v, "\\IBMCOM\\PROTOCOL.INI", &p, &found, &e), 0);
	assert_true(found);
	want = wd_path_join(d, "ibmcom/protocol.ini");
	assert_string_equal(p, want);
	free(want);
	free(p);
	/* a folder made after the lookup that missed it */
	assert_int_equal(volume_resolve(&v, "\\IBMCOM\\MACS\\E1000.OS2", &p, &found, &e), 0);
	assert_false(found);
	free(p);
	touch(d, "ibmcom/macs/e1000.os2");
	assert_int_equal(volume_resolve(&v, "\\IBMCOM\\MACS\\E1000.OS2", &p, &found, &e), 0);
	assert_true(found);
	want = wd_path_join(d, "ibmcom/macs/e1000.os2");
	assert_string_equal(p, want);
	free(want);
	free(p);
	/* and after the kept listings are dropped, the same answers */
	volume_forget_folders(&v);
	name = volume_find_entry(&v, ibmcom, "PROTOCOL.INI");
	assert_string_equal(name, "protocol.ini");
	free(name);
	assert_null(volume_find_entry(&v, ibmcom, "NOSUCH"));
	volume_close(&v);
	free(ibmcom);
	rmrf(d);
	free(d);
}

static void test_keys_sign_verify_and_keyring(void **state)
{
	(void)state;
	char *d = tmpdir();
	char *sub = wd_path_join(d, "repo");
	struct wd_err e;
	assert_int_equal(wd_mkdirs(sub, &e), 0);
	char *prefix = wd_path_join(sub, "dev");
	char fpr[WD_FPR_HEX];
	assert_int_equal(key_generate(prefix, fpr, &e), 0);
	char *keyp = wd_xasprintf("%s.key", prefix);
	struct stat st;
	assert_int_equal(stat(keyp, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	struct wd_key *k;
	assert_int_equal(key_load_private(keyp, &k, &e), 0);
	assert_string_equal(key_fingerprint(k), fpr);
	unsigned char sig[WD_SIG_LEN];
	assert_int_equal(key_sign(k, "hello", 5, sig, &e), 0);

	struct keyring kr = {0};
	assert_int_equal(keyring_add_dir(&kr, d, &e), 0);
	/* The private key beside the public one is not a .pub: only one key. */
	assert_int_equal(kr.n, 1);
	const struct wd_key *pub = keyring_find(&kr, fpr, KEY_ROLE_REPO);
	assert_non_null(pub);
	assert_null(keyring_find(&kr, fpr, KEY_ROLE_LICENSE));
	assert_true(key_verify(pub, "hello", 5, sig));
	assert_false(key_verify(pub, "hellO", 5, sig));
	sig[10] ^= 1;
	assert_false(key_verify(pub, "hello", 5, sig));
	keyring_revoke(&kr, fpr);
	assert_null(keyring_find(&kr, fpr, KEY_ROLE_REPO));
	keyring_free(&kr);

	/* A .pub that is no key names the file. */
	touch(d, "license/bad.pub");
	assert_int_equal(keyring_add_dir(&kr, d, &e), -WD_ETRUST);
	assert_non_null(strstr(e.msg, "bad.pub"));
	keyring_free(&kr);
	key_free(k);
	free(keyp);
	free(prefix);
	free(sub);
	rmrf(d);
	free(d);
}

static void test_db_is_created_only_when_asked(void **state)
{
	(void)state;
	char *d = tmpdir();
	touch(d, "CONFIG.SYS");
	struct volume v;
	struct wd_err e;
	assert_int_equal(volume_open(&v, d, &e), 0);
	struct db db;
	bool exists = true;
	assert_int_equal(db_open(&db, &v, false, &exists, &e), 0);
	assert_false(exists);
	assert_null(db.h);
	char *state_dir = wd_path_join(d, "var");
	assert_false(wd_exists(state_dir));
	db_close(&db);
	assert_int_equal(db_open(&db, &v, true, &exists, &e), 0);
	assert_true(exists);
	assert_int_equal(db_meta_set(&db, "last_seen", "2026-11-29", &e), 0);
	db_close(&db);
	assert_int_equal(db_open(&db, &v, false, &exists, &e), 0);
	assert_true(exists);
	char *val;
	assert_int_equal(db_meta_get(&db, "last_seen", &val, &e), 0);
	assert_string_equal(val, "2026-11-29");
	free(val);
	assert_int_equal(db_meta_get(&db, "nothing", &val, &e), 0);
	assert_null(val);
	db_close(&db);
	free(state_dir);
	volume_close(&v);
	rmrf(d);
	free(d);
}

/* A file written in place is refused when it has another hard link (the
 * other name could be a host file); a new file never writes through an
 * existing name; a folder swapped for a link after one operation stops the
 * next, which never reaches outside the root. */
static void test_fs_refuses_hard_links_and_swapped_folders(void **state)
{
	(void)state;
	char *d = tmpdir(), *out = tmpdir();
	touch(d, "VOL/var/lock");
	touch(out, "host.txt");
	char *host = wd_path_join(out, "host.txt"), *lock = wd_path_join(d, "VOL/var/lock");
	char *vol = wd_path_join(d, "VOL");
	assert_int_equal(unlink(lock), 0);
	assert_int_equal(link(host, lock), 0);
	struct fs_root r;
	struct wd_err e;
	assert_int_equal(fs_root_open(&r, vol, &e), 0);
	assert_true(fs_open_inplace(&r, "var/lock", 0644, NULL, &e) < 0);
	assert_non_null(strstr(e.msg, "hard links"));
	assert_non_null(strstr(e.msg, "var/lock"));
	/* a stale temporary that is a hard link is unlinked, its target untouched */
	char *tmp = wd_path_join(d, "VOL/var/C.wd-new");
	assert_int_equal(link(host, tmp), 0);
	assert_int_equal(fs_write_atomic(&r, "var/C", "new", 3, 0644, &e), 0);
	struct wd_buf b = {0};
	assert_int_equal(wd_read_file(host, 0, &b, &e), 0);
	assert_int_equal(b.len, 1); /* touch wrote one byte */
	/* the folder var swapped for a link to the host folder after a check */
	assert_true(fs_is_dir(&r, "var"));
	char *var = wd_path_join(d, "VOL/var"), *moved = wd_path_join(d, "VOL/var.old");
	assert_int_equal(rename(var, moved), 0);
	assert_int_equal(symlink(out, var), 0);
	for (int walk = 0; walk < 2; walk++) {
		if (walk)
			setenv("WARPDRV_NO_OPENAT2", "1", 1);
		assert_true(fs_create(&r, "var/EVIL", 0644, true, &e) < 0);
		assert_non_null(strstr(e.msg, "symbolic link"));
		assert_int_equal(fs_write_atomic(&r, "var/host.txt", "x", 1, 0644, &e), -WD_EFAIL);
		assert_int_equal(fs_unlink(&r, "var/host.txt", &e), -WD_EFAIL);
		assert_int_equal(fs_rename(&r, "var.old/C", "var/C", &e), -WD_EFAIL);
		assert_int_equal(fs_mkdirs(&r, "var/NEWDIR", &e), -WD_EFAIL);
		assert_false(fs_exists(&r, "var/host.txt"));
	}
	unsetenv("WARPDRV_NO_OPENAT2");
	assert_int_equal(wd_read_file(host, 0, &b, &e), 0);
	assert_int_equal(b.len, 1);
	char *evil = wd_path_join(out, "EVIL");
	assert_false(wd_exists(evil));
	wd_buf_free(&b);
	fs_root_close(&r);
	free(evil);
	free(var);
	free(moved);
	free(tmp);
	free(vol);
	free(host);
	free(lock);
	rmrf(d);
	rmrf(out);
	free(d);
	free(out);
}

/* Paths below a root: a link in any component, a FIFO, ".." are refused
 * with the path named, by openat2 and by the walk used without it. */
static void open_beneath_cases(const char *d)
{
	struct fs_root r;
	struct wd_err e;
	assert_int_equal(fs_root_open(&r, d, &e), 0);
	int fd = fs_open(&r, "A/F", O_RDONLY, &e);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(fs_open(&r, "L/F", O_RDONLY, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "symbolic link"));
	assert_int_equal(fs_open(&r, "A/S", O_RDONLY, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "symbolic link"));
	assert_int_equal(fs_open(&r, "P", O_RDONLY, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "FIFO"));
	assert_true(fs_open(&r, "../etc/passwd", O_RDONLY, &e) < 0);
	assert_true(fs_open(&r, "A/../../etc/passwd", O_RDONLY, &e) < 0);
	assert_true(fs_open(&r, "/etc/passwd", O_RDONLY, &e) < 0);
	assert_non_null(strstr(e.msg, "not inside the volume"));
	fd = fs_open(&r, "A", O_RDONLY | O_DIRECTORY, &e);
	assert_true(fd >= 0);
	close(fd);
	fd = fs_create(&r, "A/NEW", 0644, false, &e);
	assert_true(fd >= 0);
	close(fd);
	/* a name that exists is never written through unless it is a stale temporary */
	assert_true(fs_create(&r, "A/NEW", 0644, false, &e) < 0);
	fd = fs_create(&r, "A/NEW", 0644, true, &e);
	assert_true(fd >= 0);
	close(fd);
	assert_true(fs_create(&r, "L/NEW", 0644, true, &e) < 0);
	struct wd_buf b = {0};
	assert_int_equal(fs_read(&r, "A/F", 0, &b, &e), 0);
	assert_int_equal(b.len, 1);
	assert_int_equal(fs_read(&r, "L/F", 0, &b, &e), -WD_EFAIL);
	wd_buf_free(&b);
	assert_int_equal(fs_unlink(&r, "A/NEW", &e), 0);
	assert_int_equal(fs_unlink(&r, "A/NEW", &e), 0); /* gone already: no error */
	fs_root_close(&r);
}

static void test_files_refuse_links_and_special_files(void **state)
{
	(void)state;
	char *d = tmpdir();
	touch(d, "A/F");
	char *l = wd_path_join(d, "L"), *a = wd_path_join(d, "A"), *p = wd_path_join(d, "P");
	char *s = wd_path_join(d, "A/S"), *f = wd_path_join(d, "A/F");
	assert_int_equal(symlink(a, l), 0);
	assert_int_equal(symlink("/etc/passwd", s), 0);
	assert_int_equal(mkfifo(p, 0644), 0);
	struct wd_err e;
	struct wd_buf b = {0};
	assert_int_equal(wd_read_file(p, 0, &b, &e), -WD_EFAIL); /* at once, no hang */
	assert_non_null(strstr(e.msg, "is a FIFO, not a plain file"));
	assert_int_equal(wd_read_file("/dev/zero", 0, &b, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "is a device"));
	wd_buf_free(&b);
	open_beneath_cases(d);
	setenv("WARPDRV_NO_OPENAT2", "1", 1);
	open_beneath_cases(d);
	struct fs_root r;
	assert_int_equal(fs_root_open(&r, d, &e), 0);
	assert_int_equal(fs_mkdirs(&r, "L/NEW", &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "symbolic link"));
	assert_int_equal(fs_mkdirs(&r, "A/B/C", &e), 0);
	unsetenv("WARPDRV_NO_OPENAT2");
	assert_int_equal(fs_mkdirs(&r, "A/B/C/D", &e), 0);
	char *abcd = wd_path_join(d, "A/B/C/D");
	assert_true(wd_is_dir(abcd));
	assert_int_equal(fs_mkdirs(&r, "P/X", &e), -WD_EFAIL);
	fs_root_close(&r);
	bool exists;
	assert_int_equal(wd_check_plain(l, &exists, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "is a symbolic link"));
	assert_int_equal(wd_check_plain(p, &exists, &e), -WD_EFAIL);
	assert_int_equal(wd_check_plain(f, &exists, &e), 0);
	assert_true(exists);
	assert_int_equal(wd_check_plain(abcd, &exists, &e), 0);
	char *none = wd_path_join(d, "NONE");
	assert_int_equal(wd_check_plain(none, &exists, &e), 0);
	assert_false(exists);
	int fd = wd_open_plain(s, O_WRONLY | O_CREAT | O_TRUNC, 0644, &e);
	assert_int_equal(fd, -WD_EFAIL);
	assert_non_null(strstr(e.msg, "is a symbolic link"));
	free(none), free(abcd), free(l), free(a), free(p), free(s), free(f);
	rmrf(d);
	free(d);
}

/* A copy in chunks keeps the bytes and the mode; a link at either end is
 * refused; a rewrite keeps the old file's mode and owner. */
static void test_copy_streams_and_keeps_mode_and_owner(void **state)
{
	(void)state;
	char *d = tmpdir();
	char *from = wd_path_join(d, "BIG"), *to = wd_path_join(d, "COPY");
	char *link = wd_path_join(d, "LINK"), *victim = wd_path_join(d, "VICTIM");
	struct wd_buf big = {0};
	for (int i = 0; i < 3 * 1024 * 1024 / 16; i++)
		wd_buf_addf(&big, "%015d\n", i);
	struct wd_err e;
	assert_int_equal(wd_write_atomic(from, big.p, big.len, 0640, &e), 0);
	assert_int_equal(wd_copy_file(from, to, &e), 0);
	struct wd_buf got = {0};
	assert_int_equal(wd_read_file(to, 0, &got, &e), 0);
	assert_int_equal(got.len, big.len);
	assert_memory_equal(got.p, big.p, big.len);
	struct stat st;
	assert_int_equal(stat(to, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(wd_write_atomic(victim, "v", 1, 0644, &e), 0);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(wd_copy_file(from, link, &e), -WD_EFAIL);
	assert_int_equal(wd_copy_file(link, to, &e), -WD_EFAIL);
	assert_int_equal(stat(victim, &st), 0);
	assert_int_equal(st.st_size, 1);
	/* a 0600 file owned by 1234 rewritten: the new file is 0600 and 1234's */
	assert_int_equal(chmod(from, 0600), 0);
	bool root = geteuid() == 0;
	if (root)
		assert_int_equal(chown(from, 1234, 1234), 0);
	assert_int_equal(wd_write_atomic(from, "new\n", 4, 0644, &e), 0);
	assert_int_equal(stat(from, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	if (root)
		assert_int_equal(st.st_uid, 1234);
	assert_int_equal(chmod(to, 0644), 0);
	assert_int_equal(wd_copy_mode_owner(from, to, &e), 0);
	assert_int_equal(stat(to, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	if (root)
		assert_int_equal(st.st_gid, 1234);
	char *none = wd_path_join(d, "NONE");
	assert_int_equal(wd_copy_mode_owner(none, to, &e), 0);
	wd_buf_free(&big);
	wd_buf_free(&got);
	free(none), free(from), free(to), free(link), free(victim);
	rmrf(d);
	free(d);
}

/* A link or a FIFO on the way is refused with its path; two spellings of a
 * new folder resolve to one; a linked CONFIG.SYS is no volume. */
static void test_volume_refuses_links_and_merges_new_folders(void **state)
{
	(void)state;
	char *d = tmpdir(), *elsewhere = tmpdir();
	touch(d, "CONFIG.SYS");
	touch(d, "OS2/X.SYS");
	char *ibmcom = wd_path_join(d, "IBMCOM"), *boot = wd_path_join(d, "OS2/BOOT");
	assert_int_equal(symlink(elsewhere, ibmcom), 0);
	assert_int_equal(mkfifo(boot, 0644), 0);
	struct volume v;
	struct wd_err e;
	assert_int_equal(volume_open(&v, d, &e), 0);
	char *out = NULL;
	bool found;
	assert_int_equal(volume_resolve(&v, "\\IBMCOM\\PROTOCOL.INI", &out, &found, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "IBMCOM is a symbolic link"));
	assert_int_equal(volume_resolve(&v, "\\os2\\boot\\A.ADD", &out, &found, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "BOOT is a FIFO where a folder is expected"));
	assert_int_equal(volume_resolve(&v, "\\OS2\\X.SYS\\Y", &out, &found, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "is a file where a folder is expected"));
	assert_int_equal(volume_resolve(&v, "\\NEWDIR\\SUB\\A", &out, &found, &e), 0);
	assert_false(found);
	char *want = wd_path_join(d, "NEWDIR/SUB/B");
	free(out);
	assert_int_equal(volume_resolve(&v, "\\newdir\\sub\\B", &out, &found, &e), 0);
	assert_string_equal(out, want);
	free(out);
	char *host = wd_path_join(d, "OS2/X.SYS");
	struct wd_buf b = {0};
	assert_int_equal(volume_read_file(&v, host, 0, &b, &e), 0);
	assert_int_equal(volume_read_file(&v, "/etc/passwd", 0, &b, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "not inside the volume"));
	wd_buf_free(&b);
	volume_close(&v);
	char *cs = wd_path_join(d, "CONFIG.SYS"), *real = wd_path_join(elsewhere, "CONFIG.SYS");
	assert_int_equal(rename(cs, real), 0);
	assert_int_equal(symlink(real, cs), 0);
	assert_int_equal(volume_open(&v, d, &e), -WD_EFAIL);
	assert_non_null(strstr(e.msg, "CONFIG.SYS is a symbolic link"));
	free(cs), free(real), free(host), free(want), free(ibmcom), free(boot);
	rmrf(d);
	rmrf(elsewhere);
	free(d);
	free(elsewhere);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf_grows_and_formats),
		cmocka_unit_test(test_sv_trim_and_compare),
		cmocka_unit_test(test_path_join_and_dirname),
		cmocka_unit_test(test_dates),
		cmocka_unit_test(test_sha256_known_answer),
		cmocka_unit_test(test_atomic_write_replaces),
		cmocka_unit_test(test_volume_refuses_folder_without_config_sys),
		cmocka_unit_test(test_volume_resolves_without_case),
		cmocka_unit_test(test_volume_sees_names_made_after_a_lookup),
		cmocka_unit_test(test_files_refuse_links_and_special_files),
		cmocka_unit_test(test_copy_streams_and_keeps_mode_and_owner),
		cmocka_unit_test(test_volume_refuses_links_and_merges_new_folders),
		cmocka_unit_test(test_keys_sign_verify_and_keyring),
		cmocka_unit_test(test_db_is_created_only_when_asked),
		cmocka_unit_test(test_fs_refuses_hard_links_and_swapped_folders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
