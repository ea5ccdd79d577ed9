// SPDX-License-Identifier: Apache-2.0
// Runs the fuzz harnesses under ordinary ctest with any compiler: the
// checked-in corpus, every short input, and a fixed-seed batch of mutations
// all go through the very entry points libFuzzer calls. A harness signals a
// finding by throwing, which fails the test naming the input.

#include "core/base/error.h"
#include "core/config/config.h"
#include "core/gateway/egress.h"
#include "test_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

// LLVMFuzzerTestOneInput of config_fuzz.cpp and ids_fuzz.cpp, renamed at
// compile time so both link into this one binary.
extern "C" int nr_fuzz_config_one_input(const std::uint8_t* data, std::size_t size);
extern "C" int nr_fuzz_ids_one_input(const std::uint8_t* data, std::size_t size);
extern "C" int nr_fuzz_relpath_one_input(const std::uint8_t* data, std::size_t size);
extern "C" int nr_fuzz_receipt_one_input(const std::uint8_t* data, std::size_t size);
extern "C" int nr_fuzz_launch_spec_one_input(const std::uint8_t* data, std::size_t size);
extern "C" int nr_fuzz_launch_spec_bytes_one_input(const std::uint8_t* data, std::size_t size);
extern "C" int nr_fuzz_supervisor_args_one_input(const std::uint8_t* data, std::size_t size);
extern "C" int nr_fuzz_gateway_control_one_input(const std::uint8_t* data, std::size_t size);
extern "C" int nr_fuzz_gateway_route_one_input(const std::uint8_t* data, std::size_t size);
extern "C" int nr_fuzz_gateway_request_one_input(const std::uint8_t* data, std::size_t size);
extern "C" int nr_fuzz_tls_client_hello_one_input(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = NR_FUZZ_CORPUS_DIR;

std::string read_file(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<fs::path> corpus_files(const std::string& which)
{
    std::vector<fs::path> out;
    for (const auto& entry : fs::directory_iterator(kCorpus / which)) {
        if (entry.is_regular_file()) {
            out.push_back(entry.path());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

int feed_config(const std::string& input)
{
    return nr_fuzz_config_one_input(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

int feed_ids(const std::string& input)
{
    return nr_fuzz_ids_one_input(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

int feed_relpath(const std::string& input)
{
    return nr_fuzz_relpath_one_input(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

int feed_receipt(const std::string& input)
{
    return nr_fuzz_receipt_one_input(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

int feed_launch_spec(const std::string& input)
{
    return nr_fuzz_launch_spec_one_input(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

int feed_launch_spec_bytes(const std::string& input)
{
    return nr_fuzz_launch_spec_bytes_one_input(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

int feed_supervisor_args(const std::string& input)
{
    return nr_fuzz_supervisor_args_one_input(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

int feed_gateway_control(const std::string& input)
{
    return nr_fuzz_gateway_control_one_input(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

int feed_gateway_route(const std::string& input)
{
    return nr_fuzz_gateway_route_one_input(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

int feed_gateway_request(const std::string& input)
{
    return nr_fuzz_gateway_request_one_input(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

int feed_tls_client_hello(const std::string& input)
{
    return nr_fuzz_tls_client_hello_one_input(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
}

std::string test_name_for(const fs::path& path)
{
    std::string name = path.stem().string();
    std::replace_if(
        name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) == 0; }, '_');
    return name;
}

std::string corpus_test_name(const ::testing::TestParamInfo<fs::path>& param_info)
{
    return test_name_for(param_info.param);
}

// One to max_edits random byte edits (replace, insert, erase) drawn from
// interesting: what the mutation tests feed a harness.
std::string mutated(std::string input, std::mt19937& rng, const std::string& interesting, int max_edits)
{
    const auto edits = std::uniform_int_distribution<int>(1, max_edits)(rng);
    for (int e = 0; e < edits && !input.empty(); ++e) {
        const auto at = std::uniform_int_distribution<std::size_t>(0, input.size() - 1)(rng);
        const auto c = interesting[std::uniform_int_distribution<std::size_t>(0, interesting.size() - 1)(rng)];
        switch (std::uniform_int_distribution<int>(0, 2)(rng)) {
        case 0: input[at] = c; break;
        case 1: input.insert(at, 1, c); break;
        default: input.erase(at, 1); break;
        }
    }
    return input;
}

class AConfigCorpusInput : public ::testing::TestWithParam<fs::path> {};
class AnIdCorpusInput : public ::testing::TestWithParam<fs::path> {};
class ARelativePathCorpusInput : public ::testing::TestWithParam<fs::path> {};
class AReceiptCorpusInput : public ::testing::TestWithParam<fs::path> {};
class ALaunchSpecCorpusInput : public ::testing::TestWithParam<fs::path> {};
class ALaunchSpecBytesCorpusInput : public ::testing::TestWithParam<fs::path> {};
class ASupervisorArgsCorpusInput : public ::testing::TestWithParam<fs::path> {};
class AGatewayControlCorpusInput : public ::testing::TestWithParam<fs::path> {};
class AGatewayRouteCorpusInput : public ::testing::TestWithParam<fs::path> {};
class AGatewayRequestCorpusInput : public ::testing::TestWithParam<fs::path> {};
class ATlsClientHelloCorpusInput : public ::testing::TestWithParam<fs::path> {};

} // namespace

TEST(TheConfigCorpus, HoldsBothAcceptedAndRefusedInputs)
{
    const auto files = corpus_files("config");
    ASSERT_GE(files.size(), 10U);
    std::size_t accepted = 0;
    std::size_t refused = 0;
    for (const auto& file : files) {
        try {
            (void)nr::core::parse_config(read_file(file), file.filename().string());
            ++accepted;
        } catch (const nr::core::Error&) {
            ++refused;
        }
    }
    // Accepted inputs exercise the harness's invariant and planning checks,
    // refused ones its error contract; the corpus must keep both.
    EXPECT_GE(accepted, 2U);
    EXPECT_GE(refused, 8U);
}

TEST_P(AConfigCorpusInput, PassesTheConfigFuzzHarness)
{
    const auto input = read_file(GetParam());
    EXPECT_NO_THROW(feed_config(input)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Replay, AConfigCorpusInput, ::testing::ValuesIn(corpus_files("config")), corpus_test_name);

TEST_P(AnIdCorpusInput, PassesTheIdFuzzHarness)
{
    const auto input = read_file(GetParam());
    EXPECT_NO_THROW(feed_ids(input)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Replay, AnIdCorpusInput, ::testing::ValuesIn(corpus_files("ids")), corpus_test_name);

TEST(EveryOneAndTwoByteValue, PassesTheIdFuzzHarnessForEveryKind)
{
    for (unsigned kind = 0; kind < 4; ++kind) {
        for (unsigned a = 0; a < 256; ++a) {
            const std::string one{static_cast<char>(kind), static_cast<char>(a)};
            ASSERT_NO_THROW(feed_ids(one)) << "kind " << kind << " byte " << a;
            for (unsigned b = 0; b < 256; b += 5) {
                const std::string two{static_cast<char>(kind), static_cast<char>(a), static_cast<char>(b)};
                ASSERT_NO_THROW(feed_ids(two)) << "kind " << kind << " bytes " << a << "," << b;
            }
        }
    }
}

TEST(RandomIdLikeInputs, PassTheIdFuzzHarness)
{
    std::mt19937 rng(20240601U); // fixed seed: a failure reproduces
    const std::string alphabet = "aZ09._@-/ \\\n\x7f\xc3\xbc.";
    for (int round = 0; round < 20000; ++round) {
        const auto length = std::uniform_int_distribution<std::size_t>(1, 70)(rng);
        std::string input;
        for (std::size_t i = 0; i < length; ++i) {
            input += alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(rng)];
        }
        ASSERT_NO_THROW(feed_ids(input)) << "round " << round;
    }
}

TEST(MutatedConfigCorpusInputs, PassTheConfigFuzzHarness)
{
    std::mt19937 rng(20240602U);
    const auto files = corpus_files("config");
    ASSERT_FALSE(files.empty());
    const std::string interesting = "\n\t :-[]{}#&*!?|>'\"/.\\0~";
    for (int round = 0; round < 3000; ++round) {
        const auto& file = files[static_cast<std::size_t>(round) % files.size()];
        const auto input = mutated(read_file(file), rng, interesting, 4);
        ASSERT_NO_THROW(feed_config(input)) << "round " << round << ":\n" << input;
    }
}

TEST_P(ARelativePathCorpusInput, PassesTheRelativePathFuzzHarness)
{
    const auto input = read_file(GetParam());
    EXPECT_NO_THROW(feed_relpath(input)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Replay, ARelativePathCorpusInput, ::testing::ValuesIn(corpus_files("relpath")),
                         corpus_test_name);

TEST(EveryOneTwoAndThreeByteRelativePath, PassesTheRelativePathFuzzHarness)
{
    const std::string interesting{'a', '.', '/', '\0', '\n', '\x7f', '\xc3', ' '};
    for (unsigned a = 0; a < 256; ++a) {
        ASSERT_NO_THROW(feed_relpath(std::string(1, static_cast<char>(a)))) << "byte " << a;
        for (const char b : interesting) {
            for (const char c : interesting) {
                const std::string three{static_cast<char>(a), b, c};
                ASSERT_NO_THROW(feed_relpath(three)) << "bytes " << a << "," << int(b) << "," << int(c);
            }
        }
    }
}

TEST(RandomPathLikeInputs, PassTheRelativePathFuzzHarness)
{
    std::mt19937 rng(20240603U); // fixed seed: a failure reproduces
    const std::vector<std::string> pieces{"a",
                                          "b",
                                          ".",
                                          "..",
                                          "/",
                                          "//",
                                          "...",
                                          std::string(1, '\0'),
                                          "\n",
                                          "\xc3\xbc",
                                          std::string(255, 'n'),
                                          std::string(256, 'n')};
    for (int round = 0; round < 20000; ++round) {
        const auto count = std::uniform_int_distribution<std::size_t>(0, 12)(rng);
        std::string input;
        for (std::size_t i = 0; i < count; ++i) {
            input += pieces[std::uniform_int_distribution<std::size_t>(0, pieces.size() - 1)(rng)];
        }
        ASSERT_NO_THROW(feed_relpath(input)) << "round " << round;
    }
}

TEST_P(AReceiptCorpusInput, PassesTheReceiptFuzzHarness)
{
    const auto input = read_file(GetParam());
    EXPECT_NO_THROW(feed_receipt(input)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Replay, AReceiptCorpusInput, ::testing::ValuesIn(corpus_files("receipt")), corpus_test_name);

TEST(MutatedReceiptCorpusInputs, PassTheReceiptFuzzHarness)
{
    std::mt19937 rng(20261202U); // fixed seed: a failure reproduces
    const auto files = corpus_files("receipt");
    ASSERT_FALSE(files.empty());
    const std::string interesting = "\n=0a-./+ absent";
    for (int round = 0; round < 20000; ++round) {
        const auto& file = files[static_cast<std::size_t>(round) % files.size()];
        const auto input = mutated(read_file(file), rng, interesting, 3);
        ASSERT_NO_THROW(feed_receipt(input)) << "round " << round << ":\n" << input;
    }
}

TEST_P(ALaunchSpecCorpusInput, PassesTheLaunchSpecFuzzHarness)
{
    const auto input = read_file(GetParam());
    EXPECT_NO_THROW(feed_launch_spec(input)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Replay, ALaunchSpecCorpusInput, ::testing::ValuesIn(corpus_files("launch_spec")),
                         corpus_test_name);

TEST(MutatedLaunchSpecCorpusInputs, PassTheLaunchSpecFuzzHarness)
{
    std::mt19937 rng(20261203U); // fixed seed: a failure reproduces
    const auto files = corpus_files("launch_spec");
    ASSERT_FALSE(files.empty());
    const std::string interesting{'\n', ' ', '/', '.', '=', '0', '9', '-', 'a', 'A', '\0', '\x7f'};
    for (int round = 0; round < 20000; ++round) {
        const auto& file = files[static_cast<std::size_t>(round) % files.size()];
        const auto input = mutated(read_file(file), rng, interesting, 3);
        ASSERT_NO_THROW(feed_launch_spec(input)) << "round " << round << ":\n" << input;
    }
}

TEST_P(ALaunchSpecBytesCorpusInput, PassesTheLaunchSpecBytesFuzzHarness)
{
    const auto input = read_file(GetParam());
    EXPECT_NO_THROW(feed_launch_spec_bytes(input)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Replay, ALaunchSpecBytesCorpusInput, ::testing::ValuesIn(corpus_files("launch_spec_bytes")),
                         corpus_test_name);

TEST(MutatedLaunchSpecBytesCorpusInputs, PassTheLaunchSpecBytesFuzzHarness)
{
    std::mt19937 rng(20261215U); // fixed seed: a failure reproduces
    const auto files = corpus_files("launch_spec_bytes");
    ASSERT_FALSE(files.empty());
    const std::string interesting{'\0', '\x01', '\x02', '\x7f', '\xff', '/', '=', 'a'};
    for (int round = 0; round < 20000; ++round) {
        const auto& file = files[static_cast<std::size_t>(round) % files.size()];
        const auto input = mutated(read_file(file), rng, interesting, 3);
        ASSERT_NO_THROW(feed_launch_spec_bytes(input)) << "round " << round;
    }
}

TEST_P(ASupervisorArgsCorpusInput, PassesTheSupervisorArgsFuzzHarness)
{
    const auto input = read_file(GetParam());
    EXPECT_NO_THROW(feed_supervisor_args(input)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Replay, ASupervisorArgsCorpusInput, ::testing::ValuesIn(corpus_files("supervisor_args")),
                         corpus_test_name);

TEST(MutatedSupervisorArgsCorpusInputs, PassTheSupervisorArgsFuzzHarness)
{
    std::mt19937 rng(20261204U); // fixed seed: a failure reproduces
    const auto files = corpus_files("supervisor_args");
    ASSERT_FALSE(files.empty());
    const std::string interesting{'\n', ',', '-', '0', '1', '2', '3', '9', 'a', '_', 'A', ' ', '\0'};
    for (int round = 0; round < 20000; ++round) {
        const auto& file = files[static_cast<std::size_t>(round) % files.size()];
        const auto input = mutated(read_file(file), rng, interesting, 3);
        ASSERT_NO_THROW(feed_supervisor_args(input)) << "round " << round << ":\n" << input;
    }
}

TEST(TheGatewayControlCorpus, HoldsRegistrationsTheDecoderAccepts)
{
    // Refused seeds would pass the harness too, but then the mutations
    // would never reach the checks an accepted registration gets.
    std::size_t registrations = 0;
    for (const auto& file : corpus_files("gateway_control")) {
        if (file.filename().string().starts_with("register-")) {
            ++registrations;
            EXPECT_NO_THROW((void)nr::core::decode_gateway_control(read_file(file))) << file;
        }
    }
    EXPECT_GE(registrations, 4U);
}

TEST_P(AGatewayControlCorpusInput, PassesTheGatewayControlFuzzHarness)
{
    const auto input = read_file(GetParam());
    EXPECT_NO_THROW(feed_gateway_control(input)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Replay, AGatewayControlCorpusInput, ::testing::ValuesIn(corpus_files("gateway_control")),
                         corpus_test_name);

TEST(MutatedGatewayControlCorpusInputs, PassTheGatewayControlFuzzHarness)
{
    std::mt19937 rng(20261205U); // fixed seed: a failure reproduces
    const auto files = corpus_files("gateway_control");
    ASSERT_FALSE(files.empty());
    const std::string interesting{'\n', '\t', '=', '.', ':', '/', '0', '9', 'a', 'f', 'A', ' ', '-', '\0'};
    for (int round = 0; round < 20000; ++round) {
        const auto& file = files[static_cast<std::size_t>(round) % files.size()];
        const auto input = mutated(read_file(file), rng, interesting, 3);
        ASSERT_NO_THROW(feed_gateway_control(input)) << "round " << round << ":\n" << input;
    }
}

TEST_P(AGatewayRouteCorpusInput, PassesTheGatewayRouteFuzzHarness)
{
    const auto input = read_file(GetParam());
    EXPECT_NO_THROW(feed_gateway_route(input)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Replay, AGatewayRouteCorpusInput, ::testing::ValuesIn(corpus_files("gateway_route")),
                         corpus_test_name);

TEST(MutatedGatewayRouteCorpusInputs, PassTheGatewayRouteFuzzHarness)
{
    std::mt19937 rng(20261206U); // fixed seed: a failure reproduces
    const auto files = corpus_files("gateway_route");
    ASSERT_FALSE(files.empty());
    const std::string interesting{'\n', '/', ':', '.', '?', '#', '0', '4', '3', 'A', ' ', '\r', '\0', '\xff'};
    for (int round = 0; round < 20000; ++round) {
        const auto& file = files[static_cast<std::size_t>(round) % files.size()];
        const auto input = mutated(read_file(file), rng, interesting, 3);
        ASSERT_NO_THROW(feed_gateway_route(input)) << "round " << round << ":\n" << input;
    }
}

TEST_P(AGatewayRequestCorpusInput, PassesTheGatewayRequestFuzzHarness)
{
    const auto input = read_file(GetParam());
    EXPECT_NO_THROW(feed_gateway_request(input)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Replay, AGatewayRequestCorpusInput, ::testing::ValuesIn(corpus_files("gateway_request")),
                         corpus_test_name);

TEST(MutatedGatewayRequestCorpusInputs, PassTheGatewayRequestFuzzHarness)
{
    std::mt19937 rng(20261203U); // fixed seed: a failure reproduces
    const auto files = corpus_files("gateway_request");
    ASSERT_FALSE(files.empty());
    const std::string interesting{'\n', ':', ',', ' ', '\t', '\r', '0', '9', 'c', 'C', '-', '\0', '\xff'};
    for (int round = 0; round < 20000; ++round) {
        const auto& file = files[static_cast<std::size_t>(round) % files.size()];
        const auto input = mutated(read_file(file), rng, interesting, 3);
        ASSERT_NO_THROW(feed_gateway_request(input)) << "round " << round << ":\n" << input;
    }
}

TEST_P(ATlsClientHelloCorpusInput, PassesTheTlsClientHelloFuzzHarness)
{
    const auto input = read_file(GetParam());
    EXPECT_NO_THROW(feed_tls_client_hello(input)) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Replay, ATlsClientHelloCorpusInput, ::testing::ValuesIn(corpus_files("tls_client_hello")),
                         corpus_test_name);

TEST(MutatedTlsClientHelloCorpusInputs, PassTheTlsClientHelloFuzzHarness)
{
    std::mt19937 rng(20261207U); // fixed seed: a failure reproduces
    const auto files = corpus_files("tls_client_hello");
    ASSERT_FALSE(files.empty());
    // Record and handshake types, version bytes, length bytes, the ECH and
    // ESNI extension codes, and name characters.
    const std::string interesting{'\x00', '\x01', '\x02', '\x03', '\x16', '\x17', '\x40', '\x7f',
                                  '\x80', '\xfe', '\x0d', '\xff', '\xce', '.',    'A',    '_'};
    for (int round = 0; round < 20000; ++round) {
        const auto& file = files[static_cast<std::size_t>(round) % files.size()];
        const auto input = mutated(read_file(file), rng, interesting, 3);
        ASSERT_NO_THROW(feed_tls_client_hello(input)) << "round " << round;
    }
}
