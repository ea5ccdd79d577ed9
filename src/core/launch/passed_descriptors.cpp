// SPDX-License-Identifier: Apache-2.0
#include "core/launch/passed_descriptors.h"

#include "core/base/error.h"

#include <algorithm>
#include <charconv>
#include <utility>
#include <vector>

namespace nr::core {

namespace {

[[noreturn]] void refuse(const std::string& why)
{
    fail(ErrorKind::LaunchFailed, "the descriptors systemd passed: " + why);
}

// A decimal number exactly as systemd writes it: no sign, no blanks, no
// leading zero.
std::optional<long> plain_number(const std::string& text)
{
    long value = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end || value < 0 || std::to_string(value) != text) {
        return std::nullopt;
    }
    return value;
}

std::vector<std::string> split_names(const std::string& text)
{
    std::vector<std::string> names;
    std::string::size_type start = 0;
    while (true) {
        const auto colon = text.find(':', start);
        names.push_back(text.substr(start, colon - start));
        if (colon == std::string::npos) {
            return names;
        }
        start = colon + 1;
    }
}

} // namespace

bool valid_descriptor_name(const std::string& name)
{
    return !name.empty() && name.size() <= kMaxDescriptorName &&
           std::all_of(name.begin(), name.end(), [](char c) { return c > ' ' && c < 0x7f && c != ':'; });
}

PassedDescriptors passed_descriptors(const ListenEnvironment& env, long self_pid)
{
    if (!env.pid && !env.fds && !env.names) {
        return {};
    }
    if (!env.pid || !env.fds || !env.names) {
        refuse("LISTEN_PID, LISTEN_FDS and LISTEN_FDNAMES are not all set");
    }
    const auto pid = plain_number(*env.pid);
    if (!pid || *pid != self_pid) {
        refuse("LISTEN_PID=" + *env.pid + " is not this process (" + std::to_string(self_pid) + ")");
    }
    const auto count = plain_number(*env.fds);
    if (!count || *count < 1 || *count > kMaxPassedDescriptors) {
        refuse("LISTEN_FDS=" + *env.fds + " is not a count from 1 to " + std::to_string(kMaxPassedDescriptors));
    }
    const auto names = split_names(*env.names);
    if (std::cmp_not_equal(names.size(), *count)) {
        refuse("LISTEN_FDNAMES has " + std::to_string(names.size()) + " names for " + *env.fds + " descriptors");
    }
    PassedDescriptors passed;
    for (std::size_t i = 0; i < names.size(); ++i) {
        if (!valid_descriptor_name(names[i])) {
            refuse("descriptor " + std::to_string(i) + " has an invalid name");
        }
        if (!passed.emplace(names[i], kFirstPassedDescriptor + static_cast<int>(i)).second) {
            refuse("the name " + names[i] + " is passed twice");
        }
    }
    return passed;
}

int passed_descriptor(const PassedDescriptors& passed, const std::string& name)
{
    const auto it = passed.find(name);
    if (it == passed.end()) {
        refuse("none is named " + name);
    }
    return it->second;
}

} // namespace nr::core
