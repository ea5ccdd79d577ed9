// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the launch spec's byte form (core/launch/launch_spec_bytes.h),
// which the launcher reads from the sealed memfd the helper sends over the
// session's helper channel, before decode_launch_spec judges its fields.
//
// The input is the memfd's content as it is. Checked: the reader refuses
// only with LaunchFailed; an accepted input is the canonical encoding of
// what was read (writing it back gives the same bytes); and
// decode_launch_spec, run on what was read, also refuses only with
// LaunchFailed.

#include "core/base/error.h"
#include "core/launch/launch_spec.h"
#include "core/launch/launch_spec_bytes.h"
#include "fuzz_support.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace nr::core;
    using nr::fuzz::require;
    const std::string_view bytes(reinterpret_cast<const char*>(data), size); // NOLINT: libFuzzer's input
    LaunchSpecWire wire;
    try {
        wire = launch_spec_from_bytes(bytes);
    } catch (const Error& e) {
        require(e.kind() == ErrorKind::LaunchFailed, "the byte reader refused with another kind than LaunchFailed");
        return 0;
    }
    require(launch_spec_bytes(wire) == bytes, "an accepted input is not the encoding of what was read");
    try {
        (void)decode_launch_spec(wire);
    } catch (const Error& e) {
        require(e.kind() == ErrorKind::LaunchFailed, "decode_launch_spec refused with another kind than LaunchFailed");
    }
    return 0;
}
