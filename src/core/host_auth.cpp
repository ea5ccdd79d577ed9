#include "core/host_auth.h"

#include "core/error.h"
#include "core/ids.h"
#include "core/path_policy.h"

#include <yaml-cpp/yaml.h>

#include <set>

namespace nr::core {

namespace {

constexpr std::string_view kQueueRoot = "native-runtime/.host-auth";

[[noreturn]] void config_error(std::string_view source, const YAML::Node& node, const std::string& key,
                               const std::string& problem)
{
    const auto line = node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
    fail(ErrorKind::ConfigInvalid, std::string(source) + ":" + std::to_string(line) + ": " + key + ": " + problem);
}

std::string scalar(std::string_view source, const YAML::Node& node, const std::string& key)
{
    if (!node.IsScalar()) {
        config_error(source, node, key, "expected a string");
    }
    return node.Scalar();
}

} // namespace

HostAuth parse_host_auth(const YAML::Node& node, const std::string& key, std::string_view source)
{
    if (!node.IsMap()) {
        config_error(source, node, key, "expected a mapping");
    }
    HostAuth out;
    std::set<std::string> seen;
    for (const auto& entry : node) {
        if (!entry.first.IsScalar()) {
            config_error(source, entry.first, key, "keys must be strings");
        }
        const auto name = entry.first.Scalar();
        const auto full = key + "." + name;
        if (!seen.insert(name).second) {
            config_error(source, entry.first, full, "duplicate key");
        }
        if (entry.second.IsNull()) {
            config_error(source, entry.first, full, "expected a value");
        }
        const auto value = scalar(source, entry.second, full);
        if (name == "admission") {
            if (value == "serial") {
                out.admission = AdmissionMode::Serial;
            } else if (value == "client-managed") {
                out.admission = AdmissionMode::ClientManaged;
            } else {
                config_error(source, entry.second, full, "expected serial or client-managed");
            }
        } else if (name == "group") {
            try {
                validate_id(IdKind::Adapter, value);
            } catch (const Error&) {
                config_error(source, entry.second, full,
                             "expected 1-64 characters from [A-Za-z0-9._@-], starting with a letter or digit");
            }
            out.group = value;
        } else {
            config_error(source, entry.first, full, "unknown key");
        }
    }
    return out;
}

std::string admission_root(const std::string& data_dir)
{
    return join_path(data_dir, kQueueRoot);
}

AdmissionSpec admission_spec(const HostAuth& host_auth, const std::string& adapter_name)
{
    if (host_auth.admission == AdmissionMode::ClientManaged) {
        return {};
    }
    return AdmissionSpec{std::string(kQueueRoot) + "/" + (host_auth.group.empty() ? adapter_name : host_auth.group)};
}

void refuse_admission_overlap(const std::string& data_dir, const std::vector<std::string>& writable_dirs)
{
    const auto root = admission_root(data_dir);
    for (const auto& dir : writable_dirs) {
        if (paths_overlap(dir, root)) {
            fail(ErrorKind::InvalidPath, "session directory " + dir + " overlaps the host-auth lock state " + root);
        }
    }
}

} // namespace nr::core
