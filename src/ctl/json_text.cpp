#include "ctl/json_text.h"

#include <array>
#include <cstdio>

namespace nr::ctl {

std::string json_quote(std::string_view text)
{
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                std::array<char, 8> buf{};
                (void)std::snprintf(buf.data(), buf.size(), "\\u%04x", static_cast<unsigned>(c));
                out += buf.data();
            } else {
                out += c;
            }
        }
    }
    out += '"';
    return out;
}

} // namespace nr::ctl
