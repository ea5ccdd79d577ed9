#pragma once
// native-runtimectl's whole command line: every verb with its options, and
// which function runs it. main() parses and dispatches; the CLI surface test
// (tests/ctl) walks the same App to check the man page and bash completion.

#include "ctl/file_cli.h"
#include "ctl/operator_cli.h"

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>

namespace nr::ctl {

class Cli {
public:
    Cli();
    Cli(const Cli&) = delete;
    Cli& operator=(const Cli&) = delete;
    Cli(Cli&&) = delete;
    Cli& operator=(Cli&&) = delete;
    ~Cli();

    [[nodiscard]] CLI::App& app() { return app_; }

    // Parses argv: nullopt to go on, or the status to exit with (--help,
    // --version, a usage error).
    std::optional<int> parse(int argc, char** argv);

    // Runs the parsed verb; every failure maps through guarded().
    int dispatch();

    struct Verbs; // run, stop, list (cli.cpp)

private:
    CLI::App app_;
    std::unique_ptr<Verbs> verbs_;
    OperatorVerbs operator_verbs_;
    FileVerbsHandle file_verbs_;
};

} // namespace nr::ctl
