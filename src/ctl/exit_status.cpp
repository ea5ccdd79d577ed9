#include "ctl/exit_status.h"

namespace nr::ctl {

namespace {

constexpr std::int32_t kCldExited = 1;
constexpr int kSignalBase = 128;
constexpr int kUnknownEnd = 255;

} // namespace

int session_exit_status(const std::string& result, std::int32_t code, std::int32_t status)
{
    if (result == "unknown") {
        return kUnknownEnd;
    }
    // systemd stops a unit that reached RuntimeMaxSec with SIGTERM, which
    // alone would read as 143: report the limit instead.
    if (result == "timeout") {
        return kExitRuntimeLimit;
    }
    // cgroup v2 reports the OOM killer as a result of its own; report it
    // as the SIGKILL it is, as cgroup v1 hosts do anyway.
    if (result == "oom-kill") {
        return kSignalBase + 9;
    }
    if (code == kCldExited) {
        return status & 0xff;
    }
    if (code > kCldExited && status > 0) {
        return kSignalBase + (status & 0x7f);
    }
    return kUnknownEnd;
}

} // namespace nr::ctl
