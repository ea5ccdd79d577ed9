// SPDX-License-Identifier: Apache-2.0
// org.metis.NativeRuntime1(5) (docs/man/org.metis.NativeRuntime1.5.md) is
// written by hand; these tests keep it from drifting from the interface
// descriptions in dbus/ and from the helper's error names.

#include "core/base/error.h"
#include "core/bus/bus_names.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

using namespace nr::core;

namespace {

std::string file_text(const std::filesystem::path& path)
{
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string man_page()
{
    return file_text(NR_MAN_DIR "/org.metis.NativeRuntime1.5.md");
}

// "method Claim", "property Version", ... of every XML file in dbus/.
std::set<std::string> described_members()
{
    std::set<std::string> members;
    const std::regex member(R"re(<(method|signal|property|interface) name="([^"]+)")re");
    for (const auto& entry : std::filesystem::directory_iterator(NR_DBUS_DIR)) {
        if (entry.path().extension() != ".xml") {
            continue;
        }
        const auto text = file_text(entry.path());
        for (std::sregex_iterator it(text.begin(), text.end(), member), end; it != end; ++it) {
            members.insert((*it)[1].str() + " " + (*it)[2].str());
        }
    }
    return members;
}

} // namespace

TEST(TheDbusManPage, NamesEveryInterfaceMethodSignalAndPropertyOfTheXmlDescriptions)
{
    const auto man = man_page();
    ASSERT_FALSE(man.empty()) << NR_MAN_DIR;
    const auto members = described_members();
    ASSERT_GE(members.size(), 15U) << "the descriptions in " << NR_DBUS_DIR << " were not read";
    for (const auto& member : members) {
        const auto name = member.substr(member.find(' ') + 1);
        // As the page sets a member: in bold, a method's or signal's
        // arguments following.
        EXPECT_NE(man.find("**" + name + "**"), std::string::npos) << member << " is missing from the man page";
    }
}

TEST(TheDbusManPage, NamesEveryErrorTheHelperReplies)
{
    const auto man = man_page();
    for (int kind = 0; kind <= static_cast<int>(ErrorKind::HelperStopping); ++kind) {
        const auto name = std::string(error_name(static_cast<ErrorKind>(kind)));
        EXPECT_NE(man.find("**" + name + "**"), std::string::npos) << name << " is missing from the man page";
    }
}

TEST(TheDbusManPage, NamesTheBusNameAndObject)
{
    const auto man = man_page();
    EXPECT_NE(man.find(std::string("**") + kBusName + "**"), std::string::npos);
    EXPECT_NE(man.find(std::string("**") + kObjectPath + "**"), std::string::npos);
    EXPECT_NE(man.find(std::string("**") + std::string(kErrorPrefix)), std::string::npos);
}
