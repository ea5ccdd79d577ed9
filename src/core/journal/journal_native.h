// SPDX-License-Identifier: Apache-2.0
#pragma once
// journald's native protocol, as a datagram payload: what sd_journal_sendv
// would send, written here so that a binary can log without libsystemd
// (native-runtime-supervise stays small for the whole of a session).
// Each field is "NAME=value\n"; a value with a newline in it goes in the
// binary form, "NAME\n", its length as a little-endian 64-bit number, the
// value and "\n" (systemd's docs: JOURNAL_NATIVE_PROTOCOL).

#include <string>
#include <string_view>
#include <vector>

namespace nr::core {

// `fields` are "NAME=value" entries as core::journal_fields makes them.
// Throws Error(InvalidArgument) for an entry without '=' or with a name
// journald would drop (core::is_journal_field_name, which also lets through
// the names journal_fields sets itself).
std::string journal_native_payload(const std::vector<std::string>& fields);

} // namespace nr::core
