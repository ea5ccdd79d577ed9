// SPDX-License-Identifier: Apache-2.0
#pragma once
// CLI11 checks on option values, run while parsing: a value that fails one
// is a usage error (64) reported before any bus call.

#include "core/base/ids.h"

#include <CLI/CLI.hpp>

namespace nr::ctl {

// A valid id of this kind (core/base/ids.h); an optional id may be empty.
CLI::Validator id_check(core::IdKind kind);

// A value that can travel as a D-Bus string (UTF-8, no NUL).
CLI::Validator text_check();

} // namespace nr::ctl
