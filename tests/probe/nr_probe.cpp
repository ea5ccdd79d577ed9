// SPDX-License-Identifier: Apache-2.0
// nr-probe: tries one thing and prints what happened, in the manner of
// bubblewrap's try-syscall test helper. Integration tests run it inside a
// session and, as a positive control, outside one; each verb prints
// "<verb>=<result>" lines where result is "ok" or an errno name.

#include "attempts.h"
#include "escapes.h"
#include "hogs.h"

#include <arpa/inet.h>
#include <linux/io_uring.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string errno_name(int err)
{
    switch (err) {
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case ENOSYS: return "ENOSYS";
    case EROFS: return "EROFS";
    case ELOOP: return "ELOOP";
    case EXDEV: return "EXDEV";
    case EINVAL: return "EINVAL";
    case ENOTDIR: return "ENOTDIR";
    case ECONNREFUSED: return "ECONNREFUSED";
    case ENETUNREACH: return "ENETUNREACH";
    case EHOSTUNREACH: return "EHOSTUNREACH";
    default: return "errno" + std::to_string(err);
    }
}

std::string outcome(bool ok)
{
    return ok ? "ok" : errno_name(errno);
}

std::vector<std::string> list_dir(const std::string& path)
{
    std::vector<std::string> names;
    DIR* dir = opendir(path.c_str());
    if (dir == nullptr) {
        return names;
    }
    while (const dirent* entry = readdir(dir)) {
        const std::string name = entry->d_name;
        if (name != "." && name != "..") {
            names.push_back(name);
        }
    }
    closedir(dir);
    return names;
}

bool is_number(const std::string& text)
{
    return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

std::string read_all(const std::string& path, bool& ok)
{
    std::ifstream in(path, std::ios::binary);
    ok = static_cast<bool>(in);
    std::stringstream text;
    if (ok) {
        text << in.rdbuf();
    }
    return text.str();
}

int verb_read(const std::string& path)
{
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    std::cout << "read=" << outcome(fd >= 0) << '\n';
    if (fd >= 0) {
        close(fd);
    }
    return 0;
}

int verb_write(const std::string& path)
{
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    std::cout << "write=" << outcome(fd >= 0) << '\n';
    if (fd >= 0) {
        close(fd);
    }
    return 0;
}

bool exchange(const std::string& a, const std::string& b)
{
    if (syscall(SYS_renameat2, AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) != 0) {
        std::cout << "exchange=" << errno_name(errno) << '\n';
        return false;
    }
    return true;
}

void sleep_us(long us)
{
    timespec pause{0, us * 1000};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
    }
}

// Swaps two names atomically (renameat2 RENAME_EXCHANGE) for `seconds`: the
// worker-side attacker that races the helper's check of a workspace against
// the sandbox's bind of it. Without `swapped_us`, as fast as it can, so each
// name is swapped half of the time. With it, in cycles of 1 ms: swapped for
// `swapped_us`, back for the rest. A launch looks at the name several times
// (the helper, systemd's ReadWritePaths=, the launcher, bwrap); at one half
// hardly any launch passes all of them on a slow machine, and then the test
// cannot show that launches in the real workspace still run.
int verb_exchange_loop(const std::string& a, const std::string& b, const std::string& seconds, long swapped_us)
{
    constexpr long kCycleUs = 1000;
    const auto end = std::time(nullptr) + std::stol(seconds);
    long swaps = 0;
    while (std::time(nullptr) < end) {
        if (!exchange(a, b)) {
            return 1;
        }
        if (swapped_us > 0) {
            sleep_us(swapped_us);
            if (!exchange(a, b)) {
                return 1;
            }
            sleep_us(kCycleUs - swapped_us);
        }
        ++swaps;
    }
    std::cout << "exchange=ok\nswaps=" << swaps << '\n';
    return 0;
}

int verb_listen()
{
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    const bool bound = fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    std::cout << "bind=" << outcome(bound) << '\n';
    std::cout << "listen=" << outcome(bound && listen(fd, 1) == 0) << '\n';
    return 0;
}

int verb_io_uring()
{
    io_uring_params params{};
    const long fd = syscall(SYS_io_uring_setup, 1, &params);
    std::cout << "io_uring_setup=" << outcome(fd >= 0) << '\n';
    if (fd >= 0) {
        close(static_cast<int>(fd));
    }
    return 0;
}

int verb_pids()
{
    int count = 0;
    std::string pids;
    for (const auto& name : list_dir("/proc")) {
        if (is_number(name)) {
            ++count;
            pids += (pids.empty() ? "" : ",") + name;
        }
    }
    std::cout << "pid_count=" << count << "\npids=" << pids << '\n';
    return 0;
}

// The canary arrives hex-encoded so that this probe's own argv, which is
// also under /proc, does not contain it.
std::string decode_hex(const std::string& hex)
{
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
        out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
    }
    return out;
}

int verb_find_canary(const std::string& canary_hex)
{
    const auto canary = decode_hex(canary_hex);
    std::string found;
    for (const auto& name : list_dir("/proc")) {
        if (!is_number(name) && name != "self") {
            continue;
        }
        for (const char* file : {"environ", "cmdline"}) {
            const auto path = "/proc/" + name + "/" + file;
            bool ok = false;
            const auto text = read_all(path, ok);
            if (ok && text.find(canary) != std::string::npos) {
                found += (found.empty() ? "" : ",") + path;
            }
        }
    }
    std::cout << "canary_found=" << (found.empty() ? "none" : found) << '\n';
    return 0;
}

int verb_status()
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line)) {
        if (line.starts_with("NoNewPrivs:") || line.starts_with("CapEff:") || line.starts_with("CapPrm:") ||
            line.starts_with("CapBnd:") || line.starts_with("CapAmb:") || line.starts_with("Seccomp:") ||
            line.starts_with("Seccomp_filters:")) {
            const auto colon = line.find(':');
            const auto value = line.substr(line.find_first_not_of(" \t", colon + 1));
            std::cout << line.substr(0, colon) << '=' << value << '\n';
        }
    }
    return 0;
}

bool ipv4_endpoint(const std::string& host, const std::string& port, sockaddr_in& addr)
{
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(std::stoi(port)));
    if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
        std::cerr << "nr-probe: not an IPv4 address: " << host << '\n';
        return false;
    }
    return true;
}

// TCP connect with a short timeout; "timeout" when nothing answered.
int verb_connect(const std::string& host, const std::string& port)
{
    sockaddr_in addr{};
    if (!ipv4_endpoint(host, port, addr)) {
        return 2;
    }
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int rc = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    if (rc != 0 && errno == EINPROGRESS) {
        pollfd pfd{fd, POLLOUT, 0};
        constexpr int kConnectTimeoutMs = 3000;
        if (poll(&pfd, 1, kConnectTimeoutMs) == 0) {
            std::cout << "connect=timeout\n";
            close(fd);
            return 0;
        }
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        errno = err;
        rc = err == 0 ? 0 : -1;
    }
    std::cout << "connect=" << outcome(rc == 0) << '\n';
    close(fd);
    return 0;
}

// Sends one UDP datagram (the transport DNS uses) and waits for the echo.
int verb_udp(const std::string& host, const std::string& port)
{
    sockaddr_in addr{};
    if (!ipv4_endpoint(host, port, addr)) {
        return 2;
    }
    const int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sendto(fd, "ping", 4, 0, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 4) {
        std::cout << "udp=" << outcome(false) << '\n';
        close(fd);
        return 0;
    }
    pollfd pfd{fd, POLLIN, 0};
    constexpr int kReplyTimeoutMs = 3000;
    std::array<char, 16> reply{};
    const bool answered = poll(&pfd, 1, kReplyTimeoutMs) == 1 && recv(fd, reply.data(), reply.size(), 0) == 4;
    std::cout << "udp=" << (answered ? "ok" : "timeout") << '\n';
    close(fd);
    return 0;
}

// Connects to the abstract unix socket "@NAME".
int verb_connect_abstract(const std::string& name)
{
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    addr.sun_path[0] = '\0';
    name.copy(addr.sun_path + 1, sizeof addr.sun_path - 2);
    const auto len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    std::cout << "connect_abstract=" << outcome(connect(fd, reinterpret_cast<sockaddr*>(&addr), len) == 0) << '\n';
    close(fd);
    return 0;
}

// Whether NAME is set, never its value (values may be secrets).
int verb_env_has(const std::string& name)
{
    std::cout << "env_has=" << (std::getenv(name.c_str()) != nullptr ? "yes" : "no") << '\n';
    return 0;
}

int verb_fds()
{
    std::string fds;
    for (const auto& name : list_dir("/proc/self/fd")) {
        fds += (fds.empty() ? "" : ",") + name;
    }
    std::cout << "fds=" << fds << '\n';
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        std::cerr << "usage: nr-probe read PATH | write PATH | listen | io-uring | pids | find-canary HEX | status | "
                     "fds | exchange-loop A B SECONDS [SWAPPED_US] | connect HOST PORT | udp HOST PORT | "
                     "connect-abstract NAME | "
                     "env-has NAME | "
                     "try NAME... | try-invalid NAME...\n";
        return 2;
    }
    const auto& verb = args[0];
    if (verb == "read" && args.size() == 2) {
        return verb_read(args[1]);
    }
    if (verb == "write" && args.size() == 2) {
        return verb_write(args[1]);
    }
    if (verb == "exchange-loop" && (args.size() == 4 || args.size() == 5)) {
        const long swapped_us = args.size() == 5 ? std::stol(args[4]) : 0;
        if (swapped_us < 0 || swapped_us >= 1000) {
            std::cerr << "nr-probe: exchange-loop: SWAPPED_US is 0 to 999\n";
            return 2;
        }
        return verb_exchange_loop(args[1], args[2], args[3], swapped_us);
    }
    if (verb == "listen") {
        return verb_listen();
    }
    if (verb == "io-uring") {
        return verb_io_uring();
    }
    if (verb == "pids") {
        return verb_pids();
    }
    if (verb == "find-canary" && args.size() == 2) {
        return verb_find_canary(args[1]);
    }
    if (verb == "status") {
        return verb_status();
    }
    if (verb == "connect" && args.size() == 3) {
        return verb_connect(args[1], args[2]);
    }
    if (verb == "udp" && args.size() == 3) {
        return verb_udp(args[1], args[2]);
    }
    if (verb == "connect-abstract" && args.size() == 2) {
        return verb_connect_abstract(args[1]);
    }
    if (verb == "env-has" && args.size() == 2) {
        return verb_env_has(args[1]);
    }
    if (verb == "escape" && args.size() == 2) {
        return nr::probe::verb_escape(args[1]);
    }
    if (verb == "fill-tmp") {
        return nr::probe::verb_fill_tmp();
    }
    if (verb == "fork-until-refused" && args.size() == 2) {
        return nr::probe::verb_fork_until_refused(args[1]);
    }
    if (verb == "eat-memory" && args.size() == 2) {
        return nr::probe::verb_eat_memory(args[1]);
    }
    if (verb == "sleep" && args.size() == 2) {
        return nr::probe::verb_sleep(args[1]);
    }
    if (verb == "ids") {
        return nr::probe::verb_ids();
    }
    if (verb == "fds") {
        return verb_fds();
    }
    if (verb == "try" && args.size() >= 2) {
        return nr::probe::try_real({args.begin() + 1, args.end()});
    }
    if (verb == "try-invalid" && args.size() >= 2) {
        return nr::probe::try_invalid({args.begin() + 1, args.end()});
    }
    std::cerr << "nr-probe: unknown verb " << verb << '\n';
    return 2;
}
