// SPDX-License-Identifier: Apache-2.0
#pragma once
// The helper's side of the gateway: registrations and revocations arrive
// on the control socket (gateway/control_socket.h), one datagram each, and
// each is answered "ok" or "error <why>".

// clang-format off
#include "gateway/asio_config.h"
// clang-format on

#include "gateway/session.h"
#include "sys/base/unique_fd.h"

#include <boost/asio/awaitable.hpp>

namespace nr::gateway {

// Accepts root's connections on `control` and serves their datagrams until
// the event loop stops.
boost::asio::awaitable<void> control_loop(Shared& shared, sys::UniqueFd control);

} // namespace nr::gateway
