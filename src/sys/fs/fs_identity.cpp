// SPDX-License-Identifier: Apache-2.0
#include "sys/fs/fs_identity.h"

#include "core/base/error.h"

#include <grp.h>
#include <pwd.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace nr::sys {

namespace {

using core::ErrorKind;
using core::fail;

constexpr std::size_t kNssBufferSize = 16384;
constexpr int kMaxGroups = 256;

// glibc's setgroups() changes every thread of the process; the raw system
// call changes only this one, which is the scope a ScopedFsIdentity has.
int thread_setgroups(const std::vector<gid_t>& groups)
{
    return static_cast<int>(syscall(SYS_setgroups, groups.size(), groups.empty() ? nullptr : groups.data()));
}

std::vector<gid_t> current_groups()
{
    const int count = getgroups(0, nullptr);
    std::vector<gid_t> groups(count > 0 ? static_cast<std::size_t>(count) : 0U);
    if (count > 0 && getgroups(count, groups.data()) != count) {
        fail(ErrorKind::AccessDenied, "cannot read the helper's groups");
    }
    return groups;
}

// setfsuid/setfsgid report the previous value and never fail loudly; an
// invalid id (-1) leaves the value alone and reports it.
uid_t current_fsuid()
{
    return static_cast<uid_t>(setfsuid(static_cast<uid_t>(-1)));
}

gid_t current_fsgid()
{
    return static_cast<gid_t>(setfsgid(static_cast<gid_t>(-1)));
}

} // namespace

FsCredentials credentials_of(uid_t uid)
{
    std::vector<char> buffer(kNssBufferSize);
    passwd pw{};
    passwd* found = nullptr;
    if (getpwuid_r(uid, &pw, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) {
        fail(ErrorKind::AccessDenied, "uid " + std::to_string(uid) + " is unknown to NSS");
    }
    FsCredentials out{pw.pw_uid, pw.pw_gid, {}};
    std::vector<gid_t> gids(kMaxGroups);
    int count = kMaxGroups;
    if (getgrouplist(pw.pw_name, pw.pw_gid, gids.data(), &count) < 0) {
        fail(ErrorKind::AccessDenied, "uid " + std::to_string(uid) + " is in too many groups");
    }
    out.groups.assign(gids.begin(), gids.begin() + count);
    return out;
}

ScopedFsIdentity::ScopedFsIdentity(const FsCredentials& who)
    : saved_uid_(current_fsuid()), saved_gid_(current_fsgid()), saved_groups_(current_groups())
{
    if (thread_setgroups(who.groups) != 0) {
        fail(ErrorKind::AccessDenied, "cannot take the worker's groups (needs CAP_SETGID)");
    }
    setfsgid(who.gid);
    setfsuid(who.uid);
    if (current_fsuid() != who.uid || current_fsgid() != who.gid) {
        setfsuid(saved_uid_);
        setfsgid(saved_gid_);
        thread_setgroups(saved_groups_);
        fail(ErrorKind::AccessDenied, "cannot take the worker's filesystem identity (needs CAP_SETUID/CAP_SETGID)");
    }
}

ScopedFsIdentity::~ScopedFsIdentity()
{
    setfsuid(saved_uid_);
    setfsgid(saved_gid_);
    if (current_fsuid() != saved_uid_ || current_fsgid() != saved_gid_ || thread_setgroups(saved_groups_) != 0) {
        std::abort();
    }
}

} // namespace nr::sys
