// SPDX-License-Identifier: Apache-2.0
#pragma once
// Identifiers forwarded by the worker (owner, chat, job, adapter) end up in
// unit names, slice names, journal fields and directory names. They are
// untrusted, so they are held to a small alphabet before anything else runs.

#include <string_view>

namespace nr::core {

enum class IdKind { Owner, Chat, Job, Adapter };

std::string_view id_kind_name(IdKind kind);

// 1..64 characters of [A-Za-z0-9._@-], starting with an alphanumeric.
// Throws Error(InvalidArgument) naming the field otherwise.
void validate_id(IdKind kind, std::string_view value);

// Same rule, but an empty value is allowed (optional ids such as job).
void validate_optional_id(IdKind kind, std::string_view value);

} // namespace nr::core
