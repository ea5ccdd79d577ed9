// SPDX-License-Identifier: Apache-2.0
#pragma once
// The late drop-in for the application's own units: its name and place, its
// rendering from the template in dropins/, and the decision whether the
// settings systemd reports afterwards are ours or were overridden (and by
// which file). The installer in src/ctl does the file and bus work.

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace nr::core {

// systemd merges a unit's drop-ins from every directory (/etc, /run,
// /usr/lib, the type-wide service.d) into one list sorted by file name with
// strcmp, and a later file wins for single-valued settings. "zz-" sorts
// after the usual "NN-name.conf" and any lower-case name not itself starting
// with "zz"; the installer still reads back what systemd applied, because no
// name is guaranteed to be last.
inline constexpr std::string_view kDropinFileName = "zz-native-runtime.conf";

// First line of every file the installer writes; uninstall removes only a
// file that starts with it.
inline constexpr std::string_view kDropinMarker =
    "# native-runtime late drop-in, written by `native-runtimectl install-dropins`; "
    "`native-runtimectl uninstall-dropins` removes it.";
// Second line when the installer also created the <unit>.d directory, so
// uninstall removes the directory too (when empty) and nothing else.
inline constexpr std::string_view kCreatedDirectoryLine = "# native-runtime: created this directory";

struct DropinValues {
    std::string snapshot_dir; // empty: no snapshot dir configured
    std::string worker_group; // the group the helper's bus policy admits
    std::string data_dir;     // the application data dir (the helper's drop-in)
};

// <root>/etc/systemd/system/<unit>.d, with root "" or "/" meaning the host.
std::string dropin_directory(std::string_view root, std::string_view unit);

// Replaces every @NAME@ in `text` with values[NAME]. A line with a
// placeholder whose value is empty is dropped (an optional setting that is
// not configured); an unknown placeholder is an Error(ConfigInvalid).
std::string render_template(std::string_view text, const std::map<std::string, std::string>& values);

// The complete file: marker, optional created-directory line, template.
std::string render_dropin(std::string_view template_text, const DropinValues& values, bool created_directory);

struct InstalledDropin {
    bool ours = false;
    bool created_directory = false;
};

InstalledDropin inspect_installed(std::string_view text);

// One setting the drop-in makes, as systemd reports it on
// org.freedesktop.systemd1.Service (the property is named like the key).
struct ExpectedSetting {
    std::string key;
    bool is_list = false; // true: `value` must be one of the elements
    std::string value;    // booleans as "yes"/"no"
};

std::vector<ExpectedSetting> expected_settings(const DropinValues& values);

// What the helper's drop-in makes systemd report for native-runtimed.service:
// the data dir and (when configured) the snapshot dir among ReadWritePaths.
std::vector<ExpectedSetting> helper_expected_settings(const DropinValues& values);

struct DropinFile {
    std::string path;
    std::string text;
};

struct Conflict {
    std::string key;
    std::string expected;
    std::string observed;
    // The drop-in that overrides ours, or "" when none after ours sets the
    // key (then the message names the unit file or says it is unknown).
    std::string culprit;
    std::string message;
};

// `observed` maps each key to its value(s) as systemd reports them;
// `drop_ins` is the unit's DropInPaths, in systemd's order, with their text;
// `ours` the installed file; `fragment` the unit's FragmentPath.
std::vector<Conflict> find_conflicts(const std::vector<ExpectedSetting>& expected,
                                     const std::map<std::string, std::vector<std::string>>& observed,
                                     const std::vector<DropinFile>& drop_ins, const std::string& ours,
                                     const std::string& fragment);

// True when a unit whose Wants= and After= systemd reports as these starts
// the helper before itself, as the drop-in's [Unit] lines make it.
bool starts_after_the_helper(const std::vector<std::string>& wants, const std::vector<std::string>& after);

// True when `text` assigns `key` (including an empty, resetting assignment)
// in a [Service] section.
bool assigns_key(std::string_view text, std::string_view key);

} // namespace nr::core
