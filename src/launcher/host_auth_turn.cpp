#include "launcher/host_auth_turn.h"

#include "core/error.h"
#include "dbus/native_runtime_launcher_proxy.h"
#include "sys/bus_compat.h"

#include <sdbus-c++/sdbus-c++.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>
#include <memory>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace nr::launcher {

namespace {

using core::ErrorKind;
using core::fail;

constexpr int kLaunchFailedStatus = 125;
constexpr int kSignalStatusBase = 128;

class WaitingReporter final : public sdbus::ProxyInterfaces<org::metis::NativeRuntime1::Launcher_proxy> {
public:
    explicit WaitingReporter(sdbus::IConnection& connection)
        : ProxyInterfaces(connection, sys::BusName{"org.metis.NativeRuntime1"},
                          sdbus::ObjectPath{"/org/metis/NativeRuntime1"})
    {
        registerProxy();
    }
    ~WaitingReporter() { unregisterProxy(); }
    WaitingReporter(const WaitingReporter&) = delete;
    WaitingReporter& operator=(const WaitingReporter&) = delete;
    WaitingReporter(WaitingReporter&&) = delete;
    WaitingReporter& operator=(WaitingReporter&&) = delete;
};

// The signals systemd uses to stop a unit. While the sandbox runs, the
// holder defers them so it outlives bwrap and never releases the turn
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

std::optional<sys::AdmissionTicket> take_turn(const core::LaunchSpec& spec)
{
    if (!spec.admission.serial()) {
        return std::nullopt;
    }
    auto ticket = sys::AdmissionTicket::enqueue(spec.dirs.base, spec.admission.queue_dir);
    std::unique_ptr<sdbus::IConnection> connection;
    std::unique_ptr<WaitingReporter> reporter;
    ticket.wait_turn([&](std::size_t ahead) {
        // The signal only informs the worker: a failure to send it neither
        // admits the session nor ends its wait.
        try {
            if (!reporter) {
                connection = sdbus::createSystemBusConnection();
                reporter = std::make_unique<WaitingReporter>(*connection);
            }
            reporter->ReportWaiting(static_cast<std::uint32_t>(std::min<std::size_t>(ahead, UINT32_MAX)));
        } catch (const sdbus::Error& e) {
            std::cerr << "native-runtime-launch: could not report the wait: " << e.getName() << ": " << e.getMessage()
                      << '\n';
        }
    });
    return ticket;
}

void run_holding_turn(sys::AdmissionTicket turn, std::vector<std::string>& secrets,
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
            // bwrap must not outlive the holder of its turn.
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
    int status = 0;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) {
            status = kLaunchFailedStatus << 8; // as if exited with 125
            break;
        }
    }
    {
        const auto released = std::move(turn); // removes the ticket file; the lock goes with it
    }
    end_like(status);
}

} // namespace nr::launcher
