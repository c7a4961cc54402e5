"""Completes command lines as an interactive bash does: each LINE is typed on
a pseudo terminal, TAB pressed, and what the completion function offered
(COMPREPLY) written out, one reply a line, each line's replies ended by a
line "--". bash splits the words itself (COMP_WORDBREAKS, '=' and ':' in it).

complete_bash.py COMPLETION_SCRIPT LINE...   (PATH names the programs)
"""
import os, pty, select, sys, tempfile, time

script, lines = sys.argv[1], sys.argv[2:]
out = tempfile.NamedTemporaryFile(prefix="complete_bash.", delete=False).name
pid, fd = pty.fork()
if pid == 0:
    env = dict(os.environ, TERM="dumb", INPUTRC="/dev/null", PS1="$ ", HISTFILE="/dev/null")
    os.execvpe("bash", ["bash", "--norc", "--noprofile", "-i"], env)


seen = b""


def drain(until=None, seconds=10.0):
    global seen
    end = time.time() + seconds
    while time.time() < end:
        if until and until():
            return True
        r, _, _ = select.select([fd], [], [], 0.01)
        if r:
            try:
                seen = (seen + os.read(fd, 65536))[-4096:]
            except OSError:
                return False
    return bool(until and until())


def ends():
    try:
        with open(out) as f:
            return f.read().splitlines().count("--")
    except OSError:
        return 0


setup = (". '%s'; _t() { _warpdrv \"$@\"; { [ ${#COMPREPLY[@]} -eq 0 ] || printf '%%s\\n' \"${COMPREPLY[@]}\"; echo --; } >>'%s'; }; "
         "complete -F _t warpdrv warpdrv-admin; bind 'set bell-style none'; echo READY\n") % (script, out)
os.write(fd, setup.encode())
if not drain(lambda: b"\nREADY" in seen):
    sys.exit("bash did not start")
for i, line in enumerate(lines, 1):
    os.write(fd, line.encode() + b"\t")
    if not drain(lambda: ends() >= i):
        sys.exit("no completion for %r" % line)
    os.write(fd, b"\x15")  # ^U: the line is dropped
    drain(seconds=0.02)
os.write(fd, b"exit\n")
drain(seconds=0.05)
with open(out) as f:
    sys.stdout.write(f.read())
os.unlink(out)
