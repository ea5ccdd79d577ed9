// SPDX-License-Identifier: Apache-2.0
// The stdio-host contract for SDK agents (docs/adapters.md): what a runtime
// like Cursor's SDK host, which runs its agent loop and local executor as
// one stdio process, needs from a session. The stand-in host
// (nr-stdio-host, from native-runtime-tests) speaks one JSON object a line;
// the worker side is this test: it starts each session through the bus as
// the worker user (`native-runtimectl run`, which hands its own stdin,
// stdout and stderr, the test's pipes, to StartSession) and reads the
// session's output itself.

#include "fixture.h"

#include <gtest/gtest.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <poll.h>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace nr::itest;

namespace {

constexpr const char* kHost = "nr-stdio-host";
constexpr const char* kSyntheticKey = "CURSOR_API_KEY=sk-synthetic-stdio-host";

std::string read_text(const std::filesystem::path& path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string random_tag()
{
    std::random_device device;
    return "nr-tool-" + std::to_string(device()) + std::to_string(device());
}

bool unit_is_gone(const std::string& unit)
{
    return unit_property(unit, "LoadState") == "not-found";
}

std::vector<pid_t> all_pids()
{
    std::vector<pid_t> pids;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        const auto name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") == std::string::npos) {
            pids.push_back(std::stoi(name));
        }
    }
    return pids;
}

// Every process whose cgroup is the unit's (root in the harness sees the
// processes of every session, whatever its PID namespace).
std::vector<pid_t> processes_in(const std::string& unit)
{
    std::vector<pid_t> found;
    for (const pid_t pid : all_pids()) {
        if (contains(read_text("/proc/" + std::to_string(pid) + "/cgroup"), "/" + unit)) {
            found.push_back(pid);
        }
    }
    return found;
}

bool some_process_mentions(const std::string& text)
{
    for (const pid_t pid : all_pids()) {
        if (contains(read_text("/proc/" + std::to_string(pid) + "/cmdline"), text)) {
            return true;
        }
    }
    return false;
}

// The host itself: the process of the unit named after nr-stdio-host (the
// kernel names a script's process after the script; bwrap's command line
// names the host too, after "--", but its name is bwrap).
pid_t host_process(const std::string& unit)
{
    for (const pid_t pid : processes_in(unit)) {
        if (read_text("/proc/" + std::to_string(pid) + "/comm") == std::string(kHost) + "\n") {
            return pid;
        }
    }
    return -1;
}

// A "Name:   value ..." field of /proc/PID/status or /proc/PID/io.
long proc_field(pid_t pid, const std::string& file, const std::string& name)
{
    std::istringstream lines(read_text("/proc/" + std::to_string(pid) + "/" + file));
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind(name + ":", 0) == 0) {
            return std::stol(line.substr(name.size() + 1));
        }
    }
    return -1;
}

pid_t child_of(pid_t parent)
{
    std::istringstream children(
        read_text("/proc/" + std::to_string(parent) + "/task/" + std::to_string(parent) + "/children"));
    pid_t child = -1;
    children >> child;
    return child;
}

// A program run with all three of its stdio as the test's pipes, read line
// by line with a deadline. It runs in its own process group, killed at the
// end if still there.
class Piped {
public:
    explicit Piped(const std::vector<std::string>& argv, const std::vector<std::string>& env = {})
    {
        std::array<int, 2> in{};
        std::array<int, 2> out{};
        std::array<int, 2> err{};
        if (pipe2(in.data(), O_CLOEXEC) != 0 || pipe2(out.data(), O_CLOEXEC) != 0 ||
            pipe2(err.data(), O_CLOEXEC) != 0) {
            throw std::runtime_error("pipe2 failed");
        }
        pid_ = fork();
        if (pid_ == 0) {
            setpgid(0, 0);
            dup2(in[0], STDIN_FILENO);
            dup2(out[1], STDOUT_FILENO);
            dup2(err[1], STDERR_FILENO);
            for (const auto& assignment : env) {
                putenv(const_cast<char*>(assignment.c_str())); // NOLINT: lives until exec
            }
            std::vector<char*> c_argv;
            for (const auto& arg : argv) {
                c_argv.push_back(const_cast<char*>(arg.c_str())); // NOLINT: execvp ABI
            }
            c_argv.push_back(nullptr);
            execvp(c_argv[0], c_argv.data());
            _exit(127);
        }
        close(in[0]);
        close(out[1]);
        close(err[1]);
        in_ = in[1];
        out_ = out[0];
        err_ = err[0];
        fcntl(err_, F_SETFL, O_NONBLOCK);
    }
    Piped(const Piped&) = delete;
    Piped& operator=(const Piped&) = delete;
    Piped(Piped&&) = delete;
    Piped& operator=(Piped&&) = delete;
    ~Piped()
    {
        if (pid_ > 0) {
            kill(-pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        for (const int fd : {in_, out_, err_}) {
            if (fd >= 0) {
                close(fd);
            }
        }
    }

    [[nodiscard]] pid_t pid() const { return pid_; }

    void send(const std::string& line)
    {
        const auto data = line + "\n";
        ASSERT_EQ(write(in_, data.data(), data.size()), static_cast<ssize_t>(data.size()));
    }

    // The next line of stdout (without '\n'), or nullopt after `limit_sec`
    // or at end of file.
    std::optional<std::string> line(int limit_sec)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit_sec);
        while (true) {
            const auto newline = pending_.find('\n');
            if (newline != std::string::npos) {
                auto found = pending_.substr(0, newline);
                pending_.erase(0, newline + 1);
                return found;
            }
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0 || !fill(static_cast<int>(left.count()))) {
                return std::nullopt;
            }
        }
    }

    // The next line whose text contains `part`; lines before it are kept in
    // `skipped`.
    std::optional<std::string> line_with(const std::string& part, int limit_sec)
    {
        while (auto next = line(limit_sec)) {
            if (contains(*next, part)) {
                return next;
            }
            skipped.push_back(*next);
        }
        return std::nullopt;
    }

    // Reads and discards stdout, never keeping more than one line, until a
    // line contains `part` (true) or `limit_sec` passes; counts the bytes.
    bool drain_until(const std::string& part, int limit_sec, std::size_t& drained)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit_sec);
        while (std::chrono::steady_clock::now() < deadline) {
            std::size_t newline = 0;
            while ((newline = pending_.find('\n')) != std::string::npos) {
                const bool hit = contains(pending_.substr(0, newline), part);
                drained += newline + 1;
                pending_.erase(0, newline + 1);
                if (hit) {
                    return true;
                }
            }
            if (!fill(1000)) {
                continue;
            }
        }
        return false;
    }

    // Bytes the kernel holds in the stdout pipe, unread.
    [[nodiscard]] int unread_bytes() const
    {
        int count = -1;
        ioctl(out_, FIONREAD, &count);
        return count;
    }

    void close_input()
    {
        close(in_);
        in_ = -1;
    }
    void close_output()
    {
        close(out_);
        out_ = -1;
    }

    // Exit status (128+N for signal N), or -1 if still running after `limit_sec`.
    int wait(int limit_sec)
    {
        int wstatus = 0;
        const bool done = eventually(limit_sec, [&] { return waitpid(pid_, &wstatus, WNOHANG) == pid_; });
        if (!done) {
            return -1;
        }
        pid_ = -1;
        return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    }

    // What the program wrote to stderr so far.
    std::string err()
    {
        std::array<char, 4096> buffer{};
        ssize_t n = 0;
        while ((n = read(err_, buffer.data(), buffer.size())) > 0) {
            err_text_.append(buffer.data(), static_cast<std::size_t>(n));
        }
        return err_text_;
    }

    std::vector<std::string> skipped;

private:
    bool fill(int timeout_ms)
    {
        pollfd ready{out_, POLLIN, 0};
        if (poll(&ready, 1, timeout_ms) <= 0) {
            return false;
        }
        std::array<char, 65536> buffer{};
        const auto n = read(out_, buffer.data(), buffer.size());
        if (n <= 0) {
            return false;
        }
        pending_.append(buffer.data(), static_cast<std::size_t>(n));
        return true;
    }

    pid_t pid_ = -1;
    int in_ = -1;
    int out_ = -1;
    int err_ = -1;
    std::string pending_;
    std::string err_text_;
};

// The worker's view of a session: `native-runtimectl run ... -- nr-stdio-host`
// as the worker user, with the synthetic credential forwarded by name.
std::unique_ptr<Piped> host_session(const std::string& owner, const std::string& chat, bool with_key = true)
{
    std::vector<std::string> argv{kCtl, "run", "--owner", owner, "--chat", chat, "--adapter", "stdio-host"};
    if (with_key) {
        argv.insert(argv.end(), {"--env", "CURSOR_API_KEY"});
    }
    argv.insert(argv.end(), {"--", kHost});
    return std::make_unique<Piped>(as_user(kWorker, argv),
                                   with_key ? std::vector<std::string>{kSyntheticKey} : std::vector<std::string>{});
}

// SessionEnded as broadcast on the bus, seen by a bus monitor started
// before the session: "result code status" of `unit`, or "" if none came.
class EndedSignals {
public:
    EndedSignals()
        : monitor_({"stdbuf", "-oL", "busctl", "monitor", "--system", "--json=short",
                    "--match=type='signal',interface='org.metis.NativeRuntime1.Manager',member='SessionEnded'"})
    {
        // Subscribed once busctl has printed anything or a moment passed.
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }

    std::string of(const std::string& unit, int limit_sec)
    {
        while (auto line = monitor_.line(limit_sec)) {
            // {"type":"signal",...,"payload":{"type":"sssssii","data":[unit,owner,chat,job,result,code,status]}}
            const auto data = line->find("\"data\":[\"" + unit + "\"");
            if (data == std::string::npos) {
                continue;
            }
            std::string fields = line->substr(data + 8);
            fields = fields.substr(0, fields.find(']'));
            // unit, owner, chat, job, result, code, status
            std::vector<std::string> parts;
            std::stringstream split(fields);
            std::string part;
            while (std::getline(split, part, ',')) {
                if (part.size() >= 2 && part.front() == '"') {
                    part = part.substr(1, part.size() - 2);
                }
                parts.push_back(part);
            }
            if (parts.size() == 7) {
                return parts[4] + " " + parts[5] + " " + parts[6];
            }
        }
        return "";
    }

private:
    Piped monitor_;
};

std::string ready_line(Piped& session)
{
    auto ready = session.line(60);
    EXPECT_TRUE(ready) << session.err();
    return ready.value_or("");
}

} // namespace

TEST(AnSdkHostsFirstEvent, ReachesTheWorkerWhileItsTurnIsStillRunning)
{
    const auto unit = unit_of("sdkearly", "c");
    auto session = host_session("sdkearly", "c");
    const auto ready = ready_line(*session);
    EXPECT_TRUE(contains(ready, R"("type":"ready")")) << ready;
    EXPECT_TRUE(contains(ready, R"("user":"nrworker")")) << ready;
    EXPECT_TRUE(contains(ready, std::string(R"("home":")") + kDataDir + "/native-runtime/sdkearly/home\"")) << ready;

    // The turn cannot end before the worker acknowledges its first event.
    session->send(R"({"type":"send","run":"r1","script":"ack"})");
    const auto first = session->line(30);
    ASSERT_TRUE(first) << session->err();
    EXPECT_TRUE(contains(*first, R"("run":"r1","seq":1,"kind":"started")")) << *first;
    EXPECT_TRUE(unit_is_active(unit));
    EXPECT_GT(host_process(unit), 0) << "the host still runs while the worker holds its first event";
    EXPECT_FALSE(session->line(1)) << "nothing else came: the turn is still open";

    session->send(R"({"type":"ack","run":"r1"})");
    const auto result = session->line(30);
    ASSERT_TRUE(result);
    EXPECT_EQ(*result, R"({"type":"result","run":"r1","status":"finished"})");
    // The end of the worker's input ends a host with nothing left to do.
    session->close_input();
    EXPECT_EQ(session->wait(60), 0) << session->err();
}

TEST(AWorkerThatClosesItsEndsOfAHostsStream, StopsTheSessionAndLeavesNothingRunning)
{
    const auto unit = unit_of("sdkdispose", "c");
    const auto tag = random_tag();
    EndedSignals ended;
    auto session = host_session("sdkdispose", "c");
    ready_line(*session);
    // The local executor runs a long tool call; the host is silent meanwhile
    // and, like a host that ignores EPIPE, would never notice on its own.
    session->send(R"({"type":"send","run":"r1","script":"tool","command":["sh","-c","sleep 300; : )" + tag + R"("]})");
    ASSERT_TRUE(session->line_with(R"("kind":"tool_call")", 30)) << session->err();
    ASSERT_TRUE(eventually(30, [&] { return some_process_mentions(tag); })) << "control: the tool runs";
    const auto cli = child_of(session->pid());
    ASSERT_GT(cli, 0);

    session->close_input();
    session->close_output();

    EXPECT_EQ(ended.of(unit, 60), "success 2 13") << "the typed end: output reader gone (SIGPIPE)";
    EXPECT_EQ(session->wait(60), 128 + SIGPIPE) << session->err();
    EXPECT_TRUE(contains(session->err(), "stopped reading the session's output")) << session->err();
    EXPECT_TRUE(eventually(60, [&] { return unit_is_gone(unit); })) << unit_property(unit, "ActiveState");
    EXPECT_EQ(processes_in(unit).size(), 0U);
    EXPECT_FALSE(some_process_mentions(tag)) << "the tool died with the session";
}

TEST(AWorkerThatOnlyClosesAHostsInput, LetsTheRunningTurnFinishAndTheHostExit)
{
    // The half-close is not a disposal: the output is still read.
    auto session = host_session("sdkhalf", "c");
    ready_line(*session);
    session->send(R"({"type":"send","run":"r1","script":"tool","command":["sh","-c","sleep 2; echo done"]})");
    ASSERT_TRUE(session->line_with(R"("kind":"tool_call")", 30)) << session->err();
    session->close_input();
    const auto tool = session->line_with(R"("kind":"tool_result")", 30);
    ASSERT_TRUE(tool) << session->err();
    EXPECT_TRUE(contains(*tool, R"("exit":0,"output":"done\n")")) << *tool;
    const auto result = session->line(30);
    ASSERT_TRUE(result);
    EXPECT_EQ(*result, R"({"type":"result","run":"r1","status":"finished"})");
    EXPECT_EQ(session->wait(60), 0) << session->err();
}

TEST(TwoConcurrentHostSessions, CompleteIndependentlyEachWithItsOwnResults)
{
    const auto unit_a = unit_of("sdkpara", "a");
    auto a = host_session("sdkpara", "a");
    auto b = host_session("sdkparb", "b");
    const auto ready_a = ready_line(*a);
    const auto ready_b = ready_line(*b);
    EXPECT_TRUE(contains(ready_a, "/native-runtime/sdkpara/home\"")) << ready_a;
    EXPECT_TRUE(contains(ready_b, "/native-runtime/sdkparb/home\"")) << ready_b;

    // A's turn stays open (waiting for its ack) while B's runs to its end.
    a->send(R"({"type":"send","run":"a1","script":"ack"})");
    ASSERT_TRUE(a->line_with(R"("run":"a1","seq":1,"kind":"started")", 30)) << a->err();
    b->send(R"({"type":"send","run":"b1","script":"echo","prompt":"from b"})");
    const auto b_text = b->line_with(R"("kind":"text")", 30);
    ASSERT_TRUE(b_text) << b->err();
    EXPECT_TRUE(contains(*b_text, R"("run":"b1")") && contains(*b_text, "echo: from b")) << *b_text;
    const auto b_result = b->line(30);
    ASSERT_TRUE(b_result);
    EXPECT_EQ(*b_result, R"({"type":"result","run":"b1","status":"finished"})");
    b->close_input();
    EXPECT_EQ(b->wait(60), 0) << b->err();
    EXPECT_TRUE(unit_is_active(unit_a)) << "B ended while A's turn was still open";

    a->send(R"({"type":"ack","run":"a1"})");
    const auto a_result = a->line(30);
    ASSERT_TRUE(a_result);
    EXPECT_EQ(*a_result, R"({"type":"result","run":"a1","status":"finished"})");
    a->close_input();
    EXPECT_EQ(a->wait(60), 0) << a->err();
    for (const auto& line : a->skipped) {
        EXPECT_FALSE(contains(line, "b1")) << "A got a line of B's: " << line;
    }
}

TEST(CancellingAHostsRun, KillsItsToolAndEndsTheRunAsCancelledWhileTheSessionGoesOn)
{
    const auto unit = unit_of("sdkcancel", "c");
    const auto tag = random_tag();
    auto session = host_session("sdkcancel", "c");
    ready_line(*session);
    session->send(R"({"type":"send","run":"r1","script":"tool","command":["sh","-c","sleep 300; : )" + tag + R"("]})");
    ASSERT_TRUE(session->line_with(R"("kind":"tool_call")", 30)) << session->err();
    ASSERT_TRUE(eventually(30, [&] { return some_process_mentions(tag); })) << "control: the tool runs";

    session->send(R"({"type":"cancel","run":"r1"})");
    const auto result = session->line_with(R"("type":"result")", 30);
    ASSERT_TRUE(result) << session->err();
    EXPECT_EQ(*result, R"({"type":"result","run":"r1","status":"cancelled"})");
    EXPECT_TRUE(eventually(30, [&] { return !some_process_mentions(tag); })) << "the tool died with its run";
    EXPECT_TRUE(unit_is_active(unit));

    session->send(R"({"type":"send","run":"r2","script":"echo","prompt":"after"})");
    const auto next = session->line_with(R"("type":"result")", 30);
    ASSERT_TRUE(next);
    EXPECT_EQ(*next, R"({"type":"result","run":"r2","status":"finished"})");
    session->close_input();
    EXPECT_EQ(session->wait(60), 0) << session->err();
}

TEST(StoppingAHostSessionOverTheBus, EndsItMidTurnWithATypedResultAndLeavesNothingRunning)
{
    const auto unit = unit_of("sdkstop", "c");
    const auto tag = random_tag();
    EndedSignals ended;
    auto session = host_session("sdkstop", "c");
    ready_line(*session);
    session->send(R"({"type":"send","run":"r1","script":"tool","command":["sh","-c","sleep 300; : )" + tag + R"("]})");
    ASSERT_TRUE(session->line_with(R"("kind":"tool_call")", 30)) << session->err();
    ASSERT_TRUE(eventually(30, [&] { return some_process_mentions(tag); })) << "control: the tool runs";

    EXPECT_EQ(run(as_user(kWorker, {kCtl, "stop", "--owner", "sdkstop", "--chat", "c"})).status, 0);
    EXPECT_EQ(ended.of(unit, 60), "success 2 15") << "the typed end: stopped (SIGTERM)";
    EXPECT_EQ(session->wait(60), 128 + SIGTERM) << session->err();
    EXPECT_TRUE(eventually(60, [&] { return unit_is_gone(unit); }));
    EXPECT_EQ(processes_in(unit).size(), 0U);
    EXPECT_FALSE(some_process_mentions(tag));
}

TEST(AHostRunWhoseToolFails, EndsWithATypedErrorAndTheSessionGoesOn)
{
    auto session = host_session("sdkerror", "c");
    ready_line(*session);
    session->send(R"({"type":"send","run":"r1","script":"fail","command":["sh","-c","echo boom; exit 4"]})");
    const auto error = session->line_with(R"("type":"error")", 30);
    ASSERT_TRUE(error) << session->err();
    EXPECT_EQ(*error, R"({"type":"error","run":"r1","code":"tool_failed",)"
                      R"("message":"the tool exited with status 4: boom","retryable":false})");

    session->send("this is not json");
    const auto invalid = session->line(30);
    ASSERT_TRUE(invalid);
    EXPECT_TRUE(contains(*invalid, R"("type":"error","run":null,"code":"invalid_request")")) << *invalid;

    session->send(R"({"type":"send","run":"r2","script":"echo"})");
    const auto next = session->line_with(R"("type":"result")", 30);
    ASSERT_TRUE(next);
    EXPECT_EQ(*next, R"({"type":"result","run":"r2","status":"finished"})");
    session->close_input();
    EXPECT_EQ(session->wait(60), 0) << session->err();
}

TEST(AHostWithoutItsCredential, EndsWithATypedErrorLineAndExitStatus)
{
    const auto unit = unit_of("sdknokey", "c");
    EndedSignals ended;
    auto session = host_session("sdknokey", "c", false);
    const auto error = session->line(60);
    ASSERT_TRUE(error) << session->err();
    EXPECT_EQ(*error, R"({"type":"error","run":null,"code":"unauthenticated",)"
                      R"("message":"CURSOR_API_KEY is not set","retryable":false})");
    EXPECT_EQ(ended.of(unit, 60), "exit-code 1 3");
    EXPECT_EQ(session->wait(60), 3) << session->err();
}

TEST(AHostThatFloodsItsOutput, BlocksOnTheWorkersPipeWithoutGrowingTheReaderTheCliOrTheHelper)
{
    const auto unit = unit_of("sdkflood", "c");
    auto session = host_session("sdkflood", "c");
    ready_line(*session);
    session->send(R"({"type":"send","run":"f1","script":"flood"})");
    const auto started = session->line_with(R"("kind":"started")", 30);
    ASSERT_TRUE(started) << session->err();
    const auto pipe_max = std::stol(read_text("/proc/sys/fs/pipe-max-size"));
    // The host tried 1 GiB first; the kernel gave it at most pipe-max-size.
    EXPECT_TRUE(contains(*started, "\"pipe_size\":" + std::to_string(pipe_max) + "}")) << *started;

    const pid_t host = host_process(unit);
    const pid_t cli = child_of(session->pid());
    const auto helper = std::stoi(unit_property("native-runtimed.service", "MainPID"));
    ASSERT_GT(host, 0);
    ASSERT_GT(cli, 0);
    ASSERT_GT(helper, 0);

    // The worker stops reading. Once the pipe is full, the host's writes
    // block: the bytes it has written stop growing.
    long written = -1;
    ASSERT_TRUE(eventually(30, [&] {
        const auto before = proc_field(host, "io", "wchar");
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        written = proc_field(host, "io", "wchar");
        return before == written;
    })) << "the host never blocked";
    const auto self = getpid();
    const std::map<std::string, pid_t> watched{{"reader", self}, {"cli", cli}, {"helper", helper}};
    std::map<std::string, long> rss_before;
    for (const auto& [name, pid] : watched) {
        rss_before[name] = proc_field(pid, "status", "VmRSS");
    }
    const auto buffered = session->unread_bytes();

    std::this_thread::sleep_for(std::chrono::seconds(5));

    EXPECT_EQ(proc_field(host, "io", "wchar"), written) << "the host wrote nothing more while nobody read";
    EXPECT_EQ(session->unread_bytes(), buffered);
    EXPECT_GT(buffered, 0);
    EXPECT_LE(buffered, pipe_max) << "the pipe holds at most its capacity";
    std::string waits;
    for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(host) + "/task")) {
        waits += read_text(task.path() / "wchan") + " ";
    }
    EXPECT_TRUE(contains(waits, "pipe_write")) << "a thread of the host sleeps in pipe_write: " << waits;
    EXPECT_TRUE(unit_is_active(unit)) << "blocked, not killed";
    for (const auto& [name, pid] : watched) {
        const auto after = proc_field(pid, "status", "VmRSS");
        std::cout << name << " VmRSS " << rss_before[name] << " kB -> " << after << " kB, VmHWM "
                  << proc_field(pid, "status", "VmHWM") << " kB\n";
        EXPECT_LE(after - rss_before[name], 1024) << name << " grew while the host flooded";
    }
    std::cout << "host wrote " << written << " bytes, " << buffered << " of them unread in the pipe (capacity "
              << pipe_max << ")\n";

    // Flow control, not a kill: once the worker reads again, the host goes on.
    std::size_t drained = 0;
    EXPECT_FALSE(session->drain_until("never-in-a-line", 3, drained));
    EXPECT_GT(drained, static_cast<std::size_t>(4 * pipe_max)) << "the host went on writing";
    EXPECT_GT(proc_field(host, "io", "wchar"), written);

    // Positive control for the memory measurement: a reader that keeps what
    // it reads does grow, by about what it kept.
    {
        constexpr std::size_t kKept = 16U << 20U;
        const auto rss_reading = proc_field(self, "status", "VmRSS");
        std::vector<std::string> kept;
        std::size_t kept_bytes = 0;
        while (kept_bytes < kKept) {
            auto next = session->line(30);
            ASSERT_TRUE(next);
            kept_bytes += next->size();
            kept.push_back(std::move(*next));
        }
        const auto grown = proc_field(self, "status", "VmRSS") - rss_reading;
        std::cout << "control: a reader keeping " << kept_bytes << " bytes grew by " << grown << " kB\n";
        EXPECT_GE(grown, static_cast<long>(kKept / 2 / 1024));
    }

    session->send(R"({"type":"cancel","run":"f1"})");
    ASSERT_TRUE(session->drain_until(R"("type":"result","run":"f1","status":"cancelled")", 30, drained));
    session->close_input();
    EXPECT_EQ(session->wait(60), 0) << session->err();
}
