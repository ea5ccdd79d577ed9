#!/usr/bin/env python3
"""What the launcher would do for `network: gateway`, before it execs bwrap.

Runs as the session's (unprivileged) user:
  1. unshare(CLONE_NEWUSER | CLONE_NEWNET): a user namespace that maps only
     the caller's own uid and gid, and a network namespace owned by it, so
     the process holds CAP_NET_ADMIN there (and nowhere else) until it execs;
  2. brings the namespace's loopback up (SIOCSIFFLAGS);
  3. with --pass-listener: binds and listens on 127.0.0.1:PORT *inside*
     that namespace and hands the listening socket over SCM_RIGHTS to the
     gateway's control socket, named with the session, then closes its own
     copy: the gateway, outside every sandbox, accepts on it. Nothing that
     runs in the sandbox later ever calls listen() or accept(), so the
     agent's seccomp program keeps its ban;
     with --ready-fd/--go-fd: tells the runner the namespace exists and waits
     until the runner has attached slirp4netns to it;
  4. execs the rest of its argv (bwrap --share-net ...: bwrap keeps this
     network namespace and nests its own user namespace).

usage: prelaunch.py [--pass-listener CONTROL SESSION PORT]
                    [--ready-fd N --go-fd M] -- COMMAND...
"""

import ctypes
import fcntl
import os
import socket
import struct
import sys
import time

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1


def die(message):
    sys.stderr.write("prelaunch: %s\n" % message)
    sys.exit(70)


def enter_namespaces():
    uid, gid = os.getuid(), os.getgid()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0:
        die("unshare: %s" % os.strerror(ctypes.get_errno()))
    for name, text in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)),
                       ("gid_map", "%d %d 1" % (gid, gid))):
        with open("/proc/self/" + name, "w") as out:
            out.write(text)
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    flags = struct.unpack("16sH", fcntl.ioctl(probe, SIOCGIFFLAGS, struct.pack("16sH14x", b"lo", 0))[:18])[1]
    fcntl.ioctl(probe, SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | IFF_UP))
    probe.close()


def pass_listener(control, session, port):
    listener = socket.create_server(("127.0.0.1", port), backlog=64)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as channel:
        channel.connect(control)
        socket.send_fds(channel, [session.encode()], [listener.fileno()])
        if channel.recv(2) != b"ok":
            die("the gateway refused the listener")
    listener.close()


def main():
    args = sys.argv[1:]
    if "--" not in args:
        die("usage: prelaunch.py [options] -- COMMAND...")
    split = args.index("--")
    options, command = args[:split], args[split + 1:]
    begin = time.monotonic_ns()
    enter_namespaces()
    if options[:1] == ["--pass-listener"]:
        pass_listener(options[1], options[2], int(options[3]))
    elif options[:1] == ["--ready-fd"]:
        ready, go = int(options[1]), int(options[3])
        sys.stderr.write("prelaunch: setup_us=%d\n" % ((time.monotonic_ns() - begin) // 1000))
        sys.stderr.flush()
        os.write(ready, b"r")
        os.close(ready)
        if os.read(go, 1) != b"g":
            die("the runner gave up")
        os.close(go)
    elif options:
        die("unknown options: %s" % options)
    if options[:1] != ["--ready-fd"]:
        sys.stderr.write("prelaunch: setup_us=%d\n" % ((time.monotonic_ns() - begin) // 1000))
        sys.stderr.flush()
    os.execvp(command[0], command)


if __name__ == "__main__":
    main()
