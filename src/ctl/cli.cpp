// SPDX-License-Identifier: Apache-2.0
#include "ctl/cli.h"

#include "ctl/arg_checks.h"
#include "ctl/commands.h"
#include "ctl/exit_status.h"
#include "ctl/file_commands.h"
#include "ctl/operator_commands.h"
#include "ctl/session_args.h"
#include "version/version.h"

#include <array>
#include <iostream>
#include <string_view>

namespace nr::ctl {

struct Cli::Options {
    RunOptions run;
    StopOptions stop;
    ListOptions list;
    DropinOptions install;
    DropinOptions uninstall;
    StatusOptions status;
    LogsOptions logs;
    PreflightOptions preflight;
    FileOptions read;
    FileOptions write;
    FileOptions begin;
    FileOptions record;
    FileOptions diff;
    FileOptions revert;
    ProvisionOptions provision;
};

namespace {

using Options = Cli::Options;

// One verb: where it sits ("file read" is `read` under `file`), its help
// line, its options, and what runs it. An entry without `run` only groups
// the verbs under it.
struct Verb {
    std::string_view path;
    const char* description;
    void (*add_options)(CLI::App&, Options&);
    int (*run)(const Options&);
};

// --json, --json=short (one line) or --json=pretty, as systemd's tools take it.
void add_json_flag(CLI::App& cmd, std::string& mode)
{
    cmd.add_flag("--json{short}", mode, "Print JSON: short (one line, the default) or pretty")
        ->check(CLI::IsMember({"short", "pretty"}));
}

void add_run_options(CLI::App& cmd, Options& o)
{
    auto& run = o.run;
    add_run_session(cmd, run.owner, run.chat, run.command);
    cmd.add_option("--job", run.job, "Job id")->check(id_check(core::IdKind::Job));
    cmd.add_option("--adapter", run.adapter, "Adapter profile name")
        ->required()
        ->check(id_check(core::IdKind::Adapter));
    cmd.add_option("--workspace", run.workspace, "Workspace directory (default: the chat's own)")->check(text_check());
    cmd.add_option("--run-as", run.run_as, "User to run as (root callers only)")->check(text_check());
    cmd.add_option("--env", run.env, "NAME=VALUE, or NAME to copy the value from this environment")
        ->check(text_check());
    cmd.add_flag("-q,--quiet", run.quiet, "Do not print the unit's name nor admission waits on stderr");
    cmd.add_option("command", run.command,
                   "[OWNER/CHAT] (without --owner and --chat), then the command and its arguments")
        ->required()
        ->check(text_check());
    cmd.allow_extras(false);
    cmd.positionals_at_end(true);
}

void add_stop_options(CLI::App& cmd, Options& o)
{
    add_session(cmd, o.stop.owner, o.stop.chat);
    cmd.add_flag("--no-block", o.stop.no_block, "Return once the stop is requested, without waiting");
}

void add_list_options(CLI::App& cmd, Options& o)
{
    add_json_flag(cmd, o.list.json);
    cmd.add_flag("--no-legend", o.list.no_legend, "Print the table without its header and footer");
}

void add_dropin_options(CLI::App& cmd, DropinOptions& options)
{
    cmd.add_option("--unit", options.units, "Application unit (repeatable; default: app_units in the config)");
    cmd.add_option("--root", options.root, "Write below this root (image builds); implies --no-reload");
    cmd.add_flag("--no-reload", options.no_reload, "Do not reload systemd nor verify");
}

void add_status_options(CLI::App& cmd, Options& o)
{
    add_session(cmd, o.status.owner, o.status.chat);
    add_json_flag(cmd, o.status.json);
    cmd.add_option("-n,--lines", o.status.lines, "Show this many of the session's newest journal records (default 10)")
        ->type_name("N");
}

void add_logs_options(CLI::App& cmd, Options& o)
{
    auto& logs = o.logs;
    add_owner_sessions(cmd, logs.owner, logs.chat);
    cmd.add_option_function<std::size_t>(
           "-n,--lines", [&logs](std::size_t n) { logs.lines = n; },
           "Show at most this many of the newest records (read from the tail)")
        ->type_name("N");
    cmd.add_option("--since", logs.since,
                   "Records at or after this time, as journalctl takes it: 'YYYY-MM-DD [HH:MM[:SS]]', "
                   "'@SECONDS', 'today', 'yesterday', '-5min', '5 min ago' (systemd.time(7))");
    cmd.add_flag("-f,--follow", logs.follow, "Keep printing new records as they are written");
    cmd.add_option("-o,--output", logs.output, "Output format: short (default) or json")
        ->check(CLI::IsMember({"short", "json"}));
    cmd.add_flag("--json", logs.json, "The same as -o json");
    cmd.add_flag("--no-pager", logs.no_pager, "Do not pipe the output into a pager");
}

void add_preflight_options(CLI::App& cmd, Options& o)
{
    add_json_flag(cmd, o.preflight.json);
    cmd.add_option("--unit", o.preflight.units, "Application unit to check the drop-in on (repeatable)");
    cmd.add_option("--user", o.preflight.user, "User the canary session runs as");
}

// The session's flags come with the positional that names it (session_args.h).
void add_file_common(CLI::App& cmd, FileOptions& o, bool with_job)
{
    if (with_job) {
        cmd.add_option("--job", o.job, "Job id")->required()->check(id_check(core::IdKind::Job));
    }
    cmd.add_option("--run-as", o.run_as, "User whose file permissions apply (root callers only)");
}

void add_file_in_area(CLI::App& cmd, FileOptions& o)
{
    add_file_common(cmd, o, false);
    cmd.add_option("--area", o.area, "workspace or home");
    add_session_and_argument(cmd, o.owner, o.chat, o.relpath, "RELPATH: the path relative to the area");
}

void add_receipt_options(CLI::App& cmd, FileOptions& o)
{
    add_file_common(cmd, o, true);
    add_session(cmd, o.owner, o.chat);
    cmd.add_option("--receipt", o.receipt, "Receipt file (- for stdin)")->required();
}

constexpr std::array kVerbs{
    Verb{"run", "Run a command as an isolated session, with this terminal's stdio", add_run_options,
         [](const Options& o) { return run_session(o.run); }},
    Verb{"stop", "Stop a session and every process in it; wait until it is gone", add_stop_options,
         [](const Options& o) { return stop_session(o.stop); }},
    Verb{"list", "List running sessions (read from systemd)", add_list_options,
         [](const Options& o) { return list_sessions(o.list); }},
    Verb{"install-dropins", "Install the late drop-in into the application's units",
         [](CLI::App& cmd, Options& o) { add_dropin_options(cmd, o.install); },
         [](const Options& o) { return install_dropins(o.install); }},
    Verb{"uninstall-dropins", "Remove the late drop-in install-dropins wrote",
         [](CLI::App& cmd, Options& o) { add_dropin_options(cmd, o.uninstall); },
         [](const Options& o) { return uninstall_dropins(o.uninstall); }},
    Verb{"status", "Show one session as systemd sees it", add_status_options,
         [](const Options& o) { return session_status(o.status); }},
    Verb{"logs", "Show journal records of an owner's sessions", add_logs_options,
         [](const Options& o) { return session_logs(o.logs); }},
    Verb{"preflight", "Check the host's prerequisites; non-zero exit on any failure", add_preflight_options,
         [](const Options& o) { return preflight(o.preflight); }},
    Verb{"file", "Read or write a file in an owner's tree, or use an edit receipt", nullptr, nullptr},
    Verb{"file read", "Print a file of the chat's workspace (or --area home)",
         [](CLI::App& cmd, Options& o) { add_file_in_area(cmd, o.read); },
         [](const Options& o) { return file_read(o.read); }},
    Verb{"file write", "Replace a file with standard input",
         [](CLI::App& cmd, Options& o) { add_file_in_area(cmd, o.write); },
         [](const Options& o) { return file_write(o.write); }},
    Verb{"file begin-edit", "Before an edit: snapshot the file (or its absence); print a handle",
         [](CLI::App& cmd, Options& o) {
             add_file_common(cmd, o.begin, true);
             add_session_and_argument(cmd, o.begin.owner, o.begin.chat, o.begin.relpath,
                                      "RELPATH: the path relative to the chat's workspace");
         },
         [](const Options& o) { return file_begin_edit(o.begin); }},
    Verb{"file record-edit", "After the edit: consume the handle; print the receipt",
         [](CLI::App& cmd, Options& o) {
             add_file_common(cmd, o.record, true);
             add_session(cmd, o.record.owner, o.record.chat);
             cmd.add_option("--handle", o.record.handle, "Handle file from begin-edit (- for stdin)")->required();
         },
         [](const Options& o) { return file_record_edit(o.record); }},
    Verb{"file diff", "Write the content before and after a recorded edit to two files",
         [](CLI::App& cmd, Options& o) {
             add_receipt_options(cmd, o.diff);
             cmd.add_option("--before-to", o.diff.before_to, "Where to write the content before")->required();
             cmd.add_option("--after-to", o.diff.after_to, "Where to write the content now")->required();
         },
         [](const Options& o) { return file_diff(o.diff); }},
    Verb{"file revert", "Write the content before a recorded edit back",
         [](CLI::App& cmd, Options& o) { add_receipt_options(cmd, o.revert); },
         [](const Options& o) { return file_revert(o.revert); }},
    Verb{"provision-snapshot-dir", "Create the shared snapshot directory: owner root, the group, mode 2770",
         [](CLI::App& cmd, Options& o) {
             cmd.add_option("--group", o.provision.group, "The application's group")->required();
             cmd.add_option("path", o.provision.path, "Absolute path of the directory")->required();
         },
         [](const Options& o) { return provision(o.provision); }},
};

// The App a verb's path hangs under: the program, or the group verb named
// by the path's first word (listed earlier in the table).
CLI::App& parent_of(CLI::App& app, std::string_view path)
{
    const auto space = path.find(' ');
    return space == std::string_view::npos ? app : *app.get_subcommand(std::string(path.substr(0, space)));
}

std::string name_of(std::string_view path)
{
    return std::string(path.substr(path.rfind(' ') + 1));
}

} // namespace

Cli::Cli()
    : app_("Start, stop and inspect native-runtime sessions", "native-runtimectl"),
      options_(std::make_unique<Options>())
{
    app_.set_version_flag("--version", version::describe("native-runtimectl"));
    // No verb means `list`, as with systemctl and machinectl (parse()).
    app_.require_subcommand(0, 1);
    for (const auto& verb : kVerbs) {
        auto* cmd = parent_of(app_, verb.path).add_subcommand(name_of(verb.path), verb.description);
        if (verb.add_options != nullptr) {
            verb.add_options(*cmd, *options_);
        }
        if (verb.run == nullptr) {
            cmd->require_subcommand(1);
            continue;
        }
        // Parsing only chooses; dispatch() runs, so that parse() stays free
        // of side effects (tests/ctl parses real command lines).
        cmd->callback([this, run = verb.run] { chosen_ = [this, run] { return run(*options_); }; });
    }
}

Cli::~Cli() = default;

std::optional<int> Cli::parse(int argc, char** argv)
{
    try {
        app_.parse(argc, argv);
        if (!chosen_) {
            chosen_ = [this] { return list_sessions(options_->list); };
        }
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
    return guarded(chosen_);
}

} // namespace nr::ctl
