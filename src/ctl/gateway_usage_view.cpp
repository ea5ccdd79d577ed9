// SPDX-License-Identifier: Apache-2.0
#include "ctl/gateway_usage_view.h"

#include "ctl/local_time.h"
#include "sys/journal/journal_reader.h"

#include <system_error>

namespace nr::ctl {

namespace {

std::string tally_text(const core::GatewayTally& tally)
{
    std::string text = std::to_string(tally.requests) + (tally.requests == 1 ? " request" : " requests");
    if (tally.refused > 0) {
        text += " (" + std::to_string(tally.refused) + " refused)";
    }
    return text + ", " + core::format_bytes(tally.bytes_in) + " in, " + core::format_bytes(tally.bytes_out) + " out";
}

core::Json tally_json(const core::GatewayTally& tally)
{
    return core::Json{{"requests", tally.requests},
                      {"refused", tally.refused},
                      {"bytes_in", tally.bytes_in},
                      {"bytes_out", tally.bytes_out}};
}

} // namespace

GatewayUsageView read_gateway_usage(const core::SessionView& session, std::uint64_t now_usec)
{
    GatewayUsageView view;
    std::vector<core::GatewayRecordFields> records;
    try {
        if (!sys::system_journal_readable()) {
            view.unreadable = "its records are in the system journal: run as root or in group systemd-journal";
            return view;
        }
        sys::JournalQuery query;
        query.terms = core::gateway_usage_terms(session.owner);
        query.since_usec = core::gateway_usage_since(session.active_since_usec, now_usec);
        sys::read_journal(query, [&records](const sys::JournalRecord& record) {
            records.push_back({record.realtime_usec, record.fields});
            return true;
        });
    } catch (const std::system_error& e) {
        view.unreadable = std::string("the journal could not be read: ") + e.what();
        return view;
    }
    view.any_record = !records.empty();
    view.usage = core::tally_gateway_usage(records, session.unit, session.active_since_usec, now_usec);
    return view;
}

void print_gateway_usage(std::ostream& out, const GatewayUsageView& view, const std::string& owner)
{
    if (!view.unreadable.empty()) {
        out << "  Gateway: - (" << view.unreadable << ")\n";
        return;
    }
    if (!view.any_record) {
        return;
    }
    const auto& usage = view.usage;
    out << "  Gateway: " << tally_text(usage.session) << " (this session)\n"
        << "           " << tally_text(usage.owner) << " (owner " << owner << ", last " << usage.owner_window_sec
        << " s)\n";
    if (usage.budget) {
        const auto& budget = *usage.budget;
        out << "   Budget: " << budget.used << " of " << budget.budget << " requests in " << budget.window_sec
            << " s, as of " << local_time(budget.as_of_usec, "%H:%M:%S") << '\n';
    }
}

core::Json gateway_usage_json(const GatewayUsageView& view)
{
    if (!view.unreadable.empty()) {
        return {};
    }
    const auto& usage = view.usage;
    core::Json budget;
    if (usage.budget) {
        budget = core::Json{{"budget", usage.budget->budget},
                            {"window_sec", usage.budget->window_sec},
                            {"used", usage.budget->used},
                            {"as_of_usec", usage.budget->as_of_usec}};
    }
    return core::Json{{"session", tally_json(usage.session)},
                      {"owner", tally_json(usage.owner)},
                      {"owner_window_sec", usage.owner_window_sec},
                      {"budget", budget}};
}

} // namespace nr::ctl
