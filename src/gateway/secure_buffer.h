// SPDX-License-Identifier: Apache-2.0
#pragma once
// Memory in OpenSSL's secure heap (locked, left out of core dumps, wiped
// when freed) for the one place besides the credential store where a key
// is in the gateway's memory: the plaintext of the upstream record that
// carries it, for as long as that record is being written.

#include <cstddef>

namespace nr::gateway {

class SecureBuffer {
public:
    // Holds nothing (valid() is false) when the secure heap has no room:
    // the caller then writes the key straight from the store instead.
    explicit SecureBuffer(std::size_t size);
    SecureBuffer(const SecureBuffer&) = delete;
    SecureBuffer& operator=(const SecureBuffer&) = delete;
    ~SecureBuffer();

    bool valid() const { return data_ != nullptr; }
    char* data() { return data_; }
    std::size_t size() const { return size_; }

private:
    char* data_ = nullptr;
    std::size_t size_ = 0;
};

} // namespace nr::gateway
