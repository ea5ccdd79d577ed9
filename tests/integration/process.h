// SPDX-License-Identifier: Apache-2.0
#pragma once
// Running real programs from integration tests: a command line in, its exit
// status and captured output out. No shell is involved, so arguments reach
// the program exactly as written in the test.

#include <functional>
#include <string>
#include <sys/types.h>
#include <utility>
#include <vector>

namespace nr::itest {

struct Outcome {
    int status = -1; // exit status, or 128+N when killed by signal N
    std::string out;
    std::string err;
};

struct SpawnOptions {
    // When >= 0, this descriptor is left open in the child as fd 7, to show
    // what happens to descriptors a worker forgets to close.
    int leak_as_fd7 = -1;
    // NAME=VALUE pairs added to the child's environment (never its argv, so
    // a secret handed to the worker this way stays off every command line).
    std::vector<std::string> env;
};

inline SpawnOptions leaking_fd7(int fd)
{
    SpawnOptions options;
    options.leak_as_fd7 = fd;
    return options;
}

inline SpawnOptions with_env(std::vector<std::string> env)
{
    SpawnOptions options;
    options.env = std::move(env);
    return options;
}

Outcome run(const std::vector<std::string>& argv, const SpawnOptions& options = {});

// A command started now and waited for later (for sessions that must be
// running while the test inspects them).
class Background {
public:
    explicit Background(const std::vector<std::string>& argv, const SpawnOptions& options = {});
    Background(const Background&) = delete;
    Background& operator=(const Background&) = delete;
    Background(Background&&) = delete;
    Background& operator=(Background&&) = delete;
    ~Background();

    Outcome wait();
    [[nodiscard]] pid_t pid() const { return pid_; }

private:
    pid_t pid_ = -1;
    int out_fd_ = -1;
    int err_fd_ = -1;
};

// {"runuser", "-u", user, "--", args...}
std::vector<std::string> as_user(const std::string& user, const std::vector<std::string>& argv);

// Polls `probe` every 100 ms until it returns true or `limit_sec` passes.
// Bounded waiting for a state change, not a timing assertion.
bool eventually(int limit_sec, const std::function<bool()>& probe);

} // namespace nr::itest
