// SPDX-License-Identifier: Apache-2.0
#include "core/launch/launch_spec_bytes.h"

#include "core/base/error.h"

#include <cstdint>
#include <limits>

namespace nr::core {

namespace {

constexpr std::string_view kMagic{"nr-spec\x01", 8};

class Writer {
public:
    void raw(std::string_view bytes) { out_.append(bytes); }

    template <typename T> void number(T value)
    {
        auto bits = static_cast<std::uint64_t>(value);
        for (std::size_t i = 0; i < sizeof(T); ++i) {
            out_.push_back(static_cast<char>(bits & 0xffU));
            bits >>= 8U;
        }
    }

    void flag(bool value) { number<std::uint8_t>(value ? 1 : 0); }

    void text(const std::string& value)
    {
        count(value.size(), "a string");
        out_.append(value);
    }

    void texts(const std::vector<std::string>& values)
    {
        count(values.size(), "a list");
        for (const auto& value : values) {
            text(value);
        }
    }

    void count(std::size_t n, std::string_view what)
    {
        if (n > std::numeric_limits<std::uint32_t>::max()) {
            fail(ErrorKind::LaunchFailed, "launch spec: " + std::string(what) + " is too long to encode");
        }
        number(static_cast<std::uint32_t>(n));
    }

    std::string take() { return std::move(out_); }

private:
    std::string out_;
};

class Reader {
public:
    explicit Reader(std::string_view bytes) : rest_(bytes) {}

    void magic()
    {
        if (rest_.substr(0, kMagic.size()) != kMagic) {
            fail(ErrorKind::LaunchFailed, "launch spec: not a native-runtime launch spec (wrong magic)");
        }
        rest_.remove_prefix(kMagic.size());
    }

    template <typename T> T number(std::string_view field)
    {
        const auto bytes = take(sizeof(T), field);
        std::uint64_t bits = 0;
        for (std::size_t i = sizeof(T); i > 0; --i) {
            bits = (bits << 8U) | static_cast<unsigned char>(bytes[i - 1]);
        }
        return static_cast<T>(bits);
    }

    bool flag(std::string_view field)
    {
        const auto value = number<std::uint8_t>(field);
        if (value > 1) {
            fail(ErrorKind::LaunchFailed, "launch spec: " + std::string(field) + ": a flag byte is neither 0 nor 1");
        }
        return value == 1;
    }

    std::string text(std::string_view field)
    {
        const auto length = number<std::uint32_t>(field);
        return std::string(take(length, field));
    }

    std::vector<std::string> texts(std::string_view field)
    {
        const auto n = count(field, 4);
        std::vector<std::string> out;
        out.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            out.push_back(text(field));
        }
        return out;
    }

    // A count is believed only as far as the bytes left could hold that
    // many entries of `min_entry` bytes, so a forged count cannot make the
    // reader reserve gigabytes.
    std::size_t count(std::string_view field, std::size_t min_entry)
    {
        const std::size_t n = number<std::uint32_t>(field);
        if (n > rest_.size() / min_entry) {
            fail(ErrorKind::LaunchFailed,
                 "launch spec: " + std::string(field) + ": " + std::to_string(n) + " entries cannot fit in the rest");
        }
        return n;
    }

    void end()
    {
        if (!rest_.empty()) {
            fail(ErrorKind::LaunchFailed,
                 "launch spec: " + std::to_string(rest_.size()) + " bytes follow the last field");
        }
    }

private:
    std::string_view take(std::size_t n, std::string_view field)
    {
        if (n > rest_.size()) {
            fail(ErrorKind::LaunchFailed, "launch spec: " + std::string(field) + " runs past the end");
        }
        const auto out = rest_.substr(0, n);
        rest_.remove_prefix(n);
        return out;
    }

    std::string_view rest_;
};

void refuse_over_limit(std::size_t size)
{
    if (size > kMaxLaunchSpecBytes) {
        fail(ErrorKind::LaunchFailed, "launch spec: " + std::to_string(size) + " bytes, more than the " +
                                          std::to_string(kMaxLaunchSpecBytes) + " a launcher reads");
    }
}

// The smallest encoding of one entry of each list, for Reader::count.
constexpr std::size_t kMinRule = 4 + 4 + 4;
constexpr std::size_t kMinCondition = 4 + 8 + 8;
constexpr std::size_t kMinCheckedDir = 4 + 8 + 8;
constexpr std::size_t kMinProtectedPath = 4 + 1;

} // namespace

std::string launch_spec_bytes(const LaunchSpecWire& wire)
{
    Writer out;
    out.raw(kMagic);
    out.texts(wire.bwrap_argv);
    out.texts(wire.environment);
    out.count(wire.denied_syscalls.size(), "denied_syscalls");
    for (const auto& rule : wire.denied_syscalls) {
        out.text(rule.name);
        out.number(rule.errno_value);
        out.count(rule.conditions.size(), "a rule's conditions");
        for (const auto& match : rule.conditions) {
            out.number(static_cast<std::uint32_t>(match.index));
            out.number(match.mask);
            out.number(match.value);
        }
    }
    out.flag(wire.kill_foreign_abis);
    out.text(wire.dirs_base);
    out.texts(wire.private_dirs);
    out.text(wire.admission_queue);
    out.count(wire.checked_dirs.size(), "checked_dirs");
    for (const auto& dir : wire.checked_dirs) {
        out.text(dir.path);
        out.number(dir.device);
        out.number(dir.inode);
    }
    out.number(wire.gateway_port);
    out.text(wire.protected_base);
    out.count(wire.protected_paths.size(), "protected_paths");
    for (const auto& path : wire.protected_paths) {
        out.text(path.relative);
        out.flag(path.directory);
    }
    auto bytes = out.take();
    refuse_over_limit(bytes.size());
    return bytes;
}

LaunchSpecWire launch_spec_from_bytes(std::string_view bytes)
{
    refuse_over_limit(bytes.size());
    Reader in(bytes);
    in.magic();
    LaunchSpecWire wire;
    wire.bwrap_argv = in.texts("bwrap_argv");
    wire.environment = in.texts("environment");
    const auto rules = in.count("denied_syscalls", kMinRule);
    for (std::size_t i = 0; i < rules; ++i) {
        SyscallRuleWire rule;
        rule.name = in.text("denied_syscalls");
        rule.errno_value = in.number<std::int32_t>("denied_syscalls");
        const auto conditions = in.count("denied_syscalls", kMinCondition);
        for (std::size_t j = 0; j < conditions; ++j) {
            ArgumentMatch match;
            match.index = in.number<std::uint32_t>("denied_syscalls");
            match.mask = in.number<std::uint64_t>("denied_syscalls");
            match.value = in.number<std::uint64_t>("denied_syscalls");
            rule.conditions.push_back(match);
        }
        wire.denied_syscalls.push_back(std::move(rule));
    }
    wire.kill_foreign_abis = in.flag("kill_foreign_abis");
    wire.dirs_base = in.text("dirs_base");
    wire.private_dirs = in.texts("private_dirs");
    wire.admission_queue = in.text("admission_queue");
    const auto checked = in.count("checked_dirs", kMinCheckedDir);
    for (std::size_t i = 0; i < checked; ++i) {
        CheckedDir dir;
        dir.path = in.text("checked_dirs");
        dir.device = in.number<std::uint64_t>("checked_dirs");
        dir.inode = in.number<std::uint64_t>("checked_dirs");
        wire.checked_dirs.push_back(std::move(dir));
    }
    wire.gateway_port = in.number<std::uint16_t>("gateway_port");
    wire.protected_base = in.text("protected_base");
    const auto protected_count = in.count("protected_paths", kMinProtectedPath);
    for (std::size_t i = 0; i < protected_count; ++i) {
        ProtectedPath path;
        path.relative = in.text("protected_paths");
        path.directory = in.flag("protected_paths");
        wire.protected_paths.push_back(std::move(path));
    }
    in.end();
    return wire;
}

} // namespace nr::core
