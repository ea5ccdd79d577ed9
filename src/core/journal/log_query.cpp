// SPDX-License-Identifier: Apache-2.0
#include "core/journal/log_query.h"

#include "core/base/ids.h"
#include "core/base/unit_name.h"
#include "core/journal/journal_fields.h"

namespace nr::core {

namespace {

std::vector<std::string> helper_term(const std::string& owner)
{
    return {"_UID=0", "_SYSTEMD_UNIT=" + std::string(kHelperUnit), field_assignment(kFieldOwner, owner)};
}

// The egress gateway's records of the owner's requests (its unit is
// DynamicUser, so no _UID= is fixed; _SYSTEMD_UNIT= is journald's own).
std::vector<std::string> gateway_term(const std::string& owner)
{
    return {"_SYSTEMD_UNIT=" + std::string(kGatewayUnit), field_assignment(kFieldOwner, owner)};
}

std::vector<std::string> systemd_term(const std::string& unit)
{
    return {"_PID=1", "_UID=0", "UNIT=" + unit};
}

} // namespace

std::vector<std::vector<std::string>> session_log_terms(const std::string& owner, const std::string& chat,
                                                        const std::set<std::string>& units)
{
    validate_id(IdKind::Owner, owner);
    if (chat.empty()) {
        std::vector<std::vector<std::string>> terms{helper_term(owner),
                                                    gateway_term(owner),
                                                    {"_SYSTEMD_SLICE=" + owner_slice_name(owner)},
                                                    {"_SYSTEMD_SLICE=" + legacy_owner_slice_name(owner)}};
        for (const auto& unit : owner_units(owner, units)) {
            terms.push_back(systemd_term(unit));
        }
        return terms;
    }
    validate_id(IdKind::Chat, chat);
    auto helper = helper_term(owner);
    helper.push_back(field_assignment(kFieldChat, chat));
    auto gateway = gateway_term(owner);
    gateway.push_back(field_assignment(kFieldChat, chat));
    const auto unit = session_unit_name(owner, chat);
    return {helper, gateway, systemd_term(unit), {"_SYSTEMD_UNIT=" + unit}};
}

std::set<std::string> owner_units(const std::string& owner, const std::set<std::string>& units)
{
    validate_id(IdKind::Owner, owner);
    // The escaped owner has no '-', so this prefix names one owner only.
    const auto prefix = std::string(kUnitPrefix) + systemd_escape(owner) + "-";
    std::set<std::string> out;
    for (const auto& unit : units) {
        if (unit.size() > prefix.size() && unit.compare(0, prefix.size(), prefix) == 0 && is_session_unit_name(unit)) {
            out.insert(unit);
        }
    }
    return out;
}

std::vector<std::string> journalctl_argv(const JournalctlQuery& query)
{
    // Every journal file the caller can read, not --system: on a host with
    // a persistent journal (Debian's default), journald files the records
    // of a session's processes, which run as a regular user, in that user's
    // journal (SplitMode=uid), which --system leaves out. What is shown is
    // decided by the trusted fields matched below, not by the files.
    std::vector<std::string> argv{kJournalctl, "--quiet"};
    // --all: every field in full, as `logs -o json` always printed them.
    argv.emplace_back(query.json ? "--output=json" : "--output=short");
    if (query.json) {
        argv.emplace_back("--all");
    }
    if (query.no_pager) {
        argv.emplace_back("--no-pager");
    }
    if (query.lines) {
        argv.push_back("--lines=" + std::to_string(*query.lines));
    }
    // User text only ever inside one "--option=VALUE" word: it cannot be
    // read as an option of its own, nor as a match.
    if (!query.since.empty()) {
        argv.push_back("--since=" + query.since);
    }
    if (!query.cursor_file.empty()) {
        argv.push_back("--cursor-file=" + query.cursor_file);
    }
    argv.emplace_back("--");
    for (std::size_t i = 0; i < query.terms.size(); ++i) {
        if (i > 0) {
            argv.emplace_back("+");
        }
        argv.insert(argv.end(), query.terms[i].begin(), query.terms[i].end());
    }
    return argv;
}

std::vector<std::string> journalctl_since_check_argv(const std::string& since)
{
    return {kJournalctl, "--quiet", "--no-pager", "--lines=0", "--since=" + since};
}

} // namespace nr::core
