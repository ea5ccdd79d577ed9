#pragma once
// Minimal JSON string quoting for --json output (no library dependency).

#include <string>
#include <string_view>

namespace nr::ctl {

std::string json_quote(std::string_view text);

} // namespace nr::ctl
