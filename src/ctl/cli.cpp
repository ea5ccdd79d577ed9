#include "ctl/cli.h"

#include "ctl/arg_checks.h"
#include "ctl/commands.h"
#include "ctl/exit_status.h"
#include "version/version.h"

#include <iostream>

namespace nr::ctl {

struct Cli::Verbs {
    RunOptions run;
    StopOptions stop;
    ListOptions list;
    CLI::App* run_cmd = nullptr;
    CLI::App* stop_cmd = nullptr;
    CLI::App* list_cmd = nullptr;
};

namespace {

std::unique_ptr<Cli::Verbs> add_session_verbs(CLI::App& app, std::unique_ptr<Cli::Verbs> verbs)
{
    app.set_version_flag("--version", version::describe("native-runtimectl"));
    app.require_subcommand(1);
    auto& v = *verbs;
    auto& run = v.run;
    v.run_cmd = app.add_subcommand("run", "Run a command as an isolated session, with this terminal's stdio");
    v.run_cmd->add_option("--owner", run.owner, "Owner id")->required()->check(id_check(core::IdKind::Owner));
    v.run_cmd->add_option("--chat", run.chat, "Chat id")->required()->check(id_check(core::IdKind::Chat));
    v.run_cmd->add_option("--job", run.job, "Job id")->check(id_check(core::IdKind::Job));
    v.run_cmd->add_option("--adapter", run.adapter, "Adapter profile name")
        ->required()
        ->check(id_check(core::IdKind::Adapter));
    v.run_cmd->add_option("--workspace", run.workspace, "Workspace directory (default: the chat's own)")
        ->check(text_check());
    v.run_cmd->add_option("--run-as", run.run_as, "User to run as (root callers only)")->check(text_check());
    v.run_cmd->add_option("--env", run.env, "NAME=VALUE, or NAME to copy the value from this environment")
        ->check(text_check());
    v.run_cmd->add_flag("-q,--quiet", run.quiet, "Do not print the unit's name nor admission waits on stderr");
    v.run_cmd->add_option("command", run.command, "Command and arguments")->required()->check(text_check());
    v.run_cmd->allow_extras(false);
    v.run_cmd->positionals_at_end(true);

    v.stop_cmd = app.add_subcommand("stop", "Stop a session and every process in it; wait until it is gone");
    v.stop_cmd->add_option("--owner", v.stop.owner, "Owner id")->required()->check(id_check(core::IdKind::Owner));
    v.stop_cmd->add_option("--chat", v.stop.chat, "Chat id")->required()->check(id_check(core::IdKind::Chat));
    v.stop_cmd->add_flag("--no-block", v.stop.no_block, "Return once the stop is requested, without waiting");

    v.list_cmd = app.add_subcommand("list", "List running sessions (read from systemd)");
    v.list_cmd->add_flag("--json{short}", v.list.json, "Print JSON: short (one line, the default) or pretty")
        ->check(CLI::IsMember({"short", "pretty"}));
    v.list_cmd->add_flag("--no-legend", v.list.no_legend, "Print the table without its header and footer");
    return verbs;
}

} // namespace

Cli::Cli()
    : app_("Start, stop and inspect native-runtime sessions", "native-runtimectl"),
      verbs_(add_session_verbs(app_, std::make_unique<Verbs>())), operator_verbs_(add_operator_verbs(app_)),
      file_verbs_(add_file_verbs(app_))
{
}

Cli::~Cli() = default;

std::optional<int> Cli::parse(int argc, char** argv)
{
    try {
        app_.parse(argc, argv);
        return std::nullopt;
    } catch (const CLI::CallForHelp& e) {
        return app_.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app_.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app_.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "native-runtimectl: " << e.what() << '\n';
        return core::kExitUsage;
    }
}

int Cli::dispatch()
{
    return guarded([&] {
        if (const auto status = operator_verbs_.dispatch()) {
            return *status;
        }
        if (const auto status = file_verbs_.dispatch()) {
            return *status;
        }
        const auto& v = *verbs_;
        if (*v.run_cmd) {
            return run_session(v.run);
        }
        if (*v.stop_cmd) {
            return stop_session(v.stop);
        }
        return list_sessions(v.list);
    });
}

} // namespace nr::ctl
