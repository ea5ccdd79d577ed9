// SPDX-License-Identifier: Apache-2.0
// The egress gateway under attack (issue 24): it is one process shared by
// every owner's `network: gateway` sessions, so a hostile session must never
// cut another owner's session off. In each test a VICTIM session of one
// owner asks its provider for an answer every 150 ms while an ATTACKER
// session of another owner runs one attack of tests/probe/nr-gateway-attack
// through the same gateway. Every test then requires that the victim got
// 200 for every request it made, that the gateway is still the same process
// (active, NRestarts unchanged), that its memory (MemoryCurrent, sampled
// every 100 ms) never rose more than 32 MiB above what it was before the
// attack, and that the gateway answered the attack as specified.
//
// The limits the answers depend on are set small for this suite in
// tests/integration/config.yaml (gateway.header_timeout_sec and the others
// below), so that each test ends in seconds.

#include "gateway_fixture.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <limits>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

using namespace nr::itest;

namespace {

constexpr const char* kAttack = "/usr/libexec/native-runtime/tests/nr-gateway-attack";
// tests/integration/config.yaml's gateway section.
constexpr int kMaxConnectionsPerSession = 64;
constexpr int kHeaderTimeoutSec = 3;
// gateway.max_tunnels_per_session's default.
constexpr int kMaxTunnelsPerSession = 32;
constexpr std::uint64_t kMiB = 1ULL << 20U;
constexpr std::uint64_t kMemoryMargin = 32 * kMiB;
// What the victim does: a provider request every this many ms.
constexpr const char* kVictimIntervalMs = "150";
// How far beyond what the gateway may read the attacker's kernel may have
// buffered: its own send buffer and the gateway's receive buffer.
constexpr std::uint64_t kMetadataSentBound = 64 * kMiB;
// The per-session refusal records the gateway may write per 10 s before it
// summarises (kRefusalBurst per kRefusalWindowUsec in
// core/gateway/refusal_tally.h), over the few windows a test lasts.
constexpr std::size_t kRefusalBurst = 20;
constexpr std::uint64_t kRefusalWindowMs = 10'000;
constexpr std::size_t kMaxRefusalRecords = 60;

// The records a session may leave over elapsed_ms: a burst per window the
// time touches, and one more window for the edges.
std::size_t refusal_records_allowed(std::uint64_t elapsed_ms)
{
    return kRefusalBurst * static_cast<std::size_t>(elapsed_ms / kRefusalWindowMs + 2);
}

// The sanitizer run (scripts/run-integration with build-asan) gives the
// gateway a drop-in of its own; its ASan build is slower and keeps freed
// memory in quarantine.
bool sanitizer_run()
{
    return std::filesystem::exists("/run/systemd/system/native-runtime-gateway.service.d/90-sanitizer-reports.conf");
}

// A VM under qemu's emulation (TCG: systemd-detect-virt says qemu, not
// kvm), as tests/integration/run-vm boots where there is no KVM: the
// gateway answers a few hundred requests a second there.
bool emulated_machine()
{
    return run({"systemd-detect-virt", "--vm"}).out == "qemu\n";
}

std::int64_t unix_ms()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::size_t occurrences(const std::string& text, const std::string& part)
{
    std::size_t count = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) {
        ++count;
    }
    return count;
}

// "408:3,closed:61" -> {"408": 3, "closed": 61}
std::map<std::string, std::uint64_t> tally_of(const std::string& text)
{
    std::map<std::string, std::uint64_t> tally;
    std::stringstream items(text);
    std::string item;
    while (std::getline(items, item, ',')) {
        const auto colon = item.rfind(':');
        if (colon != std::string::npos) {
            tally[item.substr(0, colon)] = std::stoull(item.substr(colon + 1));
        }
    }
    return tally;
}

std::uint64_t number(const std::map<std::string, std::string>& lines, const std::string& key)
{
    const auto it = lines.find(key);
    if (it == lines.end() || it->second.empty()) {
        // A bound checked against an absent count would hold for nothing.
        ADD_FAILURE() << "the attacker printed no " << key << "=";
        return 0;
    }
    return std::stoull(it->second);
}

std::string value_of(const std::map<std::string, std::string>& lines, const std::string& key)
{
    const auto it = lines.find(key);
    return it == lines.end() ? "<absent>" : it->second;
}

std::vector<std::string> attacker_session(const std::string& owner, const std::string& chat,
                                          const std::vector<std::string>& args)
{
    std::vector<std::string> command{kAttack};
    command.insert(command.end(), args.begin(), args.end());
    return as_user(kWorker, ctl_run(owner, chat, "gateway-attack", command));
}

// How many records the gateway wrote about `unit` with
// NATIVE_RUNTIME_GATEWAY_REFUSED=refusal. journald stores a record some time
// after the gateway sent it (seconds on a busy emulated VM, after the
// attacker has long exited), so an empty answer is asked again for up to
// 15 s before it counts as none.
std::size_t refusal_record_count(const std::string& unit, const std::string& refusal)
{
    std::size_t count = 0;
    eventually(15, [&] {
        count = occurrences(run({"journalctl", "-b", "-q", "-o", "verbose", "--no-pager", "-u", kGatewayUnit,
                                 "NATIVE_RUNTIME_UNIT=" + unit, "NATIVE_RUNTIME_GATEWAY_REFUSED=" + refusal})
                                .out,
                            "NATIVE_RUNTIME_GATEWAY_REFUSED=");
        return count > 0;
    });
    return count;
}

// The refusals the gateway's summary records of `unit` count, summed
// (core/gateway/refusal_tally.h: the ones beyond 20 per 10 s get no record of their
// own).
std::uint64_t summarised_refusals(const std::string& unit)
{
    const auto records = run({"journalctl", "-b", "-q", "-o", "verbose", "--no-pager", "-u", kGatewayUnit,
                              "NATIVE_RUNTIME_UNIT=" + unit})
                             .out;
    static const std::regex kCount("NATIVE_RUNTIME_GATEWAY_REFUSALS=([0-9]+)");
    std::uint64_t sum = 0;
    for (std::sregex_iterator it(records.begin(), records.end(), kCount), end; it != end; ++it) {
        sum += std::stoull((*it)[1].str());
    }
    return sum;
}

// The upstream's exchange log, one JSON object a line (model_endpoint.py):
// {"received": ...} when a request's header arrived, the others when it
// was complete; "attack" is nr-gateway-attack's X-NR-Attack.
std::vector<nlohmann::json> upstream_lines(const ModelEndpoint& endpoint)
{
    std::vector<nlohmann::json> lines;
    std::stringstream log(endpoint.exchanges());
    std::string line;
    while (std::getline(log, line)) {
        auto parsed = nlohmann::json::parse(line, nullptr, false);
        if (parsed.is_object()) {
            lines.push_back(std::move(parsed));
        }
    }
    return lines;
}

// How many requests of `attack` reached the upstream at all (arrived) or
// whole (complete).
std::size_t upstream_saw(const ModelEndpoint& endpoint, const std::string& attack, bool complete)
{
    const auto lines = upstream_lines(endpoint);
    return static_cast<std::size_t>(std::count_if(lines.begin(), lines.end(), [&](const nlohmann::json& line) {
        return line.value("attack", "") == attack && line.contains("received") != complete;
    }));
}

// The gateway's MemoryCurrent, every 100 ms from construction to stop().
class MemorySampler {
public:
    MemorySampler() : baseline_(sample()), thread_([this] { loop(); }) {}
    MemorySampler(const MemorySampler&) = delete;
    MemorySampler& operator=(const MemorySampler&) = delete;
    MemorySampler(MemorySampler&&) = delete;
    MemorySampler& operator=(MemorySampler&&) = delete;
    ~MemorySampler() { stop(); }

    void stop()
    {
        done_ = true;
        if (thread_.joinable()) {
            thread_.join();
        }
    }

    [[nodiscard]] std::optional<std::uint64_t> baseline() const { return baseline_; }
    [[nodiscard]] std::uint64_t peak() const { return peak_; }
    [[nodiscard]] std::size_t samples() const { return samples_; }

    // MemoryCurrent in bytes; none when systemd does not account it
    // ("[not set]") or the gateway is not running.
    static std::optional<std::uint64_t> sample()
    {
        const auto value = unit_property(kGatewayUnit, "MemoryCurrent");
        if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos) {
            return std::nullopt;
        }
        return std::stoull(value);
    }

private:
    void loop()
    {
        while (!done_) {
            if (const auto bytes = sample()) {
                peak_ = std::max(peak_.load(), *bytes);
                ++samples_;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    }

    std::optional<std::uint64_t> baseline_;
    std::atomic<std::uint64_t> peak_{0};
    std::atomic<std::size_t> samples_{0};
    std::atomic<bool> done_{false};
    std::thread thread_;
};

struct VictimAnswer {
    std::string status;
    std::int64_t at_ms = 0; // when it arrived (unix ms)
    std::int64_t took_ms = 0;
};

// A session of another owner using its provider: nr-gateway-client's
// repeat mode, stopped by the test.
class Victim {
public:
    Victim(std::string owner, std::string chat, const std::string& interval_ms = kVictimIntervalMs)
        : owner_(std::move(owner)), chat_(std::move(chat)),
          session_(owners_client_session(owner_, chat_, {"repeat", "/responses", interval_ms}))
    {
    }

    [[nodiscard]] const std::string& owner() const { return owner_; }
    [[nodiscard]] std::string unit() const { return unit_of(owner_, chat_); }

    // Its first requests were counted by the gateway.
    bool served()
    {
        return eventually(60, [&] { return gateway_count(status_json(owner_, chat_), "session", "requests") > 0; });
    }

    std::vector<VictimAnswer> stop()
    {
        (void)run({kCtl, "stop", "--owner", owner_, "--chat", chat_});
        output_ = session_.wait();
        std::vector<VictimAnswer> answers;
        std::stringstream lines(output_.out);
        std::string line;
        while (std::getline(lines, line)) {
            if (line.starts_with("status=")) {
                answers.push_back({line.substr(7), 0, 0});
            } else if (line.starts_with("answered=") && !answers.empty()) {
                const auto comma = line.find(',');
                answers.back().at_ms = std::stoll(line.substr(9, comma - 9));
                answers.back().took_ms = std::stoll(line.substr(comma + 1));
            }
        }
        return answers;
    }

    [[nodiscard]] const Outcome& output() const { return output_; }

private:
    std::string owner_;
    std::string chat_;
    Background session_;
    Outcome output_;
};

// What a test saw of the victim and the gateway around one attack.
struct Watch {
    std::vector<VictimAnswer> victim;
    std::string victim_output;
    std::optional<std::uint64_t> memory_before;
    std::uint64_t memory_peak = 0;
    std::size_t memory_samples = 0;
    std::string restarts_before;
    std::string restarts_after;
    // A gateway started anew (socket activation) is active too, with
    // NRestarts unchanged: only its main process tells.
    std::string pid_before;
    std::string pid_after;
    bool gateway_active = false;
};

std::string mib(std::uint64_t bytes)
{
    std::ostringstream out;
    out.precision(1);
    out << std::fixed << static_cast<double>(bytes) / static_cast<double>(kMiB) << " MiB";
    return out.str();
}

class AGatewayUnderAttack : public GatewayFixture {
protected:
    // Runs `during` (the attack) while a victim of owner "carol<tag>" uses
    // its provider, and records what the victim and the gateway went through.
    static Watch watch(const std::string& tag, const std::function<void()>& during)
    {
        Watch watched;
        Victim victim("carol" + tag, "victim");
        if (!victim.served()) {
            ADD_FAILURE() << "control: the victim's requests never reached the gateway";
        }
        watched.restarts_before = unit_property(kGatewayUnit, "NRestarts");
        watched.pid_before = gateway_main_pid();
        {
            MemorySampler memory;
            during();
            // The victim goes on a little after the attack has ended.
            std::this_thread::sleep_for(std::chrono::seconds(1));
            memory.stop();
            watched.memory_before = memory.baseline();
            watched.memory_peak = memory.peak();
            watched.memory_samples = memory.samples();
        }
        watched.restarts_after = unit_property(kGatewayUnit, "NRestarts");
        watched.pid_after = gateway_main_pid();
        watched.gateway_active = unit_is_active(kGatewayUnit);
        watched.victim = victim.stop();
        watched.victim_output = victim.output().out + victim.output().err;
        report(victim.owner(), watched);
        return watched;
    }

    static void report(const std::string& owner, const Watch& watched)
    {
        const auto ok = std::count_if(watched.victim.begin(), watched.victim.end(),
                                      [](const VictimAnswer& answer) { return answer.status == "200"; });
        std::int64_t slowest = 0;
        for (const auto& answer : watched.victim) {
            slowest = std::max(slowest, answer.took_ms);
        }
        std::cout << "[ victim   ] " << owner << ": " << watched.victim.size() << " requests, " << ok
                  << " answered 200, slowest " << slowest << " ms\n";
        std::cout << "[ memory   ] gateway MemoryCurrent before "
                  << (watched.memory_before ? mib(*watched.memory_before) : "unknown") << ", peak "
                  << mib(watched.memory_peak) << " (" << watched.memory_samples << " samples)\n";
        std::cout << "[ gateway  ] MainPID " << watched.pid_before << " -> " << watched.pid_after << ", NRestarts "
                  << watched.restarts_before << " -> " << watched.restarts_after
                  << (watched.gateway_active ? ", active" : ", NOT active") << "\n";
    }

    // What every attack must leave as it was: the victim served throughout,
    // the same gateway process, its memory within bounds.
    static void expect_unharmed(const Watch& watched)
    {
        EXPECT_FALSE(watched.victim.empty()) << "the victim made no request: " << watched.victim_output;
        std::size_t failed = 0;
        std::string failures;
        for (const auto& answer : watched.victim) {
            if (answer.status != "200") {
                ++failed;
                failures += " " + answer.status;
            }
        }
        EXPECT_EQ(failed, 0U) << "of the victim's " << watched.victim.size() << " requests:" << failures;
        EXPECT_TRUE(watched.gateway_active) << "the gateway is no longer active";
        EXPECT_EQ(watched.restarts_after, watched.restarts_before) << "the gateway was restarted";
        EXPECT_EQ(watched.pid_after, watched.pid_before) << "the gateway is another process";
        ASSERT_TRUE(watched.memory_before.has_value())
            << "MemoryCurrent of the gateway could not be read before the attack";
        EXPECT_GT(watched.memory_samples, 0U);
        // The sanitizer run's gateway is the ASan build, whose allocator
        // keeps freed memory in quarantine (256 MiB by design): there the
        // peak is printed, and the bound is held by the plain run.
        if (sanitizer_run()) {
            std::cout << "[ memory   ] not bounded in the sanitizer run (ASan's quarantine)\n";
            return;
        }
        EXPECT_LE(watched.memory_peak, *watched.memory_before + kMemoryMargin)
            << "the gateway's memory rose from " << mib(*watched.memory_before) << " to " << mib(watched.memory_peak);
    }

    // The attack in a session of owner "mallory<tag>"; its key=value lines.
    static std::map<std::string, std::string> attack(const std::string& tag, const std::vector<std::string>& args)
    {
        const auto ran = run(attacker_session("mallory" + tag, "attack", args));
        std::cout << "[ attack   ] " << args.front() << ":";
        for (const auto& [key, value] : parse_lines(ran.out)) {
            std::cout << " " << key << "=" << value;
        }
        std::cout << "\n";
        EXPECT_EQ(ran.status, 0) << ran.out << ran.err;
        return parse_lines(ran.out);
    }

    // An endless chunk-size line or trailer: refused before the body
    // without the token; with it, cut once the metadata is over the limit.
    void expect_endless_metadata_refused(const std::string& tag, const std::string& mode, bool with_token)
    {
        const auto endpoint = upstream();
        std::map<std::string, std::string> lines;
        const auto watched = watch(tag, [&] {
            lines = attack(tag, {mode, with_token ? "token" : "no-token", "1024"});
        });
        expect_unharmed(watched);
        const auto status = value_of(lines, "status");
        if (with_token) {
            const bool refused = status == "400" && value_of(lines, "refused") == "bad-chunk";
            EXPECT_TRUE(refused || status == "closed" || status == "reset")
                << "status " << status << ", refusal " << value_of(lines, "refused");
        } else {
            EXPECT_EQ(status, "403");
            EXPECT_EQ(value_of(lines, "refused"), "token");
        }
        EXPECT_LE(number(lines, "sent_bytes"), kMetadataSentBound)
            << "the gateway was still reading when the attacker had sent that much";
        EXPECT_EQ(upstream_saw(*endpoint, mode, true), 0U) << endpoint->exchanges();
    }
};

} // namespace

TEST_F(AGatewayUnderAttack, RefusesAnEndlessChunkSizeLineWithoutTheTokenBeforeReadingItsBody)
{
    expect_endless_metadata_refused("chunk", "endless-chunk-size", false);
}

TEST_F(AGatewayUnderAttack, CutsAnEndlessChunkSizeLineWithTheTokenAtTheMetadataLimit)
{
    expect_endless_metadata_refused("chunktok", "endless-chunk-size", true);
}

TEST_F(AGatewayUnderAttack, RefusesAnEndlessTrailerWithoutTheTokenBeforeReadingItsBody)
{
    expect_endless_metadata_refused("trailer", "endless-trailer", false);
}

TEST_F(AGatewayUnderAttack, CutsAnEndlessTrailerWithTheTokenAtTheMetadataLimit)
{
    expect_endless_metadata_refused("trailertok", "endless-trailer", true);
}

TEST_F(AGatewayUnderAttack, KeepsAtMostItsConnectionLimitOfIdleConnectionsAndTimesTheRestOut)
{
    const auto endpoint = upstream();
    std::map<std::string, std::string> lines;
    // Settling for half a second less than the header timeout: a gateway
    // that held every connection would still hold all it accepted in the
    // burst's last half second, hundreds, when the probe last looks.
    const auto watched = watch("idle", [&] {
        lines = attack("idle", {"idle-connections", "30000", std::to_string(kHeaderTimeoutSec - 1) + ".5", "5"});
    });
    expect_unharmed(watched);
    EXPECT_GT(number(lines, "opened"), 1000U) << "control: the attacker opened connections";
    EXPECT_LE(number(lines, "fewest_open_while_settling"), static_cast<std::uint64_t>(kMaxConnectionsPerSession))
        << "more idle connections open than the session's limit, all the time before the header timeout";
    EXPECT_EQ(number(lines, "open_at_end"), 0U) << "idle connections outlived gateway.header_timeout_sec";
    EXPECT_GE(tally_of(value_of(lines, "refusals"))["header-timeout"], 1U)
        << "no idle connection was answered 408 header-timeout";

    const auto unit = unit_of("malloryidle", "attack");
    const auto records = refusal_record_count(unit, "connection-limit");
    EXPECT_GE(records, 1U) << "no connection-limit record";
    EXPECT_LE(records, kMaxRefusalRecords) << "refusal records are not rate-limited";
    EXPECT_TRUE(eventually(15, [&] { return summarised_refusals(unit) > 0; })) << "no summary of the refusals";
}

TEST_F(AGatewayUnderAttack, ClosesSlowBodiesBeyondItsConnectionLimit)
{
    const auto endpoint = upstream();
    std::map<std::string, std::string> lines;
    const auto watched = watch("slow", [&] {
        lines = attack("slow", {"slow-bodies", "200", std::to_string(4 * kMiB), "8192", "8"});
    });
    expect_unharmed(watched);
    EXPECT_EQ(number(lines, "opened"), 200U) << "control: the attacker opened its connections";
    EXPECT_GT(number(lines, "body_bytes_sent"), 0U) << "control: the attacker sent bodies";
    EXPECT_LE(number(lines, "sending_at_end"), static_cast<std::uint64_t>(kMaxConnectionsPerSession));
}

TEST_F(AGatewayUnderAttack, EstablishesAtMostItsTunnelLimitAndClosesTunnelsWithoutAClientHello)
{
    const auto endpoint = upstream();
    std::map<std::string, std::string> lines;
    const auto target = std::string(kTunnelName) + ":" + std::to_string(kUpstreamPort);
    const auto watched = watch("tunnels", [&] { lines = attack("tunnels", {"idle-tunnels", target, "2000", "6"}); });
    expect_unharmed(watched);
    EXPECT_GT(number(lines, "opened"), static_cast<std::uint64_t>(kMaxConnectionsPerSession))
        << "control: the attacker opened connections";
    EXPECT_GE(number(lines, "established"), 1U) << "control: a tunnel to an allowed host is established";
    // At once: a tunnel closed for its missing ClientHello frees its place,
    // which a later CONNECT may take on a slow machine.
    EXPECT_LE(number(lines, "established_at_once"), static_cast<std::uint64_t>(kMaxTunnelsPerSession));
    EXPECT_GE(tally_of(value_of(lines, "refusals"))["tunnel-limit"], 1U) << "no CONNECT was refused tunnel-limit";
    EXPECT_GE(tally_of(value_of(lines, "answers"))["503"], 1U);
    EXPECT_EQ(number(lines, "established_open_at_end"), 0U)
        << "tunnels without a ClientHello outlived gateway.header_timeout_sec (" << kHeaderTimeoutSec << " s)";
}

TEST_F(AGatewayUnderAttack, RefusesEveryAmbiguousFramingBeforeTheUpstreamSeesIt)
{
    const auto endpoint = upstream();
    std::map<std::string, std::string> lines;
    const auto watched = watch("framing", [&] { lines = attack("framing", {"framing"}); });
    expect_unharmed(watched);
    for (const std::string framing : {"te-cl", "te-list-cl", "te-gzip", "two-cl", "obs-fold"}) {
        EXPECT_EQ(value_of(lines, framing + "_status"), "400") << framing;
        EXPECT_EQ(value_of(lines, framing + "_refused"), "bad-framing") << framing;
        EXPECT_EQ(upstream_saw(*endpoint, framing, false), 0U) << framing << " reached the upstream";
    }
}

TEST_F(AGatewayUnderAttack, RefusesTraceBeforeTheKeyIsAdded)
{
    const auto endpoint = upstream();
    std::map<std::string, std::string> lines;
    const auto watched = watch("trace", [&] { lines = attack("trace", {"trace"}); });
    expect_unharmed(watched);
    EXPECT_EQ(value_of(lines, "trace_status"), "405");
    EXPECT_EQ(value_of(lines, "trace_refused"), "method");
    EXPECT_NE(value_of(lines, "trace_allow"), "") << "a 405 names the allowed methods";
    EXPECT_FALSE(contains(value_of(lines, "trace_echoed_authorization"), real_key_)) << "TRACE echoed the real key";
    EXPECT_EQ(upstream_saw(*endpoint, "trace", false), 0U) << "TRACE reached the upstream";
}

TEST_F(AGatewayUnderAttack, RefusesDoubleSlashAndDotSegmentTargetsBeforeTheKeyIsAdded)
{
    const auto endpoint = upstream();
    std::map<std::string, std::string> lines;
    const auto watched = watch("paths", [&] { lines = attack("paths", {"odd-targets"}); });
    expect_unharmed(watched);
    for (const std::string target : {"double-slash", "dot-segment"}) {
        EXPECT_EQ(value_of(lines, target + "_status"), "400") << target;
        EXPECT_EQ(value_of(lines, target + "_refused"), "bad-path") << target;
        EXPECT_EQ(upstream_saw(*endpoint, target, false), 0U) << target << " reached the upstream";
    }
}

TEST_F(AGatewayUnderAttack, ClosesATunnelWhoseClientHelloNamesAnotherHost)
{
    const auto endpoint = upstream();
    std::map<std::string, std::string> lines;
    const auto target = std::string(kTunnelName) + ":" + std::to_string(kUpstreamPort);
    const auto watched = watch("sni", [&] { lines = attack("sni", {"fronting", target, kUpstreamName}); });
    expect_unharmed(watched);
    EXPECT_EQ(value_of(lines, "fronted_status"), "200") << "control: CONNECT to an allowed host";
    EXPECT_NE(value_of(lines, "fronted_tls"), "ok")
        << "a handshake for " << kUpstreamName << " went through a tunnel to " << kTunnelName;
    EXPECT_EQ(value_of(lines, "control_status"), "200");
    EXPECT_EQ(value_of(lines, "control_tls"), "ok") << "control: the tunnel's own name completes the handshake";
    EXPECT_GE(refusal_record_count(unit_of("mallorysni", "attack"), "sni-mismatch"), 1U) << "no sni-mismatch record";
}

TEST_F(AGatewayUnderAttack, CountsThreeAcceptedRequestsExactlyAfterAFloodOfRefusedOnes)
{
    const auto endpoint = upstream();
    const std::string owner = "mallorypipe";
    const std::string chat = "attack";
    const auto started_ms = unix_ms();
    const auto since = "@" + std::to_string(started_ms / 1000);
    // A count, not a duration: every refused request is answered however
    // slow the machine. The ASan gateway answers about a third as fast, and
    // an emulated one (some 370 a second) a tenth, so those runs flood with
    // fewer, for a minute or more at a rate still beyond journald's 10000
    // records per 30 s were each refusal recorded; the deadline is a safety
    // net.
    const std::size_t flood = emulated_machine() ? 20000 : sanitizer_run() ? 50000 : 200000;
    constexpr int kDeadlineSec = 240;
    nlohmann::json status;
    Outcome attacker;
    const auto watched = watch("pipe", [&] {
        Background session(attacker_session(
            owner, chat, {"pipelined-refusals", std::to_string(flood), "3", std::to_string(kDeadlineSec), "60"}));
        // The three accepted requests reached the upstream: the attack is over.
        const bool accepted =
            eventually(kDeadlineSec + 20, [&] { return upstream_saw(*endpoint, "accepted", true) == 3; });
        EXPECT_TRUE(accepted) << "control: the accepted requests reached the upstream";
        const bool counted = eventually(10, [&] {
            status = status_json(owner, chat);
            return gateway_count(status, "session", "requests") - gateway_count(status, "session", "refused") == 3;
        });
        EXPECT_TRUE(counted) << "status of the attacker's session after its accepted requests: " << status.dump();
        (void)run({kCtl, "stop", "--owner", owner, "--chat", chat});
        attacker = session.wait();
    });
    expect_unharmed(watched);
    const auto lines = parse_lines(attacker.out);
    std::cout << "[ attack   ] pipelined-refusals: " << attacker.out;
    EXPECT_EQ(number(lines, "refused_answered"), flood) << attacker.out << attacker.err;
    EXPECT_EQ(value_of(lines, "accepted_statuses"), "200,200,200") << attacker.out;
    std::cout << "[ status   ] requests " << gateway_count(status, "session", "requests") << ", refused "
              << gateway_count(status, "session", "refused") << "\n";
    const auto journald = run({"journalctl", "-q", "-o", "cat", "--no-pager", "--since", since}).out;
    std::string suppressed;
    std::stringstream journal_lines(journald);
    for (std::string line; std::getline(journal_lines, line);) {
        if (contains(line, "Suppressed") && contains(line, "native-runtime-gateway")) {
            suppressed += line + "\n";
        }
    }
    EXPECT_EQ(suppressed, "") << "journald dropped records of the gateway";
    // Without the refusal tally every refused request gets its record, and
    // journald may still keep them all: the count shows the tally at work
    // (a flood of tens of thousands against a few dozen records allowed).
    const auto records = refusal_record_count(unit_of(owner, chat), "not-a-provider");
    EXPECT_GE(records, 1U) << "no not-a-provider record";
    EXPECT_LE(records, refusal_records_allowed(static_cast<std::uint64_t>(unix_ms() - started_ms)))
        << "refusal records are not rate-limited";
}

TEST_F(AGatewayUnderAttack, LosesNoSessionWhenTheGatewayIsKilled)
{
    const auto endpoint = upstream();
    // Two owners' sessions, both using their providers.
    std::vector<std::unique_ptr<Victim>> victims;
    victims.push_back(std::make_unique<Victim>("carolkill", "victim", "200"));
    victims.push_back(std::make_unique<Victim>("davekill", "victim", "200"));
    std::vector<std::string> main_pids;
    std::vector<std::string> tokens;
    for (const auto& victim : victims) {
        ASSERT_TRUE(victim->served()) << "control: " << victim->unit() << " is served";
        main_pids.push_back(unit_property(victim->unit(), "MainPID"));
        tokens.push_back(session_env(victim->unit(), "OPENAI_API_KEY"));
        ASSERT_FALSE(tokens.back().empty()) << process_tree(victim->unit());
    }
    const auto restarts = unit_property(kGatewayUnit, "NRestarts");
    const auto killed_pid = gateway_main_pid();
    const auto killed_at = unix_ms();
    ASSERT_EQ(run({"systemctl", "kill", "-s", "KILL", kGatewayUnit}).status, 0);
    const bool back = eventually(10, [&] { return unit_is_active(kGatewayUnit) && gateway_main_pid() != killed_pid; });
    EXPECT_TRUE(back) << "the gateway did not come back: " << run({"systemctl", "status", kGatewayUnit}).out;
    // The window in which every victim must be answered again. It bounds
    // the wait, not the product's speed: under emulation (the VMs) a
    // restarted gateway answered after about 5 s, in the harness sooner.
    constexpr std::int64_t kWindowMs = 12000;
    std::this_thread::sleep_for(std::chrono::milliseconds(kWindowMs - (unix_ms() - killed_at)));
    EXPECT_EQ(unit_property(kGatewayUnit, "NRestarts"),
              std::to_string(std::stoi(restarts.empty() ? "0" : restarts) + 1))
        << "NRestarts before the kill: " << restarts;
    for (std::size_t i = 0; i < victims.size(); ++i) {
        const auto unit = victims[i]->unit();
        EXPECT_EQ(unit_property(unit, "MainPID"), main_pids[i]) << unit << " is not the same session";
        EXPECT_EQ(session_env(unit, "OPENAI_API_KEY"), tokens[i]) << unit << " has another token";
        const auto answers = victims[i]->stop();
        std::size_t before = 0;
        std::size_t after = 0;
        std::optional<std::int64_t> again_ms;
        for (const auto& answer : answers) {
            if (answer.at_ms < killed_at) {
                ++before;
                EXPECT_EQ(answer.status, "200") << unit << " before the kill";
            } else {
                ++after;
                if (answer.status == "200" && !again_ms) {
                    again_ms = answer.at_ms - killed_at;
                }
            }
        }
        std::cout << "[ victim   ] " << unit << ": " << before << " requests before the kill, " << after
                  << " after; 200 again " << (again_ms ? std::to_string(*again_ms) + " ms" : "never")
                  << " after the kill\n";
        EXPECT_GT(before, 0U) << victims[i]->output().out;
        EXPECT_TRUE(again_ms.has_value()) << unit << " never got 200 after the kill";
        EXPECT_LE(again_ms.value_or(std::numeric_limits<std::int64_t>::max()), kWindowMs) << unit;
    }
}
