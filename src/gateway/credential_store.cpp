#include "gateway/credential_store.h"

#include "sys/unique_fd.h"

#include <algorithm>
#include <cctype>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nr::gateway {

namespace {

constexpr std::size_t kMaxKeyBytes = 16U << 10U;

bool plain_name(const std::string& name)
{
    return !name.empty() && name != "." && name != ".." && std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return std::isalnum(c) != 0 || c == '_' || c == '.' || c == '-';
    });
}

std::optional<std::string> read_small_file(const std::string& directory, const std::string& name)
{
    const sys::UniqueFd dir(open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid()) {
        return std::nullopt;
    }
    const sys::UniqueFd file(openat(dir.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (!file.valid() || fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 ||
        static_cast<std::size_t>(st.st_size) > kMaxKeyBytes) {
        return std::nullopt;
    }
    std::string content(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t got = 0;
    while (got < content.size()) {
        const auto n = read(file.get(), content.data() + got, content.size() - got);
        if (n <= 0) {
            return std::nullopt;
        }
        got += static_cast<std::size_t>(n);
    }
    return content;
}

} // namespace

CredentialStore::~CredentialStore()
{
    for (auto& [name, key] : keys_) {
        OPENSSL_cleanse(key.data(), key.size());
    }
}

const std::string* CredentialStore::key(const std::string& name)
{
    if (const auto it = keys_.find(name); it != keys_.end()) {
        return &it->second;
    }
    if (directory_.empty() || !plain_name(name) || !plain_name(prefix_ + name)) {
        return nullptr;
    }
    auto content = read_small_file(directory_, prefix_ + name);
    if (!content) {
        return nullptr;
    }
    // Files written with `echo` end in a newline that is not part of the key.
    if (!content->empty() && content->back() == '\n') {
        content->pop_back();
    }
    if (content->empty() || content->find_first_of("\r\n") != std::string::npos) {
        return nullptr; // a header value cannot carry it
    }
    return &keys_.emplace(name, std::move(*content)).first->second;
}

} // namespace nr::gateway
