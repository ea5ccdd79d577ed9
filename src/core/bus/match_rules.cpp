// SPDX-License-Identifier: Apache-2.0
#include "core/bus/match_rules.h"

#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/bus/bus_names.h"

#include <initializer_list>
#include <utility>

namespace nr::core {

namespace {

using Component = std::pair<std::string_view, std::string_view>;

std::string rule(std::initializer_list<Component> components)
{
    std::string out;
    for (const auto& [key, value] : components) {
        if (!out.empty()) {
            out += ',';
        }
        out += match_component(key, value);
    }
    return out;
}

} // namespace

std::string match_component(std::string_view key, std::string_view value)
{
    if (value.find_first_of("'\\,") != std::string_view::npos) {
        fail(ErrorKind::InvalidArgument,
             "a match rule value may not contain a quote, a backslash or a comma: " + std::string(value));
    }
    std::string out(key);
    out.append("='").append(value).append("'");
    return out;
}

std::string unit_changes_match()
{
    return rule({{"type", "signal"},
                 {"sender", "org.freedesktop.systemd1"},
                 {"interface", "org.freedesktop.DBus.Properties"},
                 {"member", "PropertiesChanged"},
                 {"path_namespace", "/org/freedesktop/systemd1/unit"},
                 {"arg0", "org.freedesktop.systemd1.Unit"}});
}

std::string name_departures_match()
{
    return rule({{"type", "signal"},
                 {"sender", "org.freedesktop.DBus"},
                 {"path", "/org/freedesktop/DBus"},
                 {"interface", "org.freedesktop.DBus"},
                 {"member", "NameOwnerChanged"},
                 {"arg2", ""}});
}

std::string name_owner_changes_match(std::string_view name)
{
    return rule({{"type", "signal"},
                 {"sender", "org.freedesktop.DBus"},
                 {"path", "/org/freedesktop/DBus"},
                 {"interface", "org.freedesktop.DBus"},
                 {"member", "NameOwnerChanged"},
                 {"arg0", name}});
}

std::string session_signals_match(std::string_view owner, std::string_view chat)
{
    validate_id(IdKind::Owner, owner);
    validate_id(IdKind::Chat, chat);
    return rule({{"type", "signal"},
                 {"sender", kBusName},
                 {"path", kObjectPath},
                 {"interface", kManagerInterface},
                 {"arg1", owner},
                 {"arg2", chat}});
}

} // namespace nr::core
