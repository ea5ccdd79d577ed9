// SPDX-License-Identifier: Apache-2.0
#pragma once
// The session unit's own view of the file system, around bwrap: systemd
// makes the whole tree read-only except the paths a session writes to,
// hides the users' homes and gives the unit its own /tmp. bwrap then mounts
// its positive list from that view, so this is a second wall: it holds in
// the launcher phase, before bwrap's mounts exist, and beneath every bind
// bwrap makes (a bind of a read-only mount stays read-only for a process
// without capabilities).

#include <string>
#include <vector>

#include "core/plan/unit_properties.h"

namespace nr::core {

// What a session's unit has to see.
struct UnitFilesystemNeeds {
    // The launcher creates the owner's tree and the admission queue there.
    std::string data_dir;
    // Everything bwrap binds read-only, and the programs the unit runs.
    std::vector<std::string> read_only;
    // What bwrap binds writable outside data_dir: a requested workspace,
    // provider session directories.
    std::vector<std::string> read_write;
};

// ProtectSystem=strict with data_dir and `read_write` in ReadWritePaths=
// (each "-"-prefixed: a path gone by then is the launcher's to refuse, with
// its own error); PrivateMounts=yes; ProtectHome=yes, or read-only when a
// needed path lies under /home, /root or /run/user; PrivateTmp=yes unless a
// needed path lies under /tmp or /var/tmp, where a private /tmp would hide
// it (then the property is left out rather than planned as "no", so that a
// drop-in turning it on is not taken for a weakening).
UnitProperties unit_filesystem_properties(const UnitFilesystemNeeds& needs);

} // namespace nr::core
