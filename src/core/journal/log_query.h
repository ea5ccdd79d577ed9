// SPDX-License-Identifier: Apache-2.0
#pragma once
// Which journal records belong to an owner's (or one chat's) sessions, and
// which of them `native-runtimectl logs` trusts: only what journald itself
// attributes to a writer it can vouch for. A field a client sends (MESSAGE=,
// NATIVE_RUNTIME_OWNER=, UNIT=, OBJECT_SYSTEMD_UNIT=) can be forged by any
// local user; the fields starting with '_' cannot, journald sets them.

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace nr::core {

// The helper runs as core::kHelperUnit (core/base/unit_name.h).

// Alternatives of conjunctions of FIELD=value, as journalctl's matches (with
// "+" between alternatives) and sd_journal_add_match take them. Validates
// the ids.
//
// One chat (unit U):
//   _UID=0 _SYSTEMD_UNIT=native-runtimed.service NATIVE_RUNTIME_OWNER=O NATIVE_RUNTIME_CHAT=C
//   _SYSTEMD_UNIT=native-runtime-gateway.service NATIVE_RUNTIME_OWNER=O NATIVE_RUNTIME_CHAT=C
//                                         (the egress gateway's requests)
//   _PID=1 _UID=0 UNIT=U                  (systemd about U)
//   _SYSTEMD_UNIT=U                       (the launcher and anything else in U)
// An owner: the helper's and the gateway's records with
// NATIVE_RUNTIME_OWNER=O, whatever runs
// in the owner's slice (_SYSTEMD_SLICE=nativeruntime-O.slice, or its name
// before the rename, native-runtime-O.slice: only systemd places units in
// a slice, and only the helper asks it for these), and
// systemd's records about each of `units` that is one of O's session units.
std::vector<std::vector<std::string>> session_log_terms(const std::string& owner, const std::string& chat,
                                                        const std::set<std::string>& units = {});

// The members of `units` that are session units of `owner`.
std::set<std::string> owner_units(const std::string& owner, const std::set<std::string>& units);

// `logs` hands the reading, --since, paging and output formats to journalctl
// itself, at a fixed path (merged /usr on every supported release).
inline constexpr const char* kJournalctl = "/usr/bin/journalctl";

struct JournalctlQuery {
    std::vector<std::vector<std::string>> terms; // session_log_terms()
    std::optional<std::size_t> lines;            // --lines=N
    std::string since;                           // --since=TIME, as the user wrote it; empty: none
    bool json = false;                           // -o json (every field, --all), else short
    bool no_pager = false;
    std::string cursor_file; // --cursor-file=PATH; empty: none
};

// journalctl's argv for `query`, without a shell: the system journal only,
// no "-- No entries --" hints (an owner with no records prints nothing), and
// the terms as matches after "--", alternatives separated by "+".
std::vector<std::string> journalctl_argv(const JournalctlQuery& query);

// A journalctl run that only parses --since=TIME (it exits non-zero when it
// cannot), so that a bad time is a usage error before any output.
std::vector<std::string> journalctl_since_check_argv(const std::string& since);

} // namespace nr::core
