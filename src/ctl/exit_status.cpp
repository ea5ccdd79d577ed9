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
    if (code == kCldExited) {
        return status & 0xff;
    }
    if (code > kCldExited && status > 0) {
        return kSignalBase + (status & 0x7f);
    }
    return kUnknownEnd;
}

} // namespace nr::ctl
