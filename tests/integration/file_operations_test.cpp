// File operations the helper performs for the worker (docs/file-operations.md):
// real filesystem, real helper activated over the bus, the CLI run as the
// unprivileged worker. Every refusal has a twin that succeeds, and the
// planted links point at another owner's file the worker's own UID could
// read, so only the helper's resolution rules can be what refuses them.

#include "fixture.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <grp.h>
#include <iostream>
#include <iterator>
#include <pwd.h>

using namespace nr::itest;

namespace {

constexpr const char* kSnapshotDir = "/var/lib/nr-snapshots";
constexpr const char* kOwner = "alice";
constexpr const char* kChat = "files";
constexpr const char* kScratch = "/home/nrworker/files-test";
const std::string kWorkspace = std::string(kDataDir) + "/native-runtime/alice/chats/files/workspace";
const std::string kBobSecret = std::string(kDataDir) + "/native-runtime/bob/home/secret.txt";

void must(const std::vector<std::string>& argv)
{
    const auto outcome = run(argv);
    ASSERT_EQ(outcome.status, 0) << argv.front() << ": " << outcome.err;
}

void as_worker(const std::string& script)
{
    must(as_user(kWorker, {"sh", "-c", script}));
}

std::string slurp(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void put(const std::string& path, const std::string& content)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

Outcome file_read(const std::string& relpath, const std::string& owner = kOwner, const std::string& chat = kChat)
{
    return run(as_user(kWorker, {kCtl, "file", "read", "--owner", owner, "--chat", chat, relpath}));
}

// stdin of the CLI comes from `content` through a pipe in sh.
Outcome with_stdin(const std::string& content, const std::vector<std::string>& ctl_args)
{
    std::string command = "printf '%s' \"$NR_CONTENT\" | " + std::string(kCtl);
    for (const auto& arg : ctl_args) {
        command += " '" + arg + "'";
    }
    return run(as_user(kWorker, {"env", "NR_CONTENT=" + content, "sh", "-c", command}));
}

Outcome file_write(const std::string& relpath, const std::string& content)
{
    return with_stdin(content, {"file", "write", "--owner", kOwner, "--chat", kChat, relpath});
}

void expect_refused(const Outcome& outcome, const std::string& kind)
{
    EXPECT_EQ(outcome.status, 65) << outcome.err;
    EXPECT_NE(outcome.err.find("org.metis.NativeRuntime1.Error." + kind), std::string::npos) << outcome.err;
}

// Grants the helper's unit write access to the data dir and the snapshot
// dir the way operators do (install-dropins writes the helper's drop-in
// beside the application's), and restarts it.
void grant_helper_write_access()
{
    put("/etc/systemd/system/nr-files-app.service", "[Service]\nExecStart=/bin/true\n");
    must({"systemctl", "daemon-reload"});
    must({kCtl, "install-dropins", "--unit", "nr-files-app.service"});
    run({"systemctl", "stop", "native-runtimed.service"});
}

class FileOperations : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        must({kCtl, "provision-snapshot-dir", "--group", "native-runtime", kSnapshotDir});
        grant_helper_write_access();
        as_worker("mkdir -p -m 0700 " + kWorkspace + " " + kScratch);
        as_worker("printf inside > " + kWorkspace + "/plain.txt");
    }
};

} // namespace

TEST_F(FileOperations, AFileInTheWorkspaceIsReadThroughTheHelper)
{
    const auto outcome = file_read("plain.txt");
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(outcome.out, "inside");
}

TEST_F(FileOperations, ASymlinkPlantedInPlaceOfTheFileIsRefused)
{
    // Control: the worker's own UID can read the target directly.
    EXPECT_EQ(run(as_user(kWorker, {"cat", kBobSecret})).out, "bob-secret\n");
    as_worker("ln -sfn " + kBobSecret + " " + kWorkspace + "/link.txt");
    const auto outcome = file_read("link.txt");
    expect_refused(outcome, "InvalidPath");
    EXPECT_EQ(outcome.out, "");
}

TEST_F(FileOperations, ASymlinkPlantedInPlaceOfAParentDirectoryIsRefused)
{
    as_worker("ln -sfn " + std::string(kDataDir) + "/native-runtime/bob/home " + kWorkspace + "/bobs");
    const auto outcome = file_read("bobs/secret.txt");
    expect_refused(outcome, "InvalidPath");
    EXPECT_EQ(outcome.out, "");
}

TEST_F(FileOperations, AHardLinkToAFileOutsideIsRefused)
{
    as_worker("ln -f " + kBobSecret + " " + kWorkspace + "/hard.txt");
    const auto outcome = file_read("hard.txt");
    expect_refused(outcome, "UnsafeFile");
    EXPECT_EQ(outcome.out, "");
}

TEST_F(FileOperations, TheProcMagicLinksAreNotFollowed)
{
    as_worker("ln -sfn /proc/self/root " + kWorkspace + "/procroot; ln -sfn /proc/self/cwd " + kWorkspace + "/proccwd");
    for (const auto* relpath : {"procroot/etc/passwd", "proccwd/plain.txt"}) {
        const auto outcome = file_read(relpath);
        expect_refused(outcome, "InvalidPath");
        EXPECT_EQ(outcome.out, "") << relpath;
    }
}

TEST_F(FileOperations, ADotDotPathIsRefusedBeforeAnythingIsOpened)
{
    expect_refused(file_read("../../../bob/home/secret.txt"), "InvalidPath");
    expect_refused(file_read("/etc/passwd"), "InvalidPath");
}

TEST_F(FileOperations, AFileTheWorkerCannotReadItselfIsNeverReturned)
{
    put(kWorkspace + "/root-only.txt", "root-only-canary");
    must({"chmod", "0600", kWorkspace + "/root-only.txt"});
    // Controls: root (the helper's UID) can read it, the worker cannot.
    EXPECT_EQ(run({"cat", kWorkspace + "/root-only.txt"}).out, "root-only-canary");
    EXPECT_NE(run(as_user(kWorker, {"cat", kWorkspace + "/root-only.txt"})).status, 0);
    const auto outcome = file_read("root-only.txt");
    expect_refused(outcome, "AccessDenied");
    EXPECT_EQ(outcome.out.find("canary"), std::string::npos);
}

TEST_F(FileOperations, AWriteReplacesTheFileAsTheWorker)
{
    const auto outcome = file_write("written.txt", "downloaded");
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(slurp(kWorkspace + "/written.txt"), "downloaded");
    struct stat st {};
    ASSERT_EQ(::stat((kWorkspace + "/written.txt").c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, ::getpwnam(kWorker)->pw_uid);
    EXPECT_EQ(st.st_mode & 07777, 0600U);
}

TEST_F(FileOperations, AWriteOverAPlantedSymlinkIsRefusedAndItsTargetUnchanged)
{
    as_worker("ln -sfn " + kBobSecret + " " + kWorkspace + "/download.txt");
    expect_refused(file_write("download.txt", "overwritten"), "InvalidPath");
    EXPECT_EQ(slurp(kBobSecret), "bob-secret\n");
}

TEST_F(FileOperations, ASymlinkSwappedInATightLoopWhileTheHelperReadsNeverEscapes)
{
    // The worker's UID flips race.txt between a regular file and a symlink
    // to another owner's secret as fast as it can, while reads go on for a
    // bounded time. Every read must be the safe content or a refusal.
    const std::string swapper = "import os,sys,time\n"
                                "d=sys.argv[1]; s=sys.argv[2]; end=time.time()+9\n"
                                "while time.time()<end:\n"
                                "  try: os.unlink(d+'/t.lnk')\n"
                                "  except OSError: pass\n"
                                "  os.symlink(s, d+'/t.lnk'); os.rename(d+'/t.lnk', d+'/race.txt')\n"
                                "  open(d+'/t.reg','w').write('safe-content'); os.rename(d+'/t.reg', d+'/race.txt')\n";
    put(std::string(kScratch) + "/swap.py", swapper);
    Background loop(as_user(kWorker, {"python3", std::string(kScratch) + "/swap.py", kWorkspace, kBobSecret}));
    int safe = 0;
    int refused_reads = 0;
    int escapes = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(8);
    while (std::chrono::steady_clock::now() < until) {
        const auto outcome = file_read("race.txt");
        if (outcome.out.find("bob-secret") != std::string::npos) {
            ++escapes;
        } else if (outcome.status == 0 && outcome.out == "safe-content") {
            ++safe;
        } else if (outcome.status == 65) {
            ++refused_reads;
        }
    }
    loop.wait();
    EXPECT_EQ(escapes, 0);
    // Both outcomes occurred, so the race was live while the helper read.
    EXPECT_GT(safe, 0);
    EXPECT_GT(refused_reads, 0);
    std::cout << "swap loop: " << safe << " safe reads, " << refused_reads << " refusals, " << escapes << " escapes\n";
}

TEST_F(FileOperations, AFileReplacedInATightLoopIsReadWholeOrRefusedAsChanged)
{
    const std::string flipper = "import os,sys,time\n"
                                "d=sys.argv[1]; end=time.time()+6\n"
                                "a='A'*300000; b='B'*100\n"
                                "i=0\n"
                                "while time.time()<end:\n"
                                "  open(d+'/f.tmp','w').write(a if i%2 else b); os.rename(d+'/f.tmp', d+'/flip.txt')\n"
                                "  i+=1\n";
    put(std::string(kScratch) + "/flip.py", flipper);
    Background loop(as_user(kWorker, {"python3", std::string(kScratch) + "/flip.py", kWorkspace}));
    int whole = 0;
    int torn = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < until) {
        const auto outcome = file_read("flip.txt");
        if (outcome.status != 0) {
            continue;
        }
        if (outcome.out == std::string(300000, 'A') || outcome.out == std::string(100, 'B')) {
            ++whole;
        } else {
            ++torn;
        }
    }
    loop.wait();
    EXPECT_EQ(torn, 0);
    EXPECT_GT(whole, 0);
}

// ---- receipts ----

namespace {

std::string record_edit(const std::string& relpath, const std::string& before, const std::string& job = "job-1")
{
    const auto outcome =
        with_stdin(before, {"file", "record-edit", "--owner", kOwner, "--chat", kChat, "--job", job, relpath});
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    return outcome.out;
}

std::string receipt_file(const std::string& name, const std::string& text)
{
    const auto path = std::string(kScratch) + "/" + name;
    put(path, text);
    must({"chown", kWorker, path});
    return path;
}

Outcome diff(const std::string& receipt_path, const std::string& owner = kOwner, const std::string& chat = kChat,
             const std::string& job = "job-1")
{
    return run(as_user(kWorker, {kCtl, "file", "diff", "--owner", owner, "--chat", chat, "--job", job, "--receipt",
                                 receipt_path, "--before-to", std::string(kScratch) + "/before.out", "--after-to",
                                 std::string(kScratch) + "/after.out"}));
}

Outcome revert(const std::string& receipt_path)
{
    return run(as_user(kWorker, {kCtl, "file", "revert", "--owner", kOwner, "--chat", kChat, "--job", "job-1",
                                 "--receipt", receipt_path}));
}

std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

} // namespace

TEST_F(FileOperations, ARecordedEditShowsItsDiffAndReverts)
{
    ASSERT_EQ(file_write("edit.txt", "after-edit").status, 0);
    const auto receipt = receipt_file("r-ok", record_edit("edit.txt", "before-edit"));
    const auto shown = diff(receipt);
    EXPECT_EQ(shown.status, 0) << shown.err;
    EXPECT_EQ(slurp(std::string(kScratch) + "/before.out"), "before-edit");
    EXPECT_EQ(slurp(std::string(kScratch) + "/after.out"), "after-edit");
    const auto reverted = revert(receipt);
    EXPECT_EQ(reverted.status, 0) << reverted.err;
    EXPECT_EQ(slurp(kWorkspace + "/edit.txt"), "before-edit");
}

TEST_F(FileOperations, AReceiptOfAnotherOwnerChatOrJobIsRefused)
{
    ASSERT_EQ(file_write("bound.txt", "v2").status, 0);
    const auto receipt = receipt_file("r-bound", record_edit("bound.txt", "v1"));
    EXPECT_EQ(diff(receipt).status, 0); // control
    expect_refused(diff(receipt, "bob"), "ReceiptMismatch");
    expect_refused(diff(receipt, kOwner, "other-chat"), "ReceiptMismatch");
    expect_refused(diff(receipt, kOwner, kChat, "job-2"), "ReceiptMismatch");
}

TEST_F(FileOperations, AForgedOrEditedReceiptIsRefused)
{
    ASSERT_EQ(file_write("forged.txt", "v2").status, 0);
    const auto text = record_edit("forged.txt", "v1");
    EXPECT_EQ(diff(receipt_file("r-genuine", text)).status, 0); // control
    // Edited to name another owner, or another file: the MAC no longer fits.
    expect_refused(diff(receipt_file("r-owner", replaced(text, "owner=alice", "owner=bobby")), "bobby"),
                   "ReceiptInvalid");
    expect_refused(diff(receipt_file("r-path", replaced(text, "path=forged.txt", "path=plain.txt"))), "ReceiptInvalid");
    // Made up from scratch with a guessed MAC.
    const auto mac_at = text.find("mac=");
    ASSERT_NE(mac_at, std::string::npos);
    expect_refused(diff(receipt_file("r-made-up", text.substr(0, mac_at) + "mac=" + std::string(64, '0') + "\n")),
                   "ReceiptInvalid");
    expect_refused(diff(receipt_file("r-garbage", "not a receipt\n")), "ReceiptInvalid");
}

TEST_F(FileOperations, AReceiptIsStaleAfterALaterEdit)
{
    ASSERT_EQ(file_write("stale.txt", "v2").status, 0);
    const auto receipt = receipt_file("r-stale", record_edit("stale.txt", "v1"));
    EXPECT_EQ(diff(receipt).status, 0); // control
    ASSERT_EQ(file_write("stale.txt", "v3").status, 0);
    expect_refused(diff(receipt), "ReceiptStale");
    expect_refused(revert(receipt), "ReceiptStale");
    EXPECT_EQ(slurp(kWorkspace + "/stale.txt"), "v3");
}

TEST_F(FileOperations, TheSnapshotDirIsRootOwnedGroupSharedMode2770WithReceipts0640)
{
    struct stat st {};
    ASSERT_EQ(::lstat(kSnapshotDir, &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 02770U);
    EXPECT_EQ(st.st_uid, 0U);
    EXPECT_EQ(st.st_gid, ::getgrnam("native-runtime")->gr_gid);
    ASSERT_EQ(file_write("mode.txt", "v2").status, 0);
    const auto text = record_edit("mode.txt", "v1");
    const auto id = text.substr(text.find("id=") + 3, 32);
    for (const auto* suffix : {".receipt", ".snapshot"}) {
        ASSERT_EQ(::lstat((std::string(kSnapshotDir) + "/" + id + suffix).c_str(), &st), 0) << suffix;
        EXPECT_EQ(st.st_mode & 07777, 0640U) << suffix;
    }
}

TEST_F(FileOperations, TheSnapshotDirIsAbsentFromSessionsButThereForTheWorker)
{
    EXPECT_EQ(run(as_user(kWorker, {"test", "-d", kSnapshotDir})).status, 0); // control
    const auto outcome = run(as_user(
        kWorker, ctl_run(kOwner, "files-absent", "shell",
                         {"sh", "-c", std::string("test -e ") + kSnapshotDir + " && echo present || echo absent"})));
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    EXPECT_EQ(outcome.out, "absent\n");
}

TEST_F(FileOperations, TheReceiptKeyIsUnreadableForTheWorker)
{
    ASSERT_EQ(file_write("key.txt", "v2").status, 0);
    record_edit("key.txt", "v1"); // creates the key
    const std::string key = "/var/lib/native-runtime/receipt.key";
    EXPECT_EQ(run({"test", "-s", key}).status, 0); // control: it exists
    EXPECT_NE(run(as_user(kWorker, {"cat", key})).status, 0);
}

TEST(ProvisioningTheSnapshotDir, RefusesAnExistingDirectoryWithALooserMode)
{
    must({"install", "-d", "-m", "0777", "/var/lib/nr-loose-snapshots"});
    const auto outcome =
        run({kCtl, "provision-snapshot-dir", "--group", "native-runtime", "/var/lib/nr-loose-snapshots"});
    EXPECT_EQ(outcome.status, 65);
    EXPECT_NE(outcome.err.find("looser"), std::string::npos) << outcome.err;
    struct stat st {};
    ASSERT_EQ(::lstat("/var/lib/nr-loose-snapshots", &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0777U);
}
