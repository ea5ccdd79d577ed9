// SPDX-License-Identifier: Apache-2.0
#pragma once
// One function per native-runtimectl verb; cli.cpp only parses arguments.
// Each may throw: Cli::dispatch() maps what it throws to the exit status.

#include <map>
#include <string>
#include <vector>

namespace nr::ctl {

struct RunOptions {
    std::string owner;
    std::string chat;
    std::string job;
    std::string adapter;
    std::string workspace;
    std::string run_as;
    std::vector<std::string> env; // NAME=VALUE
    std::vector<std::string> command;
    bool quiet = false; // no "Running as unit:" nor admission lines
};

struct StopOptions {
    std::string owner;
    std::string chat;
    bool no_block = false; // return once StopSession returned
};

struct ListOptions {
    std::string json; // empty: a table; short or pretty
    bool no_legend = false;
};

int run_session(const RunOptions& options);
int stop_session(const StopOptions& options);
int list_sessions(const ListOptions& options);

} // namespace nr::ctl
