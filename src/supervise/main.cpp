// SPDX-License-Identifier: Apache-2.0
// native-runtime-supervise: what native-runtime-launch becomes once it has
// forked bwrap (launcher/supervisor.h). Exec'd by the launcher only, as the
// session user, inside the session's unit, as bwrap's parent; never started
// by hand. Everything it gets is on its command line (non-secret,
// core/launch/supervisor_args.h) or an inherited descriptor.

#include "core/base/error.h"
#include "core/launch/supervisor_args.h"
#include "supervise/supervision.h"
#include "sys/base/journal_writer.h"
#include "version/version.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    // exec made the process dumpable again: until it ends, no other process
    // of the session user may read its memory or take its descriptors (the
    // listener, the ticket).
    prctl(PR_SET_DUMPABLE, 0);
    if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
        const auto line = nr::version::describe("native-runtime-supervise") + "\n";
        return write(STDOUT_FILENO, line.data(), line.size()) == static_cast<ssize_t>(line.size()) ? 0 : 1;
    }
    // Its records are the launcher's, as operators and the docs know them.
    nr::sys::set_log_identifier("native-runtime-launch");
    nr::core::SupervisorArgs args;
    try {
        args = nr::core::decode_supervisor_args(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const nr::core::Error& e) {
        // The child (if any) dies with this process: it has PR_SET_PDEATHSIG,
        // and systemd stops the rest of the unit with its main process.
        nr::supervise::fail_session(std::string(nr::core::error_name(e.kind())) + ": " + e.what());
    }
    nr::supervise::supervise(args);
}
