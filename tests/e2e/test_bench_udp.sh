#!/usr/bin/env bash
# netio's UDP test against bad peers: small fake servers on loopback (the
# fake binds the aux port on 127.0.0.1, warpdrv's client on 127.0.0.2). Each
# fault ends with a message naming the block size and direction, exit 1,
# nothing recorded, and within a bounded time.
. "$(dirname "$0")/lib.sh"
export XDG_STATE_HOME="$TESTTMP/state"

runs_in() {
	python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from run").fetchone()[0])' "$1"
}

# Starts a fake netio UDP server in MODE on 127.0.0.1, port $PORT + 1 (TCP
# control and UDP datagrams); the EXIT trap stops it.
fake_server() {
	PORT=$(free_port)
	timeout 30 python3 - "$1" "$((PORT + 1))" >"$T/fake.log" 2>&1 <<'PY' &
import socket, struct, sys, time
mode, aux = sys.argv[1], int(sys.argv[2])
l = socket.socket()
l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", aux))
l.listen(1)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(("127.0.0.1", aux))
print("up", flush=True)
c, addr = l.accept()
def ctl():
    b = b""
    while len(b) < 8:
        k = c.recv(8 - len(b))
        if not k:
            sys.exit(0)
        b += k
    return struct.unpack(">II", b)
def say(cmd, data):
    c.sendall(struct.pack(">II", cmd, data))
if mode == "foreign":      # something else on the aux port
    c.sendall(b"SSH-2.0-OpenSSH_9.2p1\r\n")
    time.sleep(20)
if mode == "silent":       # accepts the control connection, never answers
    time.sleep(20)
cmd, size = ctl()
say(1, size)
if mode == "drop":         # hangs up in the middle of the client's datagrams
    time.sleep(0.3)
    c.close()
    time.sleep(20)
ctl()
u.setblocking(False)
n = 0
try:
    while True:
        u.recv(65536)
        n += 1
except BlockingIOError:
    pass
say(3, max(n, 1))
cmd, size = ctl()
dst = (addr[0], aux)
if mode == "nodata":       # claims 500 datagrams, sends none
    time.sleep(0.3)
    say(3, 500)
if mode == "wrongsize":    # datagrams of 100 bytes for a 1k test
    for _ in range(20):
        u.sendto(bytes(100), dst)
time.sleep(20)
PY
	FAKE=$!
	trap 'kill $FAKE 2>/dev/null; wait $FAKE 2>/dev/null || :' EXIT
	for _ in $(seq 50); do grep -q up "$T/fake.log" && return 0; sleep 0.1; done
	fail "fake server did not start: $(cat "$T/fake.log")"
}

# The client against the fake: 1k only, bounded by timeout (the client's own
# limits must end it well before).
client() {
	START=$(date +%s)
	run timeout 25 "$WD" bench client 127.0.0.1 -u -b 1k --bind 127.0.0.2 --port "$PORT" \
		--seconds 0.5 --db "$T/c.db"
	TOOK=$(($(date +%s) - START))
}

assert_nothing_recorded() {
	[ "$(runs_in "$T/c.db")" = 0 ] || fail "a broken run was recorded"
	assert_err "bench client: nothing recorded"
}

t_server_never_answers_the_control_connection() {
	fake_server silent
	client
	assert_rc 1
	assert_err "the server 127.0.0.1 port $((PORT + 1)) sent nothing for 10 s during the 1k Tx test (UDP)"
	assert_nothing_recorded
	# rc 1, not timeout's 124: the client's own 10 s limit ended it. The
	# margin is for the results database, made (with its fsyncs) before the
	# client connects, on a disk busy with the other tests.
	[ "$TOOK" -le 20 ] || fail "took $TOOK s"
}

t_server_never_sends_datagrams() {
	fake_server nodata
	client
	assert_rc 1
	assert_err "none of the 500 datagrams the server 127.0.0.1 port $((PORT + 1)) sent during the 1k Rx test (UDP) arrived at UDP port $((PORT + 1)) here"
	assert_nothing_recorded
}

t_server_drops_the_control_connection_mid_test() {
	fake_server drop
	client
	assert_rc 1
	assert_err "the server 127.0.0.1 port $((PORT + 1)) closed the connection during the 1k Tx test (UDP)"
	assert_nothing_recorded
}

t_server_sends_datagrams_of_the_wrong_size() {
	fake_server wrongsize
	client
	assert_rc 1
	assert_err "the server 127.0.0.1 port $((PORT + 1)) sent a 100-byte datagram"
	assert_err "during the 1k Rx test (UDP), where netio's are 1024 bytes"
	assert_nothing_recorded
}

t_another_protocol_on_the_aux_port() {
	fake_server foreign
	client
	assert_rc 1
	assert_err "the server 127.0.0.1 port $((PORT + 1)) does not speak netio: it sent \"SSH-2.0-OpenSSH_\" where the echo of its 1k Tx request was due"
	assert_nothing_recorded
}

run_tests
