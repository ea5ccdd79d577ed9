// SPDX-License-Identifier: Apache-2.0
#include "ctl/session_args.h"

#include "core/base/error.h"
#include "core/base/ids.h"
#include "core/cli/session_address.h"
#include "ctl/arg_checks.h"

#include <memory>
#include <optional>
#include <utility>

namespace nr::ctl {

namespace {

constexpr const char* kSessionHelp = "The session: OWNER/CHAT or its unit name (or --owner and --chat)";

void add_flags(CLI::App& cmd, std::string& owner, std::string& chat)
{
    cmd.add_option("--owner", owner, "Owner id")->check(id_check(core::IdKind::Owner));
    cmd.add_option("--chat", chat, "Chat id")->check(id_check(core::IdKind::Chat));
}

// Resolves into the flags' variables; a core refusal becomes CLI11's usage
// error, which Cli::parse reports and maps to 64 before anything runs.
void resolve(std::string& owner, std::string& chat, const std::optional<std::string>& positional, bool one_session)
{
    try {
        std::optional<core::SessionAddress> named;
        if (positional) {
            named = one_session ? core::parse_session_address(*positional) : core::parse_owner_address(*positional);
        }
        auto resolved = core::resolve_session_address(named, core::SessionAddress{owner, chat}, one_session);
        owner = std::move(resolved.owner);
        chat = std::move(resolved.chat);
    } catch (const core::Error& e) {
        throw CLI::ValidationError(e.what());
    }
}

std::optional<std::string> given(const CLI::Option* option, const std::string& value)
{
    return option->count() > 0 ? std::optional<std::string>(value) : std::nullopt;
}

} // namespace

void add_session(CLI::App& cmd, std::string& owner, std::string& chat)
{
    add_flags(cmd, owner, chat);
    // Owned by the callback, which lives as long as the App.
    auto text = std::make_shared<std::string>();
    auto* option = cmd.add_option("session", *text, kSessionHelp)->type_name("OWNER/CHAT");
    cmd.parse_complete_callback([&owner, &chat, text, option] { resolve(owner, chat, given(option, *text), true); });
}

void add_owner_sessions(CLI::App& cmd, std::string& owner, std::string& chat)
{
    add_flags(cmd, owner, chat);
    auto text = std::make_shared<std::string>();
    // Not named "owner": CLI11 2.4 (Debian 13) refuses a positional that
    // shares its name with the --owner flag.
    auto* option = cmd.add_option("target", *text, "The owner (or OWNER/CHAT, or a session's unit name; or --owner)")
                       ->type_name("OWNER[/CHAT]");
    cmd.parse_complete_callback([&owner, &chat, text, option] { resolve(owner, chat, given(option, *text), false); });
}

void add_session_and_argument(CLI::App& cmd, std::string& owner, std::string& chat, std::string& argument,
                              const std::string& argument_help)
{
    add_flags(cmd, owner, chat);
    // One positional list, sorted out by its length: CLI11 fills optional
    // positionals before required ones, so "[session] relpath" as two
    // options would take a lone RELPATH for the session.
    auto words = std::make_shared<std::vector<std::string>>();
    cmd.add_option("relpath", *words, "[OWNER/CHAT] then " + argument_help)
        ->type_name("[OWNER/CHAT] RELPATH")
        ->expected(1, 2)
        ->required();
    cmd.parse_complete_callback([&owner, &chat, &argument, words] {
        if (words->size() > 2) {
            throw CLI::ValidationError("expected [OWNER/CHAT] then one path, got more words");
        }
        std::optional<std::string> positional;
        if (words->size() == 2) {
            positional = words->front();
        }
        argument = words->back();
        resolve(owner, chat, positional, true);
    });
}

void add_run_session(CLI::App& cmd, std::string& owner, std::string& chat, std::vector<std::string>& command)
{
    add_flags(cmd, owner, chat);
    cmd.parse_complete_callback([&owner, &chat, &command] {
        std::optional<std::string> positional;
        if ((owner.empty() || chat.empty()) && !command.empty()) {
            positional = command.front();
            command.erase(command.begin());
            // After a positional CLI11 keeps even "--" as a word.
            if (!command.empty() && command.front() == "--") {
                command.erase(command.begin());
            }
        }
        resolve(owner, chat, positional, true);
        if (command.empty()) {
            throw CLI::ValidationError("no command given after OWNER/CHAT");
        }
    });
}

} // namespace nr::ctl
