#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# scripts/lib/vm-boot.bash - sourced by scripts/with-vm: starts qemu and
# watches the guest until its job has started, so that a guest that cannot
# boot is known within seconds, with the reason, instead of after the whole
# timeout; and keeps, per machine, the verdict that KVM cannot run the guest.
#
# Why the watch: a /dev/kvm can be writable and still unable to run the
# guest (seen on a nested machine: qemu logs "KVM internal error. Suberror:
# 1" with an emulation failure, stops the guest and stays alive; the console
# stays empty). A qemu that exits is the easy case; one that lives on with a
# stopped guest looks like a slow boot unless something looks at it.
#
# The guest says when its job has started: the job's runner (written by
# with-vm onto the job disk) prints VM_JOB_MARKER on the console first thing.
# Until then, the boot has failed when
#   - qemu exits;
#   - qemu's own log has a line of VM_QEMU_FATAL (qemu alive, guest stopped);
#   - the console is still empty after FIRST_OUTPUT seconds;
#   - the console, once written, grows no more for STALL seconds.
#
# Uses with-vm's globals: RUN (console.log and qemu.log are written there),
# QEMU_PID (set by vm_start, emptied once qemu has been waited for), and
# log/vlog for messages.

VM_JOB_MARKER="nr-vm-job: the job has started"
# What qemu prints when the accelerator stops the guest while qemu lives on.
VM_QEMU_FATAL='KVM internal error|emulation failure|kvm run failed|KVM_RUN failed|Failed to get .* KVM'
VM_BOOT_FAILURE=""

# vm_start IMAGE_DIR JOB_IMAGE ACCEL_ARGS... : qemu in the background.
vm_start() {
  local image=$1 job_image=$2
  shift 2
  : >"$RUN/console.log"
  : >"$RUN/qemu.log"
  qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot \
    "$@" -smp "$CPUS" -m "$MEMORY" -nic none \
    -kernel "$image/vmlinuz" -initrd "$image/initrd.img" \
    -append "root=/dev/vda rw console=ttyS0 panic=5 fsck.mode=skip" \
    -drive "file=$image/disk.img,format=raw,if=virtio,snapshot=on" \
    -drive "file=$job_image,format=raw,if=virtio" \
    -device virtio-rng-pci \
    -serial "file:$RUN/console.log" </dev/null >"$RUN/qemu.log" 2>&1 &
  QEMU_PID=$!
  vlog "qemu pid $QEMU_PID ($*)"
}

# vm_stop : TERM, then KILL after 5 s; qemu waited for.
vm_stop() {
  [[ -n "$QEMU_PID" ]] || return 0
  kill -TERM "$QEMU_PID" 2>/dev/null || true
  local _
  for _ in $(seq 50); do
    kill -0 "$QEMU_PID" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$QEMU_PID" 2>/dev/null || true
  wait "$QEMU_PID" 2>/dev/null || true
  QEMU_PID=""
}

# vm_qemu_fatal : prints qemu's first fatal line; fails when there is none.
vm_qemu_fatal() {
  grep -m 1 -E "$VM_QEMU_FATAL" "$RUN/qemu.log" 2>/dev/null
}

# vm_watch_boot FIRST_OUTPUT STALL : 0 once the guest's job has started;
# 1 when the boot failed, with qemu stopped and VM_BOOT_FAILURE saying why.
vm_watch_boot() {
  local first=$1 stall=$2 started=$SECONDS changed=$SECONDS size=0 now_size fatal rc
  local first_seen="" silence=0
  VM_BOOT_FAILURE=""
  while :; do
    # Read before the marker is looked for: an error that came after the
    # marker is the job's, which with-vm's wait for the job reports.
    fatal=$(vm_qemu_fatal) || fatal=""
    if grep -qF "$VM_JOB_MARKER" "$RUN/console.log" 2>/dev/null; then
      vlog "the guest's job started $((SECONDS - started)) s after qemu did (first console output after ${first_seen:-?} s, longest silence before the job ${silence} s)"
      return 0
    fi
    if ! kill -0 "$QEMU_PID" 2>/dev/null; then
      # The marker may have come just before qemu ended (a short job).
      grep -qF "$VM_JOB_MARKER" "$RUN/console.log" 2>/dev/null && return 0
      rc=0
      wait "$QEMU_PID" 2>/dev/null || rc=$?
      QEMU_PID=""
      VM_BOOT_FAILURE="qemu exited with status $rc before the guest's job started"
      [[ ! -s "$RUN/qemu.log" ]] || VM_BOOT_FAILURE+=" ($(tail -n 1 "$RUN/qemu.log"))"
      return 1
    fi
    if [[ -n "$fatal" ]]; then
      VM_BOOT_FAILURE="qemu reported \"$fatal\" and stopped the guest"
      vm_stop
      return 1
    fi
    now_size=$(stat -c %s "$RUN/console.log")
    if ((now_size != size)); then
      [[ -n "$first_seen" ]] || first_seen=$((SECONDS - started))
      ((size == 0 || SECONDS - changed <= silence)) || silence=$((SECONDS - changed))
      size=$now_size
      changed=$SECONDS
    fi
    if ((size == 0 && SECONDS - started >= first)); then
      VM_BOOT_FAILURE="the guest printed nothing on the console within ${first} s"
      vm_stop
      return 1
    fi
    if ((size > 0 && SECONDS - changed >= stall)); then
      VM_BOOT_FAILURE="the guest's console stayed silent for ${stall} s before its job started (the boot hangs)"
      vm_stop
      return 1
    fi
    sleep 0.2
  done
}

# vm_kvm_verdict_file GUEST_KERNEL : where the verdict that KVM cannot run
# this guest is kept. It holds for this machine's kernel, CPU and qemu and
# for that guest kernel: any of them changed, KVM is tried again.
vm_kvm_verdict_file() {
  local key
  key="$(
    {
      uname -r
      qemu-system-x86_64 --version | head -n 1
      grep -m 1 '^model name' /proc/cpuinfo || true
      sha256sum <"$1"
    } | sha256sum | cut -c1-16
  )"
  echo "${NR_CI_CACHE:-/var/cache/native-runtime-ci}/vm-kvm-unusable-$key"
}

# vm_kvm_known_unusable FILE MAX_AGE_DAYS : prints the kept reason when a
# verdict younger than MAX_AGE_DAYS says KVM cannot run the guest.
vm_kvm_known_unusable() {
  [[ -f "$1" && -z "$(find "$1" -maxdepth 0 -mtime +"$2")" ]] || return 1
  cat "$1"
}

# vm_kvm_record_unusable FILE REASON : keeps the verdict (written whole, then
# renamed: a run reading it at the same time sees all of it or nothing).
vm_kvm_record_unusable() {
  mkdir -p "$(dirname "$1")"
  printf '%s (%s)\n' "$2" "$(date -u +%FT%TZ)" >"$1.tmp.$$"
  mv -f "$1.tmp.$$" "$1"
}
