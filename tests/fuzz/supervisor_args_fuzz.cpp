// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the supervisor's argument decoder
// (core/launch/supervisor_args.h), which native-runtime-supervise runs on its argv
// before it touches a descriptor. The launcher is trusted, but a launcher
// and a supervisor of different builds must fail the session cleanly, never
// supervise it in part or crash.
//
// The input is the argument vector, one word per line (a word may hold any
// byte but a newline).
//
// Checked: decode_supervisor_args refuses only with LaunchFailed; accepted
// words encode back to themselves exactly; an accepted result names a child
// above 1, distinct descriptors above stderr, a ticket number above 0, and
// calls with distinct non-negative numbers, distinct names and an errno in
// 1..4095.

#include "core/base/error.h"
#include "core/launch/supervisor_args.h"
#include "fuzz_support.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace {

using namespace nr::core;
using nr::fuzz::require;

std::vector<std::string> words_from(std::string_view text)
{
    std::vector<std::string> out;
    while (!text.empty()) {
        const auto newline = text.find('\n');
        out.emplace_back(text.substr(0, newline));
        text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    }
    return out;
}

void check_accepted(const std::vector<std::string>& words, const SupervisorArgs& args)
{
    require(encode_supervisor_args(args) == words, "accepted words encode back to themselves");
    require(args.child_pid > 1, "the child is above 1");
    const auto fds = inherited_fds(args);
    require(std::adjacent_find(fds.begin(), fds.end()) == fds.end(), "descriptors are distinct");
    require(fds.empty() || fds.front() > 2, "descriptors are above stderr");
    require(!args.turn || args.turn->number > 0, "a ticket number is above 0");
    std::set<int> numbers;
    std::set<std::string> names;
    for (const auto& call : args.calls) {
        require(call.number >= 0, "a syscall number is not negative");
        require(call.errno_value >= 1 && call.errno_value <= 4095, "errno within 1..4095");
        require(!call.name.empty() && call.name.size() <= 64, "a name of 1 to 64 characters");
        require(numbers.insert(call.number).second && names.insert(call.name).second, "no call twice");
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto words = words_from(std::string_view(reinterpret_cast<const char*>(data), size));
    try {
        check_accepted(words, decode_supervisor_args(words));
    } catch (const Error& e) {
        require(e.kind() == ErrorKind::LaunchFailed, "a refusal is LaunchFailed");
    }
    return 0;
}
