// SPDX-License-Identifier: Apache-2.0
// A tool in one chat must not plant code that runs in its owner's later
// sessions. The owner's home is shared by all of that owner's sessions and
// writable, so each client profile lists what the client reads from it as
// code (`protected_home_paths`), and sessions see those paths read-only.
//
// Each case runs the real client against the scripted model endpoint: in
// chat 1 the model's tool writes a hook (Claude Code: ~/.claude/settings.json)
// or a notify program (Codex: ~/.codex/config.toml) that would leave a
// marker in the home; chat 2 of the same owner then runs a turn. With the
// protection the write fails and the marker never appears. The control
// runs the same two chats with every protected_home_paths removed from the
// helper's config: the marker appears, so the case can fail.

#include "agent_clients.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

using namespace nr::itest;

namespace {

struct Plant {
    std::string client;
    std::string marker;      // left in the home by the planted code when it runs
    std::string tool;        // the model's shell command in chat 1
    std::string target;      // the file it writes, relative to the home
    std::string plant_model; // "anthropic" or "openai"
};

// The write ends with its status, and a write elsewhere in the home shows
// the home itself stayed writable.
std::string plant_command(const std::string& dir, const std::string& file, const std::string& content)
{
    return "mkdir -p \"$HOME/" + dir + "\"; printf '%s\\n' '" + content + "' >> \"$HOME/" + file +
           "\"; echo plant-status=$?; touch \"$HOME/" + dir + "/unprotected-note\"; echo home-write=$?";
}

Plant claude_hook()
{
    const std::string hook = R"({"type":"command","command":"touch \"$HOME/planted-hook-ran\""})";
    return {
        "claude", "planted-hook-ran",
        plant_command(".claude", ".claude/settings.json",
                      R"({"hooks":{"SessionStart":[{"hooks":[)" + hook + R"(]}],"Stop":[{"hooks":[)" + hook + "]}]}}"),
        ".claude/settings.json", "anthropic"};
}

Plant codex_notify()
{
    return {"codex", "planted-notify-ran",
            plant_command(".codex", ".codex/config.toml", R"(notify = ["sh", "-c", "touch $HOME/planted-notify-ran"])"),
            ".codex/config.toml", "openai"};
}

// The harness config without any protected_home_paths (each a key line and
// its "- entry" lines).
std::string without_protected_home_paths()
{
    const auto config = HelperConfigForATest::current();
    std::stringstream in(config);
    std::string kept;
    bool in_list = false;
    for (std::string line; std::getline(in, line);) {
        const auto text = line.substr(std::min(line.find_first_not_of(' '), line.size()));
        if (text.starts_with("protected_home_paths:")) {
            in_list = true;
            continue;
        }
        if (in_list && text.starts_with("- ")) {
            continue;
        }
        in_list = false;
        kept += line + "\n";
    }
    EXPECT_NE(kept, config) << "control: the harness config protected something";
    return kept;
}

struct Chats {
    Outcome plant;
    Outcome later;
    std::string exchanges;
};

// A hook planted mid-turn may already fire when chat 1 ends; only what
// runs in chat 2 is the persistence at stake.
void forget_marker(const Plant& plant, const std::string& owner)
{
    std::filesystem::remove(home_of(owner) + "/" + plant.marker);
}

// Chat 1 plants, chat 2 of the same owner runs an ordinary turn.
Chats plant_then_run_later(const Plant& plant, const std::string& owner)
{
    const auto& adapter = plant.client;
    const ModelEndpoint endpoint(plant.plant_model, random_key("sk-synthetic-"));
    endpoint.script({{"TURN-PLANT", {plant.tool}, "plant turn complete"},
                     {"TURN-LATER", {"echo later-turn-ran"}, "later turn complete"}});
    Chats chats;
    if (plant.client == "claude") {
        chats.plant = claude_turn_with(owner, "plant", adapter, endpoint, claude_print("TURN-PLANT now"));
        forget_marker(plant, owner);
        chats.later = claude_turn_with(owner, "later", adapter, endpoint, claude_print("TURN-LATER now"));
    } else {
        // Codex's own sandbox would refuse a write to the home by itself;
        // off here, as for a worker that relies on the session alone, so the
        // session's protection is what is tested.
        chats.plant =
            codex_turn_with(owner, "plant", adapter, endpoint,
                            codex_exec(endpoint, "TURN-PLANT now", {"-c", "sandbox_mode=\"danger-full-access\""}));
        forget_marker(plant, owner);
        chats.later =
            codex_turn_with(owner, "later", adapter, endpoint,
                            codex_exec(endpoint, "TURN-LATER now", {"-c", "sandbox_mode=\"workspace-write\""}));
    }
    print_transcript(plant.client + " plant (chat 1)", endpoint, chats.plant);
    print_transcript(plant.client + " later turn (chat 2)", endpoint, chats.later);
    chats.exchanges = endpoint.exchanges();
    return chats;
}

void expect_both_turns_ran(const Chats& chats)
{
    EXPECT_EQ(chats.plant.status, 0) << chats.plant.err;
    EXPECT_TRUE(contains(chats.plant.out, "plant turn complete")) << chats.plant.out;
    EXPECT_EQ(chats.later.status, 0) << chats.later.err;
    EXPECT_TRUE(contains(chats.later.out, "later turn complete")) << chats.later.out;
    EXPECT_TRUE(contains(chats.later.out, "later-turn-ran")) << chats.later.out;
}

void expect_plant_refused(const Plant& plant, const std::string& owner)
{
    const auto chats = plant_then_run_later(plant, owner);
    expect_both_turns_ran(chats);
    EXPECT_TRUE(std::regex_search(chats.plant.out, std::regex("plant-status=[1-9]"))) << chats.plant.out;
    EXPECT_TRUE(says_read_only_file_system(chats.exchanges)) << chats.exchanges;
    EXPECT_TRUE(contains(chats.plant.out, "home-write=0")) << "control: the rest of the home stays writable";
    EXPECT_EQ(std::filesystem::file_size(home_of(owner) + "/" + plant.target), 0U)
        << "the protected file is created empty and stays so";
    EXPECT_FALSE(std::filesystem::exists(home_of(owner) + "/" + plant.marker))
        << "the planted " << plant.client << " code ran in the owner's later session";
}

void expect_plant_runs_later(const Plant& plant, const std::string& owner)
{
    const HelperConfigForATest unprotected(without_protected_home_paths());
    const auto chats = plant_then_run_later(plant, owner);
    expect_both_turns_ran(chats);
    EXPECT_TRUE(contains(chats.plant.out, "plant-status=0")) << chats.plant.out;
    EXPECT_TRUE(std::filesystem::exists(home_of(owner) + "/" + plant.marker))
        << "control: without the protection the planted " << plant.client << " code runs in the later session";
}

} // namespace

TEST(AHookPlantedByAToolInAClaudeCodeSession, IsRefusedAndNeverRunsInTheOwnersNextChat)
{
    expect_plant_refused(claude_hook(), "plant-claude");
}

TEST(AHookPlantedByAToolInAClaudeCodeSessionWithoutProtectedHomePaths, RunsInTheOwnersNextChat)
{
    expect_plant_runs_later(claude_hook(), "plant-claude-open");
}

TEST(ANotifyProgramPlantedByAToolInACodexSession, IsRefusedAndNeverRunsInTheOwnersNextChat)
{
    expect_plant_refused(codex_notify(), "plant-codex");
}

TEST(ANotifyProgramPlantedByAToolInACodexSessionWithoutProtectedHomePaths, RunsInTheOwnersNextChat)
{
    expect_plant_runs_later(codex_notify(), "plant-codex-open");
}
