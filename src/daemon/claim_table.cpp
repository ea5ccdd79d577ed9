#include "daemon/claim_table.h"

#include <array>
#include <stdexcept>
#include <sys/random.h>

namespace nr::daemon {

std::string ClaimTable::new_token()
{
    std::array<unsigned char, 16> bytes{};
    if (getrandom(bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size())) {
        throw std::runtime_error("getrandom failed");
    }
    constexpr std::string_view kHex = "0123456789abcdef";
    std::string token;
    for (const auto byte : bytes) {
        token += kHex[byte >> 4U];
        token += kHex[byte & 0x0FU];
    }
    return token;
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
