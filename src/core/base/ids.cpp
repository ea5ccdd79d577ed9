// SPDX-License-Identifier: Apache-2.0
#include "core/base/ids.h"

#include "core/base/error.h"

#include <string>

namespace nr::core {

namespace {

constexpr std::size_t kMaxIdLength = 64;

bool is_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool is_id_char(char c)
{
    return is_alnum(c) || c == '.' || c == '_' || c == '@' || c == '-';
}

} // namespace

std::string_view id_kind_name(IdKind kind)
{
    switch (kind) {
    case IdKind::Owner: return "owner";
    case IdKind::Chat: return "chat";
    case IdKind::Job: return "job";
    case IdKind::Adapter: return "adapter";
    }
    return "id";
}

void validate_id(IdKind kind, std::string_view value)
{
    const std::string field(id_kind_name(kind));
    if (value.empty()) {
        fail(ErrorKind::InvalidArgument, field + " must not be empty");
    }
    if (value.size() > kMaxIdLength) {
        fail(ErrorKind::InvalidArgument, field + " is longer than 64 characters");
    }
    if (!is_alnum(value.front())) {
        fail(ErrorKind::InvalidArgument, field + " must start with a letter or digit");
    }
    for (const char c : value) {
        if (!is_id_char(c)) {
            fail(ErrorKind::InvalidArgument, field + " may contain only letters, digits and . _ @ -");
        }
    }
}

void validate_optional_id(IdKind kind, std::string_view value)
{
    if (!value.empty()) {
        validate_id(kind, value);
    }
}

} // namespace nr::core
