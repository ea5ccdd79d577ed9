// SPDX-License-Identifier: Apache-2.0
#include "gateway/credential_store.h"

#include "sys/base/unique_fd.h"

#include <algorithm>
#include <cctype>
#include <dirent.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace nr::gateway {

namespace {

constexpr std::size_t kMaxKeyBytes = 16U << 10U;
// Room for 32 keys of the largest size; real keys are 50 to 200 bytes.
constexpr std::size_t kSecureHeapBytes = 512U << 10U;
constexpr std::size_t kSecureHeapMinimum = 16;

bool plain_name(std::string_view name)
{
    return !name.empty() && name != "." && name != ".." && std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return std::isalnum(c) != 0 || c == '_' || c == '.' || c == '-';
    });
}

// Reads the whole file into the secure heap; the caller frees it.
char* read_secret(int dir, const std::string& file_name, std::size_t& size, std::string& problem)
{
    const sys::UniqueFd file(openat(dir, file_name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (!file.valid() || fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
        problem = "is not a readable plain file";
        return nullptr;
    }
    if (st.st_size <= 0 || static_cast<std::size_t>(st.st_size) > kMaxKeyBytes) {
        problem = "is empty or larger than 16 KiB";
        return nullptr;
    }
    size = static_cast<std::size_t>(st.st_size);
    auto* data = static_cast<char*>(OPENSSL_secure_malloc(size));
    if (data == nullptr) {
        problem = "does not fit in the secure heap";
        return nullptr;
    }
    std::size_t got = 0;
    while (got < size) {
        const auto n = read(file.get(), data + got, size - got);
        if (n <= 0) {
            OPENSSL_secure_clear_free(data, size);
            problem = "cannot be read";
            return nullptr;
        }
        got += static_cast<std::size_t>(n);
    }
    // Files written with `echo` end in a newline that is not part of the key.
    if (data[size - 1] == '\n') {
        --size;
    }
    if (size == 0 || std::any_of(data, data + size, [](char c) { return c == '\r' || c == '\n' || c == '\0'; })) {
        OPENSSL_secure_clear_free(data, got);
        problem = "is not one line: a header value cannot carry it";
        return nullptr;
    }
    return data;
}

} // namespace

void init_secure_heap()
{
    if (CRYPTO_secure_malloc_initialized() != 0) {
        return;
    }
    // 1: locked and left out of core dumps; 2: usable, but mlock or madvise
    // failed, which is what this heap is for.
    if (CRYPTO_secure_malloc_init(kSecureHeapBytes, kSecureHeapMinimum) != 1) {
        throw std::runtime_error("cannot lock memory for the provider keys (OpenSSL secure heap; check LimitMEMLOCK=)");
    }
}

CredentialStore::CredentialStore(const std::string& directory, const std::string& prefix,
                                 std::vector<std::string>& problems)
{
    if (directory.empty()) {
        return;
    }
    const sys::UniqueFd dir(open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid()) {
        problems.push_back("cannot open the credentials directory " + directory);
        return;
    }
    DIR* listing = fdopendir(dup(dir.get()));
    if (listing == nullptr) {
        problems.push_back("cannot list the credentials directory " + directory);
        return;
    }
    std::vector<std::string> names;
    while (const auto* entry = readdir(listing)) {
        const std::string name = entry->d_name;
        if (name.size() > prefix.size() && name.starts_with(prefix) && plain_name(name)) {
            names.push_back(name);
        }
    }
    closedir(listing);
    for (const auto& file_name : names) {
        std::size_t size = 0;
        std::string problem;
        auto* data = read_secret(dir.get(), file_name, size, problem);
        if (data == nullptr) {
            problems.push_back("credential " + file_name + " " + problem);
            continue;
        }
        keys_.emplace(file_name.substr(prefix.size()), Secret{data, size});
    }
}

CredentialStore::~CredentialStore()
{
    for (auto& [name, secret] : keys_) {
        // The whole allocation: a trailing newline was cut from `size`.
        OPENSSL_secure_clear_free(secret.data, OPENSSL_secure_actual_size(secret.data));
    }
}

std::optional<std::string_view> CredentialStore::key(const std::string& name) const
{
    const auto it = keys_.find(name);
    if (it == keys_.end()) {
        return std::nullopt;
    }
    return std::string_view(it->second.data, it->second.size);
}

} // namespace nr::gateway
