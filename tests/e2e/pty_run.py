"""Runs a command with its stdout and stderr each on a terminal or in a file.

pty_run.py OUT ERR [INPUT] -- CMD...: OUT and ERR are "tty" (the one pseudo
terminal; what the command writes there comes out on this script's stdout)
or a file name. With INPUT, stdin is the terminal too and INPUT is typed on
it (a line such as "y"); without, stdin is /dev/null. Exits with the
command's status.
"""
import os, pty, sys, select
args = sys.argv[1:]
sep = args.index("--")
out, err = args[0], args[1]
typed = args[2] if sep == 3 else None
cmd = args[sep + 1:]
m, s = pty.openpty()
pid = os.fork()
if pid == 0:
    os.setsid()
    for fd, spec in ((1, out), (2, err)):
        if spec == "tty":
            os.dup2(s, fd)
        else:
            f = os.open(spec, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(f, fd)
    if typed is None:
        os.dup2(os.open("/dev/null", os.O_RDONLY), 0)
    else:
        os.dup2(s, 0)
    os.execvp(cmd[0], cmd)
os.close(s)
if typed is not None:
    os.write(m, typed.encode() + b"\n")
data = b""
while True:
    try:
        r, _, _ = select.select([m], [], [], 10)
        if not r:
            break
        chunk = os.read(m, 4096)
        if not chunk:
            break
        data += chunk
    except OSError:
        break
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(data)
sys.exit(os.waitstatus_to_exitcode(status))
