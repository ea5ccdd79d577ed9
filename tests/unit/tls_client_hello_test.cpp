// SPDX-License-Identifier: Apache-2.0
#include "core/gateway/tls_client_hello.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

using namespace nr::core;

namespace {

// Real ClientHellos, captured on a Debian machine with OpenSSL 3.0.
// kPythonHello: Python 3.11's ssl module, create_default_context() and
// wrap_bio(..., server_hostname='tunnel.nr-test'), the bytes do_handshake()
// wrote to its outgoing MemoryBIO (TLS 1.3, padded to 512 bytes).
// kOpensslHello: `openssl s_client -connect 127.0.0.1:PORT -servername
// Tunnel.NR-Test` against a loopback listener that saved what it received.
// kOpensslTls12Hello: the same with `-tls1_2 -servername api.example.test`
// (no session id, no TLS 1.3 extensions).
constexpr std::string_view kPythonHello =
    "1603010200010001fc03033f9f746375430f8a3ffea98e567aa459df640b75f4fe195ed6a35de919ca6c312087678f36f3b0"
    "107c235d7363715c31f8ce9dcba6349619d164d448757188d32d0024130213031301c02cc030c02bc02fcca9cca8c024c028"
    "c023c027009f009e006b006700ff0100018f00000013001100000e74756e6e656c2e6e722d74657374000b00040300010200"
    "0a00160014001d0017001e0019001801000101010201030104002300000016000000170000000d002a002804030503060308"
    "0708080809080a080b080408050806040105010601030303010302040205020602002b00050403040303002d000201010033"
    "00260024001d00202a22ebce3d447a3ec79420255b04310a7e6ec238f56c3d4a4de5c8cbb05c1b0d001500df000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000";

constexpr std::string_view kOpensslHello =
    "160301013b01000137030358b71aedbe5ea4a593aba7e34ea1c58c07a3a411e21f2196c8296498f5ce4e202094e327ca0465"
    "779f22c8d47c0901c648ce782258f7b45c89cd3f1b0a26f11022003e130213031301c02cc030009fcca9cca8ccaac02bc02f"
    "009ec024c028006bc023c0270067c00ac0140039c009c0130033009d009c003d003c0035002f00ff010000b0000000130011"
    "00000e54756e6e656c2e4e522d54657374000b000403000102000a00160014001d0017001e00190018010001010102010301"
    "04002300000016000000170000000d002a0028040305030603080708080809080a080b080408050806040105010601030303"
    "010302040205020602002b0009080304030303020301002d00020101003300260024001d00202a89976175fc715b0e409bbe"
    "417f4def8f8944f532b191eab11f0977272f432b";

constexpr std::string_view kOpensslTls12Hello =
    "16030100d0010000cc03037b42a28f8db4d474b7595d7bf60225937e47705712bc11c4235071c561c85937000038c02cc030"
    "009fcca9cca8ccaac02bc02f009ec024c028006bc023c0270067c00ac0140039c009c0130033009d009c003d003c0035002f"
    "00ff0100006b0000001500130000106170692e6578616d706c652e74657374000b000403000102000a000c000a001d001700"
    "1e00190018002300000016000000170000000d002a0028040305030603080708080809080a080b0804080508060401050106"
    "01030303010302040205020602";

bool is_reason(const std::string& reason)
{
    const std::set<std::string> reasons{"not-tls", "malformed-client-hello", "no-sni", "ech", "bad-sni", "too-large"};
    return reasons.count(reason) == 1;
}

std::string from_hex(std::string_view hex)
{
    const auto nibble = [](char c) { return c <= '9' ? c - '0' : c - 'a' + 10; };
    std::string out;
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
        out += static_cast<char>((nibble(hex[i]) << 4) | nibble(hex[i + 1]));
    }
    return out;
}

std::string u8(std::size_t value)
{
    return std::string(1, static_cast<char>(value & 0xffU));
}

std::string u16(std::size_t value)
{
    return u8(value >> 8U) + u8(value);
}

std::string u24(std::size_t value)
{
    return u8(value >> 16U) + u16(value);
}

std::string record(std::string_view payload, std::uint8_t type = 22, std::uint8_t major = 3)
{
    return u8(type) + u8(major) + u8(1) + u16(payload.size()) + std::string(payload);
}

// The handshake message cut into records of at most `size` bytes.
std::string in_records(std::string_view message, std::size_t size)
{
    std::string out;
    for (std::size_t at = 0; at < message.size(); at += size) {
        out += record(message.substr(at, size));
    }
    return out;
}

std::string handshake(std::string_view body, std::uint8_t type = 1)
{
    return u8(type) + u24(body.size()) + std::string(body);
}

std::string extension(std::uint16_t type, std::string_view data)
{
    return u16(type) + u16(data.size()) + std::string(data);
}

// A server_name extension's data: the list of (name type, name) entries.
std::string server_names(const std::vector<std::pair<std::uint8_t, std::string>>& entries)
{
    std::string list;
    for (const auto& [type, name] : entries) {
        list += u8(type) + u16(name.size()) + name;
    }
    return u16(list.size()) + list;
}

std::string sni_extension(const std::string& host)
{
    return extension(0, server_names({{0, host}}));
}

// A minimal ClientHello body up to its extensions: TLS 1.2 version, zero
// random, empty session id, one suite, null compression.
std::string body_before_extensions()
{
    return u16(0x0303) + std::string(32, '\0') + u8(0) + u16(2) + u16(0x1301) + u8(1) + u8(0);
}

std::string hello_with(std::string_view extensions)
{
    return record(handshake(body_before_extensions() + u16(extensions.size()) + std::string(extensions)));
}

std::string python_hello()
{
    return from_hex(kPythonHello);
}

// The handshake message of a single-record hello.
std::string message_of(const std::string& hello)
{
    return hello.substr(5);
}

// A real hello's body split where its extensions block starts.
std::pair<std::string, std::string> split_at_extensions(const std::string& hello)
{
    const auto body = message_of(hello).substr(4);
    std::size_t at = 2 + 32;
    at += 1 + static_cast<std::uint8_t>(body[at]);
    at += 2 + ((std::size_t{static_cast<std::uint8_t>(body[at])} << 8U) | static_cast<std::uint8_t>(body[at + 1]));
    at += 1 + static_cast<std::uint8_t>(body[at]);
    return {body.substr(0, at), body.substr(at + 2)};
}

// A real hello with one more extension at the end of its list.
std::string with_extension(const std::string& hello, std::string_view added)
{
    const auto [before, extensions] = split_at_extensions(hello);
    const auto all = extensions + std::string(added);
    return record(handshake(before + u16(all.size()) + all));
}

// A handshake message of `size` bytes, padded with an extension.
std::string message_of_size(std::size_t size)
{
    const auto fixed = 4 + body_before_extensions().size() + 2 + sni_extension("tunnel.nr-test").size() + 4;
    const auto extensions = sni_extension("tunnel.nr-test") + extension(21, std::string(size - fixed, '\0'));
    return handshake(body_before_extensions() + u16(extensions.size()) + extensions);
}

// The same in records of the largest size.
std::string hello_of_message_size(std::size_t size)
{
    return in_records(message_of_size(size), 16384);
}

std::string reason_of(const ClientHelloResult& result)
{
    const auto* refusal = std::get_if<ClientHelloRefuse>(&result);
    return refusal == nullptr ? "(no refusal, variant " + std::to_string(result.index()) + ")" : refusal->reason;
}

std::string host_of(const ClientHelloResult& result)
{
    const auto* sni = std::get_if<ClientHelloSni>(&result);
    return sni == nullptr ? "(no name, variant " + std::to_string(result.index()) + ")" : sni->host;
}

std::size_t needed(const ClientHelloResult& result)
{
    const auto* more = std::get_if<ClientHelloNeedMore>(&result);
    return more == nullptr ? 0 : more->at_least;
}

} // namespace

TEST(APythonClientHello, NamesItsServer)
{
    EXPECT_EQ(host_of(inspect_client_hello(python_hello())), "tunnel.nr-test");
}

TEST(AnOpensslClientHello, NamesItsServerAsSent)
{
    EXPECT_EQ(host_of(inspect_client_hello(from_hex(kOpensslHello))), "Tunnel.NR-Test");
}

TEST(AnOpensslTls12ClientHello, NamesItsServer)
{
    EXPECT_EQ(host_of(inspect_client_hello(from_hex(kOpensslTls12Hello))), "api.example.test");
}

TEST(NoClientHelloBytesYet, NeedARecordHeader)
{
    EXPECT_EQ(needed(inspect_client_hello("")), 5U);
}

TEST(EveryPrefixOfARealClientHello, NeedsMoreButNoMoreThanTheHelloHas)
{
    for (const auto hex : {kPythonHello, kOpensslHello, kOpensslTls12Hello}) {
        const auto hello = from_hex(hex);
        for (std::size_t size = 0; size < hello.size(); ++size) {
            const auto at_least = needed(inspect_client_hello(std::string_view(hello).substr(0, size)));
            ASSERT_GT(at_least, size) << "prefix of " << size << " bytes";
            ASSERT_LE(at_least, hello.size()) << "prefix of " << size << " bytes";
        }
    }
}

TEST(AClientHelloSplitAcrossTwoRecords, IsReassembled)
{
    const auto message = message_of(python_hello());
    const auto split = record(message.substr(0, 100)) + record(message.substr(100));
    EXPECT_EQ(host_of(inspect_client_hello(split)), "tunnel.nr-test");
    // Waiting for the first record's end and then the second's header never
    // asks for more than the two records hold.
    EXPECT_EQ(needed(inspect_client_hello(split.substr(0, 50))), 105U);
    EXPECT_EQ(needed(inspect_client_hello(split.substr(0, 105))), 110U);
    EXPECT_EQ(needed(inspect_client_hello(split.substr(0, 110))), split.size());
}

TEST(AClientHelloInRecordsOfAnySize, NamesTheSameServer)
{
    const auto message = message_of(python_hello());
    for (std::size_t size = 1; size <= message.size(); ++size) {
        ASSERT_EQ(host_of(inspect_client_hello(in_records(message, size))), "tunnel.nr-test") << "records of " << size;
    }
}

TEST(EveryPrefixOfAOneByteRecordClientHello, NeedsMoreButNoMoreThanTheHelloHas)
{
    const auto hello = in_records(message_of(from_hex(kOpensslHello)), 1);
    for (std::size_t size = 0; size < hello.size(); ++size) {
        const auto at_least = needed(inspect_client_hello(std::string_view(hello).substr(0, size)));
        ASSERT_GT(at_least, size) << "prefix of " << size << " bytes";
        ASSERT_LE(at_least, hello.size()) << "prefix of " << size << " bytes";
    }
}

TEST(ARecordOfAnotherTypeBeforeTheClientHelloIsComplete, IsMalformed)
{
    const auto message = message_of(python_hello());
    for (const int type : {20, 21, 23}) {
        const auto interrupted = record(message.substr(0, 100)) + record("\x01", static_cast<std::uint8_t>(type)) +
                                 record(message.substr(100));
        EXPECT_EQ(reason_of(inspect_client_hello(interrupted)), "malformed-client-hello") << "type " << type;
    }
}

TEST(BytesAfterTheClientHello, AreIgnored)
{
    const auto hello = python_hello();
    EXPECT_EQ(host_of(inspect_client_hello(hello + "GET / HTTP/1.1\r\n")), "tunnel.nr-test");
    EXPECT_EQ(host_of(inspect_client_hello(hello + record("\x01", 20) + record("early data", 23))), "tunnel.nr-test");
    EXPECT_EQ(host_of(inspect_client_hello(hello + std::string(kMaxClientHelloBytes, '\xff'))), "tunnel.nr-test");
}

TEST(HandshakeBytesAfterTheClientHelloInItsRecord, AreMalformed)
{
    const auto message = message_of(python_hello());
    EXPECT_EQ(reason_of(inspect_client_hello(record(message + handshake("", 20)))), "malformed-client-hello");
    EXPECT_EQ(reason_of(inspect_client_hello(record(message + u8(0)))), "malformed-client-hello");
}

TEST(PlainHttpInsteadOfAClientHello, IsNotTls)
{
    EXPECT_EQ(reason_of(inspect_client_hello("GET / HTTP/1.1\r\nHost: tunnel.nr-test\r\n\r\n")), "not-tls");
    EXPECT_EQ(reason_of(inspect_client_hello("CONNECT tunnel.nr-test:443 HTTP/1.1\r\n\r\n")), "not-tls");
    // Decided on the first byte: the gateway need not wait for a header.
    EXPECT_EQ(reason_of(inspect_client_hello("G")), "not-tls");
}

TEST(AnSslVersion2Hello, IsNotTls)
{
    // A two-byte length with the high bit set, CLIENT-HELLO, version 3.1.
    const auto sslv2 = from_hex("802e0103010015000000100000040000050000"
                                "0a0100800300800700c0e3c2cbd6a8f6b6a1a6a6bca6bcb8f8d3");
    EXPECT_EQ(reason_of(inspect_client_hello(sslv2)), "not-tls");
}

TEST(AHandshakeThatIsNotAClientHello, IsNotTls)
{
    auto message = message_of(python_hello());
    message[0] = 2; // ServerHello
    EXPECT_EQ(reason_of(inspect_client_hello(record(message))), "not-tls");
    EXPECT_EQ(reason_of(inspect_client_hello(record(message).substr(0, 6))), "not-tls");
}

TEST(AClientHelloRecordVersionOtherThanThree, IsMalformed)
{
    const auto message = message_of(python_hello());
    for (const int version : {0, 2, 4, 0x80}) {
        const auto major = static_cast<std::uint8_t>(version);
        EXPECT_EQ(reason_of(inspect_client_hello(record(message, 22, major))), "malformed-client-hello");
        EXPECT_EQ(reason_of(inspect_client_hello(record(message, 22, major).substr(0, 2))), "malformed-client-hello");
        const auto second = record(message.substr(0, 100)) + record(message.substr(100), 22, major);
        EXPECT_EQ(reason_of(inspect_client_hello(second)), "malformed-client-hello");
    }
}

TEST(AClientHelloVersionOtherThanThree, IsMalformed)
{
    auto message = message_of(python_hello());
    message[4] = 2;
    EXPECT_EQ(reason_of(inspect_client_hello(record(message))), "malformed-client-hello");
}

TEST(AClientHelloWithoutServerName, HasNoSni)
{
    EXPECT_EQ(reason_of(inspect_client_hello(hello_with(extension(43, from_hex("020304"))))), "no-sni");
    EXPECT_EQ(reason_of(inspect_client_hello(hello_with(""))), "no-sni");
    // TLS 1.2 allows no extensions block at all.
    EXPECT_EQ(reason_of(inspect_client_hello(record(handshake(body_before_extensions())))), "no-sni");
}

TEST(AServerNameWithoutAHostName, HasNoSni)
{
    const auto other_type = extension(0, server_names({{1, "tunnel.nr-test"}}));
    EXPECT_EQ(reason_of(inspect_client_hello(hello_with(other_type))), "no-sni");
}

TEST(AHostNameBesideANameOfAnotherType, IsTheSni)
{
    const auto both = extension(0, server_names({{7, "x"}, {0, "tunnel.nr-test"}}));
    EXPECT_EQ(host_of(inspect_client_hello(hello_with(both))), "tunnel.nr-test");
}

TEST(TwoHostNames, AreABadSni)
{
    const auto two = extension(0, server_names({{0, "tunnel.nr-test"}, {0, "other.nr-test"}}));
    EXPECT_EQ(reason_of(inspect_client_hello(hello_with(two))), "bad-sni");
    const auto same_twice = extension(0, server_names({{0, "tunnel.nr-test"}, {0, "tunnel.nr-test"}}));
    EXPECT_EQ(reason_of(inspect_client_hello(hello_with(same_twice))), "bad-sni");
}

TEST(AnEmptyHostName, IsABadSni)
{
    EXPECT_EQ(reason_of(inspect_client_hello(hello_with(sni_extension("")))), "bad-sni");
}

TEST(AHostNameWithCharactersOutsideADnsName, IsABadSni)
{
    for (const auto& host :
         std::vector<std::string>{"tunnel_nr.test", "tunnel nr.test", "tunnel.nr-test:443", "t\xc3\xbcnnel.nr-test",
                                  std::string("tunnel\0.nr-test", 15), "tunnel.nr-test\r\n", "*.nr-test",
                                  "tunnel/nr-test", "10.0.0.1%eth0"}) {
        EXPECT_EQ(reason_of(inspect_client_hello(hello_with(sni_extension(host)))), "bad-sni") << host;
    }
}

TEST(AHostNameWithAnEmptyOrOverlongLabel, IsABadSni)
{
    for (const auto& host : std::vector<std::string>{"tunnel.nr-test.", ".tunnel.nr-test", "tunnel..nr-test", ".",
                                                     std::string(64, 'a') + ".nr-test"}) {
        EXPECT_EQ(reason_of(inspect_client_hello(hello_with(sni_extension(host)))), "bad-sni") << host;
    }
    const auto longest_label = std::string(63, 'a') + ".nr-test";
    EXPECT_EQ(host_of(inspect_client_hello(hello_with(sni_extension(longest_label)))), longest_label);
}

TEST(AHostNameLongerThan253Characters, IsABadSni)
{
    const auto label = std::string(63, 'a') + ".";
    const auto longest = label + label + label + std::string(61, 'b');
    ASSERT_EQ(longest.size(), 253U);
    EXPECT_EQ(host_of(inspect_client_hello(hello_with(sni_extension(longest)))), longest);
    EXPECT_EQ(reason_of(inspect_client_hello(hello_with(sni_extension(longest + "b")))), "bad-sni");
}

TEST(AnEncryptedClientHelloExtension, HidesTheNameAndIsRefused)
{
    const auto hello = python_hello();
    EXPECT_EQ(reason_of(inspect_client_hello(with_extension(hello, extension(0xfe0d, from_hex("0000010001"))))), "ech");
    EXPECT_EQ(reason_of(inspect_client_hello(with_extension(hello, extension(0xffce, from_hex("1301"))))), "ech");
    // The splice itself keeps the hello valid.
    EXPECT_EQ(host_of(inspect_client_hello(with_extension(hello, extension(0xfe0e, from_hex("0000"))))),
              "tunnel.nr-test");
}

TEST(ADuplicateClientHelloExtension, IsMalformed)
{
    const auto hello = python_hello();
    EXPECT_EQ(reason_of(inspect_client_hello(with_extension(hello, sni_extension("tunnel.nr-test")))),
              "malformed-client-hello");
    EXPECT_EQ(reason_of(inspect_client_hello(with_extension(hello, extension(0x002b, from_hex("020304"))))),
              "malformed-client-hello");
}

TEST(AnInconsistentLengthInsideTheClientHello, IsMalformed)
{
    const auto sni = sni_extension("tunnel.nr-test");
    const auto [before, extensions] = split_at_extensions(python_hello());
    const std::vector<std::pair<std::string, std::string>> broken{
        {"extensions block one byte longer", before + u16(extensions.size() + 1) + extensions + u8(0)},
        {"extensions block one byte shorter", before + u16(extensions.size() - 1) + extensions},
        {"a byte after the extensions", before + u16(extensions.size()) + extensions + u8(0)},
        {"a truncated extension header",
         body_before_extensions() + u16(sni.size() + 3) + sni + u8(0) + u8(0x2b) + u8(0)},
        {"an extension longer than its block",
         body_before_extensions() + u16(sni.size()) + sni.substr(0, 8) + u16(sni.size()) + sni.substr(10)},
        {"a server name list shorter than its extension",
         body_before_extensions() + u16(sni.size() + 1) + extension(0, server_names({{0, "tunnel.nr-test"}}) + "x")},
        {"a host name longer than its list",
         body_before_extensions() + u16(sni.size()) + extension(0, u16(17) + u8(0) + u16(20) + "tunnel.nr-test")},
        {"an empty server name list", body_before_extensions() + u16(6) + extension(0, u16(0))},
        {"an empty server_name extension", body_before_extensions() + u16(4) + extension(0, "")},
        {"a session id of 33 bytes", u16(0x0303) + std::string(32, '\0') + u8(33) + std::string(33, 's') + u16(2) +
                                         u16(0x1301) + u8(1) + u8(0) + u16(sni.size()) + sni},
        {"an odd cipher suite length",
         u16(0x0303) + std::string(32, '\0') + u8(0) + u16(3) + "\x13\x01\x13" + u8(1) + u8(0) + u16(sni.size()) + sni},
        {"no cipher suite",
         u16(0x0303) + std::string(32, '\0') + u8(0) + u16(0) + u8(1) + u8(0) + u16(sni.size()) + sni},
        {"no compression method",
         u16(0x0303) + std::string(32, '\0') + u8(0) + u16(2) + u16(0x1301) + u8(0) + u16(sni.size()) + sni},
        {"a truncated random", u16(0x0303) + std::string(20, '\0')},
        {"an empty body", ""},
    };
    for (const auto& [what, body] : broken) {
        EXPECT_EQ(reason_of(inspect_client_hello(record(handshake(body)))), "malformed-client-hello") << what;
    }
}

TEST(AClientHelloRecordOfNoBytesOrOverTheLimit, IsMalformed)
{
    EXPECT_EQ(reason_of(inspect_client_hello(from_hex("1603010000"))), "malformed-client-hello");
    EXPECT_EQ(reason_of(inspect_client_hello(from_hex("1603014001"))), "malformed-client-hello");
    EXPECT_EQ(reason_of(inspect_client_hello(from_hex("160301ffff"))), "malformed-client-hello");
}

TEST(AClientHelloLongerThanItsRecord, WaitsForTheNextRecord)
{
    // Not malformed on its own: the ClientHello may go on in the next record.
    const auto message = message_of(python_hello());
    const auto first = record(message.substr(0, message.size() - 1));
    EXPECT_EQ(needed(inspect_client_hello(first)), first.size() + 5);
}

TEST(AClientHelloShorterThanItsRecord, IsMalformed)
{
    auto message = message_of(python_hello());
    message[3] = static_cast<char>(message[3] - 1);
    EXPECT_EQ(reason_of(inspect_client_hello(record(message))), "malformed-client-hello");
    // Decided as soon as the length is read.
    EXPECT_EQ(reason_of(inspect_client_hello(record(message).substr(0, 9))), "malformed-client-hello");
}

TEST(AnOversizedClientHelloLength, IsTooLargeAsSoonAsItIsRead)
{
    const auto huge = from_hex("160301400001ffffff") + std::string(16380, '\0');
    EXPECT_EQ(reason_of(inspect_client_hello(huge)), "too-large");
    EXPECT_EQ(reason_of(inspect_client_hello(huge.substr(0, 9))), "too-large");
    EXPECT_EQ(needed(inspect_client_hello(huge.substr(0, 8))), 16389U);
}

TEST(AClientHelloThatFillsTheLimitExactly, IsRead)
{
    // Four full records carry 65516 handshake bytes in 65536 bytes.
    const auto largest = hello_of_message_size(65516);
    ASSERT_EQ(largest.size(), kMaxClientHelloBytes);
    EXPECT_EQ(host_of(inspect_client_hello(largest)), "tunnel.nr-test");
}

TEST(AClientHelloOneByteOverTheLimit, IsTooLargeBeforeItIsRead)
{
    const auto over = hello_of_message_size(65517);
    ASSERT_EQ(over.size(), kMaxClientHelloBytes + 1);
    EXPECT_EQ(reason_of(inspect_client_hello(over)), "too-large");
    EXPECT_EQ(reason_of(inspect_client_hello(over.substr(0, 9))), "too-large");
}

TEST(AClientHelloRecordEndingPastTheLimit, IsTooLarge)
{
    // Three full records of a 60000-byte message, then one that claims more
    // than the message has left and would end past the limit.
    const auto message = message_of_size(60000);
    const auto records =
        in_records(message.substr(0, std::size_t{3} * 16384), 16384) + record(std::string(16384, '\0'));
    ASSERT_GT(records.size(), kMaxClientHelloBytes);
    EXPECT_EQ(reason_of(inspect_client_hello(records)), "too-large");
}

TEST(AClientHelloInRecordsTooSmallToFitTheLimit, IsTooLargeBeforeTheLimit)
{
    // 20000 handshake bytes fit alone, but not in one-byte records, each
    // with a five-byte header.
    ASSERT_EQ(host_of(inspect_client_hello(hello_of_message_size(20000))), "tunnel.nr-test");
    const auto fragmented = in_records(message_of_size(20000), 1);
    std::size_t decided_at = 0;
    for (std::size_t size = 0; size <= fragmented.size(); size += 6) {
        const auto result = inspect_client_hello(std::string_view(fragmented).substr(0, size));
        if (!std::holds_alternative<ClientHelloNeedMore>(result)) {
            EXPECT_EQ(reason_of(result), "too-large");
            decided_at = size;
            break;
        }
        ASSERT_LE(needed(result), kMaxClientHelloBytes);
    }
    EXPECT_GT(decided_at, 0U);
    EXPECT_LE(decided_at, kMaxClientHelloBytes);
}

TEST(WaitingForMoreOfAClientHello, NeverAsksBeyondTheLimit)
{
    for (const auto size : {65516U, 65517U, 70000U}) {
        const auto hello = hello_of_message_size(size);
        for (std::size_t cut = 0; cut < hello.size(); cut += 97) {
            const auto result = inspect_client_hello(std::string_view(hello).substr(0, cut));
            if (const auto* more = std::get_if<ClientHelloNeedMore>(&result)) {
                ASSERT_GT(more->at_least, cut);
                ASSERT_LE(more->at_least, kMaxClientHelloBytes) << "message of " << size << ", cut at " << cut;
            }
        }
    }
}

TEST(SingleByteMutationsOfARealClientHello, GiveAConsistentResult)
{
    for (const auto hex : {kPythonHello, kOpensslHello, kOpensslTls12Hello}) {
        const auto hello = from_hex(hex);
        for (std::size_t at = 0; at < hello.size(); ++at) {
            for (const unsigned flip : {0x01U, 0x80U, 0xffU}) {
                auto mutated = hello;
                mutated[at] = static_cast<char>(static_cast<std::uint8_t>(mutated[at]) ^ flip);
                ClientHelloResult result;
                ASSERT_NO_THROW(result = inspect_client_hello(mutated)) << "byte " << at;
                if (const auto* more = std::get_if<ClientHelloNeedMore>(&result)) {
                    ASSERT_GT(more->at_least, mutated.size()) << "byte " << at;
                    ASSERT_LE(more->at_least, kMaxClientHelloBytes) << "byte " << at;
                } else if (const auto* refusal = std::get_if<ClientHelloRefuse>(&result)) {
                    ASSERT_TRUE(is_reason(refusal->reason)) << refusal->reason;
                } else {
                    const auto& host = std::get<ClientHelloSni>(result).host;
                    ASSERT_FALSE(host.empty()) << "byte " << at;
                    ASSERT_EQ(
                        host.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-"),
                        std::string::npos);
                }
            }
        }
    }
}

TEST(EveryPrefixOfARefusedClientHello, IsUndecidedOrRefusedForTheSameReason)
{
    const auto hello = python_hello();
    const auto message = message_of(hello);
    auto not_a_client_hello = message;
    not_a_client_hello[0] = 2;
    const std::vector<std::string> refused{
        with_extension(hello, extension(0xfe0d, from_hex("00"))),
        with_extension(hello, sni_extension("tunnel.nr-test")),
        record(message.substr(0, 100)) + record("\x01", 21) + record(message.substr(100)),
        record(message + u8(0)),
        record(not_a_client_hello),
        hello_with(sni_extension("tunnel_nr.test")),
        hello_with(""),
        hello_of_message_size(65517),
        "GET / HTTP/1.1\r\n\r\n",
    };
    for (const auto& input : refused) {
        const auto reason = reason_of(inspect_client_hello(input));
        ASSERT_TRUE(is_reason(reason)) << reason;
        for (std::size_t size = 0; size < input.size(); ++size) {
            const auto result = inspect_client_hello(std::string_view(input).substr(0, size));
            if (!std::holds_alternative<ClientHelloNeedMore>(result)) {
                ASSERT_EQ(reason_of(result), reason) << "prefix of " << size << " bytes";
            }
        }
    }
}

TEST(TheRandomOfARealClientHello, DoesNotChangeItsName)
{
    auto hello = python_hello();
    for (std::size_t at = 11; at < 11 + 32; ++at) {
        hello[at] = static_cast<char>(~hello[at]);
    }
    EXPECT_EQ(host_of(inspect_client_hello(hello)), "tunnel.nr-test");
}

TEST(TheConnectHost, MatchesItsSniInAnyCase)
{
    EXPECT_TRUE(sni_matches("tunnel.nr-test", "tunnel.nr-test"));
    EXPECT_TRUE(sni_matches(host_of(inspect_client_hello(from_hex(kOpensslHello))), "tunnel.nr-test"));
}

TEST(AnSniOfAnotherHost, DoesNotMatch)
{
    EXPECT_FALSE(sni_matches(host_of(inspect_client_hello(python_hello())), "api.example.test"));
    EXPECT_FALSE(sni_matches("tunnel.nr-tesu", "tunnel.nr-test"));
}

TEST(AnSniThatOnlyLooksLikeTheConnectHost, DoesNotMatch)
{
    EXPECT_FALSE(sni_matches("tunnel.nr-test.", "tunnel.nr-test"));
    EXPECT_FALSE(sni_matches("tunnel.nr-test", "tunnel.nr-test."));
    EXPECT_FALSE(sni_matches("evil.tunnel.nr-test", "tunnel.nr-test"));
    EXPECT_FALSE(sni_matches("tunnel.nr-test", "evil.tunnel.nr-test"));
    EXPECT_FALSE(sni_matches("*.nr-test", "tunnel.nr-test"));
    EXPECT_FALSE(sni_matches("tunnel", "tunnel.nr-test"));
    EXPECT_FALSE(sni_matches("", ""));
    // Only ASCII letters fold: 0x20 apart is not enough.
    EXPECT_FALSE(sni_matches("tunnel\x0enr-test", "tunnel.nr-test"));
}
