// SPDX-License-Identifier: Apache-2.0
// The gateway's secure buffer (src/gateway/secure_buffer.h): the record that
// carries a provider key is assembled only in OpenSSL's secure heap, and
// where that heap is missing or full there is no buffer at all (the gateway
// then writes the key from its store). Each case runs in a child: the
// secure heap is set up once per process and cannot be taken down.

#include "gateway/secure_buffer.h"

#include "temp_tree.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

namespace {

using nr::gateway::SecureBuffer;

constexpr std::size_t kHeapBytes = 4096;
constexpr std::size_t kMinimum = 16;

// The child's exit status: 0 when every step of `check` held, else the
// number of the first that did not.
int in_child(int (*check)())
{
    const pid_t child = fork();
    if (child == 0) {
        _exit(check());
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
}

} // namespace

TEST(ASecureBuffer, LivesInTheSecureHeap)
{
    if (!nr::test::running_as_root()) {
        GTEST_SKIP() << "locking the secure heap needs root's RLIMIT_MEMLOCK";
    }
    EXPECT_EQ(in_child([] {
                  if (CRYPTO_secure_malloc_init(kHeapBytes, kMinimum) != 1) {
                      return 1;
                  }
                  SecureBuffer record(300);
                  if (!record.valid() || record.size() != 300) {
                      return 2;
                  }
                  std::memset(record.data(), 'k', record.size());
                  // Control: ordinary memory is not taken for secure.
                  std::string ordinary(300, 'k');
                  if (CRYPTO_secure_allocated(ordinary.data()) != 0) {
                      return 3;
                  }
                  return CRYPTO_secure_allocated(record.data()) == 1 ? 0 : 4;
              }),
              0);
}

TEST(ASecureBuffer, IsNotHandedOutFromOrdinaryMemoryWithoutASecureHeap)
{
    // OpenSSL's own secure malloc falls back to malloc when no heap is set up.
    EXPECT_EQ(in_child([] {
                  if (CRYPTO_secure_malloc_initialized() != 0) {
                      return 1;
                  }
                  const SecureBuffer record(300);
                  return record.valid() ? 2 : 0;
              }),
              0);
}

TEST(ASecureBuffer, IsNotHandedOutFromAFullHeapAndLeavesNoErrorForTheNextTlsCall)
{
    if (!nr::test::running_as_root()) {
        GTEST_SKIP() << "locking the secure heap needs root's RLIMIT_MEMLOCK";
    }
    EXPECT_EQ(in_child([] {
                  if (CRYPTO_secure_malloc_init(kHeapBytes, kMinimum) != 1) {
                      return 1;
                  }
                  const SecureBuffer all(kHeapBytes);
                  if (!all.valid()) {
                      return 2; // control: the heap's whole size can be had
                  }
                  ERR_clear_error();
                  const SecureBuffer more(64);
                  if (more.valid()) {
                      return 3;
                  }
                  return ERR_peek_error() == 0 ? 0 : 4;
              }),
              0);
}

TEST(ASecureBuffer, OfNoBytesHoldsNothing)
{
    EXPECT_FALSE(SecureBuffer(0).valid());
}
