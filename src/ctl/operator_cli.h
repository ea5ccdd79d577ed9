#pragma once
// Command-line definitions of the operator verbs, kept out of main.cpp so
// that adding them touches main() by two lines only.

#include <CLI/CLI.hpp>

#include <memory>
#include <optional>

namespace nr::ctl {

class OperatorVerbs {
public:
    struct State;
    explicit OperatorVerbs(std::unique_ptr<State> state);
    OperatorVerbs(OperatorVerbs&&) noexcept;
    OperatorVerbs& operator=(OperatorVerbs&&) noexcept;
    OperatorVerbs(const OperatorVerbs&) = delete;
    OperatorVerbs& operator=(const OperatorVerbs&) = delete;
    ~OperatorVerbs();

    // The exit status of the operator verb that was parsed, if any.
    std::optional<int> dispatch();

private:
    std::unique_ptr<State> state_;
};

OperatorVerbs add_operator_verbs(CLI::App& app);

} // namespace nr::ctl
