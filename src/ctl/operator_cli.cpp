#include "ctl/operator_cli.h"

#include "ctl/arg_checks.h"
#include "ctl/operator_commands.h"

namespace nr::ctl {

struct OperatorVerbs::State {
    DropinOptions install;
    DropinOptions uninstall;
    StatusOptions status;
    LogsOptions logs;
    PreflightOptions preflight;
    CLI::App* install_cmd = nullptr;
    CLI::App* uninstall_cmd = nullptr;
    CLI::App* status_cmd = nullptr;
    CLI::App* logs_cmd = nullptr;
    CLI::App* preflight_cmd = nullptr;
};

OperatorVerbs::OperatorVerbs(std::unique_ptr<State> state) : state_(std::move(state)) {}
OperatorVerbs::OperatorVerbs(OperatorVerbs&&) noexcept = default;
OperatorVerbs& OperatorVerbs::operator=(OperatorVerbs&&) noexcept = default;
OperatorVerbs::~OperatorVerbs() = default;

namespace {

void add_dropin_options(CLI::App& cmd, DropinOptions& options)
{
    cmd.add_option("--unit", options.units, "Application unit (repeatable; default: app_units in the config)");
    cmd.add_option("--root", options.root, "Write below this root (image builds); implies --no-reload");
    cmd.add_flag("--no-reload", options.no_reload, "Do not reload systemd nor verify");
}

// --json, --json=short (one line) or --json=pretty, as systemd's tools take it.
void add_json_flag(CLI::App& cmd, std::string& mode)
{
    cmd.add_flag("--json{short}", mode, "Print JSON: short (one line, the default) or pretty")
        ->check(CLI::IsMember({"short", "pretty"}));
}

} // namespace

OperatorVerbs add_operator_verbs(CLI::App& app)
{
    auto state = std::make_unique<OperatorVerbs::State>();
    auto& s = *state;

    s.install_cmd = app.add_subcommand("install-dropins", "Install the late drop-in into the application's units");
    add_dropin_options(*s.install_cmd, s.install);
    s.uninstall_cmd = app.add_subcommand("uninstall-dropins", "Remove the late drop-in install-dropins wrote");
    add_dropin_options(*s.uninstall_cmd, s.uninstall);

    s.status_cmd = app.add_subcommand("status", "Show one session as systemd sees it");
    s.status_cmd->add_option("--owner", s.status.owner, "Owner id")->required()->check(id_check(core::IdKind::Owner));
    s.status_cmd->add_option("--chat", s.status.chat, "Chat id")->required()->check(id_check(core::IdKind::Chat));
    add_json_flag(*s.status_cmd, s.status.json);

    s.logs_cmd = app.add_subcommand("logs", "Show journal records of an owner's sessions");
    s.logs_cmd->add_option("--owner", s.logs.owner, "Owner id")->required()->check(id_check(core::IdKind::Owner));
    s.logs_cmd->add_option("--chat", s.logs.chat, "Chat id")->check(id_check(core::IdKind::Chat));
    s.logs_cmd
        ->add_option_function<std::size_t>(
            "-n,--lines",
            [&logs = s.logs](std::size_t n) {
                logs.lines = n;
                logs.lines_given = true;
            },
            "Show at most this many of the newest records (read from the tail)")
        ->type_name("N");
    s.logs_cmd->add_option("--since", s.logs.since,
                           "Records at or after this time: 'YYYY-MM-DD [HH:MM[:SS]]', '@SECONDS', 'today', "
                           "'yesterday', '-5min', '5 min ago'");
    s.logs_cmd->add_flag("-f,--follow", s.logs.follow, "Keep printing new records as they are written");
    s.logs_cmd->add_option("-o,--output", s.logs.output, "Output format: short (default) or json")
        ->check(CLI::IsMember({"short", "json"}));
    s.logs_cmd->add_flag("--json", s.logs.json, "The same as -o json");

    s.preflight_cmd = app.add_subcommand("preflight", "Check the host's prerequisites; non-zero exit on any failure");
    add_json_flag(*s.preflight_cmd, s.preflight.json);
    s.preflight_cmd->add_option("--unit", s.preflight.units, "Application unit to check the drop-in on (repeatable)");
    s.preflight_cmd->add_option("--user", s.preflight.user, "User the canary session runs as");
    return OperatorVerbs(std::move(state));
}

std::optional<int> OperatorVerbs::dispatch()
{
    auto& s = *state_;
    if (*s.install_cmd) {
        return install_dropins(s.install);
    }
    if (*s.uninstall_cmd) {
        return uninstall_dropins(s.uninstall);
    }
    if (*s.status_cmd) {
        return session_status(s.status);
    }
    if (*s.logs_cmd) {
        return session_logs(s.logs);
    }
    if (*s.preflight_cmd) {
        return preflight(s.preflight);
    }
    return std::nullopt;
}

} // namespace nr::ctl
