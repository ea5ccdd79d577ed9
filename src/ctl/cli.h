// SPDX-License-Identifier: Apache-2.0
#pragma once
// native-runtimectl's whole command line: one table of verbs, each with its
// options and the function that runs it. main() parses and dispatches; the
// CLI surface test (tests/ctl) walks the same App to check the man page and
// the bash, zsh and fish completions. No verb means `list`.

#include <CLI/CLI.hpp>

#include <functional>
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

    // Parses argv and chooses the verb, without running it: nullopt to go
    // on, or the status to exit with (--help, --version, a usage error).
    std::optional<int> parse(int argc, char** argv);

    // Runs the chosen verb; every failure maps through guarded().
    int dispatch();

    struct Options; // every verb's options (cli.cpp)

private:
    CLI::App app_;
    std::unique_ptr<Options> options_;
    std::function<int()> chosen_;
};

} // namespace nr::ctl
