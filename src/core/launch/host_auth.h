// SPDX-License-Identifier: Apache-2.0
#pragma once
// Host-auth admission policy. Sessions of an adapter that uses a login shared
// by the whole host (one subscription, one API account, one auth cache) may
// need to take turns, because the official clients refresh and rewrite that
// login on their own and two of them at once can corrupt or revoke it. The
// operator chooses per adapter: `serial` (the default, one session of the
// queue at a time) or `client-managed` (no admission, the client copes).
//
// A queue is keyed by (data_dir, run-as UID, group): the lock state lives
// under <data_dir>/native-runtime/.host-auth/<group>, which only the session
// user may own, and `group` defaults to the adapter's name, so two adapters
// that share one login share a queue only when the operator says so.

#include <string>
#include <vector>

namespace nr::core {

enum class AdmissionMode { Serial, ClientManaged };

struct HostAuth {
    AdmissionMode admission = AdmissionMode::Serial;
    // Queue name; empty means the adapter's own name.
    std::string group;
};

// What the launcher needs: the queue directory relative to the launch
// spec's dirs.base (data_dir), or empty when the adapter is client-managed.
struct AdmissionSpec {
    std::string queue_dir;
    [[nodiscard]] bool serial() const { return !queue_dir.empty(); }
};

// <data_dir>/native-runtime/.host-auth: the root of every queue. Owner ids
// start with a letter or digit, so no owner tree can be named like it.
std::string admission_root(const std::string& data_dir);

// The launch spec's admission part for an adapter named `adapter_name`.
AdmissionSpec admission_spec(const HostAuth& host_auth, const std::string& adapter_name);

// Refuses (InvalidPath) any directory a session would get read-write that
// overlaps the admission root: code in the session could otherwise delete
// or forge tickets and admit itself or others out of turn.
void refuse_admission_overlap(const std::string& data_dir, const std::vector<std::string>& writable_dirs);

} // namespace nr::core
