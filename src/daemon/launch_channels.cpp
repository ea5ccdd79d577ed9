// SPDX-License-Identifier: Apache-2.0
#include "daemon/launch_channels.h"

#include "core/base/error.h"
#include "core/journal/log_event.h"
#include "sys/base/journal_writer.h"
#include "sys/base/launch_channel.h"

namespace nr::daemon {

namespace {

void log_channel_trouble(const std::string& unit, const std::string& what)
{
    auto record = core::log_record(core::LogEvent::HelperTrouble, unit + ": helper channel: " + what);
    core::add_session(record, {{}, {}, {}, unit});
    sys::write_log(record);
}

} // namespace

void LaunchChannels::keep(const std::string& unit, uid_t uid, const std::string& token, sys::UniqueFd helper_end)
{
    const int fd = helper_end.get();
    open_[fd] = Open{unit, uid, token, std::move(helper_end)};
}

std::vector<int> LaunchChannels::fds() const
{
    std::vector<int> out;
    out.reserve(open_.size());
    for (const auto& entry : open_) {
        out.push_back(entry.first);
    }
    return out;
}

void LaunchChannels::serve()
{
    for (auto it = open_.begin(); it != open_.end();) {
        if (serve_one(it->second)) {
            ++it;
        } else {
            it = open_.erase(it);
        }
    }
}

bool LaunchChannels::serve_one(Open& channel)
{
    for (int i = 0; i < kMessagesPerServe; ++i) {
        auto message = sys::next_launcher_message(channel.fd.get());
        if (!message) {
            return true;
        }
        switch (message->kind) {
        case sys::LauncherMessage::Kind::Waiting:
            if (const auto* session = sessions_.find(channel.unit)) {
                report_wait_(*session, message->ahead);
            }
            break;
        case sys::LauncherMessage::Kind::Listener:
            if (!register_listener(channel, std::move(message->listener))) {
                return false;
            }
            break;
        case sys::LauncherMessage::Kind::Done:
        case sys::LauncherMessage::Kind::Closed: return false;
        case sys::LauncherMessage::Kind::Invalid: log_channel_trouble(channel.unit, message->problem); return false;
        }
    }
    return true;
}

bool LaunchChannels::register_listener(Open& channel, sys::UniqueFd listener)
{
    // As HandOverListener: once, and only for the unit whose spec was sent.
    const auto session = claims_.take_gateway(channel.token, channel.unit, channel.uid);
    if (!session) {
        log_channel_trouble(channel.unit, "gateway listener refused: no gateway session waits for it");
        return false;
    }
    try {
        gateways_.add(*session, listener.get());
        sys::acknowledge_listener(channel.fd.get());
    } catch (const core::Error& e) {
        log_channel_trouble(channel.unit, std::string("gateway listener refused: ") + e.what());
        return false;
    }
    return true;
}

} // namespace nr::daemon
