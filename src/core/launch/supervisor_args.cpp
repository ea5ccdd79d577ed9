// SPDX-License-Identifier: Apache-2.0
#include "core/launch/supervisor_args.h"

#include "core/base/error.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <set>
#include <string_view>

namespace nr::core {

namespace {

constexpr std::string_view kChild = "--child";
constexpr std::string_view kListener = "--listener";
constexpr std::string_view kTurn = "--turn";
constexpr std::string_view kRefuse = "--refuse";
constexpr std::size_t kMaxNameLength = 64;
constexpr int kMaxErrno = 4095;

[[noreturn]] void refuse(const std::string& what)
{
    fail(ErrorKind::LaunchFailed, "supervisor arguments: " + what);
}

// Canonical decimal only ("0", or no leading zero), so that every accepted
// word is the one encode_supervisor_args writes.
template <typename T> T decimal(std::string_view text, T min, T max, std::string_view what)
{
    T value{};
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end || (text.size() > 1 && text.front() == '0') ||
        text.front() == '-' || value < min || value > max) {
        refuse(std::string(what) + " is not a number in " + std::to_string(min) + ".." + std::to_string(max));
    }
    return value;
}

int descriptor(std::string_view text, std::string_view what)
{
    return decimal(text, 3, std::numeric_limits<int>::max(), what);
}

std::vector<std::string_view> comma_parts(std::string_view text, std::size_t count, std::string_view what)
{
    std::vector<std::string_view> parts;
    while (true) {
        const auto comma = text.find(',');
        parts.push_back(text.substr(0, comma));
        if (comma == std::string_view::npos) {
            break;
        }
        text.remove_prefix(comma + 1);
    }
    if (parts.size() != count) {
        refuse(std::string(what) + " needs " + std::to_string(count) + " comma-separated parts");
    }
    return parts;
}

bool valid_name(std::string_view name)
{
    return !name.empty() && name.size() <= kMaxNameLength && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
}

void check(const SupervisorArgs& args)
{
    if (args.child_pid <= 1) {
        refuse("the child's PID must be above 1");
    }
    const auto fds = inherited_fds(args);
    if (std::adjacent_find(fds.begin(), fds.end()) != fds.end() || (!fds.empty() && fds.front() <= 2)) {
        refuse("descriptors must be distinct and above stderr");
    }
    if (args.turn && args.turn->number == 0) {
        refuse("a ticket number must be above 0");
    }
    std::set<int> numbers;
    std::set<std::string> names;
    for (const auto& call : args.calls) {
        if (call.number < 0 || !valid_name(call.name) || call.errno_value < 1 || call.errno_value > kMaxErrno) {
            refuse("invalid supervised call " + std::to_string(call.number));
        }
        if (!numbers.insert(call.number).second || !names.insert(call.name).second) {
            refuse("supervised call " + call.name + " given twice");
        }
    }
}

} // namespace

std::vector<int> inherited_fds(const SupervisorArgs& args)
{
    std::vector<int> fds;
    if (args.listener_fd) {
        fds.push_back(*args.listener_fd);
    }
    if (args.turn) {
        fds.push_back(args.turn->dir_fd);
        fds.push_back(args.turn->ticket_fd);
    }
    std::sort(fds.begin(), fds.end());
    return fds;
}

std::vector<std::string> encode_supervisor_args(const SupervisorArgs& args)
{
    check(args);
    std::vector<std::string> out{std::string(kChild), std::to_string(args.child_pid)};
    if (args.listener_fd) {
        out.emplace_back(kListener);
        out.push_back(std::to_string(*args.listener_fd));
    }
    if (args.turn) {
        out.emplace_back(kTurn);
        out.push_back(std::to_string(args.turn->dir_fd) + "," + std::to_string(args.turn->ticket_fd) + "," +
                      std::to_string(args.turn->number));
    }
    for (const auto& call : args.calls) {
        out.emplace_back(kRefuse);
        out.push_back(std::to_string(call.number) + "," + call.name + "," + std::to_string(call.errno_value));
    }
    return out;
}

SupervisorArgs decode_supervisor_args(const std::vector<std::string>& args)
{
    SupervisorArgs out;
    bool child = false;
    for (std::size_t i = 0; i < args.size(); i += 2) {
        const std::string_view option = args[i];
        if (i + 1 == args.size()) {
            refuse(std::string(option) + " has no value");
        }
        const std::string_view value = args[i + 1];
        if (option == kChild && !child) {
            out.child_pid = decimal(value, 2, std::numeric_limits<int>::max(), kChild);
            child = true;
        } else if (option == kListener && !out.listener_fd) {
            out.listener_fd = descriptor(value, kListener);
        } else if (option == kTurn && !out.turn) {
            const auto parts = comma_parts(value, 3, kTurn);
            out.turn = HeldTurnFds{
                descriptor(parts[0], "the queue directory"), descriptor(parts[1], "the ticket"),
                decimal(parts[2], std::uint64_t{1}, std::numeric_limits<std::uint64_t>::max(), "the ticket number")};
        } else if (option == kRefuse) {
            const auto parts = comma_parts(value, 3, kRefuse);
            if (!valid_name(parts[1])) {
                refuse("invalid syscall name");
            }
            out.calls.push_back(SupervisedCall{decimal(parts[0], 0, std::numeric_limits<int>::max(), "a syscall"),
                                               std::string(parts[1]), decimal(parts[2], 1, kMaxErrno, "an errno")});
        } else {
            refuse("unexpected or repeated " + std::string(option));
        }
    }
    if (!child) {
        refuse("--child is missing");
    }
    check(out);
    // Exactly the encoder's form, so one order only (--child, --listener,
    // --turn, then the calls).
    if (encode_supervisor_args(out) != args) {
        refuse("options out of order");
    }
    return out;
}

} // namespace nr::core
