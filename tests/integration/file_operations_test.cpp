// SPDX-License-Identifier: Apache-2.0
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
    // to another owner's secret as fast as it can, while reads go on. Every
    // read must be the safe content or a refusal. Reads go on until both
    // outcomes were seen (a slow build, ASan, reads only a few times in a
    // fixed window and may see only one), within a bound.
    const std::string swapper = "import os,sys,time\n"
                                "d=sys.argv[1]; s=sys.argv[2]; stop=sys.argv[3]; end=time.time()+150\n"
                                "while time.time()<end and not os.path.exists(stop):\n"
                                "  try: os.unlink(d+'/t.lnk')\n"
                                "  except OSError: pass\n"
                                "  os.symlink(s, d+'/t.lnk'); os.rename(d+'/t.lnk', d+'/race.txt')\n"
                                "  open(d+'/t.reg','w').write('safe-content'); os.rename(d+'/t.reg', d+'/race.txt')\n";
    put(std::string(kScratch) + "/swap.py", swapper);
    const auto stop = std::string(kScratch) + "/swap.stop";
    Background loop(as_user(kWorker, {"python3", std::string(kScratch) + "/swap.py", kWorkspace, kBobSecret, stop}));
    int safe = 0;
    int refused_reads = 0;
    int escapes = 0;
    const auto start = std::chrono::steady_clock::now();
    const auto enough = [&] {
        const auto spent = std::chrono::steady_clock::now() - start;
        const bool both_seen = safe > 0 && refused_reads > 0;
        return (both_seen && spent > std::chrono::seconds(8)) || spent > std::chrono::seconds(120);
    };
    while (!enough()) {
        const auto outcome = file_read("race.txt");
        if (outcome.out.find("bob-secret") != std::string::npos) {
            ++escapes;
        } else if (outcome.status == 0 && outcome.out == "safe-content") {
            ++safe;
        } else if (outcome.status == 65) {
            ++refused_reads;
        }
    }
    put(stop, "");
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
                                "d=sys.argv[1]; stop=sys.argv[2]; end=time.time()+150\n"
                                "a='A'*300000; b='B'*100\n"
                                "i=0\n"
                                "while time.time()<end and not os.path.exists(stop):\n"
                                "  open(d+'/f.tmp','w').write(a if i%2 else b); os.rename(d+'/f.tmp', d+'/flip.txt')\n"
                                "  i+=1\n";
    put(std::string(kScratch) + "/flip.py", flipper);
    const auto stop = std::string(kScratch) + "/flip.stop";
    Background loop(as_user(kWorker, {"python3", std::string(kScratch) + "/flip.py", kWorkspace, stop}));
    int whole = 0;
    int torn = 0;
    // At least 5 s of reads, and on until one was whole (the positive
    // control), within a bound: a slow build reads only a few times.
    const auto start = std::chrono::steady_clock::now();
    const auto enough = [&] {
        const auto spent = std::chrono::steady_clock::now() - start;
        return (whole > 0 && spent > std::chrono::seconds(5)) || spent > std::chrono::seconds(120);
    };
    while (!enough()) {
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
    put(stop, "");
    loop.wait();
    EXPECT_EQ(torn, 0);
    EXPECT_GT(whole, 0);
}

// ---- receipts ----

namespace {

std::string receipt_file(const std::string& name, const std::string& text)
{
    const auto path = std::string(kScratch) + "/" + name;
    put(path, text);
    must({"chown", kWorker, path});
    return path;
}

Outcome begin_edit_outcome(const std::string& relpath, const std::string& job = "job-1",
                           const std::string& chat = kChat)
{
    return run(
        as_user(kWorker, {kCtl, "file", "begin-edit", "--owner", kOwner, "--chat", chat, "--job", job, relpath}));
}

// The handle's text, saved for the worker; the file's state now is what the
// helper snapshots.
std::string begin_edit(const std::string& name, const std::string& relpath, const std::string& job = "job-1")
{
    const auto outcome = begin_edit_outcome(relpath, job);
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    return receipt_file(name + ".handle", outcome.out);
}

Outcome record_edit_outcome(const std::string& handle_path, const std::string& job = "job-1",
                            const std::string& owner = kOwner, const std::string& chat = kChat)
{
    return run(as_user(kWorker, {kCtl, "file", "record-edit", "--owner", owner, "--chat", chat, "--job", job,
                                 "--handle", handle_path}));
}

std::string record_edit(const std::string& name, const std::string& handle_path, const std::string& job = "job-1")
{
    const auto outcome = record_edit_outcome(handle_path, job);
    EXPECT_EQ(outcome.status, 0) << outcome.err;
    return receipt_file(name, outcome.out);
}

// begin-edit, then `edit` (what the native tool does), then record-edit;
// returns the receipt's path.
template <typename Edit> std::string recorded(const std::string& name, const std::string& relpath, Edit&& edit)
{
    const auto handle = begin_edit(name, relpath);
    edit();
    return record_edit(name, handle);
}

Outcome diff(const std::string& receipt_path, const std::string& owner = kOwner, const std::string& chat = kChat,
             const std::string& job = "job-1")
{
    return run(as_user(kWorker, {kCtl, "file", "diff", "--owner", owner, "--chat", chat, "--job", job, "--receipt",
                                 receipt_path, "--before-to", std::string(kScratch) + "/before.out", "--after-to",
                                 std::string(kScratch) + "/after.out"}));
}

Outcome revert(const std::string& receipt_path, const std::string& owner = kOwner, const std::string& chat = kChat,
               const std::string& job = "job-1")
{
    return run(as_user(
        kWorker, {kCtl, "file", "revert", "--owner", owner, "--chat", chat, "--job", job, "--receipt", receipt_path}));
}

std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// The harness config with `files.receipt_ttl_sec` set, for one test.
std::string with_receipt_lifetime(int seconds)
{
    return replaced(HelperConfigForATest::current(), "files:\n",
                    "files:\n  receipt_ttl_sec: " + std::to_string(seconds) + "\n");
}

} // namespace

TEST_F(FileOperations, ARecordedEditShowsItsDiffAndReverts)
{
    ASSERT_EQ(file_write("edit.txt", "before-edit").status, 0);
    const auto receipt =
        recorded("r-ok", "edit.txt", [] { ASSERT_EQ(file_write("edit.txt", "after-edit").status, 0); });
    const auto shown = diff(receipt);
    EXPECT_EQ(shown.status, 0) << shown.err;
    EXPECT_EQ(slurp(std::string(kScratch) + "/before.out"), "before-edit");
    EXPECT_EQ(slurp(std::string(kScratch) + "/after.out"), "after-edit");
    const auto reverted = revert(receipt);
    EXPECT_EQ(reverted.status, 0) << reverted.err;
    EXPECT_EQ(slurp(kWorkspace + "/edit.txt"), "before-edit");
}

TEST_F(FileOperations, TheBeforeStateIsWhatTheHelperReadNotWhatTheCallerSays)
{
    ASSERT_EQ(file_write("vouched.txt", "as-read-by-the-helper").status, 0);
    const auto handle = begin_edit("r-vouched", "vouched.txt");
    ASSERT_EQ(file_write("vouched.txt", "after").status, 0);
    // Whatever the caller pipes in is not an input any more.
    const auto outcome = with_stdin("claimed-by-the-caller", {"file", "record-edit", "--owner", kOwner, "--chat", kChat,
                                                              "--job", "job-1", "--handle", handle});
    ASSERT_EQ(outcome.status, 0) << outcome.err;
    const auto receipt = receipt_file("r-vouched", outcome.out);
    ASSERT_EQ(diff(receipt).status, 0);
    EXPECT_EQ(slurp(std::string(kScratch) + "/before.out"), "as-read-by-the-helper");
    ASSERT_EQ(revert(receipt).status, 0);
    EXPECT_EQ(slurp(kWorkspace + "/vouched.txt"), "as-read-by-the-helper");
}

TEST_F(FileOperations, ACreationIsRecordedAsAbsentBeforeAndRevertedByRemovingTheFile)
{
    const auto receipt = recorded("r-create", "created.txt", [] {
        ASSERT_FALSE(exists(kWorkspace + "/created.txt"));
        ASSERT_EQ(file_write("created.txt", "new-file").status, 0);
    });
    EXPECT_NE(slurp(receipt).find("\nbefore=absent\n"), std::string::npos) << slurp(receipt);
    const auto shown = diff(receipt);
    EXPECT_EQ(shown.status, 0) << shown.err;
    EXPECT_EQ(slurp(std::string(kScratch) + "/before.out"), "");
    EXPECT_EQ(slurp(std::string(kScratch) + "/after.out"), "new-file");
    const auto reverted = revert(receipt);
    EXPECT_EQ(reverted.status, 0) << reverted.err;
    EXPECT_FALSE(exists(kWorkspace + "/created.txt"));
}

TEST_F(FileOperations, ADeletionIsRecordedAsAbsentAfterAndRevertedByRestoringTheFile)
{
    ASSERT_EQ(file_write("deleted.txt", "keep-me").status, 0);
    must({"chmod", "0640", kWorkspace + "/deleted.txt"});
    const auto receipt = recorded("r-delete", "deleted.txt", [] { as_worker("rm " + kWorkspace + "/deleted.txt"); });
    EXPECT_NE(slurp(receipt).find("\nafter=absent\n"), std::string::npos) << slurp(receipt);
    const auto reverted = revert(receipt);
    EXPECT_EQ(reverted.status, 0) << reverted.err;
    EXPECT_EQ(slurp(kWorkspace + "/deleted.txt"), "keep-me");
    struct stat st {};
    ASSERT_EQ(::lstat((kWorkspace + "/deleted.txt").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0640U); // the mode before, as the helper read it
    EXPECT_EQ(st.st_uid, ::getpwnam(kWorker)->pw_uid);
}

TEST_F(FileOperations, ARevertIsRefusedUnlessTheFileIsInTheRecordedStateAfter)
{
    // A deletion whose file came back, and a creation whose file changed.
    ASSERT_EQ(file_write("back.txt", "v1").status, 0);
    const auto deletion = recorded("r-back", "back.txt", [] { as_worker("rm " + kWorkspace + "/back.txt"); });
    ASSERT_EQ(file_write("back.txt", "someone-else").status, 0);
    expect_refused(revert(deletion), "ReceiptStale");
    EXPECT_EQ(slurp(kWorkspace + "/back.txt"), "someone-else");
    const auto creation = recorded("r-made", "made.txt", [] { ASSERT_EQ(file_write("made.txt", "v1").status, 0); });
    ASSERT_EQ(file_write("made.txt", "v2").status, 0);
    expect_refused(revert(creation), "ReceiptStale");
    EXPECT_EQ(slurp(kWorkspace + "/made.txt"), "v2");
    // Control: once the file is back in the recorded state, both revert.
    as_worker("rm " + kWorkspace + "/back.txt");
    EXPECT_EQ(revert(deletion).status, 0);
    EXPECT_EQ(slurp(kWorkspace + "/back.txt"), "v1");
}

TEST_F(FileOperations, AReceiptRevertsOnlyOnceEvenAfterTheHelperRestarts)
{
    // A deletion's after-state (absent) can be produced again by the
    // worker, so only the used mark stops a second revert.
    ASSERT_EQ(file_write("once.txt", "v1").status, 0);
    const auto receipt = recorded("r-once", "once.txt", [] { as_worker("rm " + kWorkspace + "/once.txt"); });
    ASSERT_EQ(revert(receipt).status, 0);
    EXPECT_EQ(slurp(kWorkspace + "/once.txt"), "v1");
    as_worker("rm " + kWorkspace + "/once.txt");
    expect_refused(revert(receipt), "ReceiptUsed");
    expect_refused(diff(receipt), "ReceiptUsed");
    stop_helper();
    expect_refused(revert(receipt), "ReceiptUsed");
    EXPECT_FALSE(exists(kWorkspace + "/once.txt"));
}

TEST_F(FileOperations, AnEditHandleIsRecordedOnlyOnce)
{
    ASSERT_EQ(file_write("handle.txt", "v1").status, 0);
    const auto handle = begin_edit("r-handle", "handle.txt");
    ASSERT_EQ(file_write("handle.txt", "v2").status, 0);
    ASSERT_EQ(record_edit_outcome(handle).status, 0);
    ASSERT_EQ(file_write("handle.txt", "v3").status, 0);
    expect_refused(record_edit_outcome(handle), "ReceiptUsed");
    stop_helper();
    expect_refused(record_edit_outcome(handle), "ReceiptUsed");
}

TEST_F(FileOperations, AnExpiredHandleOrReceiptIsRefused)
{
    const HelperConfigForATest lifetime(with_receipt_lifetime(5));
    ASSERT_EQ(file_write("expiry.txt", "v1").status, 0);
    const auto receipt =
        recorded("r-expiry", "expiry.txt", [] { ASSERT_EQ(file_write("expiry.txt", "v2").status, 0); });
    const auto late_handle = begin_edit("r-late", "expiry.txt");
    EXPECT_EQ(diff(receipt).status, 0); // control: fresh
    ::sleep(6);
    expect_refused(diff(receipt), "ReceiptExpired");
    expect_refused(revert(receipt), "ReceiptExpired");
    EXPECT_EQ(slurp(kWorkspace + "/expiry.txt"), "v2");
    expect_refused(record_edit_outcome(late_handle), "ReceiptExpired");
}

TEST_F(FileOperations, AReceiptOrHandleOfAnotherOwnerChatOrJobIsRefused)
{
    ASSERT_EQ(file_write("bound.txt", "v1").status, 0);
    const auto handle = begin_edit("r-bound", "bound.txt");
    ASSERT_EQ(file_write("bound.txt", "v2").status, 0);
    expect_refused(record_edit_outcome(handle, "job-1", "bob"), "ReceiptMismatch");
    expect_refused(record_edit_outcome(handle, "job-1", kOwner, "other-chat"), "ReceiptMismatch");
    expect_refused(record_edit_outcome(handle, "job-2"), "ReceiptMismatch");
    const auto receipt = record_edit("r-bound", handle); // control: its own scope
    EXPECT_EQ(diff(receipt).status, 0);                  // control
    expect_refused(diff(receipt, "bob"), "ReceiptMismatch");
    expect_refused(diff(receipt, kOwner, "other-chat"), "ReceiptMismatch");
    expect_refused(diff(receipt, kOwner, kChat, "job-2"), "ReceiptMismatch");
    expect_refused(revert(receipt, "bob"), "ReceiptMismatch");
    expect_refused(revert(receipt, kOwner, "other-chat"), "ReceiptMismatch");
    expect_refused(revert(receipt, kOwner, kChat, "job-2"), "ReceiptMismatch");
    EXPECT_EQ(slurp(kWorkspace + "/bound.txt"), "v2");
}

TEST_F(FileOperations, AForgedOrEditedReceiptOrHandleIsRefused)
{
    ASSERT_EQ(file_write("forged.txt", "v1").status, 0);
    const auto handle = begin_edit("r-forged", "forged.txt");
    const auto handle_text = slurp(handle);
    ASSERT_EQ(file_write("forged.txt", "v2").status, 0);
    // A handle edited to claim the file did not exist before.
    const auto before_at = handle_text.find("before=");
    ASSERT_NE(before_at, std::string::npos);
    const auto forged_handle =
        handle_text.substr(0, before_at) + "before=absent\nmode=0000\n" + handle_text.substr(handle_text.find("time="));
    expect_refused(record_edit_outcome(receipt_file("r-forged-handle", forged_handle)), "ReceiptInvalid");
    const auto text = slurp(record_edit("r-genuine", handle));
    EXPECT_EQ(diff(receipt_file("r-genuine", text)).status, 0); // control
    // Edited to name another owner, another file, or a later expiry: the
    // MAC no longer fits.
    expect_refused(diff(receipt_file("r-owner", replaced(text, "owner=alice", "owner=bobby")), "bobby"),
                   "ReceiptInvalid");
    expect_refused(diff(receipt_file("r-path", replaced(text, "path=forged.txt", "path=plain.txt"))), "ReceiptInvalid");
    const auto expires_at = text.find("expires=");
    ASSERT_NE(expires_at, std::string::npos);
    expect_refused(diff(receipt_file("r-expires", text.substr(0, expires_at) + "expires=9999999999\n" +
                                                      text.substr(text.find("mac=")))),
                   "ReceiptInvalid");
    // Made up from scratch with a guessed MAC; a handle where a receipt belongs.
    const auto mac_at = text.find("mac=");
    ASSERT_NE(mac_at, std::string::npos);
    expect_refused(diff(receipt_file("r-made-up", text.substr(0, mac_at) + "mac=" + std::string(64, '0') + "\n")),
                   "ReceiptInvalid");
    expect_refused(diff(handle), "ReceiptInvalid");
    expect_refused(diff(receipt_file("r-garbage", "not a receipt\n")), "ReceiptInvalid");
}

TEST_F(FileOperations, AReceiptIsStaleAfterALaterEdit)
{
    ASSERT_EQ(file_write("stale.txt", "v1").status, 0);
    const auto receipt = recorded("r-stale", "stale.txt", [] { ASSERT_EQ(file_write("stale.txt", "v2").status, 0); });
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
    ASSERT_EQ(file_write("mode.txt", "v1").status, 0);
    const auto text = slurp(recorded("r-mode", "mode.txt", [] { ASSERT_EQ(file_write("mode.txt", "v2").status, 0); }));
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
    ASSERT_EQ(file_write("key.txt", "v1").status, 0);
    begin_edit("r-key", "key.txt"); // creates the key
    const std::string key = "/var/lib/native-runtime/receipt.key";
    EXPECT_EQ(run({"test", "-s", key}).status, 0); // control: it exists
    EXPECT_NE(run(as_user(kWorker, {"cat", key})).status, 0);
    // Nor can it reach the marks of used receipts beside it.
    EXPECT_EQ(run({"test", "-d", "/var/lib/native-runtime/used-receipts"}).status, 0); // control
    EXPECT_NE(run(as_user(kWorker, {"ls", "/var/lib/native-runtime/used-receipts"})).status, 0);
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

TEST(ProvisioningTheSnapshotDir, NoLongerOffersAnotherOwner)
{
    // A directory owned by the gateway user, as --owner made it, is one
    // the helper (root without CAP_DAC_OVERRIDE, not in the group) cannot
    // write: the option is gone and such a directory is refused.
    const auto option =
        run({kCtl, "provision-snapshot-dir", "--group", "native-runtime", "--owner", kWorker, "/var/lib/nr-gw-snaps"});
    EXPECT_NE(option.status, 0);
    EXPECT_FALSE(exists("/var/lib/nr-gw-snaps"));
    must({"install", "-d", "-m", "2770", "-o", kWorker, "-g", "native-runtime", "/var/lib/nr-gw-snaps"});
    const auto outcome = run({kCtl, "provision-snapshot-dir", "--group", "native-runtime", "/var/lib/nr-gw-snaps"});
    EXPECT_EQ(outcome.status, 65);
    EXPECT_NE(outcome.err.find("not root"), std::string::npos) << outcome.err;
    struct stat st {};
    ASSERT_EQ(::lstat("/var/lib/nr-gw-snaps", &st), 0);
    EXPECT_EQ(st.st_uid, ::getpwnam(kWorker)->pw_uid); // left as it was
}
