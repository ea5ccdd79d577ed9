// SPDX-License-Identifier: Apache-2.0
#include "gateway/session.h"

#include "sys/base/journal_writer.h"

namespace nr::gateway {

std::uint64_t steady_now_usec()
{
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::microseconds>(Clock::now().time_since_epoch()).count());
}

bool Session::reserve(std::uint64_t bytes)
{
    if (bytes > config.max_buffered_bytes || buffered_bytes > config.max_buffered_bytes - bytes) {
        return false;
    }
    buffered_bytes += bytes;
    return true;
}

void Session::release(std::uint64_t bytes)
{
    buffered_bytes -= std::min(bytes, buffered_bytes);
}

bool Reservation::resize(std::uint64_t bytes)
{
    if (bytes <= bytes_) {
        session_.release(bytes_ - bytes);
        bytes_ = bytes;
        return true;
    }
    if (!session_.reserve(bytes - bytes_)) {
        return false;
    }
    bytes_ = bytes;
    return true;
}

void record_refusal(Session& session, const core::GatewayExchange& exchange)
{
    if (session.refusal_records.admit(exchange.refused, steady_now_usec())) {
        sys::write_log(core::gateway_request_record(session.config, exchange));
    }
}

void write_refusal_summaries(Session& session, bool all)
{
    const auto summary = all ? session.refusal_records.flush() : session.refusal_records.due(steady_now_usec());
    if (summary) {
        sys::write_log(core::gateway_refusal_summary_record(session.config, *summary));
    }
}

} // namespace nr::gateway
