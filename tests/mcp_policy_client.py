#!/usr/bin/env python3
"""Checks termloom's MCP spawn policy and secret entry with the official Python MCP SDK.

Usage (as root): python3 tests/mcp_policy_client.py SERVER_COMMAND [ARGS...]
       e.g. sudo target/mcp-venv/bin/python tests/mcp_policy_client.py target/debug/termloom mcp

The script appends `--policy FILE --config FILE` to SERVER_COMMAND: a spawn policy that denies
`touch` (rule "no-touch") and asks the person before `printf` (rule "printf-asks"), and a
configuration that records every session in a directory of its own.

For each way of connecting, the `initialize` handshake (mode "legacy", where the server asks
through `elicitation/create` requests) and the stateless 2026-07-28 revision (mode "auto",
where it asks through `input_required` results), it checks that:

  a. a denied program is refused, naming its rule, and never runs (its file is not made);
  b. an `ask` program runs only when the person accepts (the elicitation callback decides
     from a variable of this script and records every message it was asked);
  c. `terminal_send secret=true` types a password the person gives into a real password
     prompt (`su termloom_sudo_RUN --session-command 'sudo -k; sudo true && echo SUDO-OK'`), and the password
     is in no byte the server wrote: not on its stdout, not on its stderr (logs, with
     RUST_LOG=debug), not in the recordings; at a prompt that echoes (`cat`) the secret is
     refused and nothing is typed. The password is asked by URL-mode elicitation (never a
     form): the callback, as the person's browser would, POSTs it to the page whose address it
     was given, and the page answers "Typed.";
  d. a client without an elicitation callback gets an error naming elicitation, for `ask`
     and for a secret.

Run as root: the script creates the user `termloom_sudo_RUN` with a random password and
/etc/sudoers.d/termloom-test-RUN (`termloom_sudo_RUN ALL=(ALL) ALL`), RUN being
$TERMLOOM_TEST_RUN (the Rust test's pid) or else the script's pid, and removes both at the
end, also on failure; each run also removes what killed runs left (see `Sudoers`), and
`--cleanup` (with TERMLOOM_TEST_RUN) removes a run's leftovers after it. Between the SDK and the server sits this same script in `--proxy` mode,
which copies every byte the server writes on stdout and stderr to files the checks read.
Requires the `mcp` package (see tests/mcp_requirements.txt), `su` and `sudo`.

Prints one line per check and ends with "N passed, M failed"; exits non-zero on any failure.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import fcntl
import json
import os
import pty
import pwd
import re
import secrets
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import termios
import threading
import time
import traceback

# mcp_client.py, beside this file: its check counter is shared (and no bytecode is left in
# the source tree).
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcp_client  # noqa: E402

MODERN = "2026-07-28"
HANDSHAKE = "2025-11-25"
# The run's user and sudoers rule are named after the run (TERMLOOM_TEST_RUN, the test
# process's pid, else this script's, handed on to the proxy it runs): two runs at once (a
# second checkout's tests beside CI) each make and remove their own, never the other's.
# `termloom_sudo_` and a pid (at most 7 digits) stay within useradd's 32 characters; sudo
# reads a file of /etc/sudoers.d whose name has no dot.
RUN = os.environ.setdefault("TERMLOOM_TEST_RUN", str(os.getpid()))
if not RUN.isdigit() or len(RUN) > 10:
    raise SystemExit(f"TERMLOOM_TEST_RUN must be a process id, not {RUN!r}")
# The runs' rules, named RULE_PREFIX and the run; their users, USER_PREFIX and the run.
SUDOERS_RULES_DIR = "/etc/sudoers.d"
RULE_PREFIX = "termloom-test-"
USER_PREFIX = "termloom_sudo_"
SUDO_USER = f"{USER_PREFIX}{RUN}"
SUDOERS_FILE = os.path.join(SUDOERS_RULES_DIR, f"{RULE_PREFIX}{RUN}")
SUDOERS = "/etc/sudoers"
# Where runs keep their lock, markers and the note that one added the include (see Sudoers):
# not in /etc/sudoers.d, whose files sudo reads.
SUDOERS_STATE = "/var/lib/termloom-test-sudoers"
# The include a run adds to /etc/sudoers when it has none, and how one is recognised.
INCLUDE_LINE = b"\n@includedir /etc/sudoers.d\n"
INCLUDE_PATTERN = rb"^[#@]includedir\s+/etc/sudoers\.d/?\s*$"
# What `su` runs: forget any cached sudo credentials, then ask for the password. Not `su -c`:
# util-linux's su then starts a new session without a controlling terminal (against TIOCSTI),
# and sudo refuses with "a terminal is required to read the password"; `su -P` would put the
# terminal in raw mode (echo off, not canonical), which is no password prompt. With
# --session-command sudo reads the session's own terminal, as it would for a person.
SUDO_COMMAND = f"su {SUDO_USER} --session-command 'sudo -k; sudo true && echo SUDO-OK'"
SUDO_PROMPT = f"password for {SUDO_USER}"
# A password prompt that needs no other user: echo off, canonical, reading a line. No printf
# (the policy asks before it, and the server may look into `sh -c`), and the prompt's text is
# not in the command line, so only the program's output can show it.
READ_PASSWORD = 'stty -echo; echo "Pass""word:"; read x; stty echo; echo "LEN=${#x}"'
READ_PROMPT = "Password:"
# How long any one wait inside the server may take (they return as soon as they hold).
WAIT_MS = 30_000

POLICY = """\
default = "allow"

[[rules]]
name = "no-touch"
program = ["touch"]
decision = "deny"
reason = "touching files is not allowed"

[[rules]]
name = "printf-asks"
program = ["printf"]
decision = "ask"
"""

# Strings never to print: the password (and the decoy secret) are replaced in every detail.
REDACT: list[str] = []


def redact(text: str) -> str:
    for secret in REDACT:
        if secret:
            text = text.replace(secret, "<REDACTED>")
    return text


# --------------------------------------------------------------------------------------------
# The proxy: runs the server and keeps a copy of everything it writes.
# --------------------------------------------------------------------------------------------


def proxy(argv: list[str]) -> int:
    """`--proxy PREFIX -- SERVER...`: PREFIX.stdout and PREFIX.stderr get every byte the
    server writes; PREFIX.report.json what was seen (written when the server has exited)."""
    prefix = argv[0]
    server_cmd = argv[argv.index("--") + 1 :]
    env = dict(os.environ)
    env.setdefault("RUST_LOG", "debug")
    env.setdefault("TERMLOOM_LOG", "debug")
    out = sys.stdout.buffer
    counts: collections.Counter[str] = collections.Counter()
    problems: list[str] = []
    with open(prefix + ".stdout", "wb") as raw, open(prefix + ".stderr", "wb") as errors:
        server = subprocess.Popen(server_cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errors, env=env)

        def finish() -> None:
            try:
                code = server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                problems.append("the server did not exit within 20 s of the end of its input")
                server.kill()
                code = server.wait()
            raw.flush()
            report = {"exit_code": code, "problems": problems, "counts": dict(counts), "server_pid": server.pid}
            with open(prefix + ".report.json", "w") as f:
                json.dump(report, f)
            out.flush()
            # Ends the proxy: the SDK sees its stdout end as soon as the server's did.
            os._exit(0)

        def from_server() -> None:
            for line in server.stdout:
                raw.write(line)
                raw.flush()
                try:
                    message = json.loads(line)
                except ValueError:
                    problems.append(f"stdout line that is not JSON: {line[:200]!r}")
                    message = None
                for item in message if isinstance(message, list) else [message]:
                    if not isinstance(item, dict):
                        continue
                    if "method" in item:
                        kind = "request" if "id" in item else "notification"
                        counts[f"{kind}:{item['method']}"] += 1
                    result = item.get("result")
                    if isinstance(result, dict) and result.get("resultType") == "input_required":
                        counts["input_required"] += 1
                        for request in (result.get("inputRequests") or {}).values():
                            if isinstance(request, dict):
                                counts[f"input_required:{request.get('method')}"] += 1
                try:
                    out.write(line)
                    out.flush()
                except (BrokenPipeError, ValueError):
                    pass
            finish()

        reader = threading.Thread(target=from_server, daemon=True)
        reader.start()
        try:
            for line in sys.stdin.buffer:
                server.stdin.write(line)
                server.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        try:
            server.stdin.close()
        except OSError:
            pass
        reader.join()  # finish() ends the process
    return 0


# --------------------------------------------------------------------------------------------
# The sudo user.
# --------------------------------------------------------------------------------------------

SBIN_PATH = os.pathsep.join([os.environ.get("PATH", "/usr/bin:/bin"), "/usr/sbin", "/sbin"])


def which(program: str) -> str | None:
    return shutil.which(program, path=SBIN_PATH)


def run_root(argv: list[str], stdin: str | None = None) -> subprocess.CompletedProcess:
    argv = [which(argv[0]) or argv[0], *argv[1:]]
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=120)


def user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
        return True
    except KeyError:
        return False


class SystemUsers:
    """The machine's users, as the sudoers bookkeeping sees them (tests give a fake)."""

    def names(self) -> list[str]:
        return [entry.pw_name for entry in pwd.getpwall()]

    def remove(self, name: str) -> list[str]:
        """Removes the user, its home and sudo's state for it; returns what could not be."""
        problems = []
        if user_exists(name):
            done = run_root(["userdel", "-r", "-f", name])
            if user_exists(name):
                problems.append(f"userdel {name} failed: {done.stderr}")
        home = f"/home/{name}"
        if os.path.isdir(home):
            shutil.rmtree(home, ignore_errors=True)
        for state in (f"/run/sudo/ts/{name}", f"/var/lib/sudo/lectured/{name}", f"/var/mail/{name}"):
            try:
                os.unlink(state)
            except FileNotFoundError:
                pass
            except OSError as err:
                problems.append(f"removing {state}: {err}")
        return problems


def process_start(pid: str) -> str | None:
    """When process `pid` started (field 22 of /proc/PID/stat, in clock ticks since boot), or
    None when there is no such process: a pid and its start name one process, never a later
    one that reuses the pid."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat.rsplit(b")", 1)[-1].split()
    return fields[19].decode() if len(fields) > 19 else None


def replace_file(path: str, data: bytes) -> None:
    """Replaces `path` with `data` as visudo does: a temporary file beside it, with its mode and
    owner (0440 root for /etc/sudoers), checked with `visudo -c -f` when visudo is there, then
    renamed over it. sudo reads the old file or the new one, never a half-written one, and a
    file visudo rejects never replaces it."""
    before = os.stat(path)
    fd, temporary = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".termloom-test-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchown(f.fileno(), before.st_uid, before.st_gid)
            os.fchmod(f.fileno(), before.st_mode & 0o7777)
            os.fsync(f.fileno())
        visudo = which("visudo")
        if visudo:
            done = subprocess.run([visudo, "-c", "-f", temporary], capture_output=True, text=True, timeout=120)
            if done.returncode != 0:
                raise RuntimeError(f"visudo rejects the new {path}: {done.stdout}{done.stderr}")
        os.rename(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


class Sudoers:
    """The rules runs install, and the include of /etc/sudoers.d a run may add to /etc/sudoers,
    kept so that nothing is left behind, even by a run that was killed.

    Everything happens under a lock (flock of `STATE/lock`; not of /etc/sudoers, which a
    restore replaces by another file). Each run writes a marker `STATE/run-RUN` holding its
    process's start before it makes its user or rule, and removes it last. A run's user, rule
    and marker are stale once its process is gone (or its pid now names a process that started
    at another time): every run removes the stale ones of others when it starts and when it
    ends, and never those of a live run (a user or rule without a marker, of an older script,
    counts as live while its pid does). The include line is added by whichever run finds it
    missing, which leaves `STATE/added-include`; it is taken out again by whichever run leaves
    when no marker and no rule of a live run is left, whoever added it."""

    def __init__(self, run: str, sudoers: str = SUDOERS, rules: str = SUDOERS_RULES_DIR, state: str = SUDOERS_STATE, users=None) -> None:
        self.run = run
        self.sudoers = sudoers
        self.rules = rules
        self.state = state
        self.users = users if users is not None else SystemUsers()

    def rule(self, run: str | None = None) -> str:
        """The path of a run's sudoers rule."""
        return os.path.join(self.rules, f"{RULE_PREFIX}{run or self.run}")

    def marker(self, run: str | None = None) -> str:
        """The path of a run's marker."""
        return os.path.join(self.state, f"run-{run or self.run}")

    @contextlib.contextmanager
    def locked(self):
        os.makedirs(self.state, mode=0o700, exist_ok=True)
        fd = os.open(os.path.join(self.state, "lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def runs(self) -> set[str]:
        """Every run with a user, a rule or a marker on the machine."""
        found = set()
        for name in self.users.names():
            if name.startswith(USER_PREFIX) and name[len(USER_PREFIX):].isdigit():
                found.add(name[len(USER_PREFIX):])
        for directory, prefix in ((self.rules, RULE_PREFIX), (self.state, "run-")):
            try:
                names = os.listdir(directory)
            except OSError:
                names = []
            found.update(name[len(prefix):] for name in names if name.startswith(prefix) and name[len(prefix):].isdigit())
        return found

    def alive(self, run: str) -> bool:
        """Whether the run's process still runs (the one its marker names, if it has one)."""
        started = process_start(run)
        if started is None:
            return False
        try:
            with open(self.marker(run)) as f:
                return f.read().strip() == started
        except FileNotFoundError:
            return True

    def _remove_run(self, run: str) -> list[str]:
        problems = []
        try:
            os.unlink(self.rule(run))
        except FileNotFoundError:
            pass
        except OSError as err:
            problems.append(f"removing {self.rule(run)}: {err}")
        problems += self.users.remove(f"{USER_PREFIX}{run}")
        if os.path.exists(self.rule(run)):
            problems.append(f"{self.rule(run)} is still there")
        if f"{USER_PREFIX}{run}" in self.users.names():
            problems.append(f"the user {USER_PREFIX}{run} is still there")
        if not problems:
            try:
                os.unlink(self.marker(run))
            except FileNotFoundError:
                pass
        return problems

    def _sweep(self) -> list[str]:
        problems = []
        for run in sorted(self.runs()):
            if run != self.run and not self.alive(run):
                problems += self._remove_run(run)
        return problems

    def enter(self) -> list[str]:
        """Removes what dead runs (and an earlier run of this pid) left, marks this run and makes
        /etc/sudoers read /etc/sudoers.d; returns what could not be removed."""
        started = process_start(self.run)
        if started is None:
            raise RuntimeError(f"run {self.run} names no process")
        with self.locked():
            problems = self._sweep() + self._remove_run(self.run)
            with open(self.marker(), "w") as f:
                f.write(f"{started}\n")
            with open(self.sudoers, "rb") as f:
                text = f.read()
            if not re.search(INCLUDE_PATTERN, text, re.MULTILINE):
                with open(os.path.join(self.state, "added-include"), "w"):
                    pass
                replace_file(self.sudoers, text + INCLUDE_LINE)
        return problems

    def install(self, rule: str) -> None:
        """Installs this run's rule (mode 0440, the owner of /etc/sudoers)."""
        owner = os.stat(self.sudoers)
        with self.locked():
            fd = os.open(self.rule(), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o440)
            with os.fdopen(fd, "w") as f:
                f.write(rule)
                os.fchown(f.fileno(), owner.st_uid, owner.st_gid)
                os.fchmod(f.fileno(), 0o440)

    def leave(self) -> list[str]:
        """Removes this run's rule, user and marker, and what dead runs left; the last run to
        leave takes out the include line a run added. Returns what could not be done."""
        with self.locked():
            problems = self._remove_run(self.run) + self._sweep()
            if self.runs():
                return problems  # a live run still needs the include
            added = os.path.join(self.state, "added-include")
            if not os.path.exists(added):
                return problems
            with open(self.sudoers, "rb") as f:
                text = f.read()
            if text.endswith(INCLUDE_LINE):
                try:
                    replace_file(self.sudoers, text[: -len(INCLUDE_LINE)])
                except (OSError, RuntimeError) as err:
                    return problems + [f"restoring {self.sudoers}: {err}"]
            os.unlink(added)
        return problems


class SudoUser:
    """The test user with a random password and a sudoers rule that asks for it."""

    def __init__(self) -> None:
        self.password = "Tl" + secrets.token_hex(16)
        self.sudoers = Sudoers(RUN)

    def create(self) -> None:
        problems = self.sudoers.enter()
        if problems:
            raise RuntimeError(f"cannot remove what earlier runs left: {problems}")
        done = run_root(["useradd", "-m", "-s", "/bin/sh", SUDO_USER])
        if done.returncode != 0:
            raise RuntimeError(f"useradd failed: {done.stderr}")
        done = run_root(["chpasswd"], stdin=f"{SUDO_USER}:{self.password}\n")
        if done.returncode != 0:
            raise RuntimeError(f"chpasswd failed: {done.stderr}")
        rule = f"{SUDO_USER} ALL=(ALL) ALL\n"
        with tempfile.TemporaryDirectory() as scratch:
            candidate = os.path.join(scratch, "rule")
            with open(candidate, "w") as f:
                f.write(rule)
            done = run_root(["visudo", "-cf", candidate])
            if done.returncode != 0:
                raise RuntimeError(f"visudo rejects the rule: {done.stdout}{done.stderr}")
        self.sudoers.install(rule)
        done = run_root(["visudo", "-c"])
        if done.returncode != 0:
            raise RuntimeError(f"visudo -c fails with the rule installed: {done.stdout}{done.stderr}")
        done = run_root(["sudo", "-l", "-U", SUDO_USER])
        if "(ALL) ALL" not in done.stdout:
            raise RuntimeError(f"sudo does not see the rule (is {SUDOERS}'s includedir active?): {done.stdout}{done.stderr}")

    def remove(self) -> list[str]:
        """Removes the user, its home, the sudoers rule and sudo's state for the user (and what
        dead runs left); returns what could not be removed."""
        return self.sudoers.leave()


def sudo_prompts_in_a_pty(password: str) -> tuple[bool, str]:
    """Runs SUDO_COMMAND in a pseudo-terminal without termloom: it must stop at a password
    prompt with echo off, and accept the password. Tells a broken machine from a broken
    server."""
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir("/")
        os.execvp("sh", ["sh", "-c", SUDO_COMMAND])
    seen = b""

    def read_until(needle: bytes, seconds: float) -> bool:
        nonlocal seen
        deadline = time.monotonic() + seconds
        while needle not in seen:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return False
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                return False
            if not chunk:
                return False
            seen += chunk
        return True

    try:
        if not read_until(SUDO_PROMPT.encode(), 60):
            return False, f"no password prompt: {seen.decode(errors='replace')!r}"
        lflag = termios.tcgetattr(fd)[3]
        if lflag & termios.ECHO or not lflag & termios.ICANON:
            return False, f"the prompt does not turn echo off (lflag {lflag:#o})"
        os.write(fd, password.encode() + b"\n")
        if not read_until(b"SUDO-OK", 60):
            return False, f"the password was not accepted: {seen.decode(errors='replace')!r}"
        return True, ""
    finally:
        os.close(fd)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)


# --------------------------------------------------------------------------------------------
# The checks.
# --------------------------------------------------------------------------------------------


class Checks(mcp_client.Checks):
    """mcp_client's checks, with the password kept out of what they print."""

    def check(self, name: str, ok: bool, detail: object = "") -> bool:
        return super().check(name, ok, redact(str(detail)))

    def info(self, text: str) -> None:
        print(f"info  {redact(text)}")
        sys.stdout.flush()


def text_of(result) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def everything_in(result) -> str:
    """The result's text and structured content, as the client received them."""
    return text_of(result) + "\n" + json.dumps(result.structured_content or {})


class Elicitor:
    """The person: answers with `answer` (and `content` when accepting), and records every
    question it was asked. Accepting a URL question, it posts `content["secret"]` to the
    page from a thread of its own, as a browser would (the server takes it while the call
    waits, or, on the stateless revision, once the call is retried)."""

    def __init__(self) -> None:
        self.answer = "decline"
        self.content: dict | None = None
        self.asked: list[dict] = []
        self.posts: list[threading.Thread] = []
        self.pages: list[str] = []  # what each page answered its POST

    def post(self, url: str, secret: str) -> None:
        import urllib.parse
        import urllib.request

        body = urllib.parse.urlencode({"secret": secret}).encode()
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(urllib.request.Request(url, data=body), timeout=120) as answer:
                self.pages.append(answer.read().decode("utf-8", "replace"))
        except Exception as err:  # recorded, and the check on pages fails
            self.pages.append(f"POST failed: {err}")

    def posted(self) -> list[str]:
        """What the pages answered, once every POST ended."""
        for thread in self.posts:
            thread.join(timeout=120)
        self.posts.clear()
        return self.pages

    def set(self, answer: str, content: dict | None = None) -> None:
        self.answer = answer
        self.content = content

    async def __call__(self, context, params):
        from mcp import types

        self.asked.append(
            {
                "mode": getattr(params, "mode", None),
                "message": getattr(params, "message", ""),
                "schema": getattr(params, "requested_schema", None),
                "url": getattr(params, "url", None),
            }
        )
        url = getattr(params, "url", None)
        if self.answer == "accept" and getattr(params, "mode", None) == "url" and url:
            secret = (self.content or {}).get("secret", "")
            thread = threading.Thread(target=self.post, args=(url, secret), daemon=True)
            thread.start()
            self.posts.append(thread)
            return types.ElicitResult(action="accept")
        if self.answer == "accept":
            return types.ElicitResult(action="accept", content=dict(self.content or {}))
        return types.ElicitResult(action=self.answer)


class Context:
    """One connection's client, checks and the results it has seen."""

    def __init__(self, checks: Checks, label: str, client, workdir: str, password: str, elicitor: Elicitor | None):
        self.checks = checks
        self.label = label
        self.client = client
        self.workdir = workdir
        self.password = password
        self.elicitor = elicitor
        self.seen: list[str] = []  # every result's text and structured content

    def check(self, name: str, ok: bool, detail: object = "") -> bool:
        return self.checks.check(f"[{self.label}] {name}", ok, detail)

    def info(self, text: str) -> None:
        self.checks.info(f"[{self.label}] {text}")

    async def call(self, name: str, arguments: dict):
        result = await self.client.call_tool(name, arguments)
        self.seen.append(everything_in(result))
        return result

    async def ok(self, name: str, arguments: dict, what: str):
        result = await self.call(name, arguments)
        self.check(f"{what}: {name} succeeds", not result.is_error, text_of(result))
        return result

    async def sessions(self) -> list[dict]:
        listed = await self.call("terminal_list", {})
        return list((listed.structured_content or {}).get("sessions") or [])

    async def screen(self, session_id) -> str:
        result = await self.call("terminal_read", {"session_id": session_id, "view": "screen"})
        return text_of(result)

    async def status(self, session_id) -> dict:
        result = await self.call("terminal_read", {"session_id": session_id})
        return (result.structured_content or {}).get("status") or {}

    def asked_since(self, count: int) -> list[dict]:
        return self.elicitor.asked[count:] if self.elicitor else []

    def path(self, name: str) -> str:
        return os.path.join(self.workdir, name)


def has_line(text: str, line: str) -> bool:
    """Whether `line` is a whole line of `text` (output, not a header quoting a condition)."""
    return re.search(rf"^{re.escape(line)}\s*$", text, re.MULTILINE) is not None


def properties(schema) -> dict | None:
    if not isinstance(schema, dict):
        return None
    return schema.get("properties") or {}


async def wait_for_password_prompt(ctx: Context, session_id, started, prompt: str) -> dict:
    """After a start with `input_wait`: the session must be at `prompt` with echo off. Waits
    once more for the prompt's text if the input wait ended before it was drawn."""
    status = (started.structured_content or {}).get("status") or {}
    if not (status.get("input_kind") == "password" and prompt in await ctx.screen(session_id)):
        await ctx.call("terminal_read", {"session_id": session_id, "for_screen_text": prompt, "timeout_ms": WAIT_MS})
        await ctx.call("terminal_read", {"session_id": session_id, "input_wait": True, "timeout_ms": WAIT_MS})
        status = await ctx.status(session_id)
    screen = await ctx.screen(session_id)
    ctx.check(
        f"the terminal waits at {prompt!r} with echo off",
        status.get("activity") == "waiting_for_input" and status.get("input_kind") == "password" and prompt in screen,
        {"status": status, "screen": screen},
    )
    return status


async def deny(ctx: Context) -> None:
    """a. A denied program is refused by name and never forks."""
    before = len(await ctx.sessions())
    touch = which("touch") or "/usr/bin/touch"
    cases = [
        ("a shell line", lambda p: {"command": f"touch {shlex.quote(p)}"}),
        ("a shell line, second command", lambda p: {"command": f"echo start; touch {shlex.quote(p)}"}),
        ("a shell line, after &&", lambda p: {"command": f"true && touch {shlex.quote(p)}"}),
        ("a shell line, in a pipeline", lambda p: {"command": f"echo x | touch {shlex.quote(p)}"}),
        ("argv", lambda p: {"argv": ["touch", p]}),
        ("argv with the absolute path", lambda p: {"argv": [touch, p]}),
    ]
    for number, (how, arguments) in enumerate(cases):
        target = ctx.path(f"denied-{number}")
        result = await ctx.call("terminal_start", {**arguments(target), "exit": True, "timeout_ms": WAIT_MS})
        text = text_of(result)
        ctx.check(
            f"touch in {how} is denied naming the rule",
            result.is_error and "denied" in text.lower() and "no-touch" in text,
            text,
        )
        ctx.check(f"touch in {how} did not run (no file)", not os.path.exists(target), target)
    after = await ctx.sessions()
    ctx.check("denied programs started no session", len(after) == before, after)

    # terminal_run without a session starts a shell for the command: the policy sees the
    # command too.
    target = ctx.path("denied-run")
    result = await ctx.call("terminal_run", {"command": f"touch {shlex.quote(target)}", "timeout_ms": WAIT_MS})
    text = text_of(result)
    ctx.check(
        "terminal_run of touch in a new shell is denied naming the rule",
        result.is_error and "no-touch" in text and not os.path.exists(target),
        text,
    )

    # What the policy allows runs.
    target = ctx.path("allowed")
    result = await ctx.ok("terminal_start", {"command": f"echo allowed > {shlex.quote(target)}", "exit": True, "timeout_ms": WAIT_MS}, "an allowed command line")
    ctx.check("an allowed command line ran", os.path.exists(target), text_of(result))


async def ask(ctx: Context) -> None:
    """b. An `ask` program runs only when the person accepts."""
    for answer in ("decline", "cancel"):
        for how, arguments, target in [
            ("a shell line", lambda p: {"command": f"printf made > {shlex.quote(p)}"}, ctx.path(f"ask-{answer}-line")),
            ("argv", lambda p: {"argv": ["printf", f"ASK-{answer.upper()}-RAN\\n"]}, None),
        ]:
            before = len(await ctx.sessions())
            asked = len(ctx.elicitor.asked)
            ctx.elicitor.set(answer)
            result = await ctx.call("terminal_start", {**arguments(target), "exit": True, "timeout_ms": WAIT_MS})
            text = text_of(result)
            # A cancel may say so rather than "declined".
            words = ("declined",) if answer == "decline" else ("declined", "cancelled", "canceled")
            ctx.check(
                f"printf in {how}, {answer}: an error saying {' or '.join(words)}",
                result.is_error and any(word in text.lower() for word in words),
                text,
            )
            questions = ctx.asked_since(asked)
            ctx.check(f"printf in {how}, {answer}: the person was asked once", len(questions) == 1, questions)
            if questions:
                question = questions[0]
                ctx.check(f"printf in {how}, {answer}: the question names printf", "printf" in question["message"], question)
                ctx.check(
                    f"printf in {how}, {answer}: a form with no fields",
                    question["mode"] == "form" and properties(question["schema"]) == {},
                    question,
                )
            if target:
                ctx.check(f"printf in {how}, {answer}: did not run (no file)", not os.path.exists(target), target)
            after = await ctx.sessions()
            ctx.check(f"printf in {how}, {answer}: no session", len(after) == before, after)

    ctx.elicitor.set("accept", {})
    before = len(await ctx.sessions())
    target = ctx.path("ask-accept-line")
    asked = len(ctx.elicitor.asked)
    result = await ctx.call("terminal_start", {"command": f"printf made > {shlex.quote(target)}", "exit": True, "timeout_ms": WAIT_MS})
    ctx.check("printf in a shell line, accepted: starts", not result.is_error, text_of(result))
    ctx.check("printf in a shell line, accepted: the person was asked once", len(ctx.asked_since(asked)) == 1, ctx.asked_since(asked))
    ctx.check("printf in a shell line, accepted: ran (file made)", contents(target) == "made", target)
    after = await ctx.sessions()
    ctx.check("printf in a shell line, accepted: listed as a session", len(after) == before + 1, after)

    result = await ctx.call("terminal_start", {"argv": ["printf", "ASK-ACCEPT-RAN\\n"], "exit": True, "timeout_ms": WAIT_MS})
    if not result.is_error and not has_line(text_of(result), "ASK-ACCEPT-RAN"):
        session_id = (result.structured_content or {}).get("session_id")
        result = await ctx.call("terminal_read", {"session_id": session_id, "view": "scrollback"})
    ctx.check("printf in argv, accepted: ran (output seen)", not result.is_error and has_line(text_of(result), "ASK-ACCEPT-RAN"), text_of(result))
    ctx.elicitor.set("decline")


async def secret_refused_without_password_prompt(ctx: Context) -> None:
    """c. At a prompt that echoes, a secret is refused and nothing is typed."""
    decoy = "Decoy" + secrets.token_hex(8)
    REDACT.append(decoy)
    started = await ctx.ok("terminal_start", {"argv": ["cat"], "input_wait": True, "timeout_ms": WAIT_MS}, "cat")
    cat = (started.structured_content or {}).get("session_id")
    asked = len(ctx.elicitor.asked)
    ctx.elicitor.set("accept", {"secret": decoy})
    result = await ctx.call("terminal_send", {"session_id": cat, "secret": True})
    text = text_of(result)
    ctx.check("a secret into cat (echo on) is an error", result.is_error, text)
    ctx.check("the error says why (a password prompt)", "password" in text.lower(), text)
    ctx.info(f"the person was asked {len(ctx.asked_since(asked))} time(s) for the refused secret")
    ctx.elicitor.set("decline")
    marker = "MARK-" + secrets.token_hex(4)
    await ctx.ok("terminal_send", {"session_id": cat, "text": marker + "\n", "for_text": marker, "timeout_ms": WAIT_MS}, "cat")
    transcript = text_of(await ctx.call("terminal_read", {"session_id": cat, "view": "scrollback"}))
    ctx.check("cat got the marker", marker in transcript, transcript)
    ctx.check("nothing of the refused secret was typed", decoy not in transcript and decoy not in "".join(ctx.seen), transcript)
    await ctx.ok("terminal_close", {"session_id": cat}, "cat")


def check_secret_question(ctx: Context, how: str, questions: list[dict]) -> None:
    ctx.check(f"{how} secret: the person was asked once", len(questions) == 1, questions)
    if questions:
        question = questions[0]
        ctx.check(
            f"{how} secret: asked by URL (never a form), a page on 127.0.0.1",
            question["mode"] == "url" and not question["schema"] and (question["url"] or "").startswith("http://127.0.0.1:"),
            question,
        )


async def secret_into_sudo(ctx: Context) -> None:
    """c. sudo's password, given by the person, is typed and never shown."""
    started = await ctx.ok(
        "terminal_start",
        {"command": SUDO_COMMAND, "cwd": "/", "input_wait": True, "timeout_ms": WAIT_MS},
        "su and sudo",
    )
    sudo = (started.structured_content or {}).get("session_id")
    await wait_for_password_prompt(ctx, sudo, started, SUDO_PROMPT)

    asked = len(ctx.elicitor.asked)
    ctx.elicitor.set("decline")
    result = await ctx.call("terminal_send", {"session_id": sudo, "secret": True})
    text = text_of(result)
    ctx.check("a declined secret is an error saying declined", result.is_error and "declined" in text.lower(), text)
    check_secret_question(ctx, "declined", ctx.asked_since(asked))

    # Cancelled: also nothing typed.
    ctx.elicitor.set("cancel")
    asked = len(ctx.elicitor.asked)
    result = await ctx.call("terminal_send", {"session_id": sudo, "secret": True})
    questions = ctx.asked_since(asked)
    ctx.check(
        "a cancelled secret question is an error, asked once",
        result.is_error and len(questions) == 1 and "cancelled" in text_of(result).lower(),
        {"result": text_of(result), "questions": questions},
    )
    status = await ctx.status(sudo)
    screen = await ctx.screen(sudo)
    ctx.check(
        "after the declines sudo still waits for the password (nothing typed)",
        status.get("input_kind") == "password" and "Sorry" not in screen and not has_line(screen, "SUDO-OK"),
        {"status": status, "screen": screen},
    )

    ctx.elicitor.set("accept", {"secret": ctx.password})
    asked = len(ctx.elicitor.asked)
    result = await ctx.call("terminal_send", {"session_id": sudo, "secret": True})
    text = text_of(result)
    ctx.check(
        "the result says the secret was entered",
        not result.is_error and ("entered" in text.lower() or "typed" in text.lower()),
        text,
    )
    check_secret_question(ctx, "accepted", ctx.asked_since(asked))
    pages = ctx.elicitor.posted()
    ctx.check("the page answered its one POST: typed", len(pages) == 1 and "Typed." in pages[0], pages)
    ctx.elicitor.set("decline")
    ended = await ctx.call("terminal_read", {"session_id": sudo, "for_text": "SUDO-OK", "exit": True, "timeout_ms": WAIT_MS})
    transcript = text_of(await ctx.call("terminal_read", {"session_id": sudo, "view": "scrollback"}))
    everything = text + "\n" + text_of(ended) + "\n" + transcript
    ctx.check("sudo accepted the password (SUDO-OK)", has_line(everything, "SUDO-OK"), everything)
    ctx.check("sudo never said Sorry, try again", "Sorry" not in everything, everything)
    ctx.check("no tool result carries the password", not any(ctx.password in seen for seen in ctx.seen))


async def close_all(ctx: Context) -> None:
    for entry in await ctx.sessions():
        if entry.get("state") == "running":
            await ctx.ok("terminal_close", {"session_id": entry["session_id"]}, f"closing session {entry['session_id']}")


async def with_elicitation(ctx: Context) -> None:
    for phase in (deny, ask, secret_refused_without_password_prompt, secret_into_sudo):
        try:
            await phase(ctx)
        except Exception:
            ctx.check(f"{phase.__name__} runs to its end", False, traceback.format_exc())
    await close_all(ctx)


async def without_elicitation(ctx: Context) -> None:
    """d. A client that cannot be asked gets an error naming elicitation."""
    try:
        before = len(await ctx.sessions())
        target = ctx.path("ask-no-elicitation")
        result = await ctx.call("terminal_start", {"command": f"printf made > {shlex.quote(target)}", "exit": True, "timeout_ms": WAIT_MS})
        text = text_of(result)
        ctx.check("ask without elicitation: an error naming elicitation", result.is_error and "elicitation" in text.lower(), text)
        ctx.check("ask without elicitation: did not run (no file)", not os.path.exists(target), target)
        after = await ctx.sessions()
        ctx.check("ask without elicitation: no session", len(after) == before, after)

        started = await ctx.ok(
            "terminal_start",
            {"argv": ["sh", "-c", READ_PASSWORD], "input_wait": True, "timeout_ms": WAIT_MS},
            "a password prompt",
        )
        prompt = (started.structured_content or {}).get("session_id")
        await wait_for_password_prompt(ctx, prompt, started, READ_PROMPT)
        result = await ctx.call("terminal_send", {"session_id": prompt, "secret": True})
        text = text_of(result)
        ctx.check("secret without elicitation: an error naming elicitation", result.is_error and "elicitation" in text.lower(), text)
        status = await ctx.status(prompt)
        screen = await ctx.screen(prompt)
        ctx.check(
            "secret without elicitation: nothing typed",
            status.get("input_kind") == "password" and not re.search(r"^LEN=\d", screen, re.MULTILINE),
            {"status": status, "screen": screen},
        )
    except Exception:
        ctx.check("the scenario without elicitation runs to its end", False, traceback.format_exc())
    await close_all(ctx)


# --------------------------------------------------------------------------------------------
# The connections.
# --------------------------------------------------------------------------------------------


def files_holding(needle: bytes, paths: list[str]) -> list[str]:
    holding = []
    for path in paths:
        try:
            with open(path, "rb") as f:
                if needle in f.read():
                    holding.append(path)
        except OSError:
            pass
    return holding


def contents(path: str) -> str | None:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def tail(path: str, size: int = 1500) -> str:
    try:
        with open(path, "rb") as f:
            return f.read()[-size:].decode(errors="replace")
    except OSError as err:
        return f"({err})"


async def connect_and_run(checks: Checks, label: str, server_cmd: list[str], mode: str, ask_person: bool, root: str, password: str) -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    workdir = tempfile.mkdtemp(prefix=f"{label}-", dir=root)
    record_dir = os.path.join(workdir, "recordings")
    os.mkdir(record_dir, 0o700)
    policy = os.path.join(workdir, "policy.toml")
    with open(policy, "w") as f:
        f.write(POLICY)
    config = os.path.join(workdir, "config.toml")
    with open(config, "w") as f:
        f.write(f"record_dir = {json.dumps(record_dir)}\nrecord_every_session = true\n")
    prefix = os.path.join(workdir, "server")
    files = os.path.join(workdir, "files")  # where the sessions' commands make files
    os.mkdir(files)
    params = StdioServerParameters(
        command=sys.executable,
        args=[os.path.abspath(__file__), "--proxy", prefix, "--", *server_cmd, "--policy", policy, "--config", config],
        env={"PYTHONUNBUFFERED": "1", "RUST_LOG": "debug", "TERMLOOM_LOG": "debug"},
    )
    elicitor = Elicitor() if ask_person else None
    expect_version = HANDSHAKE if mode == "legacy" else MODERN

    async def scenario() -> None:
        async with Client(params, mode=mode, read_timeout_seconds=120, elicitation_callback=elicitor) as client:
            ctx = Context(checks, label, client, files, password, elicitor)
            ctx.check("negotiated protocol version", client.protocol_version == expect_version, client.protocol_version)
            if ask_person:
                await with_elicitation(ctx)
            else:
                await without_elicitation(ctx)

    try:
        await asyncio.wait_for(scenario(), timeout=300)
    except BaseException as err:  # an ExceptionGroup from the SDK's task group, a timeout
        if isinstance(err, (KeyboardInterrupt, SystemExit, asyncio.CancelledError)):
            raise
        checks.check(
            f"[{label}] the connection runs to its end",
            False,
            f"{traceback.format_exc()}\nthe server's stderr ends with:\n{tail(prefix + '.stderr')}",
        )

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not os.path.exists(prefix + ".report.json"):
        await asyncio.sleep(0.1)  # the proxy writes its report once the server has exited
    try:
        with open(prefix + ".report.json") as f:
            report = json.load(f)
    except (OSError, ValueError) as err:
        checks.check(f"[{label}] the proxy reported", False, err)
        return
    counts = report["counts"]
    checks.check(f"[{label}] stdout carries JSON-RPC messages only", not report["problems"], report["problems"])
    checks.check(f"[{label}] the server exited with 0 at the end of input", report["exit_code"] == 0, f"{report}\n{tail(prefix + '.stderr')}")

    if ask_person:
        questions = len(elicitor.asked)
        checks.check(f"[{label}] the person was asked", questions >= 6, elicitor.asked)
        if mode == "legacy":
            sent = counts.get("request:elicitation/create", 0)
            checks.check(f"[{label}] every question was an elicitation/create request", sent == questions, counts)
        else:
            sent = counts.get("input_required:elicitation/create", 0)
            checks.check(
                f"[{label}] every question was an input_required result, none a request",
                sent == questions and not counts.get("request:elicitation/create"),
                counts,
            )

    needle = password.encode()
    stdout_bytes = os.path.getsize(prefix + ".stdout") if os.path.exists(prefix + ".stdout") else 0
    checks.check(f"[{label}] the server's stdout was captured", stdout_bytes > 0, stdout_bytes)
    checks.check(f"[{label}] the password is nowhere on the server's stdout", not files_holding(needle, [prefix + ".stdout"]))
    checks.check(f"[{label}] the password is nowhere on the server's stderr (logs)", not files_holding(needle, [prefix + ".stderr"]))
    recordings = [os.path.join(record_dir, name) for name in sorted(os.listdir(record_dir))]
    checks.check(f"[{label}] every session was recorded", len(recordings) > 0, recordings)
    checks.check(f"[{label}] the password is in no recording", not files_holding(needle, recordings), files_holding(needle, recordings))
    if ask_person:
        checks.check(f"[{label}] the sudo session is among the recordings", bool(files_holding(b"SUDO-OK\\r\\n", recordings)), recordings)
        checks.check(
            f"[{label}] the password is in no file the server or its sessions wrote",
            not files_holding(needle, [os.path.join(d, n) for d, _, names in os.walk(workdir) for n in names]),
        )


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--proxy":
        return proxy(sys.argv[2:])
    if sys.argv[1:] == ["--cleanup"]:
        # The Rust test's last word: removes what this run (and dead ones) left, under the lock.
        problems = Sudoers(RUN).leave()
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if problems else 0
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    server_cmd = sys.argv[1:]
    try:
        import mcp  # noqa: F401
    except ImportError:
        print("the Python package `mcp` is missing: pip install -r tests/mcp_requirements.txt", file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("this script creates a user with a sudo rule: run it as root", file=sys.stderr)
        return 2
    missing = [p for p in ("su", "sudo", "useradd", "userdel", "chpasswd", "visudo", "sh", "cat", "touch", "printf") if not which(p)]
    if missing:
        print(f"missing programs: {', '.join(missing)}", file=sys.stderr)
        return 2

    # A SIGTERM (a test harness giving up) still removes the user and the sudoers rule.
    def terminated(signum, frame):
        raise SystemExit(f"terminated by signal {signum}")

    signal.signal(signal.SIGTERM, terminated)
    signal.signal(signal.SIGHUP, terminated)

    checks = Checks()
    user = SudoUser()
    REDACT.append(user.password)
    try:
        try:
            user.create()
            checks.check(f"[setup] user {SUDO_USER} with a sudo rule that asks for its password", True)
        except Exception:
            checks.check(f"[setup] user {SUDO_USER} with a sudo rule that asks for its password", False, traceback.format_exc())
            raise
        prompts, detail = sudo_prompts_in_a_pty(user.password)
        checks.check("[setup] without termloom, sudo prompts with echo off and takes the password", prompts, detail)
        with tempfile.TemporaryDirectory(prefix="termloom-mcp-policy-") as root:
            for label, mode, ask_person in [
                ("initialize", "legacy", True),
                ("discover", "auto", True),
                ("initialize, no elicitation", "legacy", False),
                ("discover, no elicitation", "auto", False),
            ]:
                asyncio.run(connect_and_run(checks, label, server_cmd, mode, ask_person, root, user.password))
    except Exception:
        if not checks.failed:
            checks.check("the script runs to its end", False, traceback.format_exc())
    finally:
        problems = user.remove()
        checks.check(f"[cleanup] user {SUDO_USER} and {SUDOERS_FILE} removed", not problems, problems)
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
