#pragma once
// Which journal records belong to an owner's (or one chat's) sessions, and
// which of them `native-runtimectl logs` trusts: only what journald itself
// attributes to a writer it can vouch for. A field a client sends (MESSAGE=,
// NATIVE_RUNTIME_OWNER=, UNIT=, OBJECT_SYSTEMD_UNIT=) can be forged by any
// local user; the fields starting with '_' cannot, journald sets them.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace nr::core {

// The helper runs as core::kHelperUnit (core/base/unit_name.h).

// Alternatives of conjunctions of FIELD=value, as sd_journal_add_match /
// sd_journal_add_disjunction take them. Validates the ids.
//
// One chat (unit U):
//   _UID=0 _SYSTEMD_UNIT=native-runtimed.service NATIVE_RUNTIME_OWNER=O NATIVE_RUNTIME_CHAT=C
//   _SYSTEMD_UNIT=native-runtime-gateway.service NATIVE_RUNTIME_OWNER=O NATIVE_RUNTIME_CHAT=C
//                                         (the egress gateway's requests)
//   _PID=1 _UID=0 UNIT=U                  (systemd about U)
//   _SYSTEMD_UNIT=U                       (the launcher and anything else in U)
// An owner: the helper's and the gateway's records with
// NATIVE_RUNTIME_OWNER=O, whatever runs
// in the owner's slice (_SYSTEMD_SLICE=native-runtime-O.slice), and
// systemd's records about each of `units` that is one of O's session units.
std::vector<std::vector<std::string>> session_log_terms(const std::string& owner, const std::string& chat,
                                                        const std::set<std::string>& units = {});

// True when `fields` (a record's FIELD -> value) satisfy one of `terms`, as
// sd_journal's matches would; used where the matches are applied by hand.
bool record_matches(const std::map<std::string, std::string>& fields,
                    const std::vector<std::vector<std::string>>& terms);

// The members of `units` that are session units of `owner`.
std::set<std::string> owner_units(const std::string& owner, const std::set<std::string>& units);

// journalctl's --since forms that `logs` accepts: "YYYY-MM-DD [HH:MM[:SS]]"
// (local time), "@EPOCH_SECONDS", "now", "today", "yesterday",
// "-N<unit>" and "N <unit> ago" with unit s, sec, min, m, h, hour(s), d,
// day(s). `now_usec` is the current realtime clock. Throws InvalidArgument.
std::uint64_t parse_since(std::string_view text, std::uint64_t now_usec);

} // namespace nr::core
