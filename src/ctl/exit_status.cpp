// SPDX-License-Identifier: Apache-2.0
#include "ctl/exit_status.h"

#include "core/base/error.h"

#include <sdbus-c++/sdbus-c++.h>

#include <iostream>
#include <stdexcept>
#include <string_view>
#include <system_error>

namespace nr::ctl {

namespace {

int report(std::string_view name, std::string_view message, core::CliFailure failure)
{
    std::cerr << "native-runtimectl: " << name << ": " << message << '\n';
    return core::cli_exit_status(failure);
}

} // namespace

int guarded(const std::function<int()>& body)
{
    try {
        return body();
    } catch (const sdbus::Error& e) {
        return report(e.getName(), e.getMessage(), core::cli_failure_of_bus_error(e.getName()));
    } catch (const core::Error& e) {
        return report(core::error_name(e.kind()), e.what(), core::cli_failure_of(e.kind()));
    } catch (const std::invalid_argument& e) {
        return report("InvalidArgument", e.what(), core::CliFailure::Usage);
    } catch (const std::system_error& e) {
        return report("IOError", e.what(), core::CliFailure::IoError);
    } catch (const std::exception& e) {
        return report("InternalError", e.what(), core::CliFailure::Internal);
    } catch (...) {
        return report("InternalError", "unknown exception", core::CliFailure::Internal);
    }
}

} // namespace nr::ctl
