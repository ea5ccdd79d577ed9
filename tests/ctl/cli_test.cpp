// SPDX-License-Identifier: Apache-2.0
// native-runtimectl's command-line surface, read from the program's own
// CLI11 App (ctl::Cli): every verb and option is in the man page and the
// bash, zsh and fish completions (a verb added to the code and not to the
// docs fails here),
// bad input is a usage error while parsing, and every failure a verb
// throws maps through the one exit table.

#include "core/cli/cli_exit.h"
#include "ctl/cli.h"
#include "ctl/exit_status.h"

#include "sys/bus/bus_compat.h"
#include "test_paths.h"

#include <sdbus-c++/sdbus-c++.h>

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace {

struct Verb {
    std::string path;                 // "run", "file read"
    std::vector<std::string> options; // "--owner", "-q", ...
    bool has_subverbs = false;
};

std::string read_file(const char* path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void collect(const CLI::App& app, const std::string& prefix, std::vector<Verb>& verbs)
{
    for (const auto* sub : app.get_subcommands({})) {
        Verb verb;
        verb.path = prefix.empty() ? sub->get_name() : prefix + " " + sub->get_name();
        for (const auto* option : sub->get_options()) {
            if (option == sub->get_help_ptr() || option->get_positional()) {
                continue;
            }
            for (const auto& name : option->get_lnames()) {
                verb.options.push_back("--" + name);
            }
            for (const auto& name : option->get_snames()) {
                verb.options.push_back("-" + name);
            }
        }
        verb.has_subverbs = !sub->get_subcommands({}).empty();
        verbs.push_back(verb);
        collect(*sub, verb.path, verbs);
    }
}

std::vector<Verb> program_verbs()
{
    nr::ctl::Cli cli;
    std::vector<Verb> verbs;
    collect(cli.app(), "", verbs);
    return verbs;
}

std::set<std::string> words(const std::string& text)
{
    std::set<std::string> out;
    std::istringstream in(text);
    for (std::string word; in >> word;) {
        out.insert(word);
    }
    return out;
}

// The completion's `NAME="..."` word list.
std::set<std::string> completion_list(const std::string& completion, const std::string& name)
{
    std::smatch match;
    const std::regex pattern("local " + name + "=\"([^\"]*)\"");
    return std::regex_search(completion, match, pattern) ? words(match[1]) : std::set<std::string>{};
}

// case label (a verb path; "a | b" lists several) -> the words of its opts="...".
std::map<std::string, std::set<std::string>> completion_options(const std::string& completion)
{
    std::map<std::string, std::set<std::string>> out;
    const std::regex line(R"re(^\s*([^)]+)\)\s*opts="([^"]*)")re");
    std::istringstream in(completion);
    for (std::string text; std::getline(in, text);) {
        std::smatch match;
        if (!std::regex_search(text, match, line)) {
            continue;
        }
        std::istringstream labels(match[1].str());
        for (std::string label; std::getline(labels, label, '|');) {
            label = std::regex_replace(label, std::regex(R"re(^[\s"]+|[\s"]+$)re"), "");
            out[label] = words(match[2]);
        }
    }
    return out;
}

// The man page's SYNOPSIS paragraph of a verb: "**native-runtimectl run**...".
std::string synopsis_of(const std::string& man, const std::string& path)
{
    const auto start = man.find("\n**native-runtimectl " + path + "**");
    if (start == std::string::npos) {
        return {};
    }
    const auto end = man.find("\n\n", start + 1);
    return man.substr(start, end - start);
}

// How an option is written in the man page's Markdown: \--owner, -q.
std::string man_spelling(const std::string& option)
{
    return option.rfind("--", 0) == 0 ? "**\\" + option + "**" : "**" + option + "**";
}

} // namespace

TEST(TheVerbTable, IsReadFromTheProgramAndHasEveryKnownVerb)
{
    std::set<std::string> paths;
    for (const auto& verb : program_verbs()) {
        paths.insert(verb.path);
    }
    for (const auto* known :
         {"run", "stop", "list", "status", "logs", "preflight", "file", "file read", "provision-snapshot-dir"}) {
        EXPECT_EQ(paths.count(known), 1U) << known;
    }
}

TEST(TheBashCompletion, OffersEveryVerbAndNoVerbTheProgramLacks)
{
    const auto completion = read_file(NR_CTL_COMPLETION);
    ASSERT_FALSE(completion.empty()) << NR_CTL_COMPLETION;
    auto offered = completion_list(completion, "verbs");
    for (const auto& sub : completion_list(completion, "file_verbs")) {
        offered.insert("file " + sub);
    }
    std::set<std::string> program;
    for (const auto& verb : program_verbs()) {
        program.insert(verb.path);
        EXPECT_EQ(offered.count(verb.path), 1U) << "verb missing from the bash completion: " << verb.path;
    }
    for (const auto& path : offered) {
        EXPECT_EQ(program.count(path), 1U) << "the bash completion offers a verb the program lacks: " << path;
    }
}

TEST(TheBashCompletion, OffersEveryOptionOfEveryVerb)
{
    const auto options = completion_options(read_file(NR_CTL_COMPLETION));
    for (const auto& verb : program_verbs()) {
        if (verb.has_subverbs) {
            continue; // `file` only leads to its subverbs
        }
        const auto found = options.find(verb.path);
        ASSERT_NE(found, options.end()) << "no opts=\"...\" line for " << verb.path << " in the bash completion";
        for (const auto& option : verb.options) {
            EXPECT_EQ(found->second.count(option), 1U)
                << "option missing from the bash completion: " << verb.path << ' ' << option;
        }
    }
}

namespace {

// What a completion file offers: verb paths, and each verb's options.
struct Offered {
    std::set<std::string> verbs;
    std::map<std::string, std::set<std::string>> options;
};

// zsh: 'NAME:description' entries of the verbs=( ) and file_verbs=( )
// arrays; per verb, the option specs ('--owner=[...]', '(-q)--quiet[...]',
// '*--env=[...]') between its case label ("(stop)", "('file read')") and ";;".
Offered zsh_offered(const std::string& text)
{
    Offered out;
    for (const auto& [array, prefix] : {std::pair{"verbs", ""}, std::pair{"file_verbs", "file "}}) {
        const auto start = text.find(std::string("\n  ") + array + "=(");
        const auto end = text.find("\n  )", start);
        if (start == std::string::npos || end == std::string::npos) {
            continue;
        }
        const auto block = text.substr(start, end - start);
        const std::regex entry(R"re(\n\s*'([a-z-]+):)re");
        for (std::sregex_iterator it(block.begin(), block.end(), entry), last; it != last; ++it) {
            out.verbs.insert(prefix + (*it)[1].str());
        }
    }
    const std::regex label(R"re(^\s*\('?([a-z][a-z -]*)'?\)\s*$)re");
    const std::regex end_of_label(R"re(^\s*;;\s*$)re");
    const std::regex spec(R"re('(?:\([^)]*\))?\*?(--?[A-Za-z][A-Za-z-]*))re");
    std::istringstream in(text);
    std::string verb;
    for (std::string line; std::getline(in, line);) {
        std::smatch match;
        if (std::regex_match(line, match, label)) {
            verb = match[1];
            out.options[verb];
        } else if (std::regex_match(line, end_of_label)) {
            verb.clear();
        } else if (!verb.empty()) {
            for (std::sregex_iterator it(line.begin(), line.end(), spec), last; it != last; ++it) {
                out.options[verb].insert((*it)[1].str());
            }
        }
    }
    return out;
}

// fish: `complete ... -n __fish_native_runtimectl_no_verb -a NAME` offers a
// verb (`..._file_verb` a file verb); a line with
// `-n '__fish_native_runtimectl_verb VERB'` offers its -s X and -l NAME.
Offered fish_offered(const std::string& text)
{
    Offered out;
    const std::regex verb_line(R"re(-n __fish_native_runtimectl_(no|file)_verb -a ([a-z-]+))re");
    const std::regex option_line(R"re(-n '__fish_native_runtimectl_verb ([a-z -]+)')re");
    const std::regex option(R"re(\s-([sl]) ([A-Za-z][A-Za-z-]*))re");
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        std::smatch match;
        if (std::regex_search(line, match, verb_line)) {
            out.verbs.insert((match[1] == "file" ? "file " : "") + match[2].str());
        } else if (std::regex_search(line, match, option_line)) {
            auto& options = out.options[match[1]];
            for (std::sregex_iterator it(line.begin(), line.end(), option), last; it != last; ++it) {
                options.insert(((*it)[1] == "s" ? "-" : "--") + (*it)[2].str());
            }
        }
    }
    return out;
}

void expect_same_verbs_and_every_option(const Offered& offered, const std::string& shell)
{
    std::set<std::string> program;
    for (const auto& verb : program_verbs()) {
        program.insert(verb.path);
        EXPECT_EQ(offered.verbs.count(verb.path), 1U)
            << "verb missing from the " << shell << " completion: " << verb.path;
        if (verb.has_subverbs) {
            continue;
        }
        const auto found = offered.options.find(verb.path);
        if (verb.options.empty() && found == offered.options.end()) {
            continue;
        }
        ASSERT_NE(found, offered.options.end())
            << "no options for " << verb.path << " in the " << shell << " completion";
        for (const auto& option : verb.options) {
            EXPECT_EQ(found->second.count(option), 1U)
                << "option missing from the " << shell << " completion: " << verb.path << ' ' << option;
        }
    }
    for (const auto& path : offered.verbs) {
        EXPECT_EQ(program.count(path), 1U)
            << "the " << shell << " completion offers a verb the program lacks: " << path;
    }
}

} // namespace

TEST(TheZshCompletion, OffersEveryVerbAndEveryOptionOfEveryVerb)
{
    const auto text = read_file(NR_CTL_ZSH_COMPLETION);
    ASSERT_EQ(text.rfind("#compdef native-runtimectl\n", 0), 0U) << "zsh's compinit reads the first line";
    const auto offered = zsh_offered(text);
    EXPECT_GT(offered.verbs.size(), 10U);
    expect_same_verbs_and_every_option(offered, "zsh");
}

TEST(TheFishCompletion, OffersEveryVerbAndEveryOptionOfEveryVerb)
{
    const auto offered = fish_offered(read_file(NR_CTL_FISH_COMPLETION));
    EXPECT_GT(offered.verbs.size(), 10U);
    expect_same_verbs_and_every_option(offered, "fish");
}

TEST(EveryCompletion, CompletesSessionsFromListJson)
{
    for (const auto* path : {NR_CTL_COMPLETION, NR_CTL_ZSH_COMPLETION, NR_CTL_FISH_COMPLETION}) {
        const auto text = read_file(path);
        EXPECT_NE(text.find("native-runtimectl list --json=short 2>/dev/null"), std::string::npos) << path;
        // The keys list --json writes (session_json in ctl/session_rows.cpp).
        EXPECT_NE(text.find(R"("owner":")"), std::string::npos) << path;
        EXPECT_NE(text.find(R"("chat":")"), std::string::npos) << path;
    }
}

TEST(TheManPage, HasASynopsisWithEveryOptionOfEveryVerb)
{
    const auto man = read_file(NR_CTL_MAN_PAGE);
    ASSERT_FALSE(man.empty()) << NR_CTL_MAN_PAGE;
    for (const auto& verb : program_verbs()) {
        if (verb.has_subverbs) {
            continue;
        }
        const auto synopsis = synopsis_of(man, verb.path);
        ASSERT_FALSE(synopsis.empty()) << "verb missing from the man page's SYNOPSIS: " << verb.path;
        for (const auto& option : verb.options) {
            EXPECT_NE(synopsis.find(man_spelling(option)), std::string::npos)
                << "option missing from the man page: " << verb.path << ' ' << option;
        }
    }
    EXPECT_NE(man.find("**native-runtimectl \\--version**"), std::string::npos);
}

TEST(TheManPage, DescribesEveryVerb)
{
    const auto man = read_file(NR_CTL_MAN_PAGE);
    const auto description = man.substr(man.find("# DESCRIPTION"));
    for (const auto& verb : program_verbs()) {
        const auto name = verb.path.substr(verb.path.rfind(' ') + 1);
        EXPECT_NE(description.find("**" + name + "**"), std::string::npos)
            << "verb not described in the man page: " << verb.path;
    }
}

TEST(TheManPage, DocumentsEveryExitStatusOfTheTable)
{
    const auto man = read_file(NR_CTL_MAN_PAGE);
    const auto section = man.substr(man.find("# EXIT STATUS"));
    for (const int status :
         {0, nr::core::kExitCheckFailed, nr::core::kExitUsage, nr::core::kExitRefused, nr::core::kExitUnavailable,
          nr::core::kExitInternal, nr::core::kExitIoError, nr::core::kExitConfig, nr::core::kExitRuntimeLimit,
          nr::core::kExitLaunchFailed, nr::core::kExitEndLost}) {
        EXPECT_NE(section.find("**" + std::to_string(status) + "**"), std::string::npos)
            << "exit status " << status << " is not in the man page";
    }
}

namespace {

struct Parsed {
    int status;        // parse()'s exit status, or -1 when it would go on to run the verb
    std::string error; // what it printed on stderr
};

// Parses a command line with the program's own table.
Parsed parse(std::vector<std::string> args)
{
    args.insert(args.begin(), "native-runtimectl");
    std::vector<char*> argv;
    for (auto& arg : args) {
        argv.push_back(arg.data());
    }
    nr::ctl::Cli cli;
    testing::internal::CaptureStderr();
    testing::internal::CaptureStdout();
    const auto status = cli.parse(static_cast<int>(argv.size()), argv.data());
    testing::internal::GetCapturedStdout();
    return {status.value_or(-1), testing::internal::GetCapturedStderr()};
}

int parse_status(std::vector<std::string> args)
{
    return parse(std::move(args)).status;
}

} // namespace

TEST(AChatIdThatIsNotUtf8, IsAUsageErrorWhileParsingBeforeAnyBusCall)
{
    EXPECT_EQ(parse_status({"run", "--owner", "a", "--chat", "\xff", "--adapter", "shell", "--", "true"}), 64);
    EXPECT_EQ(parse_status({"stop", "--owner", "a", "--chat", "\xff"}), 64);
    EXPECT_EQ(parse_status({"status", "--owner", "a", "--chat", "\xff"}), 64);
    EXPECT_EQ(parse_status({"file", "read", "--owner", "a", "--chat", "\xff", "f"}), 64);
    EXPECT_EQ(parse_status({"run", "--owner", "a", "--chat", "c", "--adapter", "shell", "--", "true"}), -1)
        << "control: the same line with a valid chat id goes on to the verb";
}

TEST(AMalformedIdOrValue, IsAUsageErrorWhileParsing)
{
    EXPECT_EQ(parse_status({"stop", "--owner", "bad=id", "--chat", "c"}), 64);
    EXPECT_EQ(parse_status({"logs", "--owner", "-x"}), 64);
    EXPECT_EQ(parse_status({"run", "--owner", "a", "--chat", "c", "--adapter", "a", "--", "\xfe"}), 64);
    EXPECT_EQ(
        parse_status({"run", "--owner", "a", "--chat", "c", "--adapter", "a", "--workspace", "/\xfe", "--", "true"}),
        64);
    EXPECT_EQ(parse_status({"list", "--json=verbose"}), 64);
    EXPECT_EQ(parse_status({"list", "--json=pretty"}), -1);
    EXPECT_EQ(parse_status({"list", "--json"}), -1);
}

TEST(VersionAndHelp, ExitZero)
{
    EXPECT_EQ(parse_status({"--version"}), 0);
    EXPECT_EQ(parse_status({"--help"}), 0);
    EXPECT_EQ(parse_status({"stop", "--help"}), 0);
}

TEST(AFailureThrownByAVerb, BecomesTheTablesStatusInsteadOfTerminate)
{
    testing::internal::CaptureStderr();
    // What SystemdManager::unit_path throws when GetUnit fails (run used to
    // let it escape to std::terminate).
    EXPECT_EQ(nr::ctl::guarded([]() -> int {
                  nr::core::fail(nr::core::ErrorKind::SystemdFailure, "GetUnit x.service: Connection reset");
              }),
              69);
    EXPECT_EQ(nr::ctl::guarded(
                  []() -> int { throw nr::sys::bus_error("org.metis.NativeRuntime1.Error.AccessDenied", "no"); }),
              65);
    EXPECT_EQ(
        nr::ctl::guarded([]() -> int { throw nr::sys::bus_error("org.freedesktop.DBus.Error.ServiceUnknown", "x"); }),
        69);
    EXPECT_EQ(nr::ctl::guarded([]() -> int { throw std::invalid_argument("--env X: not set"); }), 64);
    EXPECT_EQ(nr::ctl::guarded([]() -> int { throw std::system_error(EIO, std::generic_category(), "stdout"); }), 74);
    EXPECT_EQ(nr::ctl::guarded([]() -> int { throw std::logic_error("bug"); }), 70);
    EXPECT_EQ(nr::ctl::guarded([] { return 3; }), 3);
    const auto err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("native-runtimectl: SystemdFailure: GetUnit x.service: Connection reset\n"), std::string::npos)
        << err;
    EXPECT_NE(err.find("native-runtimectl: org.metis.NativeRuntime1.Error.AccessDenied: no\n"), std::string::npos)
        << err;
}

namespace {

// What parse() prints on stderr for a command line it refuses.
std::string parse_error(std::vector<std::string> args)
{
    return parse(std::move(args)).error;
}

} // namespace

TEST(NoVerb, MeansListAsWithSystemctl)
{
    EXPECT_EQ(parse_status({}), -1) << "goes on to run `list`";
    EXPECT_EQ(parse_status({"--help"}), 0);
    EXPECT_EQ(parse_status({"no-such-verb"}), 64);
    EXPECT_EQ(parse_status({"file"}), 64) << "a group verb still needs its subverb";
}

TEST(ASessionNamedPositionally, WorksWhereverTheFlagsDo)
{
    EXPECT_EQ(parse_status({"status", "alice/c1"}), -1);
    EXPECT_EQ(parse_status({"status", "native-runtime-alice-c1.service"}), -1);
    EXPECT_EQ(parse_status({"stop", "alice/c1", "--no-block"}), -1);
    EXPECT_EQ(parse_status({"logs", "alice"}), -1);
    EXPECT_EQ(parse_status({"logs", "alice/c1", "-n", "5"}), -1);
    EXPECT_EQ(parse_status({"logs", "native-runtime-alice-c1.service"}), -1);
    EXPECT_EQ(parse_status({"file", "read", "alice/c1", "notes.txt"}), -1);
    EXPECT_EQ(parse_status({"file", "write", "alice/c1", "--area", "home", "notes.txt"}), -1);
    EXPECT_EQ(parse_status({"file", "begin-edit", "alice/c1", "--job", "j", "a/b.txt"}), -1);
    EXPECT_EQ(parse_status({"file", "record-edit", "alice/c1", "--job", "j", "--handle", "-"}), -1);
    EXPECT_EQ(parse_status({"file", "revert", "alice/c1", "--job", "j", "--receipt", "r"}), -1);
    EXPECT_EQ(parse_status({"run", "--adapter", "shell", "alice/c1", "--", "true"}), -1);
    EXPECT_EQ(parse_status({"run", "--adapter", "shell", "--", "alice/c1", "ls", "-l"}), -1);
}

TEST(ASessionNamedWithFlags, StillWorks)
{
    EXPECT_EQ(parse_status({"status", "--owner", "alice", "--chat", "c1"}), -1);
    EXPECT_EQ(parse_status({"logs", "--owner", "alice"}), -1);
    EXPECT_EQ(parse_status({"file", "read", "--owner", "alice", "--chat", "c1", "notes.txt"}), -1)
        << "a lone word is the path, not the session";
    EXPECT_EQ(parse_status({"run", "--owner", "a", "--chat", "c", "--adapter", "shell", "--", "a/b", "x"}), -1)
        << "with both flags every positional word is the command";
}

TEST(APositionalAndAFlagThatDisagree, IsAUsageErrorThatSaysSo)
{
    EXPECT_EQ(parse_status({"status", "alice/c1", "--owner", "bob"}), 64);
    EXPECT_EQ(parse_status({"stop", "alice/c1", "--chat", "c2"}), 64);
    EXPECT_EQ(parse_status({"logs", "alice", "--owner", "bob"}), 64);
    EXPECT_EQ(parse_status({"file", "read", "alice/c1", "--chat", "c2", "f"}), 64);
    EXPECT_EQ(parse_status({"status", "alice/c1", "--owner", "alice", "--chat", "c1"}), -1)
        << "flags that agree are fine";
    const auto err = parse_error({"status", "alice/c1", "--owner", "bob"});
    EXPECT_NE(err.find("alice/c1 names owner alice, but --owner names bob"), std::string::npos) << err;
}

TEST(AMalformedPositionalSession, IsAUsageErrorThatNamesTheProblem)
{
    EXPECT_EQ(parse_status({"status", "alice"}), 64);
    EXPECT_EQ(parse_status({"status", "alice/"}), 64);
    EXPECT_EQ(parse_status({"stop", "/c1"}), 64);
    EXPECT_EQ(parse_status({"stop", "a/b/c"}), 64);
    EXPECT_EQ(parse_status({"status", "bad=id/c1"}), 64);
    EXPECT_EQ(parse_status({"logs", "bad=id"}), 64);
    EXPECT_EQ(parse_status({"file", "read", "a/b/c", "f"}), 64);
    EXPECT_EQ(parse_status({"file", "read", "alice/c1", "f", "g"}), 64);
    EXPECT_EQ(parse_status({"run", "--adapter", "shell", "--", "true"}), 64);
    EXPECT_EQ(parse_status({"run", "--adapter", "shell", "alice/c1"}), 64) << "no command";
    EXPECT_EQ(parse_status({"status"}), 64);
    EXPECT_EQ(parse_status({"stop", "--owner", "alice"}), 64);
    EXPECT_NE(parse_error({"stop", "a/b/c"}).find("more than one '/'"), std::string::npos);
    EXPECT_NE(parse_error({"status", "alice/"}).find("empty chat"), std::string::npos);
    EXPECT_NE(parse_error({"status", "bad=id/c1"}).find("invalid owner"), std::string::npos);
    EXPECT_NE(parse_error({"status"}).find("no session given"), std::string::npos);
}
