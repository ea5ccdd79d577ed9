// SPDX-License-Identifier: Apache-2.0
// native-runtimectl: the operator's and worker's command line, in the
// manner of hostnamectl/machinectl. The verbs are defined in cli.cpp.

#include "ctl/cli.h"
#include "ctl/exit_status.h"

int main(int argc, char** argv)
{
    return nr::ctl::guarded([&] {
        nr::ctl::Cli cli;
        if (const auto status = cli.parse(argc, argv)) {
            return *status;
        }
        return cli.dispatch();
    });
}
