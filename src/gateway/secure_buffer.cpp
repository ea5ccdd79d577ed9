// SPDX-License-Identifier: Apache-2.0
#include "gateway/secure_buffer.h"

#include <openssl/crypto.h>
#include <openssl/err.h>

namespace nr::gateway {

SecureBuffer::SecureBuffer(std::size_t size)
{
    // Without a secure heap OpenSSL would hand out ordinary memory.
    if (size == 0 || CRYPTO_secure_malloc_initialized() != 1) {
        return;
    }
    data_ = static_cast<char*>(OPENSSL_secure_malloc(size));
    if (data_ == nullptr) {
        // Newer OpenSSL leaves an error on the thread's queue for a full
        // heap (3.0 does not), which the next TLS call must not read as its
        // own.
        ERR_clear_error();
        return;
    }
    size_ = size;
}

SecureBuffer::~SecureBuffer()
{
    if (data_ != nullptr) {
        OPENSSL_secure_clear_free(data_, size_);
    }
}

} // namespace nr::gateway
