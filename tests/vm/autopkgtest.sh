#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/vm/autopkgtest.sh DEB... - run inside a booted VM by
# tests/install/run-vm, from a staged tree that holds debian/: runs the
# package's autopkgtests (debian/tests/control) with Debian's own runner,
# autopkgtest, on this very machine (the null virtualisation server), with
# the given packages as the ones under test.
#
# Their restriction isolation-machine asks for a testbed that is a whole
# machine of its own, which the null server cannot promise in general and
# so does not claim; this VM is exactly that (booted for this run, thrown
# away after it), hence --ignore-restrictions=isolation-machine and nothing
# else. The VM has no network: apt resolves the tests' Depends from the
# given packages and what the image already holds.
set -euo pipefail
(($#)) || {
  echo "usage: tests/vm/autopkgtest.sh DEB..." >&2
  exit 2
}
out=$(mktemp -d /tmp/autopkgtest-out.XXXXXX)
rmdir "$out"
status=0
autopkgtest --ignore-restrictions=isolation-machine --no-built-binaries --output-dir "$out" \
  "$@" ./ -- null || status=$?
echo "== autopkgtest summary (exit $status) =="
cat "$out/summary" 2>/dev/null || echo "(no summary written)"
# autopkgtest's exit status: 0 all passed, 2 some skipped, other failures.
# A skipped test here would be a test that did not run: fail.
if ((status != 0)); then
  echo "== the last lines of autopkgtest's log ==" >&2
  tail -n 80 "$out/log" >&2 || true
  # The log holds the runner's apt output but not what a test printed:
  # that is in <test>-stdout and <test>-stderr, which the VM takes with it.
  for printed in "$out"/*-stdout "$out"/*-stderr; do
    [[ -s "$printed" ]] || continue
    echo "== $(basename "$printed") ==" >&2
    tail -n 60 "$printed" >&2
  done
  echo "autopkgtest: exit status $status (2: a test was skipped; 4: a test failed; see autopkgtest(1))" >&2
  exit 1
fi
