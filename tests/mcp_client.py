#!/usr/bin/env python3
"""Drives termloom's MCP server with the official Python MCP SDK, as an agent host would.

Usage: python3 tests/mcp_client.py SERVER_COMMAND [ARGS...]
       e.g. python3 tests/mcp_client.py target/debug/termloom mcp

The SDK's stdio client starts the server four times: connecting through the `initialize`
handshake (mode "legacy") and through the `server/discover` probe of the stateless 2026-07-28
revision (mode "auto"), each once cleanly and once with malformed and hostile messages mixed
into the stream. Each run lists the tools, edits and saves a file in vim, drives a Python REPL,
runs shell commands with exit codes, checks errors, cancellation and concurrent calls, closes
everything, and checks that no process is left once the client has disconnected.

Between the SDK and the server sits this same script in `--proxy` mode: it checks that every
line the server writes on stdout is a JSON-RPC message, and in hostile runs it injects a bad
message before each message of the SDK, checks the server's answer to it, and keeps those
answers from the SDK. Requires the `mcp` package (see tests/mcp_requirements.txt).

Prints one line per check and ends with "N passed, M failed"; exits non-zero on any failure.
"""

from __future__ import annotations

import asyncio
import collections
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import traceback

MODERN = "2026-07-28"
HANDSHAKE = "2025-11-25"
TOOLS = [
    "terminal_start",
    "terminal_send",
    "terminal_read",
    "terminal_mouse",
    "terminal_run",
    "terminal_signal",
    "terminal_resize",
    "terminal_close",
    "terminal_list",
]


# --------------------------------------------------------------------------------------------
# The proxy: runs the server, watches its stdout, injects hostile messages.
# --------------------------------------------------------------------------------------------


# The revisions that have JSON-RPC batches: 2025-06-18 removed them, 2026-07-28 has none.
BATCH_REVISIONS = ("2024-11-05", "2025-03-26")


def hostile_messages(era: str, version: str | None) -> list[tuple[bytes, tuple]]:
    """Bad messages and what the server must answer to each, for a connection of `era` that
    asked for revision `version` in its `initialize` (None: not a handshake)."""
    envelope = {
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientInfo": {"name": "hostile-proxy", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    counter = iter(range(1_000_000))

    def request(method: str, params: dict | None = None, *, meta: bool = True) -> tuple[str, bytes]:
        rid = f"hostile-{next(counter)}"
        params = dict(params or {})
        if era == "modern" and meta:
            params["_meta"] = envelope
        message = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
        return rid, json.dumps(message).encode()

    def call(name: str, arguments) -> tuple[str, bytes]:
        return request("tools/call", {"name": name, "arguments": arguments})

    items: list[tuple[bytes, tuple]] = []
    rid, raw = request("ping", {"pad": "x" * (5 << 20)})
    items.append((raw, ("error", rid, -32600)))  # over the 4 MiB limit, answered under its id
    items.append((b"{not json", ("null-error", -32700)))
    items.append((b"\xff\xfe\x00garbage", ("null-error", -32700)))
    items.append((b"[" * 50_000, ("null-error", -32700)))
    items.append((b"[]", ("null-error", -32600)))
    items.append((b"null", ("null-error", -32600)))
    items.append((b'{"jsonrpc":"2.0","id":null,"method":"ping"}', ("null-error", -32600)))
    rid, raw = request("no/such/method")
    items.append((raw, ("error", rid, -32601)))
    rid, raw = call("terminal_teleport", {})
    items.append((raw, ("error", rid, -32602)))
    rid, raw = call("terminal_read", "oops")
    items.append((raw, ("error", rid, -32602)))
    rid = f"hostile-{next(counter)}"
    items.append((json.dumps({"jsonrpc": "1.0", "id": rid, "method": "ping"}).encode(), ("error", rid, -32600)))
    items.append((b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"never-sent"}}', ("none",)))
    items.append((b'{"jsonrpc":"2.0","id":"hostile-stray","result":{}}', ("none",)))
    items.append((b'{"jsonrpc":"2.0","method":"notifications/no-such-thing"}', ("none",)))
    if era == "legacy" and version in BATCH_REVISIONS:
        items.append((b"[1, 2]", ("batch", 2)))
    else:
        # A batch where the revision has none: one Invalid Request for it all.
        items.append((b"[1, 2]", ("null-error", -32600)))
    rid, raw = call("terminal_read", {"session_id": 987654})
    items.append((raw, ("tool-error", rid)))
    rid, raw = call("terminal_send", {"session_id": "abc", "bogus": 1})
    items.append((raw, ("tool-error", rid)))
    rid, raw = call("terminal_start", {"argv": ["/no/such/binary"]})
    items.append((raw, ("tool-error", rid)))
    # A request of the other era.
    if era == "modern":
        rid, raw = request("tools/list", meta=False)
        items.append((raw, ("error", rid, -32602)))
        rid, raw = request("initialize", {"protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "h", "version": "1"}}, meta=False)
        items.append((raw, ("error", rid, -32022)))
    else:
        params = {"_meta": envelope}
        rid = f"hostile-{next(counter)}"
        raw = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "tools/list", "params": params}).encode()
        items.append((raw, ("error", rid, -32600)))
        rid, raw = request("initialize", {"protocolVersion": HANDSHAKE, "capabilities": {}, "clientInfo": {"name": "h", "version": "1"}})
        items.append((raw, ("error", rid, -32600)))
    rid, raw = request("ping")
    items.append((raw, ("result", rid)))
    return items


def proxy(argv: list[str]) -> int:
    """`--proxy REPORT MODE -- SERVER...`: MODE is "clean" or "hostile"."""
    report_path, mode = argv[0], argv[1]
    server_cmd = argv[argv.index("--") + 1 :]
    server = subprocess.Popen(server_cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out = sys.stdout.buffer
    lock = threading.Lock()
    problems: list[str] = []
    expected: dict[str, tuple] = {}
    null_errors: collections.deque[int] = collections.deque()
    batches: collections.deque[int] = collections.deque()
    cancelled: set = set()
    first_response = threading.Event()
    stats = {"stdout_lines": 0, "injected": 0}

    def problem(text: str) -> None:
        with lock:
            problems.append(text)

    def check_hostile_answer(message) -> bool:
        """True if `message` answers an injected message (and was checked)."""
        if isinstance(message, list):
            with lock:
                want = batches.popleft() if batches else None
            if want is None:
                problem(f"unexpected batch response: {str(message)[:200]}")
            elif len(message) != want or not all(isinstance(m, dict) and m.get("error") for m in message):
                problem(f"batch answer should be {want} errors: {str(message)[:200]}")
            return True
        rid = message.get("id")
        if rid is None and "error" in message:
            with lock:
                want = null_errors.popleft() if null_errors else None
            code = message["error"].get("code")
            if want != code:
                problem(f"null-id error {code} where {want} was expected: {message['error'].get('message')}")
            return True
        if not (isinstance(rid, str) and rid.startswith("hostile-")):
            return False
        with lock:
            want = expected.pop(rid, None)
        if want is None:
            problem(f"answer to {rid}, which needed none: {str(message)[:200]}")
        elif want[0] == "error":
            code = message.get("error", {}).get("code")
            if code != want[2]:
                problem(f"{rid}: error {code} where {want[2]} was expected: {str(message)[:300]}")
        elif want[0] == "tool-error":
            if message.get("result", {}).get("isError") is not True:
                problem(f"{rid}: expected an isError tool result: {str(message)[:300]}")
        elif want[0] == "result":
            if "result" not in message:
                problem(f"{rid}: expected a result: {str(message)[:300]}")
        return True

    def from_server() -> None:
        for line in server.stdout:
            stats["stdout_lines"] += 1
            try:
                message = json.loads(line)
            except ValueError:
                problem(f"stdout line that is not JSON: {line[:200]!r}")
                continue
            items = message if isinstance(message, list) else [message]
            if not items or not all(isinstance(m, dict) and m.get("jsonrpc") == "2.0" for m in items):
                problem(f"stdout line that is not a JSON-RPC message: {line[:200]!r}")
                continue
            if mode == "hostile" and check_hostile_answer(message):
                continue
            if isinstance(message, dict) and message.get("id") in cancelled:
                problem(f"the cancelled request {message.get('id')} was answered")
            with lock:
                out.write(line)
                out.flush()
            if isinstance(message, dict) and "id" in message:
                first_response.set()

    reader = threading.Thread(target=from_server, daemon=True)
    reader.start()
    era = None
    hostile: list = []
    index = 0
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            message = {}
        method = message.get("method") if isinstance(message, dict) else None
        if era is None and method in ("initialize", "server/discover"):
            era = "legacy" if method == "initialize" else "modern"
            version = (message.get("params") or {}).get("protocolVersion")
            hostile = hostile_messages(era, version if era == "legacy" else None)
        if method == "notifications/cancelled":
            cancelled.add((message.get("params") or {}).get("requestId"))
        if mode == "hostile" and hostile and first_response.is_set():
            raw, want = hostile[index % len(hostile)]
            if index >= len(hostile) and index % len(hostile) == 0:
                index += 1  # the oversized message once is enough
                raw, want = hostile[index % len(hostile)]
            index += 1
            with lock:
                kind = want[0]
                if kind in ("error", "tool-error", "result"):
                    expected[want[1]] = want
                elif kind == "null-error":
                    null_errors.append(want[1])
                elif kind == "batch":
                    batches.append(want[1])
            stats["injected"] += 1
            server.stdin.write(raw + b"\n")
        server.stdin.write(line)
        server.stdin.flush()
    server.stdin.close()
    started = time.monotonic()
    try:
        code = server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        problem("the server did not exit within 20 s of the end of its input")
        server.kill()
        code = server.wait()
    reader.join(timeout=5)
    exit_seconds = time.monotonic() - started
    if mode == "hostile":
        for rid, want in expected.items():
            problem(f"no answer to injected {rid} (expected {want})")
        if null_errors:
            problem(f"missing null-id errors: {list(null_errors)}")
        if batches:
            problem(f"missing batch answers: {list(batches)}")
    report = {
        "exit_code": code,
        "exit_seconds": exit_seconds,
        "problems": problems,
        "era": era,
        **stats,
    }
    with open(report_path, "w") as f:
        json.dump(report, f)
    return 0


# --------------------------------------------------------------------------------------------
# The client scenario.
# --------------------------------------------------------------------------------------------


class Checks:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, name: str, ok: bool, detail: object = "") -> bool:
        if ok:
            self.passed += 1
            print(f"ok    {name}")
        else:
            self.failed += 1
            print(f"FAIL  {name}: {str(detail)[:2000]}")
        sys.stdout.flush()
        return ok


def text_of(result) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting for a slow init has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return False
    return stat.rsplit(") ", 1)[-1][:1] not in ("Z", "X")


async def scenario(checks: Checks, label: str, client, expect_version: str, workdir: str, pids: list[int]) -> None:
    from mcp.shared.exceptions import MCPError

    def check(name: str, ok: bool, detail: object = "") -> bool:
        return checks.check(f"[{label}] {name}", ok, detail)

    async def tool(name: str, arguments: dict, **kw):
        result = await client.call_tool(name, arguments, **kw)
        check(f"{name} succeeds", not result.is_error, text_of(result))
        return result

    # The handshake.
    check("negotiated protocol version", client.protocol_version == expect_version, client.protocol_version)
    info = client.server_info
    check("server name", info is not None and info.name == "termloom", info)
    check("tools capability", client.server_capabilities.tools is not None, client.server_capabilities)
    check("instructions teach closing", "terminal_close" in (client.instructions or ""), client.instructions)

    # The tools.
    listed = await client.list_tools()
    names = [t.name for t in listed.tools]
    check("tools/list names", names == TOOLS, names)
    check("every tool has an input schema", all(t.input_schema.get("type") == "object" for t in listed.tools))
    check("no tool has an output schema (they cost bytes a model reads)", all(t.output_schema is None for t in listed.tools))
    size = len(json.dumps([t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools], separators=(",", ":")))
    check("tools/list within 8 KiB", size <= 8 * 1024, size)
    descriptions = json.dumps([t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools])
    for phrase in ("<Esc>", "instead of sleeping", "terminal_close", "exit code"):
        check(f"descriptions mention {phrase!r}", phrase in descriptions)

    # vim edits and saves a file.
    path = os.path.join(workdir, f"notes-{label}.txt")
    with open(path, "w") as f:
        f.write("first line\nsecond line\n")
    started = await tool("terminal_start", {"argv": ["vim", "-u", "NONE", "-N", path], "cols": 80, "rows": 24})
    view = started.structured_content
    pids.append(view["pid"])
    vim = view["session_id"]
    check("vim's screen is returned", (view.get("screen") or {}).get("alternate") is True and "second line" in view["screen"]["text"], text_of(started))
    check("the text shows the screen", "--- screen " in text_of(started) and view["screen"]["alternate"], text_of(started))
    sent = await tool("terminal_send", {"session_id": vim, "keys": "ggIhello from the python sdk, <Esc>:wq<Enter>", "exit": True})
    check("vim exited after :wq", sent.structured_content["wait"]["outcome"] == "exited", text_of(sent))
    with open(path) as f:
        saved = f.read()
    check("vim saved the edit", saved == "hello from the python sdk, first line\nsecond line\n", saved)

    # A Python REPL.
    started = await tool("terminal_start", {"argv": ["python3", "-q"]})
    view = started.structured_content
    pids.append(view["pid"])
    py = view["session_id"]
    if view["status"]["activity"] != "waiting_for_input" or (view["status"]["foreground"] or {}).get("name") != "python3":
        # The REPL was still starting when the settle wait ended: wait for it to read input.
        started = await tool("terminal_read", {"session_id": py, "input_wait": True})
        view = started.structured_content
    header = text_of(started).splitlines()[0]
    check("python waits for input", view["status"]["activity"] == "waiting_for_input", text_of(started))
    check("status header", header.startswith(f"[session {py} started · python3 waiting for keys") or header.startswith("[python3 waiting for keys"), header)
    sent = await tool("terminal_send", {"session_id": py, "text": "6 * 7", "submit": True, "for_regex": "^42$"})
    check("the REPL answers 42", sent.structured_content["wait"]["matched_text"] == "42" and "42" in text_of(sent), text_of(sent))
    sent = await tool("terminal_send", {"session_id": py, "text": "import sys; sys.exit(5)", "submit": True, "exit": True})
    status = sent.structured_content["status"]
    check("python's exit code", status["activity"] == "exited" and status["exit_code"] == 5, status)

    # Shell commands with exit codes.
    ran = await tool("terminal_run", {"command": "echo hello from mcp", "keep_session": True})
    result = ran.structured_content
    shell = result["session_id"]
    check("echo's output and exit code", result["output"] == "hello from mcp\n" and result["exit_code"] == 0, text_of(ran))
    check("the text shows the exit code", "[exit code 0" in text_of(ran), text_of(ran))
    ran = await tool("terminal_run", {"session_id": shell, "command": "ls /definitely/missing"})
    check("ls fails with exit code 2", ran.structured_content["exit_code"] == 2, text_of(ran))
    ran = await tool("terminal_run", {"session_id": shell, "command": "f() { return 7; }; f"})
    check("a function's exit code", ran.structured_content["exit_code"] == 7, text_of(ran))
    ran = await tool("terminal_run", {"session_id": shell, "command": "echo $$"})
    pids.append(int(ran.structured_content["output"].strip()))

    # Errors a model can act on, and protocol errors.
    result = await client.call_tool("terminal_read", {"session_id": 987654})
    check("unknown session is an isError result", result.is_error and "the sessions are: " in text_of(result), text_of(result))
    result = await client.call_tool("terminal_send", {"text": "x"})
    check("missing session_id is an isError result", result.is_error and "session_id" in text_of(result), text_of(result))
    result = await client.call_tool("terminal_start", {"argv": ["vim"], "colour": "red"})
    check("unknown argument is named", result.is_error and "colour" in text_of(result), text_of(result))
    # A start whose wait is refused once its program runs (cat marks no prompts) returns the
    # session it started, running, not an error that reads as if nothing had started.
    result = await client.call_tool("terminal_start", {"argv": ["cat"], "prompt": True})
    refused = result.structured_content or {}
    said = f"session {refused.get('session_id')} runs"
    check("a refused start wait names the running session", not result.is_error and refused.get("wait_refused") is True and said in text_of(result), text_of(result))
    if "pid" in refused:
        pids.append(refused["pid"])
    try:
        await client.call_tool("terminal_teleport", {})
        check("unknown tool is a protocol error", False, "no error")
    except MCPError as err:
        check("unknown tool is a protocol error", err.code == -32602, err)

    # Concurrent calls, and cancellation.
    # A cat reading keys, not lines, beside a job that may print: a wait for text it never
    # prints runs to its timeout (with nothing else able to print, it ends when cat asks).
    started = await tool("terminal_start", {"argv": ["sh", "-c", "stty -icanon; sleep 600 & exec cat"]})
    cat = started.structured_content["session_id"]
    pids.append(started.structured_content["pid"])
    waiting = asyncio.ensure_future(
        client.call_tool("terminal_read", {"session_id": cat, "for_text": "ping-pong", "timeout_ms": 20000})
    )
    await asyncio.sleep(0.3)
    t0 = time.monotonic()
    await tool("terminal_list", {})
    check("a call is answered while another waits", time.monotonic() - t0 < 5)
    await tool("terminal_send", {"session_id": cat, "text": "ping-pong\n"})
    read = await waiting
    check("the waiting read saw the text", read.structured_content["wait"]["outcome"] == "matched", text_of(read))
    t0 = time.monotonic()
    try:
        await client.call_tool("terminal_read", {"session_id": cat, "for_text": "never", "timeout_ms": 60000}, read_timeout_seconds=1.0)
        check("a client timeout cancels the call", False, "the call returned")
    except MCPError as err:
        check("a client timeout cancels the call", time.monotonic() - t0 < 5, err)
    t0 = time.monotonic()
    listed = await tool("terminal_list", {})
    check("the server goes on after a cancellation", time.monotonic() - t0 < 5)

    # Close everything.
    for entry in listed.structured_content["sessions"]:
        if entry["state"] == "running":
            closed = await tool("terminal_close", {"session_id": entry["session_id"]})
            check(f"session {entry['session_id']} closed", "closed" in text_of(closed), text_of(closed))
    listed = await tool("terminal_list", {})
    states = [s["state"] for s in listed.structured_content["sessions"]]
    check("no session runs", "running" not in states and len(states) == 5, states)


async def connect_and_run(checks: Checks, label: str, server_cmd: list[str], mode: str, hostile: bool, workdir: str) -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    report_path = os.path.join(workdir, f"report-{label}.json")
    params = StdioServerParameters(
        command=sys.executable,
        args=[os.path.abspath(__file__), "--proxy", report_path, "hostile" if hostile else "clean", "--", *server_cmd],
        env={"PYTHONUNBUFFERED": "1"},
    )
    expect_version = HANDSHAKE if mode == "legacy" else MODERN
    pids: list[int] = []
    try:
        async with Client(params, mode=mode, read_timeout_seconds=60) as client:
            await scenario(checks, label, client, expect_version, workdir, pids)
    except Exception:
        checks.check(f"[{label}] the scenario runs to its end", False, traceback.format_exc())
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not os.path.exists(report_path):
        time.sleep(0.1)
    try:
        with open(report_path) as f:
            report = json.load(f)
    except (OSError, ValueError) as err:
        checks.check(f"[{label}] the proxy reported", False, err)
        return
    checks.check(f"[{label}] stdout carries JSON-RPC messages only", not [p for p in report["problems"] if "stdout line" in p], report["problems"])
    checks.check(f"[{label}] the server exited with 0 at the end of input", report["exit_code"] == 0, report)
    checks.check(f"[{label}] the server exited promptly", report["exit_seconds"] < 5, report)
    if hostile:
        checks.check(f"[{label}] hostile messages were injected", report["injected"] >= 20, report["injected"])
    checks.check(f"[{label}] every injected message was answered right and nothing leaked", not report["problems"], report["problems"])
    survivors = [pid for pid in pids if alive(pid)]
    checks.check(f"[{label}] no process left behind", pids and not survivors, {"pids": pids, "alive": survivors})


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--proxy":
        return proxy(sys.argv[2:])
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    server_cmd = sys.argv[1:]
    try:
        import mcp  # noqa: F401
    except ImportError:
        print("the Python package `mcp` is missing: pip install -r tests/mcp_requirements.txt", file=sys.stderr)
        return 2
    checks = Checks()
    with tempfile.TemporaryDirectory(prefix="termloom-mcp-client-") as workdir:
        for label, mode, hostile in [
            ("initialize", "legacy", False),
            ("discover", "auto", False),
            ("initialize+hostile", "legacy", True),
            ("discover+hostile", "auto", True),
        ]:
            asyncio.run(connect_and_run(checks, label, server_cmd, mode, hostile, workdir))
    print(f"{checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


if __name__ == "__main__":
    sys.exit(main())
