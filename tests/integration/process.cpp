// SPDX-License-Identifier: Apache-2.0
#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <stdexcept>
#include <string_view>
#include <thread>

namespace nr::itest {

namespace {

constexpr int kLeakedFd = 7;
constexpr int kExecFailed = 127;

// The argv and environment as execvpe takes them, built before fork: the
// test binary has other threads (the gateway attack tests sample memory on
// one), and a forked child that allocates can block for ever on an
// allocator lock a vanished thread held at the fork (seen under ASan).
struct ExecArgs {
    std::vector<std::string> env_strings;
    std::vector<char*> argv;
    std::vector<char*> envp;
};

ExecArgs exec_args(const std::vector<std::string>& argv, const std::vector<std::string>& overrides)
{
    ExecArgs args;
    const auto overridden = [&](std::string_view entry) {
        const auto name = entry.substr(0, entry.find('=') + 1);
        return std::any_of(overrides.begin(), overrides.end(),
                           [&](const std::string& o) { return std::string_view(o).starts_with(name); });
    };
    for (char** e = environ; *e != nullptr; ++e) { // NOLINT: the C environment
        if (!overridden(*e)) {
            args.env_strings.emplace_back(*e);
        }
    }
    args.env_strings.insert(args.env_strings.end(), overrides.begin(), overrides.end());
    for (auto& entry : args.env_strings) {
        args.envp.push_back(entry.data());
    }
    args.envp.push_back(nullptr);
    for (const auto& arg : argv) {
        args.argv.push_back(const_cast<char*>(arg.c_str())); // NOLINT: execvpe ABI
    }
    args.argv.push_back(nullptr);
    return args;
}

pid_t spawn(const std::vector<std::string>& argv, const SpawnOptions& options, int& out_fd, int& err_fd)
{
    std::array<int, 2> out{};
    std::array<int, 2> err{};
    if (pipe2(out.data(), O_CLOEXEC) != 0 || pipe2(err.data(), O_CLOEXEC) != 0) {
        throw std::runtime_error("pipe2 failed");
    }
    auto args = exec_args(argv, options.env);
    const pid_t pid = fork();
    if (pid < 0) {
        throw std::runtime_error("fork failed");
    }
    if (pid == 0) {
        // Only async-signal-safe calls from here to exec: no allocation.
        // Its own process group, so a Background can end the whole command
        // (runuser and the CLI it forked), not just its first process.
        setpgid(0, 0);
        const int devnull = open("/dev/null", O_RDONLY);
        dup2(devnull, STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        dup2(err[1], STDERR_FILENO);
        if (options.leak_as_fd7 >= 0) {
            dup2(options.leak_as_fd7, kLeakedFd); // dup2 clears CLOEXEC on the copy
        }
        execvpe(args.argv[0], args.argv.data(), args.envp.data());
        _exit(kExecFailed);
    }
    close(out[1]);
    close(err[1]);
    out_fd = out[0];
    err_fd = err[0];
    return pid;
}

Outcome collect(pid_t pid, int out_fd, int err_fd)
{
    Outcome outcome;
    std::array<pollfd, 2> fds{pollfd{out_fd, POLLIN, 0}, pollfd{err_fd, POLLIN, 0}};
    std::array<std::string*, 2> sinks{&outcome.out, &outcome.err};
    int open_fds = 2;
    std::array<char, 4096> buffer{};
    while (open_fds > 0) {
        if (poll(fds.data(), fds.size(), -1) < 0) {
            continue;
        }
        for (std::size_t i = 0; i < fds.size(); ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0) {
                continue;
            }
            const auto n = read(fds[i].fd, buffer.data(), buffer.size());
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open_fds;
            } else {
                sinks[i]->append(buffer.data(), static_cast<std::size_t>(n));
            }
        }
    }
    int wstatus = 0;
    waitpid(pid, &wstatus, 0);
    outcome.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    return outcome;
}

} // namespace

Outcome run(const std::vector<std::string>& argv, const SpawnOptions& options)
{
    int out_fd = -1;
    int err_fd = -1;
    const pid_t pid = spawn(argv, options, out_fd, err_fd);
    return collect(pid, out_fd, err_fd);
}

Background::Background(const std::vector<std::string>& argv, const SpawnOptions& options)
{
    pid_ = spawn(argv, options, out_fd_, err_fd_);
}

Background::~Background()
{
    if (pid_ > 0) {
        kill(-pid_, SIGKILL);
        (void)collect(pid_, out_fd_, err_fd_);
    }
}

Outcome Background::wait()
{
    auto outcome = collect(pid_, out_fd_, err_fd_);
    pid_ = -1;
    return outcome;
}

std::vector<std::string> as_user(const std::string& user, const std::vector<std::string>& argv)
{
    std::vector<std::string> full{"runuser", "-u", user, "--"};
    full.insert(full.end(), argv.begin(), argv.end());
    return full;
}

bool eventually(int limit_sec, const std::function<bool()>& probe)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit_sec);
    while (std::chrono::steady_clock::now() < deadline) {
        if (probe()) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return probe();
}

} // namespace nr::itest
