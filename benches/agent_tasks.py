"""Agent tasks through `termloom mcp` (with the official Python MCP SDK) and through a tmux
harness, in the same run: the bytes a model reads, the calls, the facts present in each step's
first result, and the wall time, per task.

The tmux harness is what agents do without termloom: `send-keys`, then `capture-pane` every
50 ms until the pane has not changed for 0.5 s, and the model reads the capture. termloom's
steps are one tool call each, with the tool's default wait unless the step needs a condition.

Each step lists, before anything is measured, the facts the model needs from that step's first
result (strings that must appear in it): a step whose first result lacks one would cost the
model another call.

Usage: agent_tasks.py TERMLOOM_BINARY [TASK...]

With TERMLOOM_BENCH_SHOW=1 every result's text is printed (to stderr), as the model reads it.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ESCAPE = re.compile(r"\x1b")


def progress_script(path: str) -> None:
    with open(path, "w") as f:
        f.write(
            "import sys, time\n"
            "for i in range(0, 101, 5):\n"
            "    bar = '#' * (i // 5) + '.' * (20 - i // 5)\n"
            "    sys.stdout.write(f'\\r\\033[32m[{bar}]\\033[0m {i:3d}%')\n"
            "    sys.stdout.flush()\n"
            "    time.sleep(0.1)\n"
            "print()\nprint('download complete: 42 files')\n"
        )


def prompt_script(path: str) -> None:
    with open(path, "w") as f:
        f.write(
            "import time\n"
            "for i in range(20):\n"
            "    print(f'checking package {i}...')\n"
            "    time.sleep(0.1)\n"
            "answer = input('Continue? [y/N] ')\n"
            "print('installing' if answer == 'y' else 'aborted')\n"
            "print('installed 20 packages')\n"
        )


def makefile(path: str) -> None:
    with open(path, "w") as f:
        f.write(
            "all: build test\n"
            "build:\n\t@echo compiling main.c\n\t@echo linking app\n"
            "test:\n\t@echo running 3 tests\n\t@echo 'test_parse ... ok'\n"
            "\t@echo 'test_eval ... FAILED: expected 4, got 5'\n\t@exit 1\n"
        )


def notes(path: str) -> None:
    with open(path, "w") as f:
        f.write("".join(f"note {i}\n" for i in range(1, 31)))


# A task: a name, its setup (files in the working directory), the program and, per step,
# (termloom tool call, tmux keys, facts). "{sid}" is the session; "{dir}" the work directory.
TASKS = [
    (
        "pager",
        None,
        "seq 1 500 | less",
        [
            (("terminal_start", {"command": "seq 1 500 | less"}), None, ["1", "23", ":"]),
            (("terminal_send", {"keys": " "}), [" "], ["46"]),
            (("terminal_send", {"keys": "/^250$<Enter>"}), ["/^250$", "Enter"], ["250", "272"]),
            (("terminal_send", {"keys": "q"}), ["q"], ["exited"]),
        ],
    ),
    (
        "progress bar",
        progress_script,
        "python3 {dir}/progress.py; echo EXIT=$?",
        [
            (
                ("terminal_start", {"command": "python3 {dir}/progress.py", "for_text": "download complete"}),
                None,
                ["100%", "download complete: 42 files"],
            ),
        ],
    ),
    (
        "vim edit",
        notes,
        "vim -u NONE -N -n -i NONE {dir}/notes.txt",
        [
            (("terminal_start", {"argv": ["vim", "-u", "NONE", "-N", "-n", "-i", "NONE", "{dir}/notes.txt"]}), None, ["note 1", "30L"]),
            (("terminal_send", {"keys": "Gonote 31<Esc>"}), ["G", "o", "note 31", "Escape"], ["note 31"]),
            (("terminal_send", {"keys": ":wq<Enter>"}), [":wq", "Enter"], ["exited"]),
        ],
    ),
    (
        "python traceback",
        None,
        "python3 -q",
        [
            (("terminal_start", {"argv": ["python3", "-q"]}), None, [">>>"]),
            (("terminal_send", {"text": "1/0", "submit": True}), ["1/0", "Enter"], ["ZeroDivisionError: division by zero", ">>>"]),
            (("terminal_send", {"text": "6*7", "submit": True}), ["6*7", "Enter"], ["42"]),
            (("terminal_send", {"keys": "<C-d>"}), ["C-d"], ["exited"]),
        ],
    ),
    (
        "failing make",
        makefile,
        "bash --norc --noprofile",
        [
            (("terminal_run", {"command": "make -C {dir}"}), ["make -C {dir}", "Enter"], ["FAILED: expected 4, got 5", "Error 1", "2"]),
        ],
    ),
    (
        "y/N prompt",
        prompt_script,
        "python3 {dir}/prompt.py",
        [
            (("terminal_start", {"command": "python3 {dir}/prompt.py", "input_wait": True}), None, ["Continue? [y/N]"]),
            (("terminal_send", {"text": "y", "submit": True, "exit": True}), ["y", "Enter"], ["installed 20 packages"]),
        ],
    ),
    (
        "vim and less from a shell",
        notes,
        "env PS1='$ ' bash --norc --noprofile",
        [
            (("terminal_start", {"argv": ["bash", "--norc", "--noprofile"], "env": {"PS1": "$ "}}), None, ["$"]),
            (
                ("terminal_send", {"text": "vim -u NONE -N -n -i NONE {dir}/notes.txt", "submit": True}),
                ["vim -u NONE -N -n -i NONE {dir}/notes.txt", "Enter"],
                ["note 1"],
            ),
            (("terminal_send", {"keys": ":q<Enter>"}), [":q", "Enter"], ["$"]),
            (("terminal_send", {"text": "less {dir}/notes.txt", "submit": True}), ["less {dir}/notes.txt", "Enter"], ["note 1"]),
            (("terminal_send", {"keys": "q"}), ["q"], ["$"]),
        ],
    ),
    (
        "htop sort",
        None,
        "htop",
        [
            (("terminal_start", {"argv": ["htop"], "for_screen_text": "Quit"}), None, ["PID", "Quit"]),
            (("terminal_send", {"keys": "<F6>"}), ["F6"], ["Sort by", "PERCENT_MEM"]),
            (("terminal_send", {"keys": "<Esc>"}), ["Escape"], ["PID"]),
            (("terminal_send", {"keys": "q"}), ["q"], ["exited"]),
        ],
    ),
]

COLS, ROWS = 80, 24


def fill(value, sid, workdir):
    """`value` with {sid} and {dir} put in."""
    if isinstance(value, str):
        return value.replace("{dir}", workdir).replace("{sid}", str(sid))
    if isinstance(value, list):
        return [fill(v, sid, workdir) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, sid, workdir) for k, v in value.items()}
    return value


SCREEN_HEADER = re.compile(r"^--- screen (\d+)x(\d+)[^:]*?(?:: (.*))? ---$")
# The screen a change is told against: the last look, the one before it, or one further back.
SINCE = re.compile(r"your last look|the previous different screen you saw|the screen you saw (\d+) different screens ago")
MOVED = re.compile(
    r"as at (?:your last look|the previous different screen you saw|the screen you saw \d+ different screens ago), "
    r"with its rows (\d+)-(\d+) moved to (\d+)-(\d+)"
)
SLID = re.compile(
    r"; rows (\d+)-(\d+) as (?:rows (\d+)-\d+ )?then but (?:their columns? (\d+)(?:-(\d+))? )?"
    r"moved (\d+) columns? to the (right|left), only their columns? (\d+)(?:-(\d+))? shown"
)
LISTED = re.compile(r"^(\d+)│(.*)$")
MARKS = str.maketrans("", "", "⟦⟧")


def body_all(lines: list[str], at: int) -> list[str]:
    """The lines after a screen's header, notes included."""
    return lines[at + 1 :]


class KnownScreens:
    r"""The screens a model knows of one session, rebuilt from the results as it reads them:
    a whole screen, or the changes since an earlier one ("your last look", "the previous
    different screen you saw", "the screen you saw N different screens ago"), with a block of
    rows moved and one that slid sideways (its rows compared without their style marks). A
    screen seen again is one look, moved to the newest place, as termloom keeps them, so the
    N-th look back is the one a header names. A fact on a row that a result says is unchanged
    is known to the model, so it counts as present (`python3 -m doctest benches/agent_tasks.py`):

    >>> known = KnownScreens()
    >>> for page in ["panels", "page 1", "page 2", "page 1", "page 2"]:
    ...     _ = known.read(f"--- screen 10x2 ---\n{page}\nF10 Quit")
    >>> known.read("--- screen 10x2: the same as the screen you saw 3 different screens ago ---")
    'panels\nF10 Quit'
    >>> known.read("--- screen 10x2: as at the screen you saw 3 different screens ago, with its rows 0-0 moved to 1-1 ---")
    'page 1\npage 1'

    A screen whose base the model does not know is a look it cannot rebuild (None). Told as
    the same as a look, it is that look, moved to the newest place, as termloom keeps it,
    whether the model rebuilt it or not (appended besides, the None pushed every older look
    one further back). A screen cut by `max_bytes` makes termloom forget what the caller saw
    (the next one comes whole), and so does the model:

    >>> known = KnownScreens()
    >>> _ = known.read("--- screen 10x2 ---\npanels\nF10 Quit")
    >>> _ = known.read("--- screen 10x2: rows changed since the screen you saw 4 different screens ago ---\n0│a")
    >>> _ = known.read("--- screen 10x2 ---\nmenu\nEsc")
    >>> known.read("--- screen 10x2: the same as the previous different screen you saw ---")
    ''
    >>> known.read("--- screen 10x2: the same as the screen you saw 3 different screens ago ---")
    'panels\nF10 Quit'
    >>> _ = known.read("--- screen 10x2 ---\npanels\n[... 9 bytes of the screen left out; read on]")
    >>> known.looks
    []
    """

    def __init__(self) -> None:
        self.looks: list[list[str] | None] = []  # distinct screens, the last seen last; None: not rebuilt

    def read(self, text: str) -> str:
        """The screen `text` shows, rebuilt, or "" when it shows none."""
        lines = text.split("\n")
        at = next((i for i, line in enumerate(lines) if SCREEN_HEADER.match(line)), None)
        if at is None:
            return ""
        cols, rows, change = SCREEN_HEADER.match(lines[at]).groups()
        cols, rows = int(cols), int(rows)
        body = [line for line in lines[at + 1 :] if not line.startswith("[... ")]
        if change is None:
            screen = (body + [""] * rows)[:rows]
        else:
            base = self.base(change)
            screen = None if base is None or len(base) != rows else self.changed(base, change, body, cols)
        if any(line.startswith("[... ") and " of the screen left out" in line for line in body_all(lines, at)):
            # Seen cut: termloom forgets the caller's screens of the session.
            self.looks = []
            return "\n".join(screen or [])
        # Told as the same as a look, it is that look (rebuilt or not), moved to the newest place.
        back = self.back(change) if change is not None else None
        if change is not None and change.startswith(("unchanged since", "the same as")) and back and back <= len(self.looks):
            del self.looks[-back]
        elif screen is not None and screen in self.looks:
            self.looks.remove(screen)
        self.looks.append(screen)
        return "\n".join(screen or [])

    @staticmethod
    def back(change: str) -> int | None:
        """How many looks back the screen a change header is told against is (1 the last)."""
        since = SINCE.search(change)
        if not since:
            return None
        return 1 if since[0] == "your last look" else int(since[1] or 2)

    def base(self, change: str) -> list[str] | None:
        """The look a change header is told against, or None when it is not known."""
        back = self.back(change)
        return self.looks[-back] if back is not None and back <= len(self.looks) else None

    @staticmethod
    def changed(base: list[str], change: str, body: list[str], cols: int) -> list[str]:
        screen = list(base)
        moved = MOVED.search(change)
        if moved:
            first, last, to = int(moved[1]), int(moved[2]), int(moved[3])
            screen[to : to + last - first + 1] = base[first : last + 1]
        listed = {int(m[1]): m[2] for m in map(LISTED.match, body) if m}
        slid = SLID.search(change)
        if slid:
            first, last = int(slid[1]), int(slid[2])
            down = first - int(slid[3]) if slid[3] else 0
            span = (int(slid[4]), int(slid[5] or slid[4]) + 1) if slid[4] else (0, cols)
            shift = int(slid[6]) * (1 if slid[7] == "right" else -1)
            new_from, new_to = int(slid[8]), int(slid[9] or slid[8]) + 1
            for row in range(first, last + 1):
                old = base[row - down].translate(MARKS).ljust(cols)
                cells = list(old)
                for col in range(span[0], span[1]):
                    if span[0] <= col - shift < span[1]:
                        cells[col] = old[col - shift]
                shown = listed.pop(row, "").translate(MARKS)
                # The new columns hold what is shown, blanks after it.
                cells[new_from:new_to] = shown.ljust(new_to - new_from)[: new_to - new_from]
                screen[row] = "".join(cells).rstrip()
        for row, line in listed.items():
            screen[row] = line
        return screen


class Tally:
    def __init__(self) -> None:
        self.bytes = 0
        self.calls = 0
        self.facts = 0
        self.facts_found = 0
        self.escapes = 0
        self.missing: list[str] = []
        self.seconds = 0.0
        self.step_seconds: list[float] = []
        self.screens = KnownScreens()

    def step(self, text: str, facts: list[str], label: str) -> None:
        if os.environ.get("TERMLOOM_BENCH_SHOW"):
            print(f"----- {label} ({len(text.encode())} bytes)\n{text}", file=sys.stderr)
        self.bytes += len(text.encode())
        self.calls += 1
        self.escapes += len(ESCAPE.findall(text))
        known = self.screens.read(text)
        if os.environ.get("TERMLOOM_BENCH_SHOW") and known and "--- screen" in text and ": " in text.split("--- screen", 1)[1].split("\n", 1)[0]:
            print(f"----- (the screen as the model rebuilds it)\n{known}", file=sys.stderr)
        for fact in facts:
            self.facts += 1
            if fact in text or fact in known:
                self.facts_found += 1
            else:
                self.missing.append(f"{label}: {fact!r}")


async def run_termloom(binary: str, tasks, workdir: str):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=binary, args=["mcp"], env={**os.environ, "TERM": "xterm-256color"})
    results = {}
    async with Client(params, read_timeout_seconds=120) as client:
        listed = await client.list_tools()
        tools_bytes = len(
            __import__("json").dumps(
                [t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools], separators=(",", ":")
            ).encode()
        )
        for name, _setup, _program, steps in tasks:
            tally = Tally()
            sid = None
            exited = False
            started = time.monotonic()
            for index, ((tool, args), _keys, facts) in enumerate(steps):
                args = fill(args, sid, workdir)
                if tool in ("terminal_send", "terminal_read"):
                    args["session_id"] = sid
                if tool == "terminal_start":
                    args.setdefault("cols", COLS)
                    args.setdefault("rows", ROWS)
                began = time.monotonic()
                result = await client.call_tool(tool, args)
                tally.step_seconds.append(time.monotonic() - began)
                text = "".join(getattr(c, "text", "") for c in result.content)
                if tool == "terminal_start":
                    sid = result.structured_content["session_id"]
                # As a model would: a session whose program exited needs no close (the
                # description of terminal_close says so).
                status = (result.structured_content or {}).get("status") or {}
                exited = status.get("activity") == "exited"
                if tool == "terminal_run":
                    facts = [f if f != "2" else "exit code 2" for f in facts]
                tally.step(text, facts, f"step {index + 1}")
            tally.seconds = time.monotonic() - started
            if sid is not None and not exited:
                closed = await client.call_tool("terminal_close", {"session_id": sid})
                tally.step("".join(getattr(c, "text", "") for c in closed.content), [], "close")
            results[name] = tally
    return results, tools_bytes


SOCKET = [f"termloom-bench-{os.getpid()}"]


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", "-L", SOCKET[0], *args], capture_output=True, text=True).stdout


def capture_until_still(still: float = 0.5, poll: float = 0.05, limit: float = 30.0) -> str:
    """capture-pane every `poll` s until the pane has not changed for `still` s."""
    last = tmux("capture-pane", "-p", "-t", "bench")
    changed = time.monotonic()
    deadline = changed + limit
    while time.monotonic() < deadline:
        time.sleep(poll)
        now = tmux("capture-pane", "-p", "-t", "bench")
        if now != last:
            last, changed = now, time.monotonic()
        elif time.monotonic() - changed >= still:
            break
    return last


def pane_dead() -> bool:
    return tmux("display-message", "-p", "-t", "bench", "#{pane_dead}").strip() == "1"


def run_tmux(tasks, workdir: str):
    results = {}
    for number, (name, _setup, program, steps) in enumerate(tasks):
        tally = Tally()
        SOCKET[0] = f"termloom-bench-{os.getpid()}-{number}"
        started = time.monotonic()
        shell_task = steps[0][1] is not None
        tmux("-f", "/dev/null", "new-session", "-d", "-s", "bench", "-x", str(COLS), "-y", str(ROWS), fill(program, None, workdir))
        tmux("set-option", "-t", "bench", "remain-on-exit", "on")
        for index, ((tool, _args), keys, facts) in enumerate(steps):
            if keys is not None:
                for key in fill(keys, None, workdir):
                    literal = len(key) > 1 and key not in ("Enter", "Escape", "F6", "C-d")
                    tmux("send-keys", "-t", "bench", *(["-l", key] if literal else [key]))
            text = capture_until_still()
            if pane_dead():
                text += "\n[exited]"
            if shell_task and tool == "terminal_run":
                facts = [f for f in facts if f != "2"]
            tally.step(text, facts, f"step {index + 1}")
        tally.seconds = time.monotonic() - started
        tmux("kill-server")
        results[name] = tally
    return results


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = sys.argv[1]
    wanted = sys.argv[2:]
    tasks = [t for t in TASKS if not wanted or any(w in t[0] for w in wanted)]
    have_tmux = shutil.which("tmux") is not None
    with tempfile.TemporaryDirectory(prefix="termloom-agent-tasks-") as workdir:
        # htop with its defaults in both harnesses (sorted by CPU%), whatever the machine's
        # ~/.config/htop/htoprc says: a saved sort order changes what its screens show.
        os.environ["HTOPRC"] = os.path.join(workdir, "htoprc")
        for _name, setup, _program, _steps in tasks:
            if setup is not None:
                names = {progress_script: "progress.py", prompt_script: "prompt.py", makefile: "Makefile", notes: "notes.txt"}
                setup(os.path.join(workdir, names[setup]))
        ours, tools_bytes = asyncio.run(run_termloom(binary, tasks, workdir))
        for _name, setup, _program, _steps in tasks:
            if setup is notes:
                notes(os.path.join(workdir, "notes.txt"))
        theirs = run_tmux(tasks, workdir) if have_tmux else {}
    print(f"tools/list: {tools_bytes} bytes\n")
    print("| task | termloom bytes | tmux bytes | ratio | calls (termloom/tmux) | facts at first result (termloom/tmux) | escapes | seconds (termloom/tmux) |")
    print("|---|---:|---:|---:|---|---|---|---|")
    totals = [0, 0, 0.0, 0.0, 0, 0, 0, 0]
    for name, _setup, _program, _steps in tasks:
        a = ours[name]
        b = theirs.get(name)
        ratio = f"{a.bytes / b.bytes:.2f}" if b and b.bytes else "-"
        print(
            f"| {name} | {a.bytes} | {b.bytes if b else '-'} | {ratio} | {a.calls}/{b.calls if b else '-'} | "
            f"{a.facts_found}/{a.facts} · {b.facts_found if b else '-'}/{b.facts if b else '-'} | {a.escapes} | "
            f"{a.seconds:.2f}/{b.seconds if b else 0:.2f} |"
        )
        totals[0] += a.bytes
        totals[1] += b.bytes if b else 0
        totals[2] += a.seconds
        totals[3] += b.seconds if b else 0
        totals[4] += a.facts_found
        totals[5] += a.facts
        totals[6] += b.facts_found if b else 0
        totals[7] += b.facts if b else 0
    ratio = f"{totals[0] / totals[1]:.2f}" if totals[1] else "-"
    time_ratio = f"{totals[2] / totals[3]:.2f}" if totals[3] else "-"
    print(
        f"| **all** | {totals[0]} | {totals[1]} | **{ratio}** | | {totals[4]}/{totals[5]} · {totals[6]}/{totals[7]} | | "
        f"{totals[2]:.2f}/{totals[3]:.2f} (**{time_ratio}**) |"
    )
    if "pager" in ours:
        keys = ", ".join(f"{t * 1000:.0f} ms" for t in ours["pager"].step_seconds[1:])
        print(f"\npager keystrokes through termloom (space, search, quit): {keys}")
    for name in ours:
        if ours[name].missing:
            print(f"\ntermloom, {name}: missing {', '.join(ours[name].missing)}")
        if name in theirs and theirs[name].missing:
            print(f"tmux, {name}: missing {', '.join(theirs[name].missing)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
