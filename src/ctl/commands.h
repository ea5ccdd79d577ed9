#pragma once
// One function per native-runtimectl verb; main() only parses arguments.

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
};

int run_session(const RunOptions& options);
int stop_session(const std::string& owner, const std::string& chat);
int list_sessions(bool json);

} // namespace nr::ctl
