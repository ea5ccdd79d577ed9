#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/lib/cached-build.bash - sourced by scripts/build-trixie and
# scripts/with-vm: one artefact (a directory) cached under the CI cache,
# made once for each key and shared by the runs that come after.
#
#   nr_cached_build NAME KEY MAX_AGE_DAYS REBUILD PRUNE MAKE_FN [ARG...]
#
# prints CACHE/NAME-KEY (CACHE = $NR_CI_CACHE, default
# /var/cache/native-runtime-ci) once it exists. The key is a hash of what
# goes into the artefact (a package list, a recipe), so a changed input makes
# a new one. When it is missing, older than MAX_AGE_DAYS (Debian's point
# releases and security updates come in) or REBUILD is 1, MAKE_FN TMPDIR
# [ARG...] is called to make it in a temporary directory next to it, which
# is then renamed into place: an interrupted make never leaves a half-made
# artefact behind. Creators take CACHE/NAME.lock, one at a time; readers of a
# finished artefact need no lock (a rename or removal does not disturb a
# file already open). PRUNE says what happens to the other keys' artefacts
# of NAME once a new one is in place: "others" removes them all (one root in
# use at a time), "stale" only those older than MAX_AGE_DAYS (several keys
# in use side by side).
# Returns 1, leaving nothing behind, when MAKE_FN fails.

nr_cached_build() {
  local name=$1 key=$2 max_age=$3 rebuild=$4 prune=$5 make=$6
  shift 6
  local cache="${NR_CI_CACHE:-/var/cache/native-runtime-ci}"
  local base="$cache/$name-$key" tmp lock
  mkdir -p "$cache"
  exec {lock}>"$cache/$name.lock"
  flock "$lock"
  if [[ -d "$base" ]] && { ((rebuild)) || [[ -n "$(find "$base" -maxdepth 0 -mtime +"$max_age")" ]]; }; then
    echo "${0##*/}: discarding $base" >&2
    mv -T "$base" "$base.old.$$" && rm -rf "$base.old.$$"
  fi
  if [[ ! -d "$base" ]]; then
    # Under the lock, a temporary directory is a leftover of a killed run.
    find "$cache" -maxdepth 1 -name "tmp.$name.*" -exec rm -rf {} +
    tmp="$cache/tmp.$name.$$"
    if ! "$make" "$tmp" "$@"; then
      rm -rf "$tmp"
      exec {lock}>&-
      return 1
    fi
    mv -T "$tmp" "$base"
    case "$prune" in
      others)
        find "$cache" -maxdepth 1 -name "$name-*" ! -name "$name-$key" ! -name '*.lock' -exec rm -rf {} +
        ;;
      stale)
        find "$cache" -maxdepth 1 -name "$name-*" ! -name "$name-$key" ! -name '*.lock' \
          -mtime +"$max_age" -exec rm -rf {} +
        ;;
    esac
  fi
  exec {lock}>&-
  echo "$base"
}
