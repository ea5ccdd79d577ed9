// SPDX-License-Identifier: Apache-2.0
// native-runtimectl's one table from a failure to an exit status
// (core/cli/cli_exit.h; docs/man/native-runtimectl.1.md, EXIT STATUS).

#include "core/cli/cli_exit.h"

#include <gtest/gtest.h>

#include <set>

using namespace nr::core;

TEST(TheCliExitTable, GivesEachFailureItsDocumentedStatus)
{
    EXPECT_EQ(cli_exit_status(CliFailure::CheckFailed), 1);
    EXPECT_EQ(cli_exit_status(CliFailure::Usage), 64);
    EXPECT_EQ(cli_exit_status(CliFailure::Refused), 65);
    EXPECT_EQ(cli_exit_status(CliFailure::Unavailable), 69);
    EXPECT_EQ(cli_exit_status(CliFailure::Internal), 70);
    EXPECT_EQ(cli_exit_status(CliFailure::IoError), 74);
    EXPECT_EQ(cli_exit_status(CliFailure::ConfigInvalid), 78);
}

TEST(TheCliExitTable, KeepsFailureStatusesApartFromEachOtherAndFromRunsOwn)
{
    std::set<int> seen;
    for (const auto failure : {CliFailure::CheckFailed, CliFailure::Usage, CliFailure::Refused, CliFailure::Internal,
                               CliFailure::Unavailable, CliFailure::IoError, CliFailure::ConfigInvalid}) {
        const int status = cli_exit_status(failure);
        EXPECT_TRUE(seen.insert(status).second) << status << " used twice";
        EXPECT_NE(status, 0);
        EXPECT_LT(status, kExitRuntimeLimit) << "below the statuses of a session's end";
    }
}

TEST(AMalformedValueOnTheCommandLine, IsAUsageError)
{
    EXPECT_EQ(cli_failure_of(ErrorKind::InvalidArgument), CliFailure::Usage);
}

TEST(AWellFormedRequestACheckRefused, IsARefusal)
{
    for (const auto kind : {ErrorKind::NoSuchSession, ErrorKind::AccessDenied, ErrorKind::InvalidPath,
                            ErrorKind::UnsafeFile, ErrorKind::SessionBusy, ErrorKind::ReceiptStale}) {
        EXPECT_EQ(cli_failure_of(kind), CliFailure::Refused) << error_name(kind);
    }
}

TEST(ABrokenConfigAFailedCheckAndSystemd, HaveStatusesOfTheirOwn)
{
    EXPECT_EQ(cli_failure_of(ErrorKind::ConfigInvalid), CliFailure::ConfigInvalid);
    EXPECT_EQ(cli_failure_of(ErrorKind::PreflightFailed), CliFailure::CheckFailed);
    EXPECT_EQ(cli_failure_of(ErrorKind::SystemdFailure), CliFailure::Unavailable);
}

TEST(EveryRefusalOfTheHelper, IsARefusalWhateverItsName)
{
    EXPECT_EQ(cli_failure_of_bus_error("org.metis.NativeRuntime1.Error.InvalidArgument"), CliFailure::Refused);
    EXPECT_EQ(cli_failure_of_bus_error("org.metis.NativeRuntime1.Error.HardeningNotApplied"), CliFailure::Refused);
    EXPECT_EQ(cli_failure_of_bus_error("org.metis.NativeRuntime1.Error.SomethingNewer"), CliFailure::Refused);
}

TEST(TheBusPolicyRefusingTheCall, IsARefusal)
{
    EXPECT_EQ(cli_failure_of_bus_error("org.freedesktop.DBus.Error.AccessDenied"), CliFailure::Refused);
}

TEST(AValueSdBusCannotEncode, IsAUsageError)
{
    EXPECT_EQ(cli_failure_of_bus_error("org.freedesktop.DBus.Error.InvalidArgs"), CliFailure::Usage);
}

TEST(AHelperThatWasExitingEachTimeItWasAsked, IsUnavailableNotARefusal)
{
    EXPECT_EQ(cli_failure_of(ErrorKind::HelperStopping), CliFailure::Unavailable);
    EXPECT_EQ(cli_failure_of_bus_error("org.metis.NativeRuntime1.Error.HelperStopping"), CliFailure::Unavailable);
}

TEST(ABusOrHelperThatIsNotThere, IsUnavailable)
{
    for (const auto* name : {"org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NoReply",
                             "org.freedesktop.DBus.Error.FileNotFound", "org.freedesktop.DBus.Error.Disconnected",
                             "org.metis.NativeRuntime1Error.Lookalike"}) {
        EXPECT_EQ(cli_failure_of_bus_error(name), CliFailure::Unavailable) << name;
    }
}

TEST(ASessionThatExited, EndsRunWithTheCommandsOwnStatus)
{
    EXPECT_EQ(session_exit_status("success", 1, 0), 0);
    EXPECT_EQ(session_exit_status("exit-code", 1, 3), 3);
}

TEST(ASessionEndedByASignal, EndsRunWith128PlusTheSignal)
{
    EXPECT_EQ(session_exit_status("signal", 2, 15), 143);
    EXPECT_EQ(session_exit_status("oom-kill", 2, 9), 137);
}

TEST(ASessionEndedByItsRuntimeLimit, EndsRunWith124)
{
    EXPECT_EQ(session_exit_status("timeout", 2, 15), 124);
}

TEST(ASessionWhoseEndIsUnknown, EndsRunWith255)
{
    EXPECT_EQ(session_exit_status("unknown", 0, 0), 255);
    EXPECT_EQ(session_exit_status("exit-code", 0, 0), 255);
}
