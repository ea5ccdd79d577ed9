#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The experiment behind issue 29's launch path: does this host's systemd
take ExtraFileDescriptors= in StartTransientUnit, and what does a hardened
transient service running as an unprivileged user receive?

It starts, as root over the system bus (python3-jeepney, with descriptor
passing), transient services whose ExecStart is a shell that reports
LISTEN_PID/LISTEN_FDS/LISTEN_FDNAMES, its descriptors, the seals and owner
of descriptor 3 and what it reads there. The descriptors handed over are a
sealed memfd (the spec) and one end of a socketpair (a channel back). Each
case prints the reply or the error systemd gave, and the service's journal.

Run as root on a host where systemd is PID 1, for example a booted VM:
  scripts/with-vm --release trixie --copy tests/vm/extra-fds-experiment.py \
    -- python3 /root/extra-fds-experiment.py
On systemd < 257 every case is expected to be refused; the error is what the
helper's choice between the two launch paths would see.

Results (2026-12-05, booted VMs of scripts/with-vm):
- Debian 13, systemd 257.13: both cases start. The service, uid 65534, gets
  LISTEN_PID equal to its own pid, LISTEN_FDS=1 (or 2) and
  LISTEN_FDNAMES=nr-launch-spec (or nr-launch-spec:nr-helper-channel); fd 3
  is the memfd, still owned by uid 0, seals 0xf (all four), its content
  readable and a write refused (EPERM); fd 4 the socket. The hardened
  settings change none of it.
- Debian 12 + backports, systemd 252.39: both refused with
  org.freedesktop.DBus.Error.PropertyReadOnly "Cannot set property
  ExtraFileDescriptors, or unknown property."
"""

import fcntl
import os
import socket
import subprocess
import time

from jeepney import DBusAddress, HeaderFields, new_method_call
from jeepney.io.blocking import open_dbus_connection

MANAGER = DBusAddress("/org/freedesktop/systemd1", bus_name="org.freedesktop.systemd1",
                      interface="org.freedesktop.systemd1.Manager")

REPORT = r"""
echo "uid=$(id -u) pid=$$ LISTEN_PID=${LISTEN_PID-unset} LISTEN_FDS=${LISTEN_FDS-unset} LISTEN_FDNAMES=${LISTEN_FDNAMES-unset}"
for fd in /proc/self/fd/*; do echo "fd ${fd##*/} -> $(readlink "$fd")"; done
python3 - <<'EOF'
import fcntl, os
try:
    st = os.fstat(3)
    print("fd 3: owner", st.st_uid, "size", st.st_size, "seals", hex(fcntl.fcntl(3, fcntl.F_GET_SEALS)))
    print("fd 3 reads:", os.pread(3, 64, 0))
except OSError as e:
    print("fd 3:", e)
try:
    os.write(3, b"x")
    print("fd 3: a write went through")
except OSError as e:
    print("fd 3: write refused:", e.strerror)
EOF
"""


def sealed_memfd(data):
    fd = os.memfd_create("nr-spec-experiment", os.MFD_ALLOW_SEALING)
    os.write(fd, data)
    fcntl.fcntl(fd, fcntl.F_ADD_SEALS,
                fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE)
    return fd


def start(conn, name, extra_fds, hardened):
    props = [
        # systemd expands $NAME in ExecStart= itself; $$ passes a $ to sh.
        ("ExecStart", ("a(sasb)", [("/bin/sh", ["sh", "-c", REPORT.replace("$", "$$")], False)])),
        ("Type", ("s", "exec")),
        ("User", ("s", "nobody")),
        ("StandardOutput", ("s", "journal")),
        ("ExtraFileDescriptors", ("a(hs)", extra_fds)),
    ]
    if hardened:
        props += [
            ("PrivateUsers", ("b", True)),
            ("ProtectSystem", ("s", "strict")),
            ("ProtectHome", ("s", "yes")),
            ("PrivateTmp", ("b", True)),
            ("PrivateMounts", ("b", True)),
            ("DevicePolicy", ("s", "closed")),
            ("NoNewPrivileges", ("b", True)),
        ]
    msg = new_method_call(MANAGER, "StartTransientUnit", "ssa(sv)a(sa(sv))", (name, "fail", props, []))
    reply = conn.send_and_get_reply(msg, timeout=30)
    return reply.header.message_type.name, reply.header.fields.get(HeaderFields.error_name, ""), reply.body


def journal_of(name):
    for _ in range(50):
        state = subprocess.run(["systemctl", "is-active", name], capture_output=True, text=True).stdout.strip()
        if state not in ("active", "activating"):
            break
        time.sleep(0.1)
    subprocess.run(["journalctl", "--sync"], check=False)
    return subprocess.run(["journalctl", "-q", "-o", "cat", "-u", name], capture_output=True, text=True).stdout


def main():
    print(subprocess.run(["systemctl", "--version"], capture_output=True, text=True).stdout.splitlines()[0])
    conn = open_dbus_connection(bus="SYSTEM", enable_fds=True)
    spec = sealed_memfd(b"the launch spec")
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    cases = [
        ("nr-extra-fds-plain.service", [(spec, "nr-launch-spec")], False),
        ("nr-extra-fds-hardened.service", [(spec, "nr-launch-spec"), (theirs.fileno(), "nr-helper-channel")], True),
    ]
    for name, fds, hardened in cases:
        kind, error, body = start(conn, name, fds, hardened)
        print(f"== {name}: {kind} {error} {body}")
        if kind == "method_return":
            print(journal_of(name))
            shown = subprocess.run(["systemctl", "show", name, "-p", "ExtraFileDescriptorNames"],
                                   capture_output=True, text=True).stdout.strip()
            print(f"systemctl show: {shown!r}")
            subprocess.run(["systemctl", "reset-failed", name], check=False, capture_output=True)
    ours.close()


if __name__ == "__main__":
    main()
