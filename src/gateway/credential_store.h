#pragma once
// The provider keys, as systemd hands them to the gateway's unit: one file
// per credential in $CREDENTIALS_DIRECTORY (or --credentials DIR in tests),
// named <prefix><credential> (the unit loads its key store directory, which
// systemd names "<ID>_<file name>").
// A key is read on first use and kept in memory; it is never logged and
// leaves the process only in the upstream request's header.

#include <map>
#include <optional>
#include <string>

namespace nr::gateway {

class CredentialStore {
public:
    CredentialStore(std::string directory, std::string prefix)
        : directory_(std::move(directory)), prefix_(std::move(prefix))
    {
    }
    CredentialStore(const CredentialStore&) = delete;
    CredentialStore& operator=(const CredentialStore&) = delete;
    ~CredentialStore();

    // None when the credential does not exist, is empty or its name is not
    // a plain file name.
    const std::string* key(const std::string& name);

private:
    std::string directory_;
    std::string prefix_;
    std::map<std::string, std::string> keys_;
};

} // namespace nr::gateway
