# Shared by the package tests: a small OS/2 volume, a test signing key, a
# test recipe and repository. Sourced after lib.sh; every function works in $T.

# A volume with CONFIG.SYS, \IBMCOM\MACS holding the E1000.OS2 the OS
# shipped, and \OS2\KEEP.SYS that the test package overwrites.
make_volume() { # DIR
	mkdir -p "$1/IBMCOM/MACS" "$1/OS2"
	printf 'PSD=OS2APIC.PSD\r\nDEVICE=C:\\IBMCOM\\PROTMAN.OS2 /I:C:\\IBMCOM\r\n' >"$1/CONFIG.SYS"
	printf 'the E1000.OS2 the OS shipped\r\n' >"$1/IBMCOM/MACS/E1000.OS2"
	printf 'the KEEP.SYS the OS shipped\r\n' >"$1/OS2/KEEP.SYS"
}

# The test key folder $T/k (repo/test.key, repo/test.pub) and the recipe $T/recipe.
make_key() {
	mkdir -p "$T/k/repo"
	wda keygen --out "$T/k/repo/test"
	assert_rc 0
}

make_recipe() { # [DIR]
	local d=${1:-$T/recipe}
	mkdir -p "$d"
	cat >"$d/MANIFEST" <<'M'
format 1
name testpkg
version 1.0
released 2024-01-01
summary A package for the tests
kind psd
file TEST.OS2 \IBMCOM\MACS\TEST.OS2
file KEEP.SYS \OS2\KEEP.SYS
file NEW.ADD \OS2\BOOT\NEW.ADD
M
	printf 'test driver\n' >"$d/TEST.OS2"
	printf 'the package KEEP.SYS\n' >"$d/KEEP.SYS"
	printf 'new adapter driver\n' >"$d/NEW.ADD"
}

# $T/good.wdp signed by the test key.
make_good_package() {
	make_key
	make_recipe
	wda pack "$T/recipe" --key "$T/k/repo/test.key" --out "$T/good.wdp"
	assert_rc 0
}


# Signs the signed text FILE (an index) again with KEY, after an edit.
resign() { # FILE KEY
	local fpr
	fpr=$(grep '^signature ' "$1" | cut -d' ' -f2)
	sed -i '/^signature /d' "$1"
	openssl pkeyutl -sign -rawin -inkey "$2" -in "$1" -out "$1.sig"
	printf 'signature %s %s\n' "$fpr" "$(od -An -v -tx1 "$1.sig" | tr -d ' \n')" >>"$1"
	rm "$1.sig"
}

# A copy of the eComStation fixture volume at DIR with a subscription
# (drivers, acpi) activated: the configured guest of the upgrade, crash and
# failure tests.
activated_copy() { # DIR
	cp -a "$FIX/volumes/ecs21-e1000" "$1"
	wda issue --key "$WARPDRV_BUILD/keys/license/dev.key" --customer 7 \
		--entitlements drivers,acpi --issued 2026-01-01 --expires 2099-12-31
	assert_rc 0
	wd --root "$1" activate "$OUT"
	assert_rc 0
}

# The background servers a test started (start_nginx, start_fault); the EXIT
# trap of the test's subshell stops them whatever happens.
SERVERS=""
stop_servers() {
	for p in $SERVERS; do kill "$p" 2>/dev/null || true; done
}

# tests/http/faultserver.py serving $T/www on a free loopback port for 60 s
# at most, its files named from PREFIX: PREFIXport, PREFIXfaults (none until
# a test writes one), PREFIXlog (its requests). The variable URLVAR is set to
# its base (https with --cert).
FAULTSERVER="$SRC/tests/http/faultserver.py"
fault_server() { # PREFIX URLVAR [faultserver options]
	local pre=$1 var=$2 scheme=http
	shift 2
	case " $* " in *" --cert "*) scheme=https ;; esac
	rm -f "${pre}port"
	: >"${pre}faults"
	python3 "$FAULTSERVER" --root "$T/www" --port-file "${pre}port" --faults "${pre}faults" \
		--log "${pre}log" --lifetime 60 "$@" 2>>"$T/server.err" &
	SERVERS="$SERVERS $!"
	trap stop_servers EXIT
	for _ in $(seq 100); do [ -s "${pre}port" ] && break; sleep 0.05; done
	[ -s "${pre}port" ] || fail "the test server did not start (${pre}port)"
	printf -v "$var" '%s://127.0.0.1:%s' "$scheme" "$(cat "${pre}port")"
}

# A test CA (DIR/ca.pem) and a certificate for 127.0.0.1 it signed
# (DIR/srv.pem, DIR/srv.key), for the https servers of the tests.
make_test_ca() { # DIR
	(
		cd "$1"
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
			-subj "/CN=warpdrv test CA" -keyout ca.key -out ca.pem
		openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
			-subj "/CN=127.0.0.1" -keyout srv.key -out srv.csr
		printf 'subjectAltName=IP:127.0.0.1\n' >ext
		openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
			-extfile ext -out srv.pem
	) >/dev/null 2>&1
}

# The one server of a test: $URL, faults from $T/faults, requests in $T/log.
start_fault() { # [faultserver options]
	fault_server "$T/" URL "$@"
}

# nginx serving $T/www on a free loopback port ($PORT), its requests logged
# in $T/nginx/logs/access.log.
start_nginx() {
	command -v nginx >/dev/null || skip "nginx is not installed (make deps)"
	PORT=$(free_port)
	mkdir -p "$T/nginx/logs" "$T/www"
	# as root, nginx's workers would drop to nobody, who cannot read $T
	local user=""
	[ "$(id -u)" != 0 ] || user="user root;"
	cat >"$T/nginx/nginx.conf" <<EOF
$user
daemon off;
worker_processes 1;
pid $T/nginx/nginx.pid;
error_log $T/nginx/logs/error.log;
events { worker_connections 64; }
http {
	access_log $T/nginx/logs/access.log;
	client_body_temp_path $T/nginx/tmp;
	proxy_temp_path $T/nginx/tmp;
	fastcgi_temp_path $T/nginx/tmp;
	uwsgi_temp_path $T/nginx/tmp;
	scgi_temp_path $T/nginx/tmp;
	server { listen 127.0.0.1:$PORT; root $T/www; location / { } }
}
EOF
	nginx -p "$T/nginx" -c "$T/nginx/nginx.conf" 2>"$T/nginx/stderr" &
	SERVERS="$SERVERS $!"
	trap stop_servers EXIT
	for _ in $(seq 100); do
		python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2)' "$PORT" 2>/dev/null && break
		sleep 0.05
	done
}
