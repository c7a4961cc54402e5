#!/usr/bin/env python3
"""Makes damaged and hostile packages and indexes for the end-to-end tests.

    wdp_tool.py MUTATION IN.wdp OUT.wdp [KEY.key]
    wdp_tool.py zeros:COUNT:MIB IN.wdp OUT.wdp KEY.key   (a package of zeros)

Each mutation starts from a good package made by warpdrv-admin pack and
breaks one thing. Mutations that change the manifest re-sign it with KEY
(through the openssl command), so that only the intended flaw remains."""
import gzip
import hashlib
import io
import subprocess
import sys
import tarfile
import tempfile


def read(path):
    with open(path, "rb") as f:
        raw = gzip.decompress(f.read())
    tf = tarfile.open(fileobj=io.BytesIO(raw))
    return [(m, tf.extractfile(m).read() if m.isfile() else b"") for m in tf.getmembers()]


def member(name, data=b"", kind=tarfile.REGTYPE, link=""):
    m = tarfile.TarInfo(name)
    m.size = len(data) if kind == tarfile.REGTYPE else 0
    m.type = kind
    m.linkname = link
    m.mode = 0o644
    return m, data


def write(path, members, tail=b""):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as tf:
        for m, data in members:
            tf.addfile(m, io.BytesIO(data) if m.isfile() else None)
    with open(path, "wb") as f:
        f.write(gzip.compress(buf.getvalue() + tail))


def resign(text, key):
    body = text[: text.rindex(b"signature ")]
    with tempfile.NamedTemporaryFile() as f:  # Ed25519 signs a file, not a pipe
        f.write(body)
        f.flush()
        sig = subprocess.run(["openssl", "pkeyutl", "-sign", "-rawin", "-inkey", key,
                              "-in", f.name], capture_output=True, check=True).stdout
    fpr = text[text.rindex(b"signature ") + 10:].split(b" ")[0]
    return body + b"signature " + fpr + b" " + sig.hex().encode() + b"\n"


class Zeros(io.RawIOBase):
    """n zero bytes, read without holding them."""

    def __init__(self, n):
        self.left = n

    def readable(self):
        return True

    def readinto(self, b):
        k = min(len(b), self.left)
        b[:k] = bytes(k)
        self.left -= k
        return k


def zeros_package(src, dst, count, mib, key):
    """The good package plus COUNT members of MIB MiB of zeros each (signed):
    a few hundred KiB on disk, COUNT * MIB MiB unpacked."""
    ms = read(src)
    man, mdata = ms[0]
    size = mib << 20
    h = hashlib.sha256()
    chunk = bytes(1 << 20)
    for _ in range(mib):
        h.update(chunk)
    lines = b"".join(b"file Z%d.BIN \\OS2\\Z%d.BIN %d %s\n" % (i, i, size, h.hexdigest().encode())
                     for i in range(count))
    at = mdata.rindex(b"signature ")
    text = resign(mdata[:at] + lines + mdata[at:], key)
    with tarfile.open(dst, "w:gz", format=tarfile.USTAR_FORMAT, compresslevel=1) as tf:
        m, _ = member(man.name, text)
        tf.addfile(m, io.BytesIO(text))
        for m, data in ms[1:]:
            tf.addfile(m, io.BytesIO(data))
        for i in range(count):
            m = tarfile.TarInfo("Z%d.BIN" % i)
            m.size = size
            m.mode = 0o644
            tf.addfile(m, io.BufferedReader(Zeros(size), 1 << 20))


def main():
    mut, src, dst = sys.argv[1:4]
    key = sys.argv[4] if len(sys.argv) > 4 else None
    if mut.startswith("zeros:"):
        count, mib = mut[6:].split(":")
        zeros_package(src, dst, int(count), int(mib), sys.argv[4])
        return
    if mut in ("truncate", "corrupt-gzip"):
        data = bytearray(open(src, "rb").read())
        if mut == "truncate":
            data = data[: len(data) // 2]
        else:
            data[-6] ^= 0xFF  # the CRC-32 of the stream
        open(dst, "wb").write(bytes(data))
        return
    ms = read(src)
    man, mdata = ms[0]
    payload = ms[1:]
    first = payload[0][0].name
    tail = b""
    if mut == "bad-signature":
        ms[0] = member(man.name, mdata.replace(b"version ", b"version 9", 1))
    elif mut == "no-signature":
        ms[0] = member(man.name, mdata[: mdata.rindex(b"signature ")])
    elif mut == "hash":
        m, d = payload[0]
        ms[1] = member(m.name, bytes([d[0] ^ 1]) + d[1:])
    elif mut == "size":
        m, d = payload[0]
        ms[1] = member(m.name, d + b"more")
    elif mut in ("symlink", "hardlink", "device", "folder"):
        kind = {"symlink": tarfile.SYMTYPE, "hardlink": tarfile.LNKTYPE,
                "device": tarfile.CHRTYPE, "folder": tarfile.DIRTYPE}[mut]
        ms[1] = member(first, b"", kind, "/etc/passwd" if "link" in mut else "")
    elif mut.startswith("name:"):
        ms.append(member(mut[5:], b"evil"))
    elif mut == "duplicate":
        ms.append(payload[0])
    elif mut == "unlisted":
        ms.append(member("EXTRA.TXT", b"not in the manifest"))
    elif mut == "missing":
        del ms[1]
    elif mut == "reverse":  # the same members, after the manifest in reverse order
        ms[1:] = payload[::-1]
    elif mut == "bomb":
        tail = bytes(64 * 1024 * 1024)  # zeros: a few KiB compressed
    elif mut.startswith("manifest:"):
        old, new = mut[9:].split("=>")
        ms[0] = member(man.name, resign(mdata.replace(old.encode(), new.encode(), 1), key))
    else:
        sys.exit("unknown mutation " + mut)
    write(dst, ms, tail)


main()
