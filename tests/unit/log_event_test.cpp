// SPDX-License-Identifier: Apache-2.0
#include "core/journal/log_event.h"

#include "test_paths.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

using namespace nr::core;

namespace {

std::map<std::string, std::string> as_map(const std::vector<std::string>& fields)
{
    std::map<std::string, std::string> out;
    for (const auto& field : fields) {
        const auto eq = field.find('=');
        EXPECT_NE(eq, std::string::npos) << field;
        EXPECT_TRUE(out.emplace(field.substr(0, eq), field.substr(eq + 1)).second) << "duplicate " << field;
    }
    return out;
}

std::string catalog_text()
{
    std::ifstream in(NR_CATALOG_FILE);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

TEST(EveryKindOfEvent, HasItsOwnWellFormedMessageId)
{
    std::set<std::string> seen;
    const std::regex id128("[0-9a-f]{32}");
    for (const auto event : all_log_events()) {
        const std::string id(message_id(event));
        EXPECT_TRUE(std::regex_match(id, id128)) << id;
        EXPECT_TRUE(seen.insert(id).second) << "duplicate id " << id;
    }
    EXPECT_EQ(seen.size(), 19U);
}

TEST(TheInstalledCatalog, HasExactlyOneEntryPerMessageId)
{
    const auto text = catalog_text();
    ASSERT_FALSE(text.empty()) << NR_CATALOG_FILE;
    std::set<std::string> ids;
    const std::regex header("^-- ([0-9a-f]{32})$", std::regex::multiline);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), header); it != std::sregex_iterator(); ++it) {
        EXPECT_TRUE(ids.insert((*it)[1]).second) << "two entries for " << (*it)[1];
    }
    std::set<std::string> expected;
    for (const auto event : all_log_events()) {
        expected.emplace(message_id(event));
    }
    EXPECT_EQ(ids, expected);
}

TEST(EveryRecord, CarriesPriorityIdentifierAndMessageId)
{
    const auto fields = as_map(journal_fields(log_record(LogEvent::SessionStarted, "hello"), "native-runtimed"));
    EXPECT_EQ(fields.at("MESSAGE"), "hello");
    EXPECT_EQ(fields.at("PRIORITY"), "6");
    EXPECT_EQ(fields.at("SYSLOG_IDENTIFIER"), "native-runtimed");
    EXPECT_EQ(fields.at("MESSAGE_ID"), "f67162d8350c4eb5af45a7cba697bbd4");
}

TEST(ARecordAboutASession, NamesItsUnitAsObjectSystemdUnit)
{
    auto record = log_record(LogEvent::SessionStopped, "stopping");
    add_session(record, {"bob-x", "c1", "j1", {}});
    const auto fields = as_map(journal_fields(record, "native-runtimed"));
    EXPECT_EQ(fields.at("OBJECT_SYSTEMD_UNIT"), "native-runtime-bob\\x2dx-c1.service");
    EXPECT_EQ(fields.at("NATIVE_RUNTIME_UNIT"), "native-runtime-bob\\x2dx-c1.service");
    EXPECT_EQ(fields.at("NATIVE_RUNTIME_OWNER"), "bob-x");
    EXPECT_EQ(fields.at("NATIVE_RUNTIME_CHAT"), "c1");
    EXPECT_EQ(fields.at("NATIVE_RUNTIME_JOB"), "j1");
}

TEST(ARecordAboutARequestWithABadChatId, RecordsTheIdButNoUnit)
{
    auto record = log_record(LogEvent::SessionRefused, "refused");
    add_session(record, {"alice", "../x", {}, {}});
    const auto fields = as_map(journal_fields(record, "native-runtimed"));
    EXPECT_EQ(fields.at("NATIVE_RUNTIME_CHAT"), "../x");
    EXPECT_EQ(fields.count("OBJECT_SYSTEMD_UNIT"), 0U);
}

TEST(ARefusal, IsAWarningWithTheCallerTheErrorAndTheSession)
{
    const Error error(ErrorKind::AccessDenied, "uid 1002 may not start sessions");
    const auto fields = as_map(journal_fields(
        refusal_record("StartSession", Caller{1002, 4242}, error, {"alice", "c1", {}, {}}, false), "native-runtimed"));
    EXPECT_EQ(fields.at("PRIORITY"), "4");
    EXPECT_EQ(fields.at("MESSAGE_ID"), std::string(message_id(LogEvent::SessionRefused)));
    EXPECT_EQ(fields.at("NATIVE_RUNTIME_ERROR"), "AccessDenied");
    EXPECT_EQ(fields.at("NATIVE_RUNTIME_METHOD"), "StartSession");
    EXPECT_EQ(fields.at("NATIVE_RUNTIME_CALLER_UID"), "1002");
    EXPECT_EQ(fields.at("NATIVE_RUNTIME_CALLER_PID"), "4242");
    EXPECT_EQ(fields.at("OBJECT_SYSTEMD_UNIT"), "native-runtime-alice-c1.service");
    EXPECT_NE(fields.at("MESSAGE").find("uid 1002 may not start sessions"), std::string::npos);
}

TEST(ARefusalWithoutBusCredentials, LeavesTheCallerFieldsOut)
{
    const Error error(ErrorKind::AccessDenied, "no caller credentials");
    const auto fields = as_map(journal_fields(refusal_record("StopSession", Caller{}, error, {}, false), "x"));
    EXPECT_EQ(fields.count("NATIVE_RUNTIME_CALLER_UID"), 0U);
    EXPECT_NE(fields.at("MESSAGE").find("uid ? pid ?"), std::string::npos);
}

TEST(ARefusalOfAFileOperation, HasTheFileOperationId)
{
    const Error error(ErrorKind::UnsafeFile, "a symlink");
    const auto record = refusal_record("WriteFile", Caller{1002, 1}, error, {"alice", "c1", {}, {}}, true);
    EXPECT_EQ(record.event, LogEvent::FileOperationRefused);
    EXPECT_EQ(record.priority, Priority::Warning);
}

TEST(ARefusalForHardeningOrPreflight, HasThatEventsId)
{
    EXPECT_EQ(refusal_record("StartSession", {}, Error(ErrorKind::HardeningNotApplied, "x"), {}, false).event,
              LogEvent::HardeningNotApplied);
    EXPECT_EQ(refusal_record("StartSession", {}, Error(ErrorKind::PreflightFailed, "x"), {}, false).event,
              LogEvent::PreflightFailed);
    EXPECT_EQ(refusal_record("StartSession", {}, Error(ErrorKind::PreflightFailed, "x"), {}, false).priority,
              Priority::Warning);
}

TEST(ASessionEnd, IsOneStructuredRecordWithWhatSystemdKnew)
{
    SessionEnd end;
    end.result = "success";
    end.code = 1;
    end.status = 0;
    end.runtime_usec = 1500000;
    end.memory_peak_bytes = 4096;
    const auto fields = as_map(journal_fields(
        session_end_record({"alice", "c1", "j1", "native-runtime-alice-c1.service"}, end), "native-runtimed"));
    EXPECT_EQ(fields.at("PRIORITY"), "6");
    EXPECT_EQ(fields.at("NATIVE_RUNTIME_RESULT"), "success");
    EXPECT_EQ(fields.at("NATIVE_RUNTIME_EXIT_CODE"), "exited");
    EXPECT_EQ(fields.at("NATIVE_RUNTIME_EXIT_STATUS"), "0");
    EXPECT_EQ(fields.at("NATIVE_RUNTIME_RUNTIME_USEC"), "1500000");
    EXPECT_EQ(fields.at("NATIVE_RUNTIME_MEMORY_PEAK"), "4096");
    EXPECT_EQ(fields.count("NATIVE_RUNTIME_TASKS_PEAK"), 0U) << "absent when systemd does not have it";
    EXPECT_EQ(fields.at("OBJECT_SYSTEMD_UNIT"), "native-runtime-alice-c1.service");
    EXPECT_NE(fields.at("MESSAGE").find("ran 1.500s"), std::string::npos) << fields.at("MESSAGE");
}

TEST(AFailedSessionEnd, IsAWarning)
{
    SessionEnd end;
    end.result = "oom-kill";
    end.code = 2;
    end.status = 9;
    const auto record = session_end_record({"alice", "c1", {}, {}}, end);
    EXPECT_EQ(record.priority, Priority::Warning);
    EXPECT_NE(record.message.find("killed with status 9"), std::string::npos) << record.message;
}

TEST(AFieldNameJournaldWouldDrop, IsRefused)
{
    auto record = log_record(LogEvent::HelperTrouble, "x");
    record.fields.emplace_back("_UID", "0");
    NR_EXPECT_REFUSED(underscore, ErrorKind::InvalidArgument, journal_fields(record, "x"));
    record.fields.back() = {"lower", "x"};
    NR_EXPECT_REFUSED(lowercase, ErrorKind::InvalidArgument, journal_fields(record, "x"));
    record.fields.back() = {"PRIORITY", "0"};
    NR_EXPECT_REFUSED(overriding, ErrorKind::InvalidArgument, journal_fields(record, "x"));
}

TEST(JournalFieldNames, FollowJournaldsRule)
{
    EXPECT_TRUE(is_journal_field_name("NATIVE_RUNTIME_OWNER"));
    EXPECT_FALSE(is_journal_field_name("9LIVES"));
    EXPECT_FALSE(is_journal_field_name(std::string(65, 'A')));
    EXPECT_FALSE(is_journal_field_name("A-B"));
}
