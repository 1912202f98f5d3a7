#!/usr/bin/env python3
"""Unit tests of the sudoers bookkeeping of tests/mcp_policy_client.py (`Sudoers`), on
temporary paths and a fake list of users, so they need neither root nor sudo: two runs that
interleave, runs killed without cleaning up, a pid reused by another process, and a restore
visudo rejects. Runs are stood for by child processes (`sleep`), killed to play a SIGKILL.

Run by tests/mcp_policy.rs (`the_sudoers_bookkeeping_leaves_nothing_behind`), or directly:
python3 tests/mcp_policy_sudoers.py
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcp_policy_client as client  # noqa: E402

ORIGINAL = b"Defaults env_reset\nroot ALL=(ALL:ALL) ALL\n"


class FakeUsers:
    """The users `Sudoers` sees: names in a set."""

    def __init__(self) -> None:
        self.users: set[str] = {"root"}

    def names(self) -> list[str]:
        return sorted(self.users)

    def remove(self, name: str) -> list[str]:
        self.users.discard(name)
        return []


class Machine:
    """A sudoers file, a rules folder, a state folder and users, under a temporary folder."""

    def __init__(self, scratch: str) -> None:
        self.sudoers = os.path.join(scratch, "sudoers")
        self.rules = os.path.join(scratch, "sudoers.d")
        self.state = os.path.join(scratch, "state")
        os.mkdir(self.rules)
        with open(self.sudoers, "wb") as f:
            f.write(ORIGINAL)
        os.chmod(self.sudoers, 0o440)
        self.users = FakeUsers()
        self.processes: list[subprocess.Popen] = []

    def process(self) -> subprocess.Popen:
        """A live process whose pid names a run."""
        child = subprocess.Popen(["sleep", "600"])
        self.processes.append(child)
        return child

    def run(self, pid: int) -> client.Sudoers:
        return client.Sudoers(str(pid), sudoers=self.sudoers, rules=self.rules, state=self.state, users=self.users)

    def start(self, pid: int) -> client.Sudoers:
        """What the script does for run `pid` before its checks: enter, add the user, install."""
        run = self.run(pid)
        self.assert_none(run.enter())
        self.users.users.add(f"{client.USER_PREFIX}{pid}")
        run.install(f"{client.USER_PREFIX}{pid} ALL=(ALL) ALL\n")
        return run

    @staticmethod
    def assert_none(problems: list[str]) -> None:
        assert not problems, problems

    def sudoers_text(self) -> bytes:
        with open(self.sudoers, "rb") as f:
            return f.read()

    def included(self) -> bool:
        return self.sudoers_text() == ORIGINAL + client.INCLUDE_LINE

    def leftovers(self) -> list[str]:
        """Rules, test users and markers still there."""
        users = [name for name in self.users.names() if name != "root"]
        markers = [name for name in os.listdir(self.state) if name.startswith("run-")]
        return sorted(os.listdir(self.rules) + users + markers)

    def kill(self, child: subprocess.Popen) -> None:
        child.kill()
        child.wait()

    def close(self) -> None:
        for child in self.processes:
            if child.poll() is None:
                self.kill(child)


class SudoersTests(unittest.TestCase):
    def setUp(self) -> None:
        self.scratch = tempfile.TemporaryDirectory(prefix="termloom-sudoers-")
        self.machine = Machine(self.scratch.name)

    def tearDown(self) -> None:
        self.machine.close()
        self.scratch.cleanup()

    def test_the_include_stays_while_a_run_needs_it_and_goes_with_the_last(self) -> None:
        m = self.machine
        a, b = m.process(), m.process()
        run_a = m.start(a.pid)  # finds no include: adds it
        inode = os.stat(m.sudoers).st_ino
        self.assertTrue(m.included())
        run_b = m.start(b.pid)  # finds it: records nothing of its own
        m.assert_none(run_a.leave())  # A leaves first while B's rule is installed
        self.assertTrue(m.included(), "B's rule still needs the include")
        self.assertEqual(m.leftovers(), sorted([f"termloom-test-{b.pid}", f"termloom_sudo_{b.pid}", f"run-{b.pid}"]))
        m.assert_none(run_b.leave())
        self.assertEqual(m.sudoers_text(), ORIGINAL, "the last run to leave restores /etc/sudoers")
        self.assertEqual(m.leftovers(), [])
        self.assertEqual(os.stat(m.sudoers).st_mode & 0o7777, 0o440)
        self.assertNotEqual(os.stat(m.sudoers).st_ino, inode, "replaced by a rename, not rewritten in place")
        self.assertEqual([n for n in os.listdir(self.scratch.name) if n.startswith(".")], [], "no temporary file left")

    def test_the_include_is_restored_when_the_run_that_added_it_leaves_last(self) -> None:
        m = self.machine
        a, b = m.process(), m.process()
        run_a = m.start(a.pid)
        run_b = m.start(b.pid)
        m.assert_none(run_b.leave())
        self.assertTrue(m.included())
        m.assert_none(run_a.leave())
        self.assertEqual(m.sudoers_text(), ORIGINAL)
        self.assertEqual(m.leftovers(), [])

    def test_an_include_that_was_there_stays(self) -> None:
        m = self.machine
        with open(m.sudoers, "wb") as f:
            f.write(ORIGINAL + b"@includedir /etc/sudoers.d\n")
        a = m.process()
        m.assert_none(m.start(a.pid).leave())
        self.assertEqual(m.sudoers_text(), ORIGINAL + b"@includedir /etc/sudoers.d\n")

    def test_a_killed_run_is_cleaned_by_the_next_and_a_live_one_is_not(self) -> None:
        m = self.machine
        killed, live, next_run = m.process(), m.process(), m.process()
        m.start(killed.pid)  # adds the include, then is killed with its rule installed
        m.start(live.pid)
        m.kill(killed)
        run_next = m.start(next_run.pid)
        self.assertNotIn(f"termloom-test-{killed.pid}", os.listdir(m.rules), "the next run removes a dead run's rule")
        self.assertNotIn(f"termloom_sudo_{killed.pid}", m.users.names())
        self.assertIn(f"termloom-test-{live.pid}", os.listdir(m.rules), "never a live run's")
        self.assertIn(f"termloom_sudo_{live.pid}", m.users.names())
        m.assert_none(run_next.leave())
        self.assertTrue(m.included(), "the live run still needs the include")
        m.kill(live)  # the live run is killed too: the next one to leave restores everything
        last = m.process()
        m.assert_none(m.start(last.pid).leave())
        self.assertEqual(m.sudoers_text(), ORIGINAL)
        self.assertEqual(m.leftovers(), [])

    def test_a_killed_run_alone_is_cleaned_by_the_cleanup_after_it(self) -> None:
        m = self.machine
        killed = m.process()
        m.start(killed.pid)
        m.kill(killed)  # the script and the Rust test are both killed
        after = m.process()
        m.assert_none(m.run(after.pid).leave())  # any later run (or --cleanup) removes it all
        self.assertEqual(m.sudoers_text(), ORIGINAL)
        self.assertEqual(m.leftovers(), [])

    def test_a_pid_reused_by_another_process_is_stale(self) -> None:
        m = self.machine
        reused, next_run = m.process(), m.process()
        m.start(reused.pid)
        with open(os.path.join(m.state, f"run-{reused.pid}"), "w") as f:
            f.write("1\n")  # the run's process started at another time: this pid names another
        m.start(next_run.pid)
        self.assertNotIn(f"termloom-test-{reused.pid}", os.listdir(m.rules))

    def test_rules_without_a_marker_count_as_live_while_their_pid_runs(self) -> None:
        m = self.machine
        older, gone, run = m.process(), m.process(), m.process()
        for pid in (older.pid, gone.pid):  # left by an older script, which wrote no marker
            with open(os.path.join(m.rules, f"termloom-test-{pid}"), "w") as f:
                f.write("x\n")
        m.kill(gone)
        m.assert_none(m.start(run.pid).leave())
        self.assertEqual(os.listdir(m.rules), [f"termloom-test-{older.pid}"])

    @unittest.skipUnless(client.which("visudo"), "visudo is not installed")
    def test_a_restore_visudo_rejects_leaves_the_file_alone(self) -> None:
        m = self.machine
        with self.assertRaises(RuntimeError):
            client.replace_file(m.sudoers, b"this is not sudoers syntax (\n")
        self.assertEqual(m.sudoers_text(), ORIGINAL)
        self.assertEqual([n for n in os.listdir(self.scratch.name) if n.startswith(".")], [])


if __name__ == "__main__":
    unittest.main(verbosity=2)
