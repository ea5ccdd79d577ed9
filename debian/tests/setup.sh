# SPDX-License-Identifier: Apache-2.0
# Sourced by each autopkgtest: what the application would bring (a worker
# user and its unit) and the configuration the README's host install writes,
# for a worker named nr-apt-worker. Safe to run again.
set -euo pipefail
worker=nr-apt-worker
data=/var/lib/nr-apt-data
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
pass() { echo "ok - $*"; }

if ! getent passwd "$worker" >/dev/null; then
  useradd --system --create-home --home-dir "/var/lib/$worker-home" "$worker"
fi
usermod -aG native-runtime "$worker"
install -d -o "$worker" -g "$worker" -m 0750 "$data"
if [[ ! -e /etc/systemd/system/$worker.service ]]; then
  printf '[Unit]\nDescription=stand-in for the application worker\n[Service]\nExecStart=/bin/sleep infinity\n' \
    >"/etc/systemd/system/$worker.service"
  systemctl daemon-reload
fi
cat >/etc/native-runtime/config.yaml <<YAML
data_dir: $data
app_units: [$worker.service]
callers:
  users: [$worker]
sandbox:
  read_only_paths: [/usr, /etc/ld.so.cache, /etc/passwd, /etc/group, /etc/nsswitch.conf]
adapters:
  shell:
    executable: /usr/bin/sh
YAML
native-runtimectl install-dropins >/dev/null

# run OWNER CHAT SCRIPT: a session of the shell adapter as the worker; its
# output on stdout.
run() {
  runuser -u "$worker" -- native-runtimectl run --owner "$1" --chat "$2" --adapter shell -- sh -c "$3"
}
