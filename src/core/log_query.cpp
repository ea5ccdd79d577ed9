#include "core/log_query.h"

#include "core/ids.h"
#include "core/unit_name.h"

namespace nr::core {

std::vector<std::vector<std::string>> session_log_terms(const std::string& owner, const std::string& chat)
{
    validate_id(IdKind::Owner, owner);
    std::vector<std::string> tagged{"NATIVE_RUNTIME_OWNER=" + owner};
    if (chat.empty()) {
        return {tagged};
    }
    validate_id(IdKind::Chat, chat);
    tagged.push_back("NATIVE_RUNTIME_CHAT=" + chat);
    const auto unit = session_unit_name(owner, chat);
    // UNIT= marks what systemd logs about the unit (start, stop, result);
    // _SYSTEMD_UNIT= what processes in it logged themselves.
    return {tagged, {"UNIT=" + unit}, {"_SYSTEMD_UNIT=" + unit}};
}

std::vector<std::string> session_log_fields()
{
    return {"MESSAGE",
            "PRIORITY",
            "SYSLOG_IDENTIFIER",
            "_PID",
            "_SYSTEMD_UNIT",
            "UNIT",
            "NATIVE_RUNTIME_OWNER",
            "NATIVE_RUNTIME_CHAT",
            "NATIVE_RUNTIME_JOB",
            "NATIVE_RUNTIME_ADAPTER"};
}

} // namespace nr::core
