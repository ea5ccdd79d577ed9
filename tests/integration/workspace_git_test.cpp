// SPDX-License-Identifier: Apache-2.0
// What a tool writes into its workspace outlives the session. A repository
// there carries configuration that git executes: an fsmonitor command on
// `git status`, an external diff program on `git diff`, a clean filter on
// `git add`, hooks on `git commit`. The application must never run git (or
// any tool that reads configuration from the tree) on a workspace as the
// worker; the operator guide's supported way is a short session of the same
// chat with the `git` profile (examples/adapters/git.yaml), whose output
// comes back on the worker's stdout.
//
// A tool in chat 1 plants each of the four. Each planted command leaves a
// marker in a directory of the worker's outside every session (absent
// inside one), or, where it cannot, one in the workspace. Through the git
// profile the application gets the status, the diff and a commit; every
// plant ran, and each left its marker in the workspace, none outside:
// whatever the plant runs, it runs inside the sandbox. The control runs the
// same git commands as the worker outside any session: every marker
// appears outside, so the case can fail.

#include "agent_clients.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace nr::itest;

namespace {

constexpr const char* kMarkers = "/var/lib/nr-git-markers";
const std::vector<std::string> kVectors = {"fsmonitor", "diff-external", "clean-filter", "pre-commit-hook"};

std::string marker(const std::string& owner, const std::string& vector)
{
    return std::string(kMarkers) + "/" + owner + "-" + vector + "-ran";
}

// What a tool in the session runs: a repository with one commit, then the
// four plants and a change to show. Each plant, when git runs it, leaves
// MARK-<vector>-ran in the worker's marker directory; where that directory
// is absent (inside a session) it leaves inside-<vector>-ran in the
// workspace instead, which shows the plant did run there. Then git goes on:
// the fsmonitor fails (git scans itself), the external diff and the hook
// succeed, the clean filter passes the content through. git appends its
// own arguments to each command, which `false`, `true` and `cat` ignore.
std::string plant_script(const std::string& owner)
{
    std::string script = R"SH(set -e
leave() { echo "touch MARK-$1-ran 2>/dev/null || touch '$PWD/inside-$1-ran'"; }
git init -q .
git config user.email tool@example.invalid
git config user.name tool
echo one > tracked
git add tracked
git commit -qm one
git config core.fsmonitor "$(leave fsmonitor); false"
git config diff.external "$(leave diff-external); true"
echo '* filter=planted' > .git/info/attributes
git config filter.planted.clean "$(leave clean-filter); cat"
printf '#!/bin/sh\n%s\nexit 0\n' "$(leave pre-commit-hook)" > .git/hooks/pre-commit
chmod +x .git/hooks/pre-commit
echo two > tracked
echo planted
)SH";
    const auto prefix = std::string(kMarkers) + "/" + owner;
    for (auto at = script.find("MARK"); at != std::string::npos; at = script.find("MARK", at)) {
        script.replace(at, 4, prefix);
    }
    return script;
}

void plant(const std::string& owner, const std::string& chat)
{
    const auto outcome = run(as_user(kWorker, ctl_run(owner, chat, "shell", {"sh", "-c", plant_script(owner)})));
    ASSERT_EQ(outcome.status, 0) << outcome.err;
    ASSERT_EQ(outcome.out, "planted\n");
}

// No marker and no workspace of an earlier run (the launcher makes the
// chat's workspace anew).
void start_afresh(const std::string& owner)
{
    ASSERT_EQ(run({"install", "-d", "-o", kWorker, "-m", "0700", kMarkers}).status, 0);
    for (const auto& vector : kVectors) {
        std::filesystem::remove(marker(owner, vector));
    }
    std::filesystem::remove_all(workspace_of(owner, "c1"));
}

// The application's git commands through the git profile: one session each.
Outcome git_session(const std::string& owner, const std::string& chat, const std::vector<std::string>& args)
{
    std::vector<std::string> command{"git"};
    command.insert(command.end(), args.begin(), args.end());
    return run(as_user(kWorker, ctl_run(owner, chat, "git", command)));
}

// The same commands run as the worker outside any session: what the
// operator guide says never to do.
Outcome git_as_the_worker(const std::string& owner, const std::string& chat, const std::vector<std::string>& args)
{
    std::vector<std::string> command{"git", "-C", workspace_of(owner, chat)};
    command.insert(command.end(), args.begin(), args.end());
    return run(as_user(kWorker, command));
}

using GitRunner = Outcome (*)(const std::string&, const std::string&, const std::vector<std::string>&);

struct Looked {
    Outcome status, diff, add, commit, log;
};

// Chat c1 of `owner`: a tool plants, then the application looks at the
// workspace and commits the change with `git`.
Looked plant_then_look_and_commit(GitRunner git, const std::string& owner)
{
    start_afresh(owner);
    plant(owner, "c1");
    return {git(owner, "c1", {"status", "--porcelain"}), git(owner, "c1", {"diff"}),
            git(owner, "c1", {"add", "tracked"}), git(owner, "c1", {"commit", "-qm", "two"}),
            git(owner, "c1", {"log", "--format=%s"})};
}

} // namespace

TEST(ARepositoryAToolPlantedInItsWorkspace, IsLookedAtAndCommittedThroughTheGitProfileWithoutRunningThePlantOutside)
{
    const std::string owner = "git-plant";
    const auto looked = plant_then_look_and_commit(git_session, owner);
    EXPECT_EQ(looked.status.status, 0) << looked.status.err;
    EXPECT_TRUE(contains(looked.status.out, "M tracked")) << looked.status.out;
    EXPECT_EQ(looked.diff.status, 0) << looked.diff.err;
    EXPECT_EQ(looked.add.status, 0) << looked.add.err;
    EXPECT_EQ(looked.commit.status, 0) << looked.commit.err;
    EXPECT_EQ(looked.log.out, "two\none\n") << looked.log.err;
    for (const auto& vector : kVectors) {
        EXPECT_FALSE(exists(marker(owner, vector))) << "the planted " << vector << " ran outside the session";
        EXPECT_TRUE(exists(workspace_of(owner, "c1") + "/inside-" + vector + "-ran"))
            << "control: the planted " << vector << " did not run inside the session either";
    }
}

TEST(ARepositoryAToolPlantedInItsWorkspaceWhenTheWorkerRunsGitOnItItself, RunsEveryPlantAsTheWorker)
{
    const std::string owner = "git-plant-open";
    const auto looked = plant_then_look_and_commit(git_as_the_worker, owner);
    EXPECT_EQ(looked.commit.status, 0) << looked.commit.err;
    for (const auto& vector : kVectors) {
        EXPECT_TRUE(exists(marker(owner, vector))) << "the planted " << vector << " did not run as the worker";
    }
}
