#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Prints the gtest filter of the real-host subset of the integration tests.

tests/integration/run-vm runs this subset on the booted Debian 12 (backports
kernel) and Debian 13 machines, where the whole suite (about 40 minutes under
TCG) does not fit the CI budget. The subset is derived, not listed, so that a
row added to the security model is covered without editing anything here:

  1. for every row of a table in docs/security-model.md, the first test it
     names that is an integration test (`Suite.Name`; `Suite.*` stands for
     the suite's first test; `.Name` continues the suite named before it;
     a bare `Name` is the integration test of that name).
     A row whose tests are all unit or sys tests has no probe that depends
     on the host, and adds nothing;
  2. one end-to-end turn of every agent adapter with a real client;
  3. (less TIMING_BOUND, below) what depends most on the host's systemd, cgroups, kernel and speed
     besides: the journal records and where journald files them (per user
     on a persistent journal), the kernel's own refusals, the late drop-in, the session and slice limits
     (the OOM kill is systemd's own result on cgroup v2), the gateway's
     per-session connection and tunnel limits, the gateway restarted by
     systemd after a kill.

On Debian 12 + backports (--release bookworm-backports) the tests of
OWN_LOGIC_SUITES are left out, unless chosen in 2 or 3: see there.

The integration tests are read from the sources (TEST, TEST_F, TEST_P in
tests/integration/*.cpp), since the Debian 13 test binary does not run here.
With --list, prints one chosen test per line, with the row it stands for.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

ADAPTERS = [
    "ACodexTurnInASession.RunsItsToolsInTheWorkspaceAndItsFinalMessageReachesTheWorker",
    "AClaudeCodeTurnInASession.RunsItsToolsInTheWorkspaceAndItsFinalMessageReachesTheWorker",
    "AnAcpAgentInASession.InitializesPromptsStreamsUpdatesAndCancelsOverTheWorkersStdio",
]
HOST_DEPENDENT = [
    "ASessionsStartAndEnd.AreStructuredRecordsOfTheHelperAboutItsUnit",
    "SyscallsTheSandboxRefuses.AreCountedAndLoggedUnderTheSessionsUnitWithoutFlooding",
    "LogsOfAnOwner.ComeFromTheJournalByStructuredFields",
    "PerfEventOpenInsideASession.IsRefusedWithEperm",
    "InstallingTheLateDropin.MakesItsSettingsEffectiveAndIsIdempotent",
    "AMemoryHog.IsKilledAtItsLimitWhileANeighbourSessionKeepsRunning",
    "AForkBomb.IsContainedByTheTasksLimit",
    "AnOwnerAtItsSliceTaskLimit.CannotForkMoreWhileAnotherOwnerStillCan",
    "ASessionPastItsRuntimeLimit.EndsAndTheCliReportsTheLimit",
    "AGatewayUnderAttack.EstablishesAtMostItsTunnelLimitAndClosesTunnelsWithoutAClientHello",
    "AGatewayUnderAttack.LosesNoSessionWhenTheGatewayIsKilled",
    # systemd stops a Type=dbus helper once it releases its name; a start
    # that reached it in that moment failed on the booted VMs only.
    "AStartThatReachesAnExitingHelper.IsRefusedUntouchedAndTheCliRunsItOnTheNextHelper",
    # The application's Wants=/After= on the helper, as each release's
    # systemd orders a Type=dbus unit; the helper's checks at its start.
    "AnApplicationUnit.WithoutTheLateDropinLeavesTheHelperToActivation",
    "AnApplicationUnit.WithTheLateDropinStartsTheHelperWhichPassesItsChecksBeforeTheFirstCall",
    # The session unit's own walls: namespaces, cgroup device policy and
    # seccomp as each release's systemd and kernel apply them, and the score
    # that release's systemd-analyze gives the unit.
    "ASessionUnitsFileSystem.IsReadOnlyOutsideDataDirEvenForRoot",
    "ASessionUnitsFileSystem.HasNoHomesAndATmpOfItsOwn",
    "ASessionUnitsUserNamespace.MapsOnlyRootAndTheSessionUser",
    # How the launcher gets its helper channel follows the release's
    # systemd: from systemd on 257 (Debian 13), from native-runtime-claim
    # on 252; and what the installed launcher links.
    "ASessionOnThisHostsSystemd.GetsItsHelperChannelFromSystemdWhereItCanAndFromTheClaimShimElsewhere",
    "TheInstalledLauncher.LinksNoBusClientWhileTheClaimShimDoes",
    "ALauncherHoldingItsHelperChannel.CannotHaveItTakenByAnotherProcessOfItsUser",
    "ASessionUnitGivenAnotherDescriptorByADropIn.IsRefusedByItsLauncherWhereSystemdPassesIt",
    "ASessionUnitsDevices.AreOnlyThePseudoDevices",
    "AnOfflineSessionsUnit.HasANetworkNamespaceOfItsOwnWhereAHostSessionsSharesTheHosts",
    "ASessionUnit.ScoresBelowFourInSystemdAnalyzeSecurity",
    "TheSyscallsOnlyTheSessionUnitDenies.AreRefusedInsideWithEpermBeforeTheKernelReadsAnArgument",
    "ASocketOfAFamilyTheSessionUnitDoesNotAllow.IsRefusedInsideWhileTheWorkerCreatesOneOutside",
]
# Harness-only although a row names them: they count, from the client's
# side, connections the gateway has not closed, which cannot tell a
# connection the gateway holds from one still waiting in the listen backlog.
# Under TCG with the host's cores shared, the attacker opens faster than the
# gateway accepts (both failed so, once each, with the gateway within its
# limits); what they show is the gateway's own accounting, the same on
# every host.
TIMING_BOUND = {
    "AGatewayUnderAttack.KeepsAtMostItsConnectionLimitOfIdleConnectionsAndTimesTheRestOut",
    "AGatewayUnderAttack.ClosesSlowBodiesBeyondItsConnectionLimit",
}

# Rows whose mechanism is the project's own code reading a socket or taking
# a lock file: the gateway's parsing of what a session sends, and the
# launcher's admission queue. Run on Debian 13 (the primary host: the same
# 6.12 kernel line and cgroup v2 as Debian 12 + backports) and, with Debian
# 12's own systemd, dbus-broker and bubblewrap, in the harness (the whole
# suite, and again under ASan), so a Debian 12 + backports VM adds nothing
# to what they show there; under TCG they are a third of its time.
OWN_LOGIC_SUITES = {"AGatewayUnderAttack", "AdmissionOfASerialAdapter", "AdmissionLockState"}
RELEASES = ("bookworm-backports", "trixie")

TEST_MACRO = re.compile(r"^TEST(_F|_P)?\((\w+),\s*(\w+)\)", re.M)
NAME = re.compile(r"`(\.|[A-Z]\w*\.)?([A-Z]\w*|\*)`")


def integration_tests():
    """Suite.Name -> its gtest filter entry, in source order per file."""
    tests = {}
    for source in sorted((ROOT / "tests/integration").glob("*.cpp")):
        for kind, suite, name in TEST_MACRO.findall(source.read_text()):
            tests[suite + "." + name] = ("*/%s.%s/*" % (suite, name)) if kind == "_P" else suite + "." + name
    return tests


def table_rows(text):
    for line in text.splitlines():
        if line.startswith("|") and not re.match(r"^\|[-| ]+\|$", line):
            yield line


def first_integration_test(row, tests):
    by_name = {}
    for test in tests:
        by_name.setdefault(test.split(".")[1], []).append(test)
    suite = None
    for prefix, name in NAME.findall(row):
        if not prefix:
            # A bare test name, as the gateway tables write them after "integration".
            if len(by_name.get(name, [])) == 1 and by_name[name][0] not in TIMING_BOUND:
                return by_name[name][0]
            continue
        if prefix != ".":
            suite = prefix[:-1]
        if suite is None:
            continue
        if name == "*":
            members = [t for t in tests if t.startswith(suite + ".") and t not in TIMING_BOUND]
            if members:
                return members[0]
        elif suite + "." + name in tests and suite + "." + name not in TIMING_BOUND:
            return suite + "." + name
    return None


def main(argv):
    args = argv[1:]
    listing = "--list" in args
    if listing:
        args.remove("--list")
    release = "trixie"
    if len(args) == 2 and args[0] == "--release" and args[1] in RELEASES:
        release = args[1]
    elif args:
        print("usage: real_host_subset.py [--release %s] [--list]" % "|".join(RELEASES), file=sys.stderr)
        return 2
    tests = integration_tests()
    doc = (ROOT / "docs/security-model.md").read_text()
    chosen = {}
    rows = 0
    for row in table_rows(doc):
        test = first_integration_test(row, tests)
        if test:
            rows += 1
            chosen.setdefault(test, row[:100])
    if rows < 30:
        print("real_host_subset: only %d rows of docs/security-model.md name integration tests" % rows,
              file=sys.stderr)
        return 1
    if release == "bookworm-backports":
        chosen = {test: row for test, row in chosen.items() if test.split(".")[0] not in OWN_LOGIC_SUITES}
    for test in ADAPTERS + HOST_DEPENDENT:
        if test not in tests:
            print("real_host_subset: no integration test %s" % test, file=sys.stderr)
            return 1
        chosen.setdefault(test, "(adapter or host-dependent behaviour)")
    if listing:
        for test, row in chosen.items():
            print("%s\t%s" % (test, row))
    else:
        print(":".join(tests[t] for t in chosen))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
