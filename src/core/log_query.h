#pragma once
// Which journal records belong to an owner's (or one chat's) sessions: the
// structured fields sessions carry (LogExtraFields=) and the helper writes,
// plus, for one chat, systemd's own records about its unit.

#include <string>
#include <vector>

namespace nr::core {

// Alternatives of conjunctions of FIELD=value, as sd_journal_add_match /
// sd_journal_add_disjunction take them. Validates the ids.
std::vector<std::vector<std::string>> session_log_terms(const std::string& owner, const std::string& chat);

// The fields `native-runtimectl logs` prints or puts into JSON.
std::vector<std::string> session_log_fields();

} // namespace nr::core
