#!/usr/bin/env python3
"""A small HTTP(S) server for warpdrv's tests: serves a folder like any static
web server, and misbehaves on purpose where a fault file says so.

  faultserver.py --root DIR --port-file FILE [--faults FILE] [--log FILE]
                 [--cert PEM --key PEM] [--auth USER:PASS]

The fault file (read again on every request, so a test can change it while the
server runs) holds lines "PATH MODE", PATH being the URL path or * for all:
  drop     send the headers and half the body, then close the connection
  stall    send the headers and a few bytes, then send nothing for 60 s
  404, 500, 401, 403   answer with that status
  long     declare and send the file followed by 1 MiB of extra bytes
  wrong    send the file with every byte of its second half inverted
  slow     send the body 512 bytes at a time, 50 ms apart
  drip     send the body 2 bytes a second (fast enough for a low-speed limit
           of 1 byte/s, slow enough to take days)
  short    declare and send only the first half of the file, cleanly
A file served whole carries an ETag and a Last-Modified (from its size and
modification time, as nginx makes them); a request whose If-None-Match (or,
without one, If-Modified-Since) says it is held already gets 304 and no body,
logged as a line "304 PATH" besides the request's own.
With --auth, a request without those HTTP Basic credentials gets 401;
--auth @FILE reads USER:PASS from FILE at each request (a key issued after
the server started, naming its URL).
Range requests ("bytes=N-") are honoured. Every request is logged as
"METHOD PATH range=VALUE auth=yes|no". It listens on 127.0.0.1 only, and
exits by itself after --lifetime seconds (default 300).
"""
import argparse
import base64
import email.utils
import http.server
import os
import ssl
import sys
import threading
import time


def faults_for(path, faults_file):
    if not faults_file or not os.path.exists(faults_file):
        return None
    mode = None
    with open(faults_file) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and parts[0] in (path, "*"):
                mode = parts[1]
    return mode


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def log_request_line(self):
        if self.server.log:
            with open(self.server.log, "a") as f:
                f.write("%s %s range=%s auth=%s\n" % (
                    self.command, self.path, self.headers.get("Range", "-"),
                    "yes" if self.headers.get("Authorization") else "no"))

    def send_status(self, code):
        body = b"status %d\n" % code
        self.send_response(code)
        if code == 401:
            self.send_header("WWW-Authenticate", 'Basic realm="warpdrv"')
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def not_modified(self, etag, mtime):
        inm = self.headers.get("If-None-Match")
        if inm is not None:
            return etag in [t.strip() for t in inm.split(",")]
        ims = self.headers.get("If-Modified-Since")
        if ims is None:
            return False
        try:
            return email.utils.parsedate_to_datetime(ims).timestamp() >= mtime
        except (TypeError, ValueError):
            return False

    def send_304(self, path, etag, modified):
        if self.server.log:
            with open(self.server.log, "a") as f:
                f.write("304 %s\n" % path)
        self.send_response(304)
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", modified)
        self.end_headers()

    def do_GET(self):
        self.log_request_line()
        path = self.path.split("?", 1)[0]
        mode = faults_for(path, self.server.faults)
        auth = self.server.auth
        if auth and auth.startswith("@"):  # USER:PASS read from a file now
            try:
                auth = open(auth[1:]).read().strip()
            except OSError:
                auth = "-"
        if auth:
            want = "Basic " + base64.b64encode(auth.encode()).decode()
            if self.headers.get("Authorization") != want:
                return self.send_status(401)
        if mode in ("404", "500", "401", "403"):
            return self.send_status(int(mode))
        local = os.path.join(self.server.root, path.lstrip("/"))
        if ".." in path.split("/") or not os.path.isfile(local):
            return self.send_status(404)
        with open(local, "rb") as f:
            data = f.read()
        st = os.stat(local)
        etag = '"%x-%x"' % (st.st_mtime_ns, st.st_size)
        modified = email.utils.formatdate(st.st_mtime, usegmt=True)
        if mode is None and self.not_modified(etag, int(st.st_mtime)):
            return self.send_304(path, etag, modified)
        if mode == "short":
            data = data[: len(data) // 2]
        start = 0
        rng = self.headers.get("Range")
        if rng and rng.startswith("bytes=") and rng.endswith("-"):
            start = int(rng[6:-1])
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % len(data))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        if mode == "wrong":
            half = len(data) // 2
            data = data[:half] + bytes(b ^ 0xFF for b in data[half:])
        if mode == "long":
            data = data + b"\0" * (1 << 20)
        body = data[start:]
        self.send_response(206 if start else 200)
        if start:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        if mode is None and not start:
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", modified)
        self.end_headers()
        try:
            if mode == "drop":
                self.wfile.write(body[: len(body) // 2])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if mode == "stall":
                self.wfile.write(body[:16])
                self.wfile.flush()
                time.sleep(60)
                return
            if mode == "drip":
                for i in range(0, len(body), 2):
                    self.wfile.write(body[i:i + 2])
                    self.wfile.flush()
                    time.sleep(1)
                return
            if mode == "slow":
                for i in range(0, len(body), 512):
                    self.wfile.write(body[i:i + 512])
                    self.wfile.flush()
                    time.sleep(0.05)
                return
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--faults")
    ap.add_argument("--log")
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--auth")
    ap.add_argument("--lifetime", type=float, default=300)
    a = ap.parse_args()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.root, srv.faults, srv.log, srv.auth = a.root, a.faults, a.log, a.auth
    if a.cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.cert, a.key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, a.port_file)
    threading.Timer(a.lifetime, lambda: os._exit(0)).start()
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
