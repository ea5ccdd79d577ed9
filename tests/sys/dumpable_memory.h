// SPDX-License-Identifier: Apache-2.0
#pragma once

// Searches a live process's memory the way a core dump of it would hold it:
// every readable mapping except those the kernel leaves out of a core
// (VmFlags "dd" from MADV_DONTDUMP, "io" for device mappings). Reading
// through /proc/PID/mem in pieces keeps the search cheap when a sanitizer
// build reserves tens of gigabytes that a file-sized core would have to hold.

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace nr::test {

struct MemorySearch {
    bool readable = false;
    std::string why;
    std::size_t bytes_read = 0;
    std::vector<bool> seen;
};

struct Mapping {
    unsigned long begin = 0;
    unsigned long end = 0;
    bool readable = false;
    bool left_out_of_core = false;
};

inline std::vector<Mapping> dumpable_mappings(pid_t pid)
{
    std::ifstream smaps("/proc/" + std::to_string(pid) + "/smaps");
    std::vector<Mapping> mappings;
    std::string line;
    while (std::getline(smaps, line)) {
        if (line.rfind("VmFlags:", 0) == 0 && !mappings.empty()) {
            std::istringstream flags(line.substr(8));
            std::string flag;
            while (flags >> flag) {
                mappings.back().left_out_of_core |= flag == "dd" || flag == "io";
            }
            continue;
        }
        Mapping m;
        char perms[5] = {};
        if (std::sscanf(line.c_str(), "%lx-%lx %4s", &m.begin, &m.end, perms) == 3) {
            m.readable = perms[0] == 'r';
            mappings.push_back(m);
        }
    }
    std::erase_if(mappings, [](const Mapping& m) { return !m.readable || m.left_out_of_core; });
    return mappings;
}

inline MemorySearch search_dumpable_memory(pid_t pid, const std::vector<std::string>& needles)
{
    MemorySearch result;
    result.seen.assign(needles.size(), false);
    const auto mappings = dumpable_mappings(pid);
    const int mem = open(("/proc/" + std::to_string(pid) + "/mem").c_str(), O_RDONLY | O_CLOEXEC);
    if (mappings.empty() || mem < 0) {
        result.why = "cannot read /proc/" + std::to_string(pid) + "/{smaps,mem}";
        return result;
    }
    std::size_t overlap = 0;
    for (const auto& needle : needles) {
        overlap = std::max(overlap, needle.size());
    }
    constexpr std::size_t kPiece = std::size_t{1} << 20U;
    std::vector<char> buffer(kPiece + overlap);
    for (const auto& m : mappings) {
        std::size_t carried = 0;
        for (unsigned long at = m.begin; at < m.end; at += kPiece) {
            const auto want = std::min<unsigned long>(kPiece, m.end - at);
            const auto n = pread(mem, buffer.data() + carried, want, static_cast<off_t>(at));
            if (n <= 0) {
                break; // a guard page or a mapping that went away
            }
            result.bytes_read += static_cast<std::size_t>(n);
            const std::string_view window(buffer.data(), carried + static_cast<std::size_t>(n));
            for (std::size_t i = 0; i < needles.size(); ++i) {
                result.seen[i] = result.seen[i] || window.find(needles[i]) != std::string_view::npos;
            }
            carried = std::min(overlap, window.size());
            std::copy(window.end() - static_cast<std::ptrdiff_t>(carried), window.end(), buffer.begin());
        }
    }
    close(mem);
    result.readable = result.bytes_read > 0;
    if (!result.readable) {
        result.why = "no dumpable mapping of " + std::to_string(pid) + " could be read";
    }
    return result;
}

} // namespace nr::test
