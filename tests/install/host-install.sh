#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Runs as root inside a private systemd with nothing of ours installed, from
# the checkout (tests/install/run). Executes the shell blocks of README.md's
# "Install on a host" section exactly as written, and checks what they did:
#   1. the build block is the command scripts/test built the packages with;
#   2. before the README: what the application would bring (its worker user
#      and unit), and the packaged config refused with a clear message;
#   3. the install block (install, config, drop-in, preflight, a session,
#      systemctl and journalctl); then the installed layout;
#   4. the uninstall block (purge); then nothing of ours is left but the
#      group (which still owns the snapshot dir), and the
#      application's data, the owner's files and the snapshot dir's contents
#      are still there.
set -euo pipefail
readme=README.md
fails=0
pass() { echo "ok - $*"; }
fail() {
  echo "not ok - $*"
  fails=$((fails + 1))
}
check() { # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then pass "$what"; else fail "$what"; fi
}

# The lines of the ```sh block between "<!-- host-install:NAME -->" and the
# next "<!-- host-install:end -->".
block() {
  awk -v start="<!-- host-install:$1 -->" '
    $0 == start { inside = 1; next }
    inside && $0 == "<!-- host-install:end -->" { exit }
    inside && /^```/ { next }
    inside { print }' "$readme"
}

out=$(mktemp)
trap 'rm -f "$out"' EXIT

# 1. the build command
build=$(block build)
check "README builds the packages with scripts/build-deb" test "$build" = "bash scripts/build-deb"

# 2. what the application brings
useradd --system --create-home --home-dir /var/lib/metis-worker-home metis-worker
printf '[Unit]\nDescription=stand-in for the application worker\n[Service]\nExecStart=/bin/sleep infinity\n' \
  >/etc/systemd/system/metis-worker.service
systemctl daemon-reload

# 3. install
install_block=$(block install)
[[ -n "$install_block" ]] || fail "README has an install block"
set +e
bash -euo pipefail -c "$install_block" >"$out" 2>&1
status=$?
set -e
sed 's/^/  | /' "$out"
check "the README's install steps succeed" test "$status" = 0
check "preflight passed every check" grep -q '^PASS dropins:' "$out"
check "preflight failed no check" bash -c "! grep -q '^FAIL ' '$out'"
check "the session ran as the worker in its workspace" grep -q '^hello from metis-worker in /' "$out"
check "systemctl showed the session unit running" grep -q 'Active: active (running)' "$out"
check "native-runtimectl list showed the session" grep -q 'alice' "$out"
check "journalctl showed the helper" grep -q 'native-runtimed' "$out"

# The installed layout: the distribution's directories.
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null || echo /lib/systemd/system)
for f in /usr/bin/native-runtimectl /usr/libexec/native-runtime/native-runtimed \
  /usr/libexec/native-runtime/native-runtime-launch /usr/libexec/native-runtime/native-runtime-claim \
  /usr/libexec/native-runtime/native-runtime-supervise \
  /usr/libexec/native-runtime/native-runtime-gateway \
  "$unitdir/native-runtimed.service" "$unitdir/native-runtime-gateway.service" \
  "$unitdir/native-runtime-gateway.socket" \
  "$unitdir/nativeruntime.slice" /usr/share/dbus-1/system-services/org.metis.NativeRuntime1.service \
  /usr/share/dbus-1/system.d/org.metis.NativeRuntime1.conf /usr/lib/sysusers.d/native-runtime.conf \
  /usr/share/polkit-1/actions/org.metis.NativeRuntime1.policy \
  /usr/lib/tmpfiles.d/native-runtime.conf /usr/share/man/man1/native-runtimectl.1.gz \
  /usr/share/bash-completion/completions/native-runtimectl /usr/share/zsh/vendor-completions/_native-runtimectl \
  /usr/share/fish/vendor_completions.d/native-runtimectl.fish; do
  check "installed: $f" test -e "$f"
done
# Version identity: every binary names the package's version, and the helper
# logged it when it started.
pkg_version="$(dpkg-query -W -f='${Version}' native-runtime)"
for prog in /usr/bin/native-runtimectl /usr/libexec/native-runtime/native-runtimed \
  /usr/libexec/native-runtime/native-runtime-launch /usr/libexec/native-runtime/native-runtime-claim \
  /usr/libexec/native-runtime/native-runtime-supervise \
  /usr/libexec/native-runtime/native-runtime-gateway; do
  check "$prog --version names the package version" \
    bash -c "'$prog' --version | grep -q '^$(basename "$prog") $pkg_version\( (git [0-9a-f]*\(-dirty\)\?)\)\?\$'"
done
check "the helper logged its version at start" \
  bash -c "journalctl --no-pager -u native-runtimed.service | grep -q 'native-runtimed $pkg_version.* starting'"
check "no test probe in the operator package" bash -c '! dpkg -L native-runtime | grep -q -e nr-probe -e nr-bench-loop -e nr-plan'
# shellcheck disable=SC2016 # expanded by the inner bash
check "config.yaml is a conffile" bash -c 'dpkg-query -W -f="\${Conffiles}" native-runtime | grep -q /etc/native-runtime/config.yaml'
check "state directory is root-only" test "$(stat -c %a:%U /var/lib/native-runtime)" = 700:root
check "the gateway's key store is root-only" \
  test "$(stat -c %a:%U /etc/native-runtime/gateway-credentials)" = 700:root
check "the supervisor is execute-only (non-dumpable from its exec)" \
  test "$(stat -c %a:%U /usr/libexec/native-runtime/native-runtime-supervise)" = 711:root
check "the launcher is execute-only (non-dumpable from its exec, while it holds the helper channel)" \
  test "$(stat -c %a:%U /usr/libexec/native-runtime/native-runtime-launch)" = 711:root
check "snapshot dir is 2770 with the worker group" \
  test "$(stat -c %a:%G /var/lib/metis-snapshots)" = 2770:native-runtime
notes=$(find /var/lib/metis -name notes.txt -print -quit 2>/dev/null || true)
check "the session's file is in the application's data" test -n "$notes"

# The packaged config: a commented example the helper refuses by name.
cp /etc/native-runtime/config.yaml "$out.mine"
dpkg-deb --fsys-tarfile ./build-deb/native-runtime_*.deb | tar -xOf - ./etc/native-runtime/config.yaml >"$out.example"
cp "$out.example" /etc/native-runtime/config.yaml
set +e
native-runtimectl preflight >"$out" 2>&1
status=$?
set -e
cp "$out.mine" /etc/native-runtime/config.yaml
rm -f "$out.mine" "$out.example"
check "the packaged config is refused (exit 78, configuration invalid)" test "$status" = 78
check "...naming the reason: no settings" grep -q 'no settings (the file is empty or only comments)' "$out"

# The late drop-in wants the helper: started with the application, as at
# boot, it runs its checks before any call, so the first session does not
# wait for them.
systemctl stop native-runtimed.service
rm -f /var/lib/native-runtime/preflight-canary
systemctl restart metis-worker.service
check "the helper started with the application" systemctl is-active --quiet native-runtimed.service
for _ in $(seq 600); do
  test -e /var/lib/native-runtime/preflight-canary && break
  sleep 0.1
done
check "...and passed its canary before any call" test -e /var/lib/native-runtime/preflight-canary
# An upgrade (here the same package again) starts the running helper anew,
# on the new binary, instead of leaving the next call to activate it.
helper_before=$(systemctl show -P MainPID native-runtimed.service)
set +e
dpkg -i ./build-deb/native-runtime_*.deb >"$out" 2>&1
status=$?
set -e
sed 's/^/  | /' "$out"
check "the upgrade succeeds" test "$status" = 0
check "...and the helper runs again, a new process" \
  bash -c "systemctl is-active --quiet native-runtimed.service && test \"\$(systemctl show -P MainPID native-runtimed.service)\" != '$helper_before'"

# What the application keeps in the snapshot dir, and a session still
# running when the package goes: removal stops it with the helper.
echo before >/var/lib/metis-snapshots/kept.snapshot
# An operator's provider key (its content does not matter to the package).
echo 'not a real key' >/etc/native-runtime/gateway-credentials/kept-provider
runuser -u metis-worker -- native-runtimectl run --owner alice --chat long --adapter shell -- sh -c 'sleep 600' \
  >"$out.long" 2>&1 &
for _ in $(seq 100); do
  systemctl is-active --quiet native-runtime-alice-long.service && break
  sleep 0.1
done
check "a session runs before the uninstall" systemctl is-active --quiet native-runtime-alice-long.service

# 4. uninstall
uninstall_block=$(block uninstall)
set +e
bash -euo pipefail -c "$uninstall_block" >"$out" 2>&1
status=$?
set -e
sed 's/^/  | /' "$out"
check "the README's uninstall steps succeed" test "$status" = 0
# shellcheck disable=SC2016 # expanded by the inner bash
check "package purged" bash -c '! dpkg-query -W -f="\${Status}" native-runtime 2>/dev/null | grep -q installed'
for f in "$unitdir/native-runtimed.service" "$unitdir/nativeruntime.slice" \
  /usr/share/dbus-1/system-services/org.metis.NativeRuntime1.service \
  /usr/share/dbus-1/system.d/org.metis.NativeRuntime1.conf /usr/lib/sysusers.d/native-runtime.conf \
  /usr/share/polkit-1/actions/org.metis.NativeRuntime1.policy \
  /usr/lib/tmpfiles.d/native-runtime.conf /etc/native-runtime/config.yaml /var/lib/native-runtime \
  /usr/libexec/native-runtime /etc/systemd/system/metis-worker.service.d/zz-native-runtime.conf \
  /etc/systemd/system/native-runtimed.service.d/zz-native-runtime.conf; do
  check "gone: $f" test ! -e "$f"
done
# Kept, so that the snapshot dir kept below has no dangling group owner.
check "group native-runtime kept" getent group native-runtime
check "...and purge said so" grep -q 'kept the group native-runtime' "$out"
check "the running session was stopped with the package" \
  bash -c '! systemctl is-active --quiet native-runtime-alice-long.service'
wait || true
rm -f "$out.long"
# shellcheck disable=SC2016 # expanded by the inner bash
check "systemd no longer knows the helper" \
  bash -c '[[ "$(systemctl show -p LoadState --value native-runtimed.service)" == not-found ]]'
check "the bus no longer activates the helper" bash -c '! busctl list --activatable | grep -q org.metis.NativeRuntime1'
# The session's CLI was waiting when the package went: had it seen the
# helper stop before its session's end, it would have revived it, and that
# helper would answer the next install with this one's config.
# shellcheck disable=SC2016 # expanded by the inner bash
check "no helper runs on: nothing owns org.metis.NativeRuntime1" \
  bash -c '[[ "$(busctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus NameHasOwner s org.metis.NativeRuntime1)" == "b false" ]]'
check "the application's data survives" test -f "$notes"
check "the snapshot dir's contents survive" test -f /var/lib/metis-snapshots/kept.snapshot
check "...in a directory still owned by the group native-runtime" \
  test "$(stat -c %G /var/lib/metis-snapshots)" = native-runtime
check "the operator's provider key survives" test -f /etc/native-runtime/gateway-credentials/kept-provider
check "...and is all that is left in /etc/native-runtime" \
  test "$(cd /etc/native-runtime && find . | sort | tr '\n' ' ')" = '. ./gateway-credentials ./gateway-credentials/kept-provider '
check "...and purge said it kept it" grep -q "kept the gateway's provider keys in /etc/native-runtime/gateway-credentials" "$out"
check "the worker's home survives" test -d /var/lib/metis-worker-home

if ((fails)); then
  echo "host-install: $fails check(s) failed"
  exit 1
fi
echo "host-install: all checks passed"
