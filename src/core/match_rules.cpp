#include "core/match_rules.h"

#include "core/bus_names.h"
#include "core/error.h"
#include "core/ids.h"

namespace nr::core {

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
    return match_component("type", "signal") + "," + match_component("sender", "org.freedesktop.systemd1") + "," +
           match_component("interface", "org.freedesktop.DBus.Properties") + "," +
           match_component("member", "PropertiesChanged") + "," +
           match_component("path_namespace", "/org/freedesktop/systemd1/unit") + "," +
           match_component("arg0", "org.freedesktop.systemd1.Unit");
}

std::string name_departures_match()
{
    return match_component("type", "signal") + "," + match_component("sender", "org.freedesktop.DBus") + "," +
           match_component("path", "/org/freedesktop/DBus") + "," + match_component("interface", "org.freedesktop.DBus") +
           "," + match_component("member", "NameOwnerChanged") + "," + match_component("arg2", "");
}

std::string session_signals_match(std::string_view owner, std::string_view chat)
{
    validate_id(IdKind::Owner, owner);
    validate_id(IdKind::Chat, chat);
    return match_component("type", "signal") + "," + match_component("sender", kBusName) + "," +
           match_component("path", kObjectPath) + "," + match_component("interface", kManagerInterface) + "," +
           match_component("arg1", owner) + "," + match_component("arg2", chat);
}

} // namespace nr::core
