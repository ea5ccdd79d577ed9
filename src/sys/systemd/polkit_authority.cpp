// SPDX-License-Identifier: Apache-2.0
#include "sys/systemd/polkit_authority.h"

#include "sys/bus/bus_compat.h"

#include <systemd/sd-bus.h>

#include <chrono>
#include <map>
#include <string>
#include <tuple>
#include <utility>

namespace nr::sys {

namespace {

constexpr const char* kPolkitService = "org.freedesktop.PolicyKit1";
constexpr const char* kAuthorityPath = "/org/freedesktop/PolicyKit1/Authority";
constexpr const char* kAuthorityInterface = "org.freedesktop.PolicyKit1.Authority";

// polkit's (sa{sv}) subject and (bba{ss}) result.
using Subject = sdbus::Struct<std::string, std::map<std::string, sdbus::Variant>>;
using AuthorizationResult = sdbus::Struct<bool, bool, std::map<std::string, std::string>>;

bool allows_interaction(const sdbus::IObject& object)
{
    auto* message = static_cast<sd_bus_message*>(current_message_handle(object));
    return message != nullptr && sd_bus_message_get_allow_interactive_authorization(message) > 0;
}

} // namespace

PolkitAuthority::PolkitAuthority(sdbus::IConnection& connection)
    : proxy_(make_proxy(connection, kPolkitService, kAuthorityPath))
{
}

PolkitAuthority::~PolkitAuthority() = default;

void PolkitAuthority::check(const sdbus::IObject& object, uid_t caller_uid, core::OperatorAction action,
                            const Done& done)
{
    const auto sender = caller_bus_name(object);
    if (!sender) {
        done(core::PolkitReply{"org.freedesktop.DBus.Error.AccessDenied"});
        return;
    }
    const auto waiting = pending_->by_caller.find(caller_uid);
    if (!core::polkit_may_ask(pending_->total, waiting == pending_->by_caller.end() ? 0 : waiting->second)) {
        done(core::PolkitReply{std::string(core::kPolkitLimitError)});
        return;
    }
    const Subject subject{std::string("system-bus-name"),
                          std::map<std::string, sdbus::Variant>{{"name", sdbus::Variant(*sender)}}};
    const std::map<std::string, std::string> details;
    const auto flags = core::polkit_check_flags(allows_interaction(object));
    try {
        (void)proxy_->callMethodAsync("CheckAuthorization")
            .onInterface(kAuthorityInterface)
            .withTimeout(std::chrono::duration_cast<std::chrono::microseconds>(core::kPolkitTimeout))
            .withArguments(subject, std::string(core::polkit_action_id(action)), details, flags, std::string())
            .uponReplyInvoke([pending = pending_, caller_uid, done](CallError error, AuthorizationResult result) {
                --pending->total;
                if (--pending->by_caller[caller_uid] == 0) {
                    pending->by_caller.erase(caller_uid);
                }
                core::PolkitReply reply{error_name(error)};
                if (reply.error_name.empty()) {
                    reply.is_authorized = std::get<0>(result);
                    reply.is_challenge = std::get<1>(result);
                }
                done(reply);
            });
        ++pending_->total;
        ++pending_->by_caller[caller_uid];
    } catch (const sdbus::Error& e) {
        done(core::PolkitReply{std::string(e.getName())});
    }
}

} // namespace nr::sys
