// SPDX-License-Identifier: Apache-2.0
#pragma once
// What the launcher and its supervisor do about a process bwrap leaves
// behind when bwrap dies early in its set-up.
//
// bwrap's sandbox process, pid 1 of the session's PID namespace, arms
// --die-with-parent only near the end of its set-up. Before that it blocks
// reading an eventfd that only bwrap, its parent, writes, once the user
// namespace is ready (bubblewrap 0.8 to 0.11 alike). If bwrap is killed in
// that window, the sandbox process stays blocked for good, reparented away,
// and as the init of a PID namespace it ignores the SIGTERM that systemd stops
// the unit with: the unit then waits its whole stop timeout (90 s by default)
// for the SIGKILL. No session code runs in it, but the owner's chat stays
// busy that long.
//
// So the launcher makes itself the subreaper of its descendants (the flag
// survives its exec into the supervisor): such a process becomes its child,
// and whichever of the two ends the session kills every child it still has
// before it exits.

namespace nr::sys {

// Processes orphaned below this one are reparented to it, not to the service
// manager. Throws core::Error(LaunchFailed) when the kernel refuses.
void adopt_orphaned_descendants();

// Kills (SIGKILL, which reaches a PID namespace's init from outside it) and
// reaps every child this process still has, adopted orphans and bwrap
// alike, then whatever bwrap's death orphaned in turn. For the last moments
// of a launcher or supervisor, whose only child of its own is bwrap. Costs
// one waitid(2) when there is none.
void kill_adopted_orphans() noexcept;

} // namespace nr::sys
