#!/bin/sh
# make deps: install the Debian packages the build and the tests need, or say
# exactly which are missing. Runs apt-get only when something is missing.
set -u
PKGS="build-essential pkg-config libcurl4-openssl-dev libssl-dev libsqlite3-dev zlib1g-dev nginx-light
libcmocka-dev clang libclang-rt-dev python3 openssl sqlite3 iproute2 iptables"

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
	if pkg-config --exists libcurl openssl sqlite3 zlib cmocka 2>/dev/null && command -v clang >/dev/null; then
		exit 0
	fi
	echo "make deps: install the development packages of libcurl, OpenSSL 3, SQLite 3, zlib" >&2
	echo "and cmocka, pkg-config, clang with its libFuzzer runtime, python3 and openssl." >&2
	exit 1
fi

[ -z "$missing" ] && exit 0

if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
	echo "make deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	# A fresh machine may have empty package lists: fetch them once, then install.
	if ! apt-get install -y -q --no-install-recommends $missing; then
		apt-get update -q && apt-get install -y -q --no-install-recommends $missing || exit 1
	fi
	exit 0
fi
echo "make deps: missing Debian packages:$missing" >&2
echo "install them with: sudo apt-get update && sudo apt-get install$missing" >&2
exit 1
