// SPDX-License-Identifier: Apache-2.0
#pragma once
// Starting another program from native-runtimectl: always by absolute path
// with an argv, never through a shell.

#include <csignal>
#include <string>
#include <vector>

namespace nr::ctl {

// Runs argv[0] with `argv` and waits for it: its wait status (waitpid).
// `quiet` sends its stdout and stderr to /dev/null; `mask` is the signal
// mask it starts with (default: this process's). Throws std::system_error
// when it cannot be started.
int run_and_wait(const std::vector<std::string>& argv, bool quiet, const sigset_t* mask = nullptr);

// Replaces this process with argv[0]; throws std::system_error if it cannot.
[[noreturn]] void exec_program(const std::vector<std::string>& argv);

} // namespace nr::ctl
