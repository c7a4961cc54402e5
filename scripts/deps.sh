#!/bin/sh
# make deps / make test-deps: install the Debian packages the build and the
# main job need (build), or those the tests add (test), or say exactly which
# are missing. Runs apt-get only when something is missing.
# Usage: scripts/deps.sh build|test|all      (README.md lists both sets)
set -u
# build: the compiler, pkg-config, the four libraries (libcurl only for the
# transfer helper, warpdrv-fetch, with libseccomp for its sandbox), libxml2 (VirtualBox's settings files)
# and libguestfs's header (the library is loaded when --disk or --vm needs it).
BUILD_PKGS="build-essential pkg-config libcurl4-openssl-dev libssl-dev libsqlite3-dev zlib1g-dev
libxml2-dev libguestfs-dev libseccomp-dev"
# test: cmocka, clang's libFuzzer, the tools the end-to-end tests use (nginx
# for the repository tests, iproute2 and iptables for the network namespaces of
# the benchmark tests), what the packaging test needs (debhelper, lintian), and
# what the disk-image tests run and make images with: libguestfs's appliance
# (guestfish, a kernel for it: these machines may have none in /boot), mkfs.jfs,
# mkfs.fat, sfdisk, qemu-img, xz.
ARCH=$(dpkg --print-architecture 2>/dev/null || echo amd64)
TEST_PKGS="libcmocka-dev clang libclang-rt-dev python3 openssl sqlite3 nginx-light iproute2 iptables
git debhelper dpkg-dev fakeroot lintian zsh libguestfs-tools linux-image-$ARCH jfsutils dosfstools
fdisk qemu-utils xz-utils"
case "${1:-all}" in
build) PKGS=$BUILD_PKGS; what=deps ;;
test) PKGS=$TEST_PKGS; what=test-deps ;;
all) PKGS="$BUILD_PKGS $TEST_PKGS"; what="deps test-deps" ;;
*) echo "usage: scripts/deps.sh build|test|all" >&2; exit 2 ;;
esac

missing=""
for p in $PKGS; do
	if command -v dpkg-query >/dev/null 2>&1; then
		st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		case "$st" in *"install ok installed"*) continue ;; esac
		missing="$missing $p"
	fi
done

if ! command -v dpkg-query >/dev/null 2>&1; then
	# Not Debian: check what the build itself needs.
	if [ "${1:-all}" = build ]; then
		pkg-config --exists libcurl openssl sqlite3 zlib libxml-2.0 libguestfs libseccomp 2>/dev/null && exit 0
		echo "make deps: install pkg-config and the development packages of libcurl," >&2
		echo "OpenSSL 3, SQLite 3, zlib, libxml2, libguestfs and libseccomp." >&2
		exit 1
	fi
	if pkg-config --exists cmocka 2>/dev/null && command -v clang >/dev/null; then
		exit 0
	fi
	echo "make test-deps: install cmocka, clang with its libFuzzer runtime, python3, openssl," >&2
	echo "sqlite3, nginx, iproute2 and iptables." >&2
	exit 1
fi

[ -z "$missing" ] && exit 0

if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	echo "make $what: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	# A fresh machine may have empty package lists: fetch them once, then install.
	if ! apt-get install -y -q --no-install-recommends $missing; then
		apt-get update -q && apt-get install -y -q --no-install-recommends $missing || exit 1
	fi
	exit 0
fi
echo "make $what: missing Debian packages:$missing" >&2
echo "install them with: sudo apt-get update && sudo apt-get install$missing" >&2
exit 1
