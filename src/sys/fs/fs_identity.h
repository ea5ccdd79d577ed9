// SPDX-License-Identifier: Apache-2.0
#pragma once
// Filesystem identity of the calling thread. The helper runs as root (with
// CAP_DAC_READ_SEARCH), so a file it opens for a worker must be opened with
// the worker's own filesystem credentials, or a session could get the
// helper to hand over a file the worker could never read itself. While a
// ScopedFsIdentity lives, the thread's fsuid, fsgid and supplementary
// groups are the worker's; the kernel then also drops CAP_DAC_* and the
// other file capabilities from the effective set, so every permission check
// is exactly the worker's.

#include <sys/types.h>
#include <vector>

namespace nr::sys {

struct FsCredentials {
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> groups;
};

// uid's primary group and supplementary groups from NSS. Throws
// AccessDenied when NSS does not know the uid.
FsCredentials credentials_of(uid_t uid);

class ScopedFsIdentity {
public:
    // Throws AccessDenied when the identity cannot be taken or verified.
    explicit ScopedFsIdentity(const FsCredentials& who);
    // Restores the previous identity; aborts if that fails, since the
    // thread would otherwise go on with the wrong rights.
    ~ScopedFsIdentity();
    ScopedFsIdentity(const ScopedFsIdentity&) = delete;
    ScopedFsIdentity& operator=(const ScopedFsIdentity&) = delete;
    ScopedFsIdentity(ScopedFsIdentity&&) = delete;
    ScopedFsIdentity& operator=(ScopedFsIdentity&&) = delete;

private:
    uid_t saved_uid_;
    gid_t saved_gid_;
    std::vector<gid_t> saved_groups_;
};

} // namespace nr::sys
