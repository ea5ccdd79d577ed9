#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/vm/check-host.sh CMD [ARG...] - run inside a booted VM by the
# run-vm scripts (tests/install/run-vm, tests/integration/run-vm): prints
# what host this is, refuses to go on unless it is a host of the kind the
# packages are for (cgroup v2 only, systemd booted as PID 1), then runs CMD.
# A test that ran elsewhere would show nothing about real hosts.
set -euo pipefail
kernel=$(uname -r)
manager=$(systemctl --version | head -n 1)
cgroups=$(stat -fc %T /sys/fs/cgroup)
state=$(systemctl is-system-running || true)
echo "host: kernel $kernel | $manager | /sys/fs/cgroup $cgroups | system $state"
if [[ "$cgroups" != cgroup2fs ]]; then
  echo "check-host: not a cgroup-v2-only host" >&2
  exit 1
fi
if [[ "$(cat /proc/1/comm)" != systemd || ! ("$state" == running || "$state" == degraded) ]]; then
  echo "check-host: systemd has not booted as PID 1" >&2
  exit 1
fi
exec "$@"
