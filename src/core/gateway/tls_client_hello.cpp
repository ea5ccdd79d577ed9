// SPDX-License-Identifier: Apache-2.0
#include "core/gateway/tls_client_hello.h"

#include <algorithm>
#include <bitset>
#include <cstdint>
#include <optional>

namespace nr::core {

namespace {

constexpr std::size_t kRecordHeaderBytes = 5;
constexpr std::size_t kHandshakeHeaderBytes = 4;
constexpr std::size_t kMaxRecordPayload = 16384; // RFC 8446 5.1: 2^14
constexpr std::uint8_t kHandshakeRecord = 22;
constexpr std::uint8_t kTlsMajorVersion = 3;
constexpr std::uint8_t kClientHello = 1;
constexpr std::size_t kRandomBytes = 32;
constexpr std::size_t kMaxSessionIdBytes = 32;
constexpr std::uint16_t kServerNameExtension = 0x0000;
constexpr std::uint16_t kEncryptedClientHelloExtension = 0xfe0d;
constexpr std::uint16_t kEncryptedServerNameExtension = 0xffce; // the draft ESNI, still sent by old clients
constexpr std::uint8_t kHostNameType = 0;
constexpr std::size_t kMaxHostNameChars = 253;
constexpr std::size_t kMaxLabelChars = 63;

ClientHelloRefuse refuse(std::string_view reason)
{
    return ClientHelloRefuse{std::string(reason)};
}

ClientHelloRefuse malformed()
{
    return refuse("malformed-client-hello");
}

std::uint8_t byte_at(std::string_view bytes, std::size_t at)
{
    return static_cast<std::uint8_t>(bytes[at]);
}

// Up to `count` bytes from `from`, empty past the end (never throws).
std::string_view slice(std::string_view bytes, std::size_t from, std::size_t count)
{
    return from >= bytes.size() ? std::string_view() : bytes.substr(from, count);
}

// Big-endian fields and length-prefixed vectors of a handshake message;
// every read is checked against what is left.
class Reader {
public:
    explicit Reader(std::string_view bytes) : rest_(bytes) {}

    [[nodiscard]] bool empty() const { return rest_.empty(); }

    bool take(std::size_t count, std::string_view& out)
    {
        if (count > rest_.size()) {
            return false;
        }
        out = rest_.substr(0, count);
        rest_.remove_prefix(count);
        return true;
    }

    bool u8(std::uint8_t& out)
    {
        std::string_view field;
        if (!take(1, field)) {
            return false;
        }
        out = byte_at(field, 0);
        return true;
    }

    bool u16(std::uint16_t& out)
    {
        std::string_view field;
        if (!take(2, field)) {
            return false;
        }
        out = static_cast<std::uint16_t>((byte_at(field, 0) << 8U) | byte_at(field, 1));
        return true;
    }

    bool vector8(std::string_view& out)
    {
        std::uint8_t length = 0;
        return u8(length) && take(length, out);
    }

    bool vector16(std::string_view& out)
    {
        std::uint16_t length = 0;
        return u16(length) && take(length, out);
    }

private:
    std::string_view rest_;
};

bool is_dns_name(std::string_view name)
{
    if (name.empty() || name.size() > kMaxHostNameChars) {
        return false;
    }
    std::size_t label = 0;
    for (const char c : name) {
        if (c == '.') {
            if (label == 0) {
                return false;
            }
            label = 0;
            continue;
        }
        const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
        if (!allowed || ++label > kMaxLabelChars) {
            return false;
        }
    }
    return label != 0;
}

// The host_name entries of a server_name extension (RFC 6066 3).
struct HostNames {
    std::size_t count = 0;
    std::string_view first;
};

// Every entry is read as a name type and a 16-bit-length name, the only
// shape RFC 6066 defines, so an entry of another type is skipped, not
// trusted to end anywhere else.
std::optional<HostNames> read_host_names(std::string_view extension)
{
    Reader reader(extension);
    std::string_view list;
    if (!reader.vector16(list) || !reader.empty() || list.empty()) {
        return std::nullopt;
    }
    Reader entries(list);
    HostNames names;
    while (!entries.empty()) {
        std::uint8_t type = 0;
        std::string_view name;
        if (!entries.u8(type) || !entries.vector16(name)) {
            return std::nullopt;
        }
        if (type == kHostNameType && names.count++ == 0) {
            names.first = name;
        }
    }
    return names;
}

ClientHelloResult judge_extensions(std::string_view block)
{
    std::bitset<65536> seen;
    std::optional<std::string_view> server_name;
    bool name_hidden = false;
    Reader reader(block);
    while (!reader.empty()) {
        std::uint16_t type = 0;
        std::string_view data;
        if (!reader.u16(type) || !reader.vector16(data) || seen.test(type)) {
            return malformed();
        }
        seen.set(type);
        if (type == kServerNameExtension) {
            server_name = data;
        }
        name_hidden = name_hidden || type == kEncryptedClientHelloExtension || type == kEncryptedServerNameExtension;
    }
    std::optional<HostNames> names;
    if (server_name) {
        names = read_host_names(*server_name);
        if (!names) {
            return malformed();
        }
    }
    // With ECH the name in the clear is only the outer, public one: the
    // host actually reached is hidden, so it cannot be checked.
    if (name_hidden) {
        return refuse("ech");
    }
    if (!names || names->count == 0) {
        return refuse("no-sni");
    }
    if (names->count > 1 || !is_dns_name(names->first)) {
        return refuse("bad-sni");
    }
    return ClientHelloSni{std::string(names->first)};
}

// The ClientHello's body, after its handshake header (RFC 8446 4.1.2; the
// extensions may be absent in TLS 1.2).
ClientHelloResult judge_client_hello(std::string_view body)
{
    Reader reader(body);
    std::uint8_t major = 0;
    std::uint8_t minor = 0;
    std::string_view random;
    std::string_view session_id;
    std::string_view cipher_suites;
    std::string_view compression_methods;
    if (!reader.u8(major) || major != kTlsMajorVersion || !reader.u8(minor) || !reader.take(kRandomBytes, random) ||
        !reader.vector8(session_id) || session_id.size() > kMaxSessionIdBytes || !reader.vector16(cipher_suites) ||
        cipher_suites.empty() || cipher_suites.size() % 2 != 0 || !reader.vector8(compression_methods) ||
        compression_methods.empty()) {
        return malformed();
    }
    if (reader.empty()) {
        return refuse("no-sni");
    }
    std::string_view extensions;
    if (!reader.vector16(extensions) || !reader.empty()) {
        return malformed();
    }
    return judge_extensions(extensions);
}

// The fewest bytes of input a ClientHello can take when `pending` handshake
// bytes still follow the byte at `from`: full records, each with its header.
std::size_t fewest_bytes(std::size_t from, std::size_t pending)
{
    const auto records = (pending + kMaxRecordPayload - 1) / kMaxRecordPayload;
    return from + pending + records * kRecordHeaderBytes;
}

// The payload length the header of the record at `record` announces, or
// the decision its bytes so far allow.
std::variant<std::size_t, ClientHelloResult> record_length(std::string_view bytes, std::size_t record)
{
    const auto header = slice(bytes, record, kRecordHeaderBytes);
    if (!header.empty() && byte_at(header, 0) != kHandshakeRecord) {
        // After the first record, another content type interrupts the
        // ClientHello; a first one that is not a handshake is no TLS
        // (plain HTTP, or an SSLv2 hello with its high bit set).
        return record == 0 ? refuse("not-tls") : malformed();
    }
    if (header.size() > 1 && byte_at(header, 1) != kTlsMajorVersion) {
        return malformed();
    }
    if (header.size() < kRecordHeaderBytes) {
        return ClientHelloNeedMore{record + kRecordHeaderBytes};
    }
    const std::size_t length = (std::size_t{byte_at(header, 3)} << 8U) | byte_at(header, 4);
    if (length == 0 || length > kMaxRecordPayload) {
        return malformed();
    }
    return length;
}

} // namespace

ClientHelloResult inspect_client_hello(std::string_view bytes)
{
    // Every check below looks only at bytes before the point it is made,
    // in stream order, so a decision on a prefix is the decision on
    // whatever follows it.
    std::string message; // the handshake bytes carried by the records so far
    std::optional<std::size_t> message_size;
    std::size_t record = 0;
    for (;;) {
        const auto header = record_length(bytes, record);
        if (const auto* decided = std::get_if<ClientHelloResult>(&header)) {
            return *decided;
        }
        const auto length = std::get<std::size_t>(header);
        const auto record_end = record + kRecordHeaderBytes + length;
        if (record_end > kMaxClientHelloBytes) {
            return refuse("too-large");
        }
        const auto carried = message.size() + length; // once this record is whole
        const auto payload = slice(bytes, record + kRecordHeaderBytes, length);
        message.append(payload);
        if (!message.empty() && byte_at(message, 0) != kClientHello) {
            return refuse("not-tls");
        }
        if (!message_size && message.size() >= kHandshakeHeaderBytes) {
            message_size = kHandshakeHeaderBytes + ((std::size_t{byte_at(message, 1)} << 16U) |
                                                    (std::size_t{byte_at(message, 2)} << 8U) | byte_at(message, 3));
        }
        if (message_size) {
            if (*message_size < carried) {
                // Handshake bytes after the ClientHello in its record: a
                // client sends none before the server answers.
                return malformed();
            }
            // Refused as soon as the rest cannot fit, counting a header for
            // every record still to come, not once it has been read; this
            // also keeps the next header's end within the limit.
            if (fewest_bytes(record_end, *message_size - carried) > kMaxClientHelloBytes) {
                return refuse("too-large");
            }
        }
        if (payload.size() < length) {
            return ClientHelloNeedMore{record_end};
        }
        record = record_end;
        if (message_size && *message_size == message.size()) {
            return judge_client_hello(std::string_view(message).substr(kHandshakeHeaderBytes));
        }
    }
}

bool sni_matches(std::string_view sni, std::string_view connect_host)
{
    const auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
    return !sni.empty() && sni.size() == connect_host.size() &&
           std::equal(sni.begin(), sni.end(), connect_host.begin(),
                      [&](char a, char b) { return lower(a) == lower(b); });
}

} // namespace nr::core
