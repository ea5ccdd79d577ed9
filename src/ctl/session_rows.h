// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reading a session's view from systemd and printing it, shared by `list`
// and `status`. Everything comes from systemd, so both work without the
// helper and show exactly what systemd runs.

#include "core/cli/json_output.h"
#include "core/cli/session_view.h"
#include "sys/systemd/systemd_manager.h"

#include <ostream>
#include <vector>

namespace nr::ctl {

// Properties of a loaded session unit; counters systemd lacks stay unset.
core::SessionView read_session_view(sys::SystemdManager& systemd, const std::string& unit,
                                    const sdbus::ObjectPath& path);

std::uint64_t realtime_now_usec();

// legend: the header line and the "N session(s) listed." footer (--no-legend drops them).
void print_session_table(std::ostream& out, const std::vector<core::SessionView>& rows, std::uint64_t now_usec,
                         bool legend);
core::Json session_json(const core::SessionView& row, std::uint64_t now_usec);
void print_session_status(std::ostream& out, const core::SessionView& row, std::uint64_t now_usec);

} // namespace nr::ctl
