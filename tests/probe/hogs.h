// SPDX-License-Identifier: Apache-2.0
#pragma once
// Probe verbs that push against a session's quotas; see hogs.cpp.

#include <string>

namespace nr::probe {

// Writes /tmp/fill until the write fails; prints fill_tmp=<errno> and the
// number of MiB written.
int verb_fill_tmp();

// Forks sleeping children until fork fails (at most `limit`); prints
// forks=<count> and fork_error=<errno>, then reaps them.
int verb_fork_until_refused(const std::string& limit);

// Allocates and touches memory 4 MiB at a time up to MIB, printing
// eaten_mib=<n> after each step (flushed, so the last line survives a kill)
// and eat=done at the end.
int verb_eat_memory(const std::string& mib);

// Sleeps SECONDS.
int verb_sleep(const std::string& seconds);

} // namespace nr::probe
