// SPDX-License-Identifier: Apache-2.0
#include "core/base/error.h"

#include "test_support.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace nr::core;
using ::testing::StrEq;

TEST(AnError, CarriesItsKindAndMessage)
{
    const Error e(ErrorKind::InvalidPath, "workspace must be an absolute path");
    EXPECT_EQ(e.kind(), ErrorKind::InvalidPath);
    EXPECT_THAT(e.what(), StrEq("workspace must be an absolute path"));
}

TEST(Fail, ThrowsAnErrorOfTheGivenKind)
{
    NR_EXPECT_REFUSED(e, ErrorKind::SessionBusy, fail(ErrorKind::SessionBusy, "busy"));
    EXPECT_THAT(e->what(), StrEq("busy"));
}

TEST(EachErrorKind, HasTheDBusNameThatMatchesItsEnumerator)
{
    EXPECT_EQ(error_name(ErrorKind::AccessDenied), "AccessDenied");
    EXPECT_EQ(error_name(ErrorKind::InvalidArgument), "InvalidArgument");
    EXPECT_EQ(error_name(ErrorKind::InvalidPath), "InvalidPath");
    EXPECT_EQ(error_name(ErrorKind::InvalidEnvironment), "InvalidEnvironment");
    EXPECT_EQ(error_name(ErrorKind::UnknownAdapter), "UnknownAdapter");
    EXPECT_EQ(error_name(ErrorKind::SessionBusy), "SessionBusy");
    EXPECT_EQ(error_name(ErrorKind::NoSuchSession), "NoSuchSession");
    EXPECT_EQ(error_name(ErrorKind::ConfigInvalid), "ConfigInvalid");
    EXPECT_EQ(error_name(ErrorKind::SystemdFailure), "SystemdFailure");
    EXPECT_EQ(error_name(ErrorKind::LaunchFailed), "LaunchFailed");
    EXPECT_EQ(error_name(ErrorKind::HardeningNotApplied), "HardeningNotApplied");
    EXPECT_EQ(error_name(ErrorKind::NoSuchFile), "NoSuchFile");
    EXPECT_EQ(error_name(ErrorKind::UnsafeFile), "UnsafeFile");
    EXPECT_EQ(error_name(ErrorKind::FileTooLarge), "FileTooLarge");
    EXPECT_EQ(error_name(ErrorKind::FileChanged), "FileChanged");
    EXPECT_EQ(error_name(ErrorKind::ReceiptInvalid), "ReceiptInvalid");
    EXPECT_EQ(error_name(ErrorKind::ReceiptMismatch), "ReceiptMismatch");
    EXPECT_EQ(error_name(ErrorKind::ReceiptStale), "ReceiptStale");
    EXPECT_EQ(error_name(ErrorKind::ReceiptExpired), "ReceiptExpired");
    EXPECT_EQ(error_name(ErrorKind::ReceiptUsed), "ReceiptUsed");
    EXPECT_EQ(error_name(ErrorKind::HelperStopping), "HelperStopping");
}

TEST(ErrorNames, AreDistinctSoTheBusErrorIdentifiesTheKind)
{
    const std::set<std::string_view> names{
        error_name(ErrorKind::AccessDenied),   error_name(ErrorKind::InvalidArgument),
        error_name(ErrorKind::InvalidPath),    error_name(ErrorKind::InvalidEnvironment),
        error_name(ErrorKind::UnknownAdapter), error_name(ErrorKind::SessionBusy),
        error_name(ErrorKind::NoSuchSession),  error_name(ErrorKind::ConfigInvalid),
        error_name(ErrorKind::SystemdFailure), error_name(ErrorKind::LaunchFailed),
        error_name(ErrorKind::NoSuchFile),     error_name(ErrorKind::UnsafeFile),
        error_name(ErrorKind::FileTooLarge),   error_name(ErrorKind::FileChanged),
        error_name(ErrorKind::ReceiptInvalid), error_name(ErrorKind::ReceiptMismatch),
        error_name(ErrorKind::ReceiptStale),   error_name(ErrorKind::ReceiptExpired),
        error_name(ErrorKind::ReceiptUsed),    error_name(ErrorKind::HelperStopping),
    };
    EXPECT_EQ(names.size(), 20U);
}
