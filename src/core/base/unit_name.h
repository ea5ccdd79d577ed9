// SPDX-License-Identifier: Apache-2.0
#pragma once
// Deterministic systemd names for sessions. The service name is a pure
// function of (owner, chat), which makes systemd's own UnitExists refusal the
// per-conversation lock: no second lock table can drift out of sync with it.

#include <string>
#include <string_view>

namespace nr::core {

// The parent of every session. No dash: systemd reads a dash in a slice name
// as nesting, so "native-runtime.slice" sat under an implicit native.slice
// in systemd-cgls. Services do not nest, so their names keep the project's.
inline constexpr std::string_view kTopSlice = "nativeruntime.slice";
inline constexpr std::string_view kSlicePrefix = "nativeruntime-";
inline constexpr std::string_view kUnitPrefix = "native-runtime-";
// Owner slices of releases before the rename (native-runtime-<owner>.slice):
// sessions started before an upgrade run on in them until they end, and the
// journal keeps their records under that _SYSTEMD_SLICE=.
inline constexpr std::string_view kLegacySlicePrefix = "native-runtime-";
inline constexpr std::string_view kLegacyTopSlice = "native-runtime.slice";

// The helper's own unit. Its drop-in (same file name, rendered from its own
// template) opens exactly the directories file operations write in, in a
// unit that is otherwise ProtectSystem=strict.
inline constexpr std::string_view kHelperUnit = "native-runtimed.service";

// The gateway's own unit: journald's _SYSTEMD_UNIT= of its records, which
// only processes in that unit can carry.
inline constexpr std::string_view kGatewayUnit = "native-runtime-gateway.service";

// systemd's unit-name escaping (as `systemd-escape` without --path):
// '/' becomes '-', [A-Za-z0-9:_.] stay (except a leading '.'), every other
// byte becomes \xNN.
std::string systemd_escape(std::string_view text);

// nativeruntime-<owner>.slice: a child of nativeruntime.slice because a
// dash in a slice name denotes nesting, and escaping removes dashes from ids.
std::string owner_slice_name(std::string_view owner);

// native-runtime-<owner>.slice, the owner's slice before the rename.
std::string legacy_owner_slice_name(std::string_view owner);

// native-runtime-<owner>-<chat>.service
std::string session_unit_name(std::string_view owner, std::string_view chat);

// True for names this project could have produced; used to filter systemd
// listings so operators' own units are never touched.
bool is_session_unit_name(std::string_view unit);

} // namespace nr::core
