// SPDX-License-Identifier: Apache-2.0
#include "core/launch/host_auth.h"

#include "core/base/error.h"
#include "core/base/path_policy.h"

namespace nr::core {

constexpr std::string_view kQueueRoot = "native-runtime/.host-auth";

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
