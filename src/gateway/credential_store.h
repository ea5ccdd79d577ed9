// SPDX-License-Identifier: Apache-2.0
#pragma once
// The provider keys, as systemd hands them to the gateway's unit: one file
// per credential in $CREDENTIALS_DIRECTORY (or --credentials DIR in tests),
// named <prefix><credential> (the unit loads its key store directory, which
// systemd names "<ID>_<file name>").
// Every key is read once, at start, into OpenSSL's secure heap: memory that
// is locked (never swapped), left out of core dumps (MADV_DONTDUMP) and
// wiped when freed. A key never leaves that heap except into the TLS
// record that carries it to its provider (assembled in the same heap,
// secure_buffer.h): no std::string ever holds it.

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace nr::gateway {

// Sets up the secure heap; throws when the kernel will not lock it (the
// gateway then refuses to start rather than hold keys in ordinary memory).
void init_secure_heap();

class CredentialStore {
public:
    // Loads every plain file named <prefix>NAME in `directory` as key NAME.
    // `problems` receives one line per file that cannot be a key (too large,
    // empty, several lines); an empty directory name loads nothing.
    CredentialStore(const std::string& directory, const std::string& prefix, std::vector<std::string>& problems);
    CredentialStore(const CredentialStore&) = delete;
    CredentialStore& operator=(const CredentialStore&) = delete;
    ~CredentialStore();

    // The key, viewed in the secure heap; none when there is no such key.
    std::optional<std::string_view> key(const std::string& name) const;

    std::size_t size() const { return keys_.size(); }

private:
    struct Secret {
        char* data = nullptr;
        std::size_t size = 0;
    };
    std::map<std::string, Secret> keys_;
};

} // namespace nr::gateway
