// SPDX-License-Identifier: Apache-2.0
#include "core/bus/bus_names.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

using namespace nr::core;

namespace {

std::string file_text(const std::string& path)
{
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

TEST(AnErrorKind, HasTheHelpersTypedErrorNameOnTheBus)
{
    EXPECT_EQ(bus_error_name(ErrorKind::SessionBusy), "org.metis.NativeRuntime1.Error.SessionBusy");
    EXPECT_EQ(bus_error_name(ErrorKind::ReceiptUsed), "org.metis.NativeRuntime1.Error.ReceiptUsed");
}

TEST(AnErrorNameUnderTheHelpersPrefix, IsOneOfItsTypedErrors)
{
    EXPECT_TRUE(is_helper_error(bus_error_name(ErrorKind::AccessDenied)));
    EXPECT_TRUE(is_helper_error("org.metis.NativeRuntime1.Error.SomethingNewer"));
}

TEST(AnErrorNameOutsideTheHelpersPrefix, IsNotOneOfItsTypedErrors)
{
    EXPECT_FALSE(is_helper_error("org.freedesktop.DBus.Error.AccessDenied"));
    EXPECT_FALSE(is_helper_error("org.metis.NativeRuntime1Error.Lookalike"));
    EXPECT_FALSE(is_helper_error("org.metis.NativeRuntime1.Error"));
}

TEST(TheHelpersBusNames, AreTheOnesItsActivationFileAndInterfaceDescriptionUse)
{
    EXPECT_NE(file_text(NR_DBUS_DIR "/org.metis.NativeRuntime1.service.in").find(std::string("Name=") + kBusName),
              std::string::npos);
    EXPECT_NE(file_text(NR_UNITS_DIR "/native-runtimed.service.in").find(std::string("BusName=") + kBusName),
              std::string::npos);
    EXPECT_NE(file_text(NR_DBUS_DIR "/org.metis.NativeRuntime1.xml")
                  .find(std::string("<interface name=\"") + kManagerInterface + "\""),
              std::string::npos);
}
