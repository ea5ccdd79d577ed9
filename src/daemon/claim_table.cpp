// SPDX-License-Identifier: Apache-2.0
#include "daemon/claim_table.h"

#include "sys/base/random_token.h"

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
    handovers_.erase(token);
}

void ClaimTable::remove_unit(const std::string& unit_name)
{
    std::erase_if(pending_, [&](const auto& entry) { return entry.second.unit_name == unit_name; });
    std::erase_if(handovers_, [&](const auto& entry) { return entry.second.unit_name == unit_name; });
}

std::optional<core::LaunchSpec> ClaimTable::claim(const std::string& token, const std::string& caller_unit,
                                                  uid_t caller_uid)
{
    if (state(token, caller_unit, caller_uid) != ClaimState::Ready) {
        return std::nullopt;
    }
    return take(pending_.find(token));
}

std::optional<core::LaunchSpec> ClaimTable::take_for_channel(const std::string& token)
{
    const auto it = pending_.find(token);
    if (it == pending_.end() || !it->second.by_channel || !it->second.confirmed) {
        return std::nullopt;
    }
    return take(it);
}

core::LaunchSpec ClaimTable::take(std::map<std::string, PendingLaunch>::iterator it)
{
    auto spec = std::move(it->second.spec);
    if (it->second.gateway) {
        handovers_[it->first] =
            PendingHandover{it->second.unit_name, it->second.uid, std::move(*it->second.gateway), it->second.deadline};
    }
    pending_.erase(it);
    return spec;
}

ClaimState ClaimTable::state(const std::string& token, const std::string& caller_unit, uid_t caller_uid) const
{
    const auto it = pending_.find(token);
    if (it == pending_.end() || it->second.unit_name != caller_unit || it->second.uid != caller_uid ||
        it->second.by_channel) {
        return ClaimState::NoMatch;
    }
    return it->second.confirmed ? ClaimState::Ready : ClaimState::Unconfirmed;
}

void ClaimTable::confirm(const std::string& token)
{
    const auto it = pending_.find(token);
    if (it != pending_.end()) {
        it->second.confirmed = true;
    }
}

std::optional<core::GatewaySession> ClaimTable::take_gateway(const std::string& token, const std::string& caller_unit,
                                                             uid_t caller_uid)
{
    const auto it = handovers_.find(token);
    if (it == handovers_.end() || it->second.unit_name != caller_unit || it->second.uid != caller_uid) {
        return std::nullopt;
    }
    auto session = std::move(it->second.session);
    handovers_.erase(it);
    return session;
}

void ClaimTable::drop_expired(std::chrono::steady_clock::time_point now)
{
    std::erase_if(pending_, [&](const auto& entry) { return entry.second.deadline <= now; });
    std::erase_if(handovers_, [&](const auto& entry) { return entry.second.deadline <= now; });
}

std::optional<std::chrono::steady_clock::time_point> ClaimTable::next_deadline() const
{
    std::optional<std::chrono::steady_clock::time_point> earliest;
    const auto consider = [&](std::chrono::steady_clock::time_point deadline) {
        if (!earliest || deadline < *earliest) {
            earliest = deadline;
        }
    };
    for (const auto& entry : pending_) {
        consider(entry.second.deadline);
    }
    for (const auto& entry : handovers_) {
        consider(entry.second.deadline);
    }
    return earliest;
}

} // namespace nr::daemon
