// SPDX-License-Identifier: Apache-2.0
#include "gateway/session_store.h"

#include "sys/base/sealed_memfd.h"
#include "sys/service/fd_store.h"
#include "sys/service/listen_fds.h"

#include <array>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace nr::gateway {

namespace {

constexpr std::string_view kNamePrefix = "session-";
// A registration is one control datagram (control_socket.cpp's bound).
constexpr std::size_t kMaxRegistration = 64U << 10U;

bool is_socket_of_type(int fd, int want)
{
    int type = 0;
    socklen_t len = sizeof type;
    return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) == 0 && type == want;
}

bool is_regular_file(int fd)
{
    struct stat st {};
    return fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

std::string read_all(int fd)
{
    std::string text;
    std::array<char, 4096> chunk{};
    for (;;) {
        const auto n = pread(fd, chunk.data(), chunk.size(), static_cast<off_t>(text.size()));
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return n < 0 ? std::string() : text;
        }
        text.append(chunk.data(), static_cast<std::size_t>(n));
        if (text.size() > kMaxRegistration) {
            return {};
        }
    }
}

} // namespace

InheritedDescriptors take_inherited_descriptors()
{
    InheritedDescriptors out;
    // Unset as they are taken: a later exec must not see them (there is none).
    auto passed = sys::take_listen_fds();
    struct Pair {
        sys::UniqueFd listener;
        sys::UniqueFd registration;
    };
    std::map<std::string, Pair> stored;
    for (auto& [fd, name] : passed) {
        if (is_socket_of_type(fd.get(), SOCK_SEQPACKET)) {
            if (out.control) {
                throw std::runtime_error("systemd passed more than one control socket");
            }
            out.control = std::move(fd);
        } else if (name.starts_with(kNamePrefix) && is_socket_of_type(fd.get(), SOCK_STREAM)) {
            stored[name].listener = std::move(fd);
        } else if (name.starts_with(kNamePrefix) && is_regular_file(fd.get())) {
            stored[name].registration = std::move(fd);
        } else {
            out.problems.push_back("closed an unexpected descriptor named '" + name + "'");
        }
    }
    if (!passed.empty() && !out.control) {
        throw std::runtime_error("systemd passed no SOCK_SEQPACKET control socket");
    }
    for (auto& [name, pair] : stored) {
        auto registration = pair.registration.valid() ? read_all(pair.registration.get()) : std::string();
        if (!pair.listener.valid() || registration.empty()) {
            out.problems.push_back("dropped stored session " + name + ": its listener or registration is missing");
            forget_session(name);
            continue;
        }
        out.sessions.push_back({name, std::move(pair.listener), std::move(registration)});
    }
    return out;
}

std::string stored_name(int listener)
{
    struct stat st {};
    if (fstat(listener, &st) != 0) {
        return {};
    }
    return std::string(kNamePrefix) + std::to_string(st.st_ino);
}

bool store_session(const std::string& name, int listener, const std::string& registration)
{
    if (std::getenv("NOTIFY_SOCKET") == nullptr || name.empty()) {
        return false;
    }
    const auto memfd = sys::sealed_memfd("nr-gateway-registration", registration);
    const std::array<int, 2> fds{listener, memfd.get()};
    return sys::store_fds(name, fds);
}

void forget_session(const std::string& name)
{
    if (std::getenv("NOTIFY_SOCKET") == nullptr || name.empty()) {
        return;
    }
    sys::remove_stored_fds(name);
}

} // namespace nr::gateway
