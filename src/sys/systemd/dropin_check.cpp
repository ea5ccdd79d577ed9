// SPDX-License-Identifier: Apache-2.0
#include "sys/systemd/dropin_check.h"

#include "sys/fs/dropin_files.h"

#include <algorithm>
#include <system_error>

namespace nr::sys {

namespace {

std::vector<std::string> observed_value(SystemdManager& systemd, const sdbus::ObjectPath& path,
                                        const core::ExpectedSetting& setting)
{
    const auto value = systemd.unit_property(path, kServiceInterface, setting.key);
    if (setting.is_list) {
        return value.get<std::vector<std::string>>();
    }
    if (value.containsValueOfType<bool>()) {
        return {value.get<bool>() ? "yes" : "no"};
    }
    return {value.get<std::string>()};
}

} // namespace

std::vector<core::Conflict> check_dropin_effective(SystemdManager& systemd, const std::string& unit,
                                                   const std::vector<core::ExpectedSetting>& expected,
                                                   const std::string& ours)
{
    const auto path = systemd.load_unit(unit);
    const auto load_state = systemd.unit_property(path, kUnitInterface, "LoadState").get<std::string>();
    if (load_state != "loaded") {
        return {{"LoadState", "loaded", load_state, "",
                 unit + " is " + load_state + ": install the application's unit before its drop-in"}};
    }
    std::vector<core::DropinFile> drop_ins;
    for (const auto& file :
         systemd.unit_property(path, kUnitInterface, "DropInPaths").get<std::vector<std::string>>()) {
        std::string text;
        try {
            text = read_text_file(file).value_or("");
        } catch (const std::system_error&) {
            // Unreadable: it cannot be named as the culprit, and the
            // message then points at `systemctl cat` instead.
        }
        drop_ins.push_back({file, text});
    }
    const auto fragment = systemd.unit_property(path, kUnitInterface, "FragmentPath").get<std::string>();
    std::map<std::string, std::vector<std::string>> observed;
    for (const auto& setting : expected) {
        observed[setting.key] = observed_value(systemd, path, setting);
    }
    return core::find_conflicts(expected, observed, drop_ins, ours, fragment);
}

bool dropin_applied(SystemdManager& systemd, const std::string& unit, const std::string& path)
{
    const auto unit_path = systemd.load_unit(unit);
    const auto files = systemd.unit_property(unit_path, kUnitInterface, "DropInPaths").get<std::vector<std::string>>();
    return std::find(files.begin(), files.end(), path) != files.end();
}

bool unit_starts_after_the_helper(SystemdManager& systemd, const std::string& unit)
{
    const auto path = systemd.load_unit(unit);
    const auto list = [&](const char* property) {
        return systemd.unit_property(path, kUnitInterface, property).get<std::vector<std::string>>();
    };
    return core::starts_after_the_helper(list("Wants"), list("After"));
}

} // namespace nr::sys
