// SPDX-License-Identifier: Apache-2.0
#include "core/bus/start_options.h"

#include "core/base/error.h"

#include <algorithm>

namespace nr::core {

namespace {

std::string_view expected_signature(const std::string& key)
{
    const auto* spec = std::find_if(std::begin(kStartOptionSpecs), std::end(kStartOptionSpecs),
                                    [&](const OptionSpec& candidate) { return candidate.key == key; });
    if (spec == std::end(kStartOptionSpecs)) {
        // The key is echoed only after the caller's bytes are known to be
        // printable, so an error message cannot carry control characters.
        const bool printable = std::all_of(key.begin(), key.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
        fail(ErrorKind::InvalidArgument,
             "unknown option " + (printable && key.size() <= 64 ? "\"" + key + "\"" : std::string("(unprintable)")) +
                 "; known: job, workspace, environment, run_as_user");
    }
    return spec->signature;
}

std::string_view signature_of(const OptionValue& value)
{
    if (std::holds_alternative<std::string>(value)) {
        return "s";
    }
    if (std::holds_alternative<std::map<std::string, std::string>>(value)) {
        return "a{ss}";
    }
    return std::get<UnsupportedOptionType>(value).signature;
}

template <typename T> const T& typed(const std::string& key, const OptionValue& value)
{
    const auto expected = expected_signature(key);
    if (signature_of(value) != expected || !std::holds_alternative<T>(value)) {
        fail(ErrorKind::InvalidArgument, "option \"" + key + "\" must have type " + std::string(expected));
    }
    return std::get<T>(value);
}

} // namespace

StartOptions decode_start_options(const std::map<std::string, OptionValue>& options)
{
    StartOptions out;
    for (const auto& [key, value] : options) {
        (void)expected_signature(key); // unknown keys first, whatever their value
        if (key == "job") {
            out.job = typed<std::string>(key, value);
        } else if (key == "workspace") {
            out.workspace = typed<std::string>(key, value);
        } else if (key == "environment") {
            out.environment = typed<std::map<std::string, std::string>>(key, value);
        } else if (key == "run_as_user") {
            out.run_as_user = typed<std::string>(key, value);
        }
    }
    return out;
}

} // namespace nr::core
