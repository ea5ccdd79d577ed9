// SPDX-License-Identifier: Apache-2.0
// Empty but in an AddressSanitizer build (scripts/test's ASan/UBSan lane).
// The launcher is installed execute-only, so it is non-dumpable from its
// exec on, and the sanitizer runtime, which reads ASAN_OPTIONS from
// /proc/self/environ, cannot open that file (it is root's then). These
// defaults stand in for the options it cannot read: no leak check, since
// LeakSanitizer stops the world with ptrace, which a non-dumpable process
// refuses, and would end every refused launch with status 1 instead of 125.
// Everything else keeps its default: an error still aborts the launch, with
// its report on the session's stderr.

#if defined(__SANITIZE_ADDRESS__)
// NOLINTNEXTLINE(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp): the runtime's hook
extern "C" const char* __asan_default_options()
{
    return "detect_leaks=0";
}
#endif
