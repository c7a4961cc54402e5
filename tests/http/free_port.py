#!/usr/bin/env python3
"""Prints a loopback TCP port whose UDP neighbour (port + 1) is free as well,
as netio's TCP and UDP ports are; for the bench tests and bench/netio.sh."""
import random
import socket
import sys

for _ in range(200):
    p = random.randint(20000, 60000)
    try:
        t = socket.socket()
        t.bind(("127.0.0.1", p))
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind(("127.0.0.1", p + 1))
        t.close()
        u.close()
        print(p)
        sys.exit(0)
    except OSError:
        pass
sys.exit("no free port pair found")
