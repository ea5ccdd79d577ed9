// SPDX-License-Identifier: Apache-2.0
#include "ctl/arg_checks.h"

#include "core/base/error.h"
#include "core/cli/cli_input.h"

#include <string>

namespace nr::ctl {

CLI::Validator id_check(core::IdKind kind)
{
    return CLI::Validator(
        [kind](std::string& value) -> std::string {
            try {
                core::validate_optional_id(kind, value);
                return {};
            } catch (const core::Error& e) {
                return e.what();
            }
        },
        "");
}

CLI::Validator text_check()
{
    return CLI::Validator(
        [](std::string& value) -> std::string {
            return core::is_bus_string(value) ? std::string() : "not valid UTF-8 text";
        },
        "");
}

} // namespace nr::ctl
