#include "launcher/supervise.h"

#include "core/error.h"
#include "sys/output_watch.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace nr::launcher {

namespace {

using core::ErrorKind;
using core::fail;

constexpr int kLaunchFailedStatus = 125;
constexpr int kSignalStatusBase = 128;

// The signals systemd uses to stop a unit. While the sandbox runs, the
// launcher defers them so it outlives bwrap (which gets them too, since
// KillMode=control-group signals every process) and never releases a turn
// while the session's processes still exist.
sigset_t stop_signals()
{
    sigset_t set;
    sigemptyset(&set);
    for (const int sig : {SIGTERM, SIGINT, SIGHUP}) {
        sigaddset(&set, sig);
    }
    return set;
}

[[noreturn]] void end_like(int status)
{
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        std::signal(sig, SIG_DFL);
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, sig);
        sigprocmask(SIG_UNBLOCK, &only, nullptr);
        raise(sig);
        _exit(kSignalStatusBase + sig); // a signal whose default is not to die
    }
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : kLaunchFailedStatus);
}

} // namespace

void run_supervised(std::optional<sys::AdmissionTicket> turn, std::vector<std::string>& secrets,
                    const std::function<void()>& become_sandbox)
{
    const auto deferred = stop_signals();
    sigset_t original;
    sigprocmask(SIG_BLOCK, &deferred, &original);
    const pid_t parent = getpid();
    const pid_t child = fork();
    if (child < 0) {
        fail(ErrorKind::LaunchFailed, std::string("fork: ") + std::strerror(errno));
    }
    if (child == 0) {
        try {
            // bwrap must not outlive the launcher (nor a turn's holder).
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent) {
                _exit(kLaunchFailedStatus);
            }
            sigprocmask(SIG_SETMASK, &original, nullptr);
            become_sandbox();
        } catch (const core::Error& e) {
            std::cerr << "native-runtime-launch: " << core::error_name(e.kind()) << ": " << e.what() << '\n';
        } catch (const std::exception& e) {
            std::cerr << "native-runtime-launch: LaunchFailed: " << e.what() << '\n';
        }
        _exit(kLaunchFailedStatus);
    }
    // The credentials went to the child; this process has no use for them.
    for (auto& secret : secrets) {
        std::fill(secret.begin(), secret.end(), '\0');
    }
    secrets.clear();
    sys::ChildEnd end;
    try {
        end = sys::wait_child_or_reader_gone(child, STDOUT_FILENO);
    } catch (const core::Error& e) {
        std::cerr << "native-runtime-launch: " << core::error_name(e.kind()) << ": " << e.what() << '\n';
        end.wait_status = kLaunchFailedStatus << 8; // as if exited with 125
    }
    turn.reset(); // removes the ticket file; the lock goes with it
    if (end.reader_gone) {
        // The worker may have closed stderr too: a failed write is fine.
        std::signal(SIGPIPE, SIG_IGN);
        std::cerr << "native-runtime-launch: the worker stopped reading the session's output; sandbox stopped\n";
        end_like(SIGPIPE); // a wait status "killed by SIGPIPE"
    }
    end_like(end.wait_status);
}

} // namespace nr::launcher
