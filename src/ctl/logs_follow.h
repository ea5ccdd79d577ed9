// SPDX-License-Identifier: Apache-2.0
#pragma once
// `logs -f`: journalctl prints, but is not left to follow. On systemd 252
// `journalctl -f` with matches, started before any record matches, prints
// only the last of the first records written together (a burst such as a
// session's start: systemd's records and the helper's); a fresh journalctl
// reads them all. So journalctl runs once for the newest records, then again
// after each change of the journal, each time from the cursor of the last
// record it printed (--cursor-file).

#include "core/journal/log_query.h"

namespace nr::ctl {

// Runs until interrupted (then ends by the same signal) or until standard
// output goes away (then 0). Throws std::system_error when journalctl fails.
int follow_logs(core::JournalctlQuery query);

} // namespace nr::ctl
