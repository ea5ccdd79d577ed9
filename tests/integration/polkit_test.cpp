// SPDX-License-Identifier: Apache-2.0
// polkit for the operator verbs, with the real polkitd of the harness: a
// rules file the test drops in /etc/polkit-1/rules.d grants an action to one
// user; a second user without the rule is refused with today's typed error
// (there is no authentication agent, so auth_admin_keep cannot be met);
// with polkit masked, everything is as on a host without polkitd; a check
// polkit has not answered yet blocks nobody else; and a caller cannot stack
// more than its bound of unanswered checks.

#include "fixture.h"
#include "journal_records.h"
#include "process.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <vector>

namespace nr::itest {

namespace {

// In the bus policy's group (so the broker lets it call the helper), not
// among the configured callers, owner of no session.
constexpr const char* kOperator = "nrpolkitop";
constexpr const char* kRulesFile = "/etc/polkit-1/rules.d/10-native-runtime-test.rules";
constexpr const char* kManageSessions = "org.metis.NativeRuntime1.manage-sessions";
constexpr const char* kRunCanary = "org.metis.NativeRuntime1.run-canary";
constexpr const char* kOtherOwner = "org.metis.NativeRuntime1.Error.AccessDenied: the session belongs to another user";
// core::kPolkitPendingPerCaller and core::kPolkitLimitError
// (src/core/plan/operator_authorization.h).
constexpr std::size_t kPendingPerCaller = 8;
constexpr const char* kLimitError = "org.freedesktop.DBus.Error.LimitsExceeded";
constexpr const char* kRootOnly = "org.metis.NativeRuntime1.Error.AccessDenied: only root may run the preflight canary";

// polkit's JavaScript rules (polkitd 121 and later): `action` for kOperator.
std::string grant_rule(const std::string& action)
{
    return "polkit.addRule(function(action, subject) {\n"
           "    if (action.id == \"" +
           action + "\" && subject.user == \"" + kOperator +
           "\") {\n"
           "        return polkit.Result.YES;\n"
           "    }\n"
           "});\n";
}

std::vector<std::string> call_helper(const std::string& method, const std::vector<std::string>& args,
                                     int timeout_ms = 60000)
{
    std::vector<std::string> argv{"dbus-send",
                                  "--system",
                                  "--print-reply",
                                  "--reply-timeout=" + std::to_string(timeout_ms),
                                  "--dest=org.metis.NativeRuntime1",
                                  "/org/metis/NativeRuntime1",
                                  "org.metis.NativeRuntime1.Manager." + method};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
}

std::vector<std::string> stop_call(const std::string& owner, const std::string& chat)
{
    return call_helper("StopSession", {"string:" + owner, "string:" + chat});
}

// A shell that makes `count` StopSession calls of owner "polkit"'s `chat`
// at once, each writing its exit status to DIR/N.rc and its error to
// DIR/N.err as it ends ($1 is DIR).
std::vector<std::string> stop_calls_at_once(const std::string& chat, std::size_t count, const std::string& dir)
{
    std::string script = "for i in $(seq 1 " + std::to_string(count) + "); do (";
    for (const auto& word : stop_call("polkit", chat)) {
        script += "'" + word + "' ";
    }
    script += ">/dev/null 2>\"$1/$i.err\"; echo $? >\"$1/$i.rc\") & done; wait";
    return {"sh", "-c", script, "calls", dir};
}

// How many of those calls have ended.
std::size_t ended_calls(const std::string& dir)
{
    std::size_t ended = 0;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        ended += entry.path().extension() == ".rc" ? 1 : 0;
    }
    return ended;
}

std::string uid_of(const std::string& user)
{
    auto out = run({"id", "-u", user}).out;
    while (!out.empty() && out.back() == '\n') {
        out.pop_back();
    }
    return out;
}

// A session of the worker (its owner) that sleeps until stopped.
class RunningSession {
public:
    explicit RunningSession(const std::string& chat)
        : unit_(unit_of("polkit", chat)),
          session_(as_user(kWorker, ctl_run("polkit", chat, "shell", {"sh", "-c", "exec sleep 300"})))
    {
        EXPECT_TRUE(eventually(30, [&] { return session_is_running(unit_); })) << unit_;
    }
    RunningSession(const RunningSession&) = delete;
    RunningSession& operator=(const RunningSession&) = delete;
    RunningSession(RunningSession&&) = delete;
    RunningSession& operator=(RunningSession&&) = delete;
    ~RunningSession()
    {
        (void)run({"systemctl", "stop", unit_});
        (void)session_.wait();
    }

    [[nodiscard]] bool running() const { return unit_is_active(unit_); }
    [[nodiscard]] bool ended() const
    {
        return eventually(30, [&] { return !unit_is_active(unit_); });
    }

private:
    std::string unit_;
    Background session_;
};

// The rules file in place and polkitd restarted to read it (it would also
// notice the file by itself, but not at a moment a test can wait for);
// removed, and polkit stopped and unmasked, however the test ends.
class PolkitTest : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        (void)run({"useradd", "-m", "-G", "native-runtime", kOperator}); // exists after the first suite
        (void)run({"busctl", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                   "ReloadConfig"});
    }

    void SetUp() override
    {
        write_file(kRulesFile, grant_rule(kManageSessions) + grant_rule(kRunCanary));
        ASSERT_EQ(run({"chmod", "0644", kRulesFile}).status, 0);
        const auto restarted = run({"systemctl", "restart", "polkit.service"});
        ASSERT_EQ(restarted.status, 0) << "polkitd must be installed (scripts/install-deps): " << restarted.err;
    }

    void TearDown() override
    {
        (void)run({"systemctl", "kill", "--signal=SIGCONT", "polkit.service"});
        (void)run({"rm", "-f", kRulesFile});
        (void)run({"systemctl", "unmask", "--runtime", "polkit.service"});
        (void)run({"systemctl", "stop", "polkit.service"});
    }
};

} // namespace

TEST_F(PolkitTest, KnowsTheInstalledActionsWithAuthAdminKeepForActiveSessionsOnly)
{
    for (const auto* action : {kManageSessions, kRunCanary}) {
        const auto shown = run({"pkaction", "--verbose", "--action-id", action});
        EXPECT_EQ(shown.status, 0) << action << ": " << shown.err;
        EXPECT_TRUE(std::regex_search(shown.out, std::regex("implicit any: +no\n"))) << shown.out;
        EXPECT_TRUE(std::regex_search(shown.out, std::regex("implicit inactive: +no\n"))) << shown.out;
        EXPECT_TRUE(std::regex_search(shown.out, std::regex("implicit active: +auth_admin_keep\n"))) << shown.out;
    }
}

TEST_F(PolkitTest, AUserGrantedManageSessionsStopsAnotherOwnersSession)
{
    RunningSession session("granted");
    const auto stopped = run(as_user(kOperator, stop_call("polkit", "granted")));
    EXPECT_EQ(stopped.status, 0) << stopped.err;
    EXPECT_TRUE(session.ended());
    const auto record =
        last_record({std::string("MESSAGE_ID=") + kPolkitChecked, "NATIVE_RUNTIME_CALLER_UID=" + uid_of(kOperator)});
    EXPECT_EQ(field(record, "NATIVE_RUNTIME_POLKIT_ACTION"), kManageSessions);
    EXPECT_EQ(field(record, "NATIVE_RUNTIME_POLKIT_RESULT"), "authorized");
}

TEST_F(PolkitTest, AUserWithoutTheRuleIsRefusedWithTodaysTypedError)
{
    RunningSession session("ungranted");
    const auto refused = run(as_user(kStranger, stop_call("polkit", "ungranted")));
    EXPECT_NE(refused.status, 0);
    EXPECT_NE(refused.err.find(kOtherOwner), std::string::npos) << refused.err;
    EXPECT_TRUE(session.running());
    const auto record =
        last_record({std::string("MESSAGE_ID=") + kPolkitChecked, "NATIVE_RUNTIME_CALLER_UID=" + uid_of(kStranger)});
    EXPECT_NE(field(record, "NATIVE_RUNTIME_POLKIT_RESULT"), "authorized");
    // Control: the owner still stops it, without polkit.
    EXPECT_EQ(run(as_user(kWorker, stop_call("polkit", "ungranted"))).status, 0);
    EXPECT_TRUE(session.ended());
}

TEST_F(PolkitTest, AUserGrantedRunCanaryRunsItAndOneWithoutTheRuleIsRefused)
{
    const auto refused = run(as_user(kStranger, call_helper("RunCanary", {"string:"}, 120000)));
    EXPECT_NE(refused.status, 0);
    EXPECT_NE(refused.err.find(kRootOnly), std::string::npos) << refused.err;
    const auto ran = run(as_user(kOperator, call_helper("RunCanary", {"string:"}, 120000)));
    EXPECT_EQ(ran.status, 0) << ran.err;
    EXPECT_NE(ran.out.find("boolean true"), std::string::npos) << ran.out;
}

TEST_F(PolkitTest, WithoutPolkitEvenAGrantedUserIsRefusedAsTodayAndOwnerAndRootStillStop)
{
    ASSERT_EQ(run({"systemctl", "mask", "--runtime", "polkit.service"}).status, 0);
    ASSERT_EQ(run({"systemctl", "stop", "polkit.service"}).status, 0);
    RunningSession by_owner("owner");
    RunningSession by_root("root");

    const auto refused = run(as_user(kOperator, stop_call("polkit", "owner")));
    EXPECT_NE(refused.status, 0);
    EXPECT_NE(refused.err.find(kOtherOwner), std::string::npos) << refused.err;
    const auto canary = run(as_user(kOperator, call_helper("RunCanary", {"string:"})));
    EXPECT_NE(canary.err.find(kRootOnly), std::string::npos) << canary.err;
    EXPECT_TRUE(by_owner.running());
    const auto record =
        last_record({std::string("MESSAGE_ID=") + kPolkitChecked, "NATIVE_RUNTIME_CALLER_UID=" + uid_of(kOperator),
                     "NATIVE_RUNTIME_POLKIT_RESULT=unavailable"});
    EXPECT_FALSE(field(record, "NATIVE_RUNTIME_POLKIT_ERROR").empty());

    EXPECT_EQ(run(as_user(kWorker, stop_call("polkit", "owner"))).status, 0);
    EXPECT_TRUE(by_owner.ended());
    EXPECT_EQ(run(stop_call("polkit", "root")).status, 0);
    EXPECT_TRUE(by_root.ended());
}

TEST_F(PolkitTest, APendingCheckDoesNotKeepTheHelperFromServingOthers)
{
    RunningSession waiting("pending");
    RunningSession other("other");
    // polkitd frozen: the helper's CheckAuthorization stays unanswered.
    ASSERT_EQ(run({"systemctl", "kill", "--signal=SIGSTOP", "polkit.service"}).status, 0);
    Background pending(as_user(kOperator, stop_call("polkit", "pending")));
    // Time for the call to reach the helper and its check to reach the
    // frozen polkitd; nothing observable says when it has, and a call
    // still on its way would make the rest prove nothing.
    ASSERT_EQ(run({"sleep", "2"}).status, 0);

    // Meanwhile the owner starts a session and stops another: both answered.
    const auto started = run(as_user(kWorker, ctl_run("polkit", "meanwhile", "shell", {"sh", "-c", "echo ran"})));
    EXPECT_EQ(started.status, 0) << started.err;
    EXPECT_EQ(started.out, "ran\n");
    EXPECT_EQ(run(as_user(kWorker, stop_call("polkit", "other"))).status, 0);
    EXPECT_TRUE(other.ended());
    EXPECT_TRUE(waiting.running()) << "the pending stop must still be waiting for polkit";

    // polkit answers once it runs again, and the granted stop goes ahead.
    ASSERT_EQ(run({"systemctl", "kill", "--signal=SIGCONT", "polkit.service"}).status, 0);
    const auto answered = pending.wait();
    EXPECT_EQ(answered.status, 0) << answered.err;
    EXPECT_TRUE(waiting.ended());
}

TEST_F(PolkitTest, ACallerWithItsBoundOfChecksWaitingIsRefusedAtOnceWhileAnotherCallersCheckIsStillAsked)
{
    RunningSession flooded("flooded");
    RunningSession other("victim");
    const std::string dir = "/tmp/nr-polkit-bound";
    (void)run({"rm", "-rf", dir});
    ASSERT_EQ(run({"install", "-d", "-o", kOperator, "-m", "0700", dir}).status, 0);
    const std::string stranger_dir = "/tmp/nr-polkit-bound-stranger";
    (void)run({"rm", "-rf", stranger_dir});
    ASSERT_EQ(run({"install", "-d", "-o", kStranger, "-m", "0700", stranger_dir}).status, 0);
    // polkitd frozen: every check the helper sends stays unanswered.
    ASSERT_EQ(run({"systemctl", "kill", "--signal=SIGSTOP", "polkit.service"}).status, 0);

    constexpr std::size_t kOver = 4;
    Background flood(as_user(kOperator, stop_calls_at_once("flooded", kPendingPerCaller + kOver, dir)));
    // The calls over the bound are answered at once, with today's refusal
    // and a record that names the limit; the others wait for polkit.
    EXPECT_TRUE(eventually(30, [&] { return ended_calls(dir) >= kOver; }));
    ASSERT_EQ(run({"sleep", "2"}).status, 0);
    EXPECT_EQ(ended_calls(dir), kOver) << "only the calls over the bound may end while polkit is frozen";
    const auto limited = [&] {
        return journal({std::string("MESSAGE_ID=") + kPolkitChecked,
                        "NATIVE_RUNTIME_UNIT=" + unit_of("polkit", "flooded"),
                        "NATIVE_RUNTIME_POLKIT_ERROR=" + std::string(kLimitError)})
            .size();
    };
    EXPECT_TRUE(eventually(20, [&] { return limited() == kOver; })) << limited() << " limit records";
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        if (entry.path().extension() == ".err") {
            const auto rc = entry.path().parent_path() / (entry.path().stem().string() + ".rc");
            if (std::filesystem::exists(rc)) {
                EXPECT_NE(read_file(entry.path()).find(kOtherOwner), std::string::npos) << read_file(entry.path());
            }
        }
    }
    EXPECT_TRUE(flooded.running());

    // Another caller's check is still sent to polkit: it waits too.
    Background victim(as_user(kStranger, stop_calls_at_once("victim", 1, stranger_dir)));
    ASSERT_EQ(run({"sleep", "3"}).status, 0);
    EXPECT_EQ(ended_calls(stranger_dir), 0U)
        << "another caller's check was refused, not asked: " << read_file(stranger_dir + "/1.err");

    // polkit answers them all once it runs again: the operator's granted
    // stops go ahead, the stranger is refused by polkit itself.
    ASSERT_EQ(run({"systemctl", "kill", "--signal=SIGCONT", "polkit.service"}).status, 0);
    EXPECT_EQ(flood.wait().status, 0);
    EXPECT_EQ(victim.wait().status, 0);
    EXPECT_EQ(ended_calls(dir), kPendingPerCaller + kOver);
    EXPECT_TRUE(flooded.ended());
    EXPECT_NE(read_file(stranger_dir + "/1.err").find(kOtherOwner), std::string::npos);
    EXPECT_TRUE(other.running());
    const auto record = last_record(
        {std::string("MESSAGE_ID=") + kPolkitChecked, "NATIVE_RUNTIME_UNIT=" + unit_of("polkit", "victim")});
    const auto result = field(record, "NATIVE_RUNTIME_POLKIT_RESULT");
    EXPECT_TRUE(result == "not-authorized" || result == "challenge") << "polkit itself answered: " << result;
    (void)run({"rm", "-rf", dir, stranger_dir});
}

} // namespace nr::itest
