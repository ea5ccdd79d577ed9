// SPDX-License-Identifier: Apache-2.0
// native-runtime-gateway: the egress gateway of `network: gateway` sessions
// (docs/egress-gateway-design.md). It accepts only on the listeners the
// helper hands over and holds the provider keys no session ever sees.
//
//   native-runtime-gateway [--control PATH] [--credentials DIR]
//                          [--credential-prefix PREFIX] [--upstream-ca FILE]
//
// Without --control it takes its control socket from systemd (socket
// activation); without --credentials it reads $CREDENTIALS_DIRECTORY.

#include "gateway/control_socket.h"
#include "gateway/credential_store.h"
#include "gateway/server.h"
#include "gateway/session_store.h"
#include "sys/base/journal_writer.h"
#include "version/version.h"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <sys/prctl.h>

namespace {

constexpr int kExitUsage = 2;

struct Options {
    std::string control;
    nr::gateway::ServerOptions server;
};

[[noreturn]] void usage(const std::string& problem)
{
    std::cerr << "native-runtime-gateway: " << problem << "\n"
              << "usage: native-runtime-gateway [--control PATH] [--credentials DIR] [--credential-prefix PREFIX]"
                 " [--upstream-ca FILE]\n";
    std::exit(kExitUsage);
}

Options parse(int argc, char** argv)
{
    Options options;
    if (const char* dir = std::getenv("CREDENTIALS_DIRECTORY"); dir != nullptr) {
        options.server.credentials_dir = dir;
    }
    for (int i = 1; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const auto value = [&]() -> std::string {
            if (i + 1 >= argc || argv[i + 1][0] == '\0') {
                usage(std::string(arg) + " needs a value");
            }
            return argv[++i];
        };
        if (arg == "--control") {
            options.control = value();
        } else if (arg == "--credentials") {
            options.server.credentials_dir = value();
        } else if (arg == "--credential-prefix") {
            options.server.credential_prefix = value();
        } else if (arg == "--upstream-ca") {
            options.server.upstream_ca = value();
        } else {
            usage("unknown argument " + std::string(arg));
        }
    }
    return options;
}

} // namespace

int main(int argc, char** argv)
{
    if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
        std::cout << nr::version::describe("native-runtime-gateway") << '\n';
        return 0;
    }
    const auto options = parse(argc, argv);
    nr::sys::set_log_identifier("native-runtime-gateway");
    // No core dump and no ptrace by the gateway's own user: the process
    // holds every provider key. Before any key is read.
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        std::cerr << "native-runtime-gateway: cannot make the process undumpable\n";
        return 1;
    }
    // A session that closes mid-answer must cost an EPIPE, not the gateway.
    (void)std::signal(SIGPIPE, SIG_IGN);
    try {
        nr::gateway::init_secure_heap();
        auto inherited = nr::gateway::take_inherited_descriptors();
        // After the passed descriptors are taken: it must not be one of them.
        nr::sys::keep_log_socket();
        for (const auto& problem : inherited.problems) {
            std::cerr << "native-runtime-gateway: " << problem << '\n';
        }
        auto control = options.control.empty() ? std::move(inherited.control)
                                               : std::optional(nr::gateway::bind_control_socket(options.control));
        if (!control) {
            usage("no control socket: not socket-activated and no --control");
        }
        nr::gateway::run_server(std::move(*control), std::move(inherited.sessions), options.server);
    } catch (const std::exception& e) {
        std::cerr << "native-runtime-gateway: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
