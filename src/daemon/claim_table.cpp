#include "daemon/claim_table.h"

#include "sys/random_token.h"

namespace nr::daemon {

std::string ClaimTable::new_token()
{
    constexpr std::size_t kTokenBytes = 16;
    return sys::random_hex(kTokenBytes, core::ErrorKind::LaunchFailed, "a claim token");
}

void ClaimTable::add(const std::string& token, PendingLaunch launch)
{
    pending_[token] = std::move(launch);
}

void ClaimTable::remove(const std::string& token)
{
    pending_.erase(token);
}

void ClaimTable::remove_unit(const std::string& unit_name)
{
    std::erase_if(pending_, [&](const auto& entry) { return entry.second.unit_name == unit_name; });
}

std::optional<core::LaunchSpec> ClaimTable::claim(const std::string& token, const std::string& caller_unit,
                                                  uid_t caller_uid)
{
    const auto it = pending_.find(token);
    if (it == pending_.end()) {
        return std::nullopt;
    }
    if (it->second.unit_name != caller_unit || it->second.uid != caller_uid) {
        return std::nullopt;
    }
    auto spec = std::move(it->second.spec);
    pending_.erase(it);
    return spec;
}

void ClaimTable::drop_expired(std::chrono::steady_clock::time_point now)
{
    std::erase_if(pending_, [&](const auto& entry) { return entry.second.deadline <= now; });
}

} // namespace nr::daemon
