#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The experiments behind docs/security-model.md's table "The session unit
# around bwrap": for each systemd setting the session unit does not set, one
# drop-in for every session unit adds it, and a session of sh and one of
# Node.js (V8's JIT) show whether bwrap and the agents still run under it.
# RemoveIPC= is shown by what it does to the worker's own shared memory.
#
# Run as root where native-runtime is installed with the integration tests'
# configuration and worker (tests/integration/config.yaml, user nrworker,
# owner alice, adapter shell), for example inside the harness:
#   scripts/with-systemd --deb=build-deb/native-runtime_*.deb \
#     --deb=build-deb/native-runtime-tests_*.deb \
#     --config tests/integration/config.yaml -- tests/vm/unit-setting-experiments.sh
# (the harness has no nrworker until a test creates it; this script creates
# the users and directories the integration tests' fixture does when missing).
# It changes only its own drop-in, which it removes again.
set -uo pipefail
dropins=/etc/systemd/system/native-runtime-.service.d
dropin=$dropins/50-unit-setting-experiment.conf

if ! id nrworker >/dev/null 2>&1; then
  groupadd -f nr-callers
  groupadd -f native-runtime
  useradd -m -G nr-callers,native-runtime nrworker
  install -d -o nrworker -g nrworker -m 0750 /var/lib/nr-app-data
  install -d -o nrworker -m 0700 /var/lib/nr-app-secrets
  install -d -o root -g native-runtime -m 2770 /var/lib/nr-snapshots
  busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus ReloadConfig >/dev/null
fi

with_dropin() {
  rm -f "$dropin"
  if [[ -n "$1" ]]; then
    mkdir -p "$dropins"
    printf '[Service]\n%s\n' "$1" >"$dropin"
  fi
  systemctl daemon-reload
}

session() { # CHAT COMMAND...
  local chat=$1
  shift
  timeout 120 runuser -u nrworker -- native-runtimectl run --owner alice --chat "$chat" --adapter shell -- "$@" 2>&1 |
    grep -v -e '^Running as unit' -e '^#* *$' | head -n 4
  echo "exit status ${PIPESTATUS[0]}"
}

for setting in "" ProtectKernelTunables=yes RestrictNamespaces=yes RestrictNamespaces=~cgroup \
  MemoryDenyWriteExecute=yes PrivateDevices=yes ProtectKernelModules=yes ProtectKernelLogs=yes \
  ProtectClock=yes ProtectHostname=yes; do
  echo "== ${setting:-no drop-in (control)}"
  with_dropin "$setting"
  echo "-- sh:"
  session experimentsh sh -c 'echo ran; grep Seccomp_filters /proc/self/status'
  echo "-- node:"
  session experimentnode sh -c 'node -e "let s = 0; for (let i = 0; i < 3e6; i++) s += i; console.log(s)"'
done

echo "== RemoveIPC=yes"
with_dropin RemoveIPC=yes
runuser -u nrworker -- sh -c 'echo worker > /dev/shm/nr-worker-own-shm'
echo "-- before the session: $(ls /dev/shm/nr-worker-own-shm 2>&1)"
session experimentipc sh -c 'echo ran'
sleep 2
echo "-- after the session: $(ls /dev/shm/nr-worker-own-shm 2>&1)"
rm -f /dev/shm/nr-worker-own-shm
with_dropin ""
