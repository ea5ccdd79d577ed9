// SPDX-License-Identifier: Apache-2.0
#pragma once
// A private directory tree under /tmp for one test, removed afterwards,
// with short ways to create the files and links the tests plant.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "sys/base/unique_fd.h"

namespace nr::test {

class TempTree {
public:
    TempTree()
    {
        // NR_TEST_TMPDIR runs the same tests on another filesystem
        // (overlayfs, a unit's bind mounts).
        const char* base = std::getenv("NR_TEST_TMPDIR");
        std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/nr-sys-test.XXXXXX";
        if (mkdtemp(pattern.data()) == nullptr) {
            throw std::runtime_error("mkdtemp failed");
        }
        path_ = pattern;
    }
    ~TempTree()
    {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
    TempTree(const TempTree&) = delete;
    TempTree& operator=(const TempTree&) = delete;
    TempTree(TempTree&&) = delete;
    TempTree& operator=(TempTree&&) = delete;

    [[nodiscard]] const std::string& path() const { return path_; }
    [[nodiscard]] std::string at(const std::string& rel) const { return path_ + "/" + rel; }

    void dir(const std::string& rel, mode_t mode = 0755) const
    {
        std::filesystem::create_directories(at(rel));
        ::chmod(at(rel).c_str(), mode);
    }
    void file(const std::string& rel, const std::string& content, mode_t mode = 0644) const
    {
        std::ofstream(at(rel), std::ios::binary | std::ios::trunc) << content;
        ::chmod(at(rel).c_str(), mode);
    }
    void symlink(const std::string& rel, const std::string& target) const
    {
        std::filesystem::create_symlink(target, at(rel));
    }
    [[nodiscard]] std::string read(const std::string& rel) const
    {
        std::ifstream in(at(rel), std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }
    [[nodiscard]] sys::UniqueFd open_root(const std::string& rel = "") const
    {
        return sys::UniqueFd(::open(rel.empty() ? path_.c_str() : at(rel).c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    }

private:
    std::string path_;
};

inline bool running_as_root()
{
    return ::geteuid() == 0;
}

} // namespace nr::test
