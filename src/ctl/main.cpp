// native-runtimectl: the operator's and worker's command line, in the
// manner of hostnamectl/machinectl.

#include "ctl/commands.h"
#include "ctl/exit_status.h"
#include "ctl/file_cli.h"
#include "ctl/operator_cli.h"
#include "version/version.h"

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char** argv)
{
    CLI::App app{"Start, stop and inspect native-runtime sessions", "native-runtimectl"};
    app.set_version_flag("--version", nr::version::describe("native-runtimectl"));
    app.require_subcommand(1);

    nr::ctl::RunOptions run;
    auto* run_cmd = app.add_subcommand("run", "Run a command as an isolated session, with this terminal's stdio");
    run_cmd->add_option("--owner", run.owner, "Owner id")->required();
    run_cmd->add_option("--chat", run.chat, "Chat id")->required();
    run_cmd->add_option("--job", run.job, "Job id");
    run_cmd->add_option("--adapter", run.adapter, "Adapter profile name")->required();
    run_cmd->add_option("--workspace", run.workspace, "Workspace directory (default: the chat's own)");
    run_cmd->add_option("--run-as", run.run_as, "User to run as (root callers only)");
    run_cmd->add_option("--env", run.env, "NAME=VALUE, or NAME to copy the value from this environment");
    run_cmd->add_option("command", run.command, "Command and arguments")->required();
    run_cmd->allow_extras(false);
    run_cmd->positionals_at_end(true);

    std::string stop_owner;
    std::string stop_chat;
    auto* stop_cmd = app.add_subcommand("stop", "Stop a session and every process in it");
    stop_cmd->add_option("--owner", stop_owner, "Owner id")->required();
    stop_cmd->add_option("--chat", stop_chat, "Chat id")->required();

    bool list_json = false;
    auto* list_cmd = app.add_subcommand("list", "List running sessions (read from systemd)");
    list_cmd->add_flag("--json", list_json, "Print JSON");

    auto operator_verbs = nr::ctl::add_operator_verbs(app);

    const auto file_verbs = nr::ctl::add_file_verbs(app);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        std::cerr << "native-runtimectl: " << e.what() << '\n';
        return nr::ctl::kExitUsage;
    }

    if (const auto status = operator_verbs.dispatch()) {
        return *status;
    }
    if (const auto status = file_verbs.dispatch()) {
        return *status;
    }
    if (*run_cmd) {
        return nr::ctl::run_session(run);
    }
    if (*stop_cmd) {
        return nr::ctl::stop_session(stop_owner, stop_chat);
    }
    return nr::ctl::list_sessions(list_json);
}
