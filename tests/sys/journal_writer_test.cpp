// SPDX-License-Identifier: Apache-2.0
// The journal writer (sys/base/journal_writer.h) against a stand-in for journald:
// in a child with its own mount namespace and a tmpfs on /run, a datagram
// socket bound at journald's path receives what write_log sends. The real
// journald reads the same records in the integration tests (journal_test).

#include "sys/base/journal_writer.h"

#include "core/journal/journal_native.h"
#include "temp_tree.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/sockios.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

namespace {

using nr::core::LogEvent;

nr::core::LogRecord a_record(std::string message)
{
    auto record = nr::core::log_record(LogEvent::SyscallsDenied, std::move(message));
    record.fields.emplace_back("NATIVE_RUNTIME_SYSCALL", "listen");
    return record;
}

std::string expected_payload(const nr::core::LogRecord& record)
{
    return nr::core::journal_native_payload(nr::core::journal_fields(record, "nr-journal-test"));
}

// One datagram from `socket`: its bytes and the descriptor it carried.
struct Received {
    std::string data;
    int fd = -1;
};

Received receive(int socket)
{
    Received out;
    out.data.resize(1 << 20);
    iovec iov{out.data.data(), out.data.size()};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {}; // NOLINT(*-avoid-c-arrays): cmsg ABI
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    const auto n = recvmsg(socket, &msg, MSG_DONTWAIT);
    out.data.resize(n < 0 ? 0 : static_cast<std::size_t>(n));
    if (const cmsghdr* cmsg = CMSG_FIRSTHDR(&msg); cmsg != nullptr && cmsg->cmsg_type == SCM_RIGHTS) {
        std::memcpy(&out.fd, CMSG_DATA(cmsg), sizeof(int));
    }
    return out;
}

std::string read_all(int fd)
{
    std::string out;
    std::array<char, 65536> buf{};
    ssize_t n = 0;
    while ((n = pread(fd, buf.data(), buf.size(), static_cast<off_t>(out.size()))) > 0) {
        out.append(buf.data(), static_cast<std::size_t>(n));
    }
    return out;
}

int bound_journal_socket()
{
    const int socket = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strcpy(address.sun_path, "/run/systemd/journal/socket"); // NOLINT: fits, fixed
    if (socket < 0 || bind(socket, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) { // NOLINT
        return -1;
    }
    return socket;
}

// Runs `check` in a child that has its own /run with a journald stand-in
// bound at /run/systemd/journal/socket; the child's exit status is the
// number of the first failed step (0: all held).
int with_fake_journald(int (*check)(int socket))
{
    const pid_t child = fork();
    if (child == 0) {
        if (unshare(CLONE_NEWNS) != 0 || mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
            mount("tmpfs", "/run", "tmpfs", 0, nullptr) != 0 || mkdir("/run/systemd", 0755) != 0 ||
            mkdir("/run/systemd/journal", 0755) != 0) {
            _exit(100);
        }
        const int socket = bound_journal_socket();
        if (socket < 0) {
            _exit(101);
        }
        nr::sys::set_log_identifier("nr-journal-test");
        _exit(check(socket));
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 200;
}

// The size of the next datagram waiting on `socket`, 0 when none waits.
int waiting_bytes(int socket)
{
    int bytes = 0;
    return ioctl(socket, SIOCINQ, &bytes) == 0 ? bytes : -1;
}

} // namespace

TEST(ALogRecord, ReachesJournaldAsOneNativeProtocolDatagram)
{
    if (!nr::test::running_as_root()) {
        GTEST_SKIP() << "a private /run needs root";
    }
    EXPECT_EQ(with_fake_journald([](int socket) {
                  const auto record = a_record("seccomp refused listen()\nsecond line");
                  nr::sys::write_log(record);
                  const auto got = receive(socket);
                  if (got.fd >= 0) {
                      return 1;
                  }
                  return got.data == expected_payload(record) ? 0 : 2;
              }),
              0);
}

TEST(ALogRecordTooLargeForADatagram, ReachesJournaldAsASealedMemfd)
{
    if (!nr::test::running_as_root()) {
        GTEST_SKIP() << "a private /run needs root";
    }
    EXPECT_EQ(with_fake_journald([](int socket) {
                  const auto record = a_record(std::string(600 * 1024, 'x'));
                  nr::sys::write_log(record);
                  const auto got = receive(socket);
                  if (got.fd < 0 || !got.data.empty()) {
                      return 1;
                  }
                  const int seals = fcntl(got.fd, F_GET_SEALS);
                  constexpr int kAll = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL;
                  if (seals < 0 || (seals & kAll) != kAll) {
                      return 2;
                  }
                  return read_all(got.fd) == expected_payload(record) ? 0 : 3;
              }),
              0);
}

TEST(ALogRecordWithNoJournaldListening, IsDroppedWithoutAnError)
{
    if (!nr::test::running_as_root()) {
        GTEST_SKIP() << "a private /run needs root";
    }
    EXPECT_EQ(with_fake_journald([](int socket) {
                  close(socket);
                  unlink("/run/systemd/journal/socket");
                  nr::sys::write_log(a_record("nobody hears this"));
                  return 0;
              }),
              0);
}

TEST(ALogSocketKeptForTheProcess, CarriesEveryRecordAndReachesAJournaldStartedAgain)
{
    if (!nr::test::running_as_root()) {
        GTEST_SKIP() << "a private /run needs root";
    }
    EXPECT_EQ(with_fake_journald([](int socket) {
                  nr::sys::keep_log_socket();
                  const auto first = a_record("first");
                  const auto second = a_record("second");
                  nr::sys::write_log(first);
                  nr::sys::write_log(second);
                  if (receive(socket).data != expected_payload(first) ||
                      receive(socket).data != expected_payload(second)) {
                      return 1;
                  }
                  // journald restarted: a new socket at the same path.
                  close(socket);
                  unlink("/run/systemd/journal/socket");
                  const int again = bound_journal_socket();
                  if (again < 0) {
                      return 2;
                  }
                  const auto third = a_record("after the restart");
                  nr::sys::write_log(third);
                  return receive(again).data == expected_payload(third) ? 0 : 3;
              }),
              0);
}

// journald files a record under the sender's unit from /proc/PID/cgroup,
// read when it takes the record: a sender that exits at once may be gone by
// then. A stand-in that takes records only after 300 ms shows the last
// record of a process waited for, and a plain record not (the control).
TEST(ALastLogRecord, IsTakenByAJournaldThatReadsLateBeforeTheWriterGoesOn)
{
    if (!nr::test::running_as_root()) {
        GTEST_SKIP() << "a private /run needs root";
    }
    EXPECT_EQ(with_fake_journald([](int socket) {
                  const auto plain = a_record("written and left");
                  nr::sys::write_log(plain);
                  if (waiting_bytes(socket) <= 0 || receive(socket).data != expected_payload(plain)) {
                      return 1; // control: a plain record is still queued when write_log returns
                  }
                  const auto last = a_record("the last words");
                  const pid_t late = fork();
                  if (late == 0) {
                      usleep(300 * 1000);
                      _exit(receive(socket).data == expected_payload(last) ? 0 : 1);
                  }
                  nr::sys::write_last_log(last);
                  const int still_queued = waiting_bytes(socket);
                  int status = 0;
                  waitpid(late, &status, 0);
                  if (still_queued != 0) {
                      return 2;
                  }
                  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 3;
              }),
              0);
}

TEST(ALastLogRecord, GivesUpWaitingForAJournaldThatNeverReads)
{
    if (!nr::test::running_as_root()) {
        GTEST_SKIP() << "a private /run needs root";
    }
    EXPECT_EQ(with_fake_journald([](int socket) {
                  const auto last = a_record("unheard");
                  nr::sys::write_last_log(last, std::chrono::milliseconds(50));
                  return receive(socket).data == expected_payload(last) ? 0 : 1;
              }),
              0);
}
