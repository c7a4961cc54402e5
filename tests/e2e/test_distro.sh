#!/usr/bin/env bash
# Distribution: the shell completions, the keys a build trusts and says it
# trusts, the index dated by SOURCE_DATE_EPOCH, the user's flags appended to the
# project's. With WARPDRV_DISTRO_SLOW=1 (`make distro-check`, run by .ci/run)
# also: two builds from clean clones with the same keys and SOURCE_DATE_EPOCH
# install the same bytes, a build with a distribution's hardening flags runs the
# demo, and the Debian packages, unpacked into a scratch root, run detect and a
# setup on a sample volume. The clones are of the committed tree (git clone).
. "$(dirname "$0")/lib.sh"
# The makes run here see only the variables they are given (not those of a
# make this test runs under, nor a packager's flags in the environment).
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES CPPFLAGS CFLAGS LDFLAGS SOURCE_DATE_EPOCH KEYS

BIN=$(dirname "$WD")
BUILD=${WARPDRV_BUILD:-$BIN}
PCI="lspci:$FIX/pci/ecs-guest.lspci-nn"

# What bash offers when TAB is pressed at the end of the words given, joined
# by spaces (an interactive bash: tests/e2e/complete_bash.py), one a line.
complete_bash() {
	PATH="$BIN:$PATH" python3 "$SRC/tests/e2e/complete_bash.py" "$SRC/completion/warpdrv.bash" \
		"$*" | sed '/^--$/d'
}

t_completion_bash() {
	run env PATH="$BIN:$PATH" bash -c '. "$1/completion/warpdrv.bash"; complete -p warpdrv warpdrv-admin' _ "$SRC"
	assert_rc 0
	assert_out "complete -F _warpdrv warpdrv"
	assert_out "complete -F _warpdrv warpdrv-admin"
	[ "$(complete_bash warpdrv ins)" = install ] || fail "warpdrv ins<TAB>: $(complete_bash warpdrv ins)"
	# the command found after global options and their values
	[ "$(complete_bash warpdrv --root /nonexistent -q ins)" = install ] || fail "after --root"
	# package names from the bundled repository, and the command's options
	[ "$(complete_bash warpdrv install mm)" = mmlem ] || fail "install mm<TAB>: $(complete_bash warpdrv install mm)"
	complete_bash warpdrv remove "" | grep -x e1000 >/dev/null || fail "remove <TAB> lacks e1000"
	complete_bash warpdrv list --in | grep -x -- --installed >/dev/null || fail "list --in<TAB>"
	complete_bash warpdrv --dr | grep -x -- --dry-run >/dev/null || fail "--dr<TAB>"
	complete_bash warpdrv configure "" | grep -x acpi >/dev/null || fail "configure <TAB>"
	[ "$(complete_bash warpdrv --pci ls)" = lspci: ] || fail "--pci ls<TAB>"
	[ "$(complete_bash warpdrv-admin ke)" = keygen ] || fail "warpdrv-admin ke<TAB>"
	complete_bash warpdrv-admin index --se | grep -x -- --serial >/dev/null || fail "index --se<TAB>"
	# every command of --help is offered, and nothing else
	want=$("$WD" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\).*/\1/p')
	[ -n "$want" ] && [ "$(complete_bash warpdrv "")" = "$want" ] || fail "commands differ"
}

t_completion_zsh() {
	command -v zsh >/dev/null || skip "no zsh"
	run zsh -n "$SRC/completion/_warpdrv"
	assert_rc 0
	# the completion function with zsh's completion builtins standing in: what it offers
	cat >"$T/z.zsh" <<'Z'
compadd() { # -a: the words are array names
	local a arr=0; for a in "$@"; do case $a in -a) arr=1 ;; -*) ;;
		*) if (( arr )); then print -rl -- ${(P)a}; else print -r -- "$a"; fi ;; esac; done }
_describe() { local -a l; l=(${(P)2}); print -rl -- ${l%%:*} }
_files() { print -r -- FILES }
_message() { }
compset() { return 1 }
PREFIX=${words[CURRENT]}
source "$1"
Z
	z() { PATH="$BIN:$PATH" zsh -f -c 'words=("${@:2}"); CURRENT=$#words; . '"$T/z.zsh"' "$1"' _ \
		"$SRC/completion/_warpdrv" "$@"; }
	z warpdrv ins | grep -x install >/dev/null || fail "zsh: warpdrv ins<TAB>: $(z warpdrv ins)"
	z warpdrv install mm | grep -x mmlem >/dev/null || fail "zsh: install mm<TAB>: $(z warpdrv install mm)"
	z warpdrv --ro | grep -x -- --root >/dev/null || fail "zsh: --ro<TAB>"
	z warpdrv-admin "" | grep -x keygen >/dev/null || fail "zsh: warpdrv-admin <TAB>"
}

t_version_names_the_keys() {
	wd --version
	assert_rc 0
	if [ -f "$BUILD/keys/DEVELOPMENT" ]; then
		assert_out "trusted keys: $BUILD/keys: DEVELOPMENT KEYS made by the build"
	fi
	# a data folder with a vendor's keys (no DEVELOPMENT mark) is named as such
	mkdir -p "$T/data/keys/repo" "$T/data/keys/license"
	"$WDA" -q keygen --out "$T/data/keys/repo/v" >/dev/null
	"$WDA" -q keygen --out "$T/data/keys/license/v" >/dev/null
	rm "$T/data/keys/"*/*.key
	run env WARPDRV_DATA="$T/data" "$WD" --version
	assert_rc 0
	assert_out "trusted keys: $T/data/keys"
	grep -q DEVELOPMENT "$T/out" && fail "vendor keys named development: $OUT"
	# the test-hooks programs do not warn (they are the developers'); the
	# installed ones do: the slow part checks that on the package
	wd detect --pci "$PCI"
	assert_rc 0
	grep -q "development keys" "$T/err" && fail "build/warpdrv warned: $ERR"
	return 0
}

# A program installed without keys or repository (`make install` of a
# development-key build without DEV_KEYS=1) says so and trusts nothing bundled;
# detect still lists the devices (it crashed on the empty keyring).
t_no_bundled_keys() {
	mkdir -p "$T/bin"
	cp "$WD" "$T/bin/warpdrv"
	run "$T/bin/warpdrv" --version
	assert_rc 0
	assert_out "trusted keys: none bundled with the program (only the administrator's below and those of --keys DIR)"
	run "$T/bin/warpdrv" detect --pci "$PCI"
	assert_rc 0
	assert_out "1 network controller: 0000:00:03.0 82540EM."
	assert_err "the driver each NIC would get is left out: no repository to take packages from"
	cp -a "$FIX/volumes/ecs21-e1000" "$T/v"
	before=$(snapshot "$T/v")
	run "$T/bin/warpdrv" --root "$T/v" --pci "$PCI" setup --yes
	assert_rc 1
	assert_err "no repository to take packages from"
	[ "$(snapshot "$T/v")" = "$before" ] || fail "a refused setup changed the volume"
}

# An index written under SOURCE_DATE_EPOCH: its date is that day, the same
# bytes at any time; a malformed value is a usage error and writes nothing.
t_index_source_date_epoch() {
	mkdir -p "$T/k/repo" "$T/r"
	"$WDA" -q keygen --out "$T/k/repo/k" >/dev/null
	"$WDA" -q pack "$SRC/drivers/e1000" --key "$T/k/repo/k.key" --out "$T/r/" >/dev/null
	run env SOURCE_DATE_EPOCH=1700000000 "$WDA" index "$T/r" --key "$T/k/repo/k.key" --serial 7
	assert_rc 0
	grep -qx "issued 2023-11-14" "$T/r/INDEX" || fail "issued: $(grep issued "$T/r/INDEX")"
	cp "$T/r/INDEX" "$T/first"
	run env SOURCE_DATE_EPOCH=1700000000 WARPDRV_NOW= "$WDA" index "$T/r" --key "$T/k/repo/k.key" --serial 7
	assert_rc 0
	cmp -s "$T/first" "$T/r/INDEX" || fail "two indexes of one SOURCE_DATE_EPOCH differ"
	snapshot "$T/r" >"$T/before"
	for bad in 12abc -5 99999999999999999; do
		run env SOURCE_DATE_EPOCH=$bad "$WDA" index "$T/r" --key "$T/k/repo/k.key" --serial 8
		assert_rc 2
		assert_err "SOURCE_DATE_EPOCH=$bad: expected the seconds since 1970-01-01"
	done
	[ "$(snapshot "$T/r")" = "$(cat "$T/before")" ] || fail "a refused index changed the folder"
}

# The user's CPPFLAGS, CFLAGS and LDFLAGS come after the project's own (from the
# environment or the command line), -Werror only with WERROR=1.
t_make_appends_user_flags() {
	cd "$SRC"
	run make -n -B O="$T/o" CPPFLAGS=-D_FORTIFY_SOURCE=2 CFLAGS=-fstack-protector-strong \
		LDFLAGS=-Wl,-z,relro "$T/o/obj/common/buf.o" "$T/o/warpdrv"
	assert_rc 0
	grep -- '-c -o .*obj/common/buf.o' "$T/out" >"$T/cc"
	grep -q -- '-I\. .*-DWD_TEST_HOOKS=1 -D_FORTIFY_SOURCE=2 ' "$T/cc" || fail "CPPFLAGS: $(cat "$T/cc")"
	grep -q -- '-std=c11 .*-fstack-protector-strong' "$T/cc" || fail "CFLAGS: $(cat "$T/cc")"
	grep -q -- '-Werror' "$T/cc" && fail "-Werror in a plain build: $(cat "$T/cc")"
	grep -q -- '-pthread.* -Wl,-z,relro -o .*/warpdrv ' "$T/out" || fail "LDFLAGS: $OUT"
	run env CPPFLAGS=-D_FORTIFY_SOURCE=2 make -n -B O="$T/o" WERROR=1 "$T/o/obj/common/buf.o"
	assert_rc 0
	grep -q -- '-Werror.*-D_FORTIFY_SOURCE=2\|-D_FORTIFY_SOURCE=2.*-Werror' "$T/out" || fail "WERROR=1: $OUT"
	grep -q -- '-I\. ' "$T/out" || fail "the project's -I. lost to the environment's CPPFLAGS: $OUT"
}

# make KEYS=DIR: the vendor's public keys are the trusted ones, the bundled
# repository is signed with the vendor's private repository key, and a
# KEYS folder that lacks a part stops the build with what to do. The built
# warpdrv-admin is copied in and taken as up to date (make -o).
t_make_keys() {
	cd "$SRC"
	mkdir -p "$T/o" "$T/v/repo" "$T/v/license" "$T/other/repo"
	cp "$WDA" "$T/o/warpdrv-admin"
	"$WDA" -q keygen --out "$T/v/repo/vendor" >/dev/null
	"$WDA" -q keygen --out "$T/other/repo/stray" >/dev/null
	mk() { run make --no-print-directory O="$T/o" -o "$T/o/warpdrv-admin" SOURCE_DATE_EPOCH=1767225600 "$@"; }
	mk KEYS="$T/v" "$T/o/repo/INDEX"
	assert_rc 2
	assert_err "KEYS=$T/v: no license/*.pub (the vendor's public license keys; docs/building.md)"
	[ ! -e "$T/o/repo" ] || fail "a repository was built"
	"$WDA" -q keygen --out "$T/v/license/vendor" >/dev/null
	mk KEYS="$T/v" REPO_KEY="$T/other/repo/stray.key" "$T/o/repo/INDEX"
	assert_rc 2
	assert_err "its public half $T/other/repo/stray.pub is not one of $T/v/repo/*.pub"
	mv "$T/v/repo/vendor.key" "$T/vendor.key"
	mk KEYS="$T/v" "$T/o/repo/INDEX"
	assert_rc 2
	assert_err "no private repository key to sign the bundled repository with"
	mv "$T/vendor.key" "$T/v/repo/vendor.key"
	mk KEYS="$T/v" "$T/o/repo/INDEX"
	assert_rc 0
	[ "$(cd "$T/o/keys" && find . -name '*.pub' | sort | tr '\n' ' ')" = "./license/vendor.pub ./repo/vendor.pub " ] ||
		fail "trusted keys: $(cd "$T/o/keys" && find .)"
	[ -z "$(find "$T/o/keys" -name '*.key')" ] && [ ! -e "$T/o/keys/DEVELOPMENT" ] || fail "private or dev keys"
	run "$WDA" verify "$T/o/repo/INDEX" --keys "$T/v"
	assert_rc 0
	assert_out "good index, serial 1767225600, 4 packages"
	run "$WDA" verify "$T/o/repo/INDEX" --keys "$BUILD/keys"
	assert_rc 3
	# back to development keys: made anew, marked, the repository re-signed
	mk "$T/o/repo/INDEX"
	assert_rc 0
	assert_out "development keys (make KEYS=DIR builds with a vendor's)"
	[ -f "$T/o/keys/DEVELOPMENT" ] && [ -f "$T/o/keys/repo/dev.key" ] || fail "no development keys"
	run "$WDA" verify "$T/o/repo/INDEX" --keys "$T/o/keys"
	assert_rc 0
}

# ---- the slow part (make distro-check) ----

slow() { [ "${WARPDRV_DISTRO_SLOW:-}" = 1 ] || skip "the slow part: make distro-check"; }
SHARED="$TESTTMP/shared"
mkdir -p "$SHARED"
HARDEN=(CPPFLAGS=-D_FORTIFY_SOURCE=2 "CFLAGS=-O2 -g -fstack-protector-strong" LDFLAGS=-Wl,-z,relro)
SDE=1767225600 # 2026-01-01

build_clone() { # DIR: clone, build with the shared keys and the hardening flags, install
	git clone -q "$SRC" "$1/src"
	make -C "$1/src" -j2 KEYS="$SHARED/keys" SOURCE_DATE_EPOCH=$SDE "${HARDEN[@]}" \
		install PREFIX=/usr DESTDIR="$1/root" >"$1/build.log" 2>&1 ||
		{ tail -30 "$1/build.log"; return 1; }
}

t_slow_1_reproducible() {
	slow
	mkdir -p "$SHARED/keys/repo" "$SHARED/keys/license"
	"$WDA" -q keygen --out "$SHARED/keys/repo/vendor" >/dev/null
	"$WDA" -q keygen --out "$SHARED/keys/license/vendor" >/dev/null
	# two clones in folders of different names and lengths
	build_clone "$SHARED/a"
	build_clone "$SHARED/second-build"
	(cd "$SHARED/a/root" && find . -type f -o -type l | sort | xargs sha256sum) >"$T/a"
	(cd "$SHARED/second-build/root" && find . -type f -o -type l | sort | xargs sha256sum) >"$T/b"
	grep -q ' ./usr/bin/warpdrv$' "$T/a" && grep -q ' ./usr/share/warpdrv/repo/INDEX$' "$T/a" &&
		grep -q ' ./usr/share/man/man1/warpdrv-admin.1$' "$T/a" &&
		grep -q ' ./usr/share/doc/warpdrv/json.md$' "$T/a" || fail "installed too little: $(cat "$T/a")"
	diff "$T/a" "$T/b" || fail "two builds of one commit differ"
	diff -r "$SHARED/a/root" "$SHARED/second-build/root" || fail "two builds differ"
	echo "$(wc -l <"$T/a") installed files, the same bytes in both builds"
	# the vendor's keys are the ones trusted, no private key installed
	ls "$SHARED/a/root/usr/share/warpdrv/keys/repo" | grep -x vendor.pub >/dev/null || fail "vendor.pub not installed"
	[ -z "$(find "$SHARED/a/root" -name '*.key')" ] || fail "a private key was installed"
	[ ! -e "$SHARED/a/root/usr/share/warpdrv/keys/DEVELOPMENT" ] || fail "vendor build marked development"
	grep -qx "serial $SDE" "$SHARED/a/root/usr/share/warpdrv/repo/INDEX" || fail "serial is not SOURCE_DATE_EPOCH"
	grep -qx "issued 2026-01-01" "$SHARED/a/root/usr/share/warpdrv/repo/INDEX" || fail "issued is not SOURCE_DATE_EPOCH"
	# the distribution's flags were used: fortified calls, stack protector, relro
	grep -q -- '-D_FORTIFY_SOURCE=2' "$SHARED/a/build.log" || fail "no _FORTIFY_SOURCE in the build"
	grep -q -- '-Werror' "$SHARED/a/build.log" && fail "-Werror in a packager's build"
	readelf -lW "$SHARED/a/root/usr/bin/warpdrv" | grep GNU_RELRO >/dev/null || fail "no relro"
	readelf -sW --dyn-syms "$SHARED/a/root/usr/bin/warpdrv" | grep '__[a-z]*_chk' >/dev/null || fail "no fortified calls"
	readelf -sW --dyn-syms "$SHARED/a/root/usr/bin/warpdrv" | grep __stack_chk_fail >/dev/null || fail "no stack protector"
	"$SHARED/a/root/usr/bin/warpdrv" --version | grep -x "trusted keys: $SHARED/a/root/usr/share/warpdrv/keys" >/dev/null ||
		fail "installed --version: $("$SHARED/a/root/usr/bin/warpdrv" --version)"
}

t_slow_2_demo_with_distribution_flags() {
	slow
	[ -x "$SHARED/a/src/build/warpdrv" ] || fail "no build from t_slow_1_reproducible"
	run env KEYS="$SHARED/keys" sh "$SHARED/a/src/scripts/demo.sh" "$SHARED/a/src/build"
	assert_rc 0
	assert_out "Done: generation 1"
	assert_out "install mmlem 2.06"
	assert_out "The configured volume is in"
	grep -qi "DEVICE=.*MMLEM.OS2" "$SHARED/a/src/build/demo/volume/CONFIG.SYS" || fail "MMLEM not configured"
	# and uninstall takes back all that install put there
	make -C "$SHARED/a/src" uninstall PREFIX=/usr DESTDIR="$SHARED/a/root" >/dev/null
	[ -z "$(find "$SHARED/a/root" -type f)" ] || fail "uninstall left: $(find "$SHARED/a/root" -type f)"
}

# CMD... run with the folder ETC as /etc, in a mount namespace of its own:
# the installed program reads its configuration and keys from /etc/warpdrv,
# and no test reads or writes the host's.
with_etc() { # ETC CMD...
	local etc=$1 u=(unshare -m)
	shift
	[ "$(id -u)" = 0 ] || u=(unshare -rm)
	"${u[0]}" --help >/dev/null 2>&1 || skip "no unshare"
	run "${u[@]}" sh -c 'mount --bind "$0" /etc && exec "$@"' "$etc" "$@"
}

# The warpdrv package alone (and warpdrv-admin), unpacked at ROOT: no key and
# no repository of its own, and it says how to add them; then keys an
# administrator put in /etc/warpdrv/keys and a repository its configuration
# file names are trusted and read.
debian_base() { # ROOT
	local W=$1/usr/bin/warpdrv A=$1/usr/bin/warpdrv-admin
	mkdir -p "$T/etc"
	with_etc "$T/etc" "$W" --version
	assert_rc 0
	assert_out "trusted keys: none bundled with the program"
	assert_out "trusted keys: none in /etc/warpdrv/keys (an administrator adds a vendor's there"
	assert_out "configuration: none read"
	with_etc "$T/etc" "$W" list
	assert_rc 1
	assert_err "no repository to take packages from"
	with_etc "$T/etc" "$W" detect --pci "$PCI"
	assert_rc 0
	assert_out "82540EM"
	! grep -q "development keys" "$T/err" || fail "the base package trusts development keys: $ERR"
	# a vendor's key in /etc/warpdrv/keys, its repository in the configuration
	mkdir -p "$T/etc/warpdrv/keys/repo" "$T/vendor" "$T/srv"
	"$A" -q keygen --out "$T/vendor/v" >/dev/null
	cp "$T/vendor/v.pub" "$T/etc/warpdrv/keys/repo/"
	"$A" -q pack "$SRC/drivers/pcntnd" --key "$T/vendor/v.key" --out "$T/srv/" >/dev/null
	"$A" -q index "$T/srv" --key "$T/vendor/v.key" >/dev/null
	printf 'repo = file://%s/
pci = lspci:%s
' "$T/srv" "$FIX/pci/ecs-guest.lspci-nn" \
		>"$T/etc/warpdrv/warpdrv.conf"
	with_etc "$T/etc" "$W" --version
	assert_out "trusted keys: /etc/warpdrv/keys (the administrator's)"
	assert_out "configuration: /etc/warpdrv/warpdrv.conf"
	with_etc "$T/etc" "$W" list
	assert_rc 0
	assert_out "pcntnd"
	with_etc "$T/etc" "$W" detect
	assert_rc 0
	assert_out "82540EM"
	# without the administrator's key, the repository is refused
	rm "$T/etc/warpdrv/keys/repo/v.pub"
	with_etc "$T/etc" "$W" list
	assert_rc 3
	assert_err "signed by unknown key"
}

t_slow_3_debian_packages() {
	slow
	command -v dpkg-buildpackage >/dev/null || fail "no dpkg-buildpackage (make test-deps)"
	[ -d "$SHARED/a/src" ] || fail "no clone from t_slow_1_reproducible"
	run make -C "$SHARED/a/src" deb
	assert_rc 0
	echo "$OUT" | sed -n '/lintian/,$p'
	deb=$SHARED/a/src/build/deb
	ls "$deb"/warpdrv_*.deb "$deb"/warpdrv-admin_*.deb >/dev/null || fail "packages missing: $(ls "$deb")"
	grep -q '^E: ' "$T/out" && fail "lintian errors: $(grep '^E: ' "$T/out")"
	# libsqlite3 is linked into the programs, libcurl into warpdrv's transfer
	# helper: the Depends name them as dpkg-shlibdeps wrote them
	# (debian/PACKAGE.substvars), none by hand
	local p dep shlibs lib
	for p in warpdrv warpdrv-admin; do
		shlibs=$(sed -n 's/^shlibs:Depends=//p' "$deb/src/debian/$p.substvars")
		dep=$(dpkg-deb -f "$deb/${p}_"*.deb Depends)
		for lib in libcurl libsqlite3; do
			[ "$p" = warpdrv-admin ] && [ "$lib" = libcurl ] && continue
			echo "$shlibs" | tr ',' '\n' | grep "^ *$lib" >"$T/shlib" ||
				fail "$p: dpkg-shlibdeps named no $lib: $shlibs"
			case ", $dep," in
			*", $(sed 's/^ *//' "$T/shlib"),"*) ;;
			*) fail "$p: Depends lacks $(cat "$T/shlib") as dpkg-shlibdeps wrote it: $dep" ;;
			esac
			[ "$(echo "$dep" | tr ',' '\n' | grep -c "^ *$lib")" = 1 ] ||
				fail "$p: $lib named more than once: $dep"
		done
		# the SQLite floor warpdrv needs (debian/shlibs.local)
		case ", $dep," in
		*", libsqlite3-0 (>= 3.33.0),"*) ;;
		*) fail "$p: Depends lacks libsqlite3-0 (>= 3.33.0): $dep" ;;
		esac
	done
	# each package's list read whole into a file (grep -q on a pipe would
	# end dpkg-deb early, and pipefail count that as a failure)
	dpkg-deb -c "$deb"/warpdrv_*.deb >"$T/base.list"
	grep warpdrv-admin "$T/base.list" >/dev/null && fail "warpdrv ships warpdrv-admin"
	# built without a vendor's keys: warpdrv trusts no key of its own, the
	# development keys and the demo repository are warpdrv-demo's alone
	ls "$deb"/warpdrv-demo_*_all.deb >/dev/null || fail "no warpdrv-demo package: $(ls "$deb")"
	dpkg-deb -c "$deb"/warpdrv-demo_*.deb >"$T/demo.list"
	grep -q 'usr/share/warpdrv/' "$T/base.list" && fail "warpdrv ships keys or a repository"
	grep -q './usr/share/warpdrv/keys/DEVELOPMENT$' "$T/demo.list" ||
		fail "warpdrv-demo lacks the development keys"
	grep -q './usr/share/warpdrv/repo/INDEX$' "$T/demo.list" ||
		fail "warpdrv-demo lacks the demo repository"
	grep -q './usr/share/man/man5/warpdrv.conf.5' "$T/base.list" ||
		fail "warpdrv lacks warpdrv.conf(5)"
	dpkg -x "$deb"/warpdrv_*.deb "$T/base"
	dpkg -x "$deb"/warpdrv-admin_*.deb "$T/base"
	debian_base "$T/base"
	for p in "$deb"/*.deb; do dpkg -x "$p" "$T/root"; done
	W="$T/root/usr/bin/warpdrv"
	run "$W" --version
	assert_rc 0
	assert_out "trusted keys: $T/root/usr/share/warpdrv/keys: DEVELOPMENT KEYS"
	run "$W" detect --pci "$PCI"
	assert_rc 0
	assert_out "82540EM"
	assert_err "warning: trusting the development keys in $T/root/usr/share/warpdrv/keys"
	[ "$(grep -c 'development keys' "$T/err")" = 1 ] || fail "warned more than once: $ERR"
	cp -a "$FIX/volumes/ecs21-e1000" "$T/v"
	key=$("$T/root/usr/bin/warpdrv-admin" issue --key "$deb/src/build/keys/license/dev.key" \
		--customer 1 --entitlements drivers,acpi --expires 2099-12-31 2>/dev/null)
	run "$W" --root "$T/v" activate "$key"
	assert_rc 0
	run "$W" --root "$T/v" --pci "$PCI" setup --yes
	assert_rc 0
	grep -qi "DEVICE=.*MMLEM.OS2" "$T/v/CONFIG.SYS" || fail "setup did not configure MMLEM: $OUT"
	run "$W" --root "$T/v" check
	assert_rc 0
	# the bash completion the package installs
	run bash -c '. "$1/usr/share/bash-completion/completions/warpdrv"; PATH=$1/usr/bin:$PATH;
		COMP_WORDS=(warpdrv ins); COMP_CWORD=1; _warpdrv; echo "${COMPREPLY[*]}"' _ "$T/root"
	[ "$OUT" = install ] || fail "packaged completion: $OUT $ERR"
}

run_tests
