// SPDX-License-Identifier: Apache-2.0
#include "journal_records.h"

#include "fixture.h"

#include <gtest/gtest.h>

#include <sstream>

namespace nr::itest {

std::vector<nlohmann::json> json_lines(const std::string& text)
{
    std::vector<nlohmann::json> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty()) {
            out.push_back(nlohmann::json::parse(line));
        }
    }
    return out;
}

std::vector<nlohmann::json> journal(const std::vector<std::string>& matches)
{
    std::vector<std::string> argv{"journalctl", "--no-pager", "-o", "json"};
    argv.insert(argv.end(), matches.begin(), matches.end());
    const auto outcome = run(argv);
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    return json_lines(outcome.out);
}

nlohmann::json last_record(const std::vector<std::string>& matches)
{
    std::vector<nlohmann::json> records;
    EXPECT_TRUE(eventually(20,
                           [&] {
                               records = journal(matches);
                               return !records.empty();
                           }))
        << "no record for " << ::testing::PrintToString(matches);
    return records.empty() ? nlohmann::json::object() : records.back();
}

std::string field(const nlohmann::json& record, const char* name)
{
    return record.contains(name) && record[name].is_string() ? record[name].get<std::string>() : std::string();
}

} // namespace nr::itest
