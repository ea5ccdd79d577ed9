// SPDX-License-Identifier: Apache-2.0
#include "core/ops/dropin.h"

#include "core/base/error.h"
#include "core/base/joined.h"
#include "core/base/unit_name.h"

#include <algorithm>

namespace nr::core {

namespace {

std::vector<std::string_view> split_lines(std::string_view text)
{
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        auto end = text.find('\n', start);
        if (end == std::string_view::npos) {
            end = text.size();
        }
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

std::string_view trim(std::string_view text)
{
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
        text.remove_suffix(1);
    }
    return text;
}

std::string join(const std::vector<std::string>& values)
{
    auto out = joined(values, " ");
    return out.empty() ? "(empty)" : out;
}

bool satisfied(const ExpectedSetting& want, const std::vector<std::string>& have)
{
    if (want.is_list) {
        return std::find(have.begin(), have.end(), want.value) != have.end();
    }
    return have.size() == 1 && have.front() == want.value;
}

} // namespace

std::string dropin_directory(std::string_view root, std::string_view unit)
{
    std::string base(root);
    while (!base.empty() && base.back() == '/') {
        base.pop_back();
    }
    return base + "/etc/systemd/system/" + std::string(unit) + ".d";
}

std::string render_template(std::string_view text, const std::map<std::string, std::string>& values)
{
    std::string out;
    for (const auto line : split_lines(text)) {
        std::string rendered;
        bool keep = true;
        std::size_t pos = 0;
        while (pos < line.size()) {
            const auto open = line.find('@', pos);
            if (open == std::string_view::npos) {
                rendered += line.substr(pos);
                break;
            }
            const auto close = line.find('@', open + 1);
            if (close == std::string_view::npos) {
                fail(ErrorKind::ConfigInvalid, "drop-in template: unterminated placeholder in: " + std::string(line));
            }
            const std::string name(line.substr(open + 1, close - open - 1));
            const auto value = values.find(name);
            if (value == values.end()) {
                fail(ErrorKind::ConfigInvalid, "drop-in template: unknown placeholder @" + name + "@");
            }
            keep = keep && !value->second.empty();
            rendered += line.substr(pos, open - pos);
            rendered += value->second;
            pos = close + 1;
        }
        if (keep) {
            out += rendered + "\n";
        }
    }
    return out;
}

std::string render_dropin(std::string_view template_text, const DropinValues& values, bool created_directory)
{
    // Values go into a unit file: a newline would start a new setting, and
    // whitespace or quotes would split or reinterpret a path list.
    for (const auto* value : {&values.snapshot_dir, &values.worker_group, &values.data_dir}) {
        if (value->find_first_of("\n\r \t\"'\\") != std::string::npos) {
            fail(ErrorKind::ConfigInvalid, "drop-in value contains whitespace, a quote or a backslash: " + *value);
        }
    }
    std::string out(kDropinMarker);
    out += "\n";
    if (created_directory) {
        out += std::string(kCreatedDirectoryLine) + "\n";
    }
    return out + render_template(template_text, {{"SNAPSHOT_DIR", values.snapshot_dir},
                                                 {"WORKER_GROUP", values.worker_group},
                                                 {"DATA_DIR", values.data_dir}});
}

InstalledDropin inspect_installed(std::string_view text)
{
    const auto lines = split_lines(text);
    InstalledDropin installed;
    installed.ours = !lines.empty() && lines.front() == kDropinMarker;
    installed.created_directory = installed.ours && lines.size() > 1 && lines[1] == kCreatedDirectoryLine;
    return installed;
}

std::vector<ExpectedSetting> expected_settings(const DropinValues& values)
{
    std::vector<ExpectedSetting> settings{
        {"ProcSubset", false, "all"},
        {"ProtectProc", false, "invisible"},
        {"ProtectKernelTunables", false, "yes"},
    };
    if (!values.worker_group.empty()) {
        settings.push_back({"SupplementaryGroups", true, values.worker_group});
    }
    if (!values.snapshot_dir.empty()) {
        settings.push_back({"ReadWritePaths", true, values.snapshot_dir});
    }
    return settings;
}

std::vector<ExpectedSetting> helper_expected_settings(const DropinValues& values)
{
    std::vector<ExpectedSetting> settings{{"ReadWritePaths", true, values.data_dir}};
    if (!values.snapshot_dir.empty()) {
        settings.push_back({"ReadWritePaths", true, values.snapshot_dir});
    }
    return settings;
}

bool assigns_key(std::string_view text, std::string_view key)
{
    bool in_service = false;
    for (const auto raw : split_lines(text)) {
        const auto line = trim(raw);
        if (line.empty() || line.front() == '#' || line.front() == ';') {
            continue;
        }
        if (line.front() == '[') {
            in_service = line == "[Service]";
            continue;
        }
        if (in_service && line.starts_with(key) && trim(line.substr(key.size())).starts_with('=')) {
            return true;
        }
    }
    return false;
}

std::vector<Conflict> find_conflicts(const std::vector<ExpectedSetting>& expected,
                                     const std::map<std::string, std::vector<std::string>>& observed,
                                     const std::vector<DropinFile>& drop_ins, const std::string& ours,
                                     const std::string& fragment)
{
    std::vector<Conflict> conflicts;
    const auto our_file =
        std::find_if(drop_ins.begin(), drop_ins.end(), [&](const DropinFile& file) { return file.path == ours; });
    if (our_file == drop_ins.end()) {
        conflicts.push_back({"DropInPaths", ours, "", "",
                             "systemd does not apply " + ours + " (not among the unit's DropInPaths; not reloaded?)"});
        return conflicts;
    }
    for (const auto& want : expected) {
        const auto have_it = observed.find(want.key);
        const std::vector<std::string> have = have_it == observed.end() ? std::vector<std::string>{} : have_it->second;
        if (satisfied(want, have)) {
            continue;
        }
        Conflict conflict{want.key, want.value, join(have), "", ""};
        // The last later-sorting drop-in that assigns the key is the one
        // systemd applied last; earlier files cannot win over ours.
        for (auto it = drop_ins.rbegin(); it != drop_ins.rend() && it->path != ours; ++it) {
            if (assigns_key(it->text, want.key)) {
                conflict.culprit = it->path;
                break;
            }
        }
        const auto wanted = (want.is_list ? "to include " : "") + want.value;
        if (!conflict.culprit.empty()) {
            conflict.message = want.key + " is " + conflict.observed + ", expected " + wanted + ": overridden by " +
                               conflict.culprit + ", which sorts after " + ours;
        } else {
            conflict.message = want.key + " is " + conflict.observed + ", expected " + wanted +
                               ": no later drop-in sets it; check " + (fragment.empty() ? "the unit" : fragment) +
                               " and `systemctl cat`";
        }
        conflicts.push_back(std::move(conflict));
    }
    return conflicts;
}

bool starts_after_the_helper(const std::vector<std::string>& wants, const std::vector<std::string>& after)
{
    const auto names_helper = [](const std::vector<std::string>& units) {
        return std::find(units.begin(), units.end(), kHelperUnit) != units.end();
    };
    return names_helper(wants) && names_helper(after);
}

} // namespace nr::core
