// SPDX-License-Identifier: Apache-2.0
#include "sys/host/identity.h"

#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include <vector>

namespace nr::sys {

namespace {

constexpr std::size_t kNssBufferSize = 16384;
constexpr int kMaxGroups = 256;

} // namespace

core::CallerIdentity lookup_caller(uid_t uid)
{
    core::CallerIdentity identity;
    identity.uid = uid;
    std::vector<char> buffer(kNssBufferSize);
    passwd pw{};
    passwd* found = nullptr;
    if (getpwuid_r(uid, &pw, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
        return identity;
    }
    identity.user_name = pw.pw_name;
    std::vector<gid_t> gids(kMaxGroups);
    int count = kMaxGroups;
    if (getgrouplist(pw.pw_name, pw.pw_gid, gids.data(), &count) < 0) {
        count = 0;
    }
    for (int i = 0; i < count; ++i) {
        group gr{};
        group* gfound = nullptr;
        std::vector<char> gbuffer(kNssBufferSize);
        if (getgrgid_r(gids[static_cast<std::size_t>(i)], &gr, gbuffer.data(), gbuffer.size(), &gfound) == 0 &&
            gfound != nullptr) {
            identity.group_names.emplace_back(gr.gr_name);
        }
    }
    return identity;
}

std::optional<core::RunAsUser> lookup_user(const std::string& name)
{
    std::vector<char> buffer(kNssBufferSize);
    passwd pw{};
    passwd* found = nullptr;
    if (getpwnam_r(name.c_str(), &pw, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
        return std::nullopt;
    }
    return core::RunAsUser{pw.pw_name, pw.pw_uid, pw.pw_gid};
}

} // namespace nr::sys
