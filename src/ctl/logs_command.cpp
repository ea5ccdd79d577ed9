// SPDX-License-Identifier: Apache-2.0
// `native-runtimectl logs --owner O [--chat C] [-n N] [--since T] [-f]
// [-o short|json] [--no-pager]`: an owner's or one chat's journal records,
// printed by journalctl itself, but only those whose writer journald vouches
// for (the helper as root in its own unit, systemd about the session's unit,
// processes in the session's unit or the owner's slice); see
// core/journal/log_query.h for the matches and docs/operator-guide.md for the
// equivalent journalctl line.

#include "core/base/error.h"
#include "core/journal/log_query.h"
#include "ctl/child_process.h"
#include "ctl/logs_follow.h"
#include "ctl/operator_commands.h"
#include "sys/journal/journal_reader.h"

#include <cerrno>
#include <system_error>

namespace nr::ctl {

int session_logs(const LogsOptions& options)
{
    // Failures map through guarded(): a bad --since is a usage error (64),
    // a journal that cannot be read an I/O error (74).
    if (!sys::system_journal_readable()) {
        // journalctl would print nothing but a hint, which --quiet hides.
        throw std::system_error(EACCES, std::generic_category(),
                                "the system journal cannot be read: run as root or in group systemd-journal");
    }
    if (!options.since.empty() && run_and_wait(core::journalctl_since_check_argv(options.since), true) != 0) {
        core::fail(core::ErrorKind::InvalidArgument,
                   "--since: journalctl cannot parse '" + options.since + "' (see systemd.time(7))");
    }
    core::JournalctlQuery query;
    // systemd's records about an owner's units can only be matched by
    // unit name: the names come from the journal's own index of UNIT=
    // values, and only those of this owner's sessions are used.
    const auto units = options.chat.empty() ? sys::unique_journal_values("UNIT") : std::set<std::string>{};
    query.terms = core::session_log_terms(options.owner, options.chat, units);
    query.lines = options.lines;
    query.since = options.since;
    query.json = options.json || options.output == "json";
    query.no_pager = options.no_pager;
    if (options.follow) {
        return follow_logs(std::move(query));
    }
    exec_program(core::journalctl_argv(query));
}

} // namespace nr::ctl
