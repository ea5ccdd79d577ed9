// SPDX-License-Identifier: Apache-2.0
// nr-bench-loop: a syscall-heavy loop for bench/run. It times N iterations
// of a few cheap system calls itself (so process start-up and the sandbox's
// set-up are not in the figure) and prints "<name>_cpu_ns=<ns per call>"
// (this thread's CPU time, user and kernel: what a busy machine's run queue
// does not inflate) and "<name>_wall_ns=<ns per call>" lines. The same
// binary runs inside a session and outside one; the ratio of the two is the
// sandbox's per-syscall overhead (seccomp filters, mount namespace path
// walks).

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>

namespace {

struct PerCall {
    double cpu_ns = -1.0;
    double wall_ns = -1.0;
};

double now_ns(clockid_t clock)
{
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

template <typename Body> PerCall time_per_call(long iterations, Body body)
{
    const double cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    const double wall0 = now_ns(CLOCK_MONOTONIC);
    for (long i = 0; i < iterations; ++i) {
        if (!body()) {
            std::perror("nr-bench-loop");
            return {};
        }
    }
    const auto n = static_cast<double>(iterations);
    return {(now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0) / n, (now_ns(CLOCK_MONOTONIC) - wall0) / n};
}

bool report(const char* name, const PerCall& t)
{
    if (t.cpu_ns < 0) {
        return false;
    }
    std::printf("%s_cpu_ns=%.1f\n%s_wall_ns=%.1f\n", name, t.cpu_ns, name, t.wall_ns);
    return true;
}

// How many seccomp filters this process runs on every system call.
std::string seccomp_filters()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.starts_with("Seccomp_filters:")) {
            const auto value = line.find_first_not_of(" \t", line.find(':') + 1);
            return value == std::string::npos ? "?" : line.substr(value);
        }
    }
    return "?";
}

// Every allowed path the agent touches goes through the same lookups; /usr
// is a read-only bind mount inside the sandbox and the host's tree outside.
constexpr const char* kStatPath = "/usr/bin/sh";
constexpr const char* kOpenPath = "/etc/passwd";

} // namespace

int main(int argc, char** argv)
{
    long iterations = 0;
    const std::string_view arg = argc == 2 ? argv[1] : "";
    const auto [end, error] = std::from_chars(arg.data(), arg.data() + arg.size(), iterations);
    if (argc != 2 || error != std::errc{} || end != arg.data() + arg.size() || iterations <= 0) {
        std::fprintf(stderr, "usage: nr-bench-loop ITERATIONS\n");
        return 64;
    }
    std::printf("iterations=%ld\nseccomp_filters=%s\n", iterations, seccomp_filters().c_str());
    struct stat st {};
    const bool ok = report("getpid", time_per_call(iterations, [] { return syscall(SYS_getpid) > 0; })) &&
                    report("stat", time_per_call(iterations, [&st] { return stat(kStatPath, &st) == 0; })) &&
                    report("open_close", time_per_call(iterations, [] {
                               const int fd = open(kOpenPath, O_RDONLY | O_CLOEXEC);
                               return fd >= 0 && close(fd) == 0;
                           }));
    return ok ? 0 : 1;
}
