"""gdb's TUI through `termloom mcp` (issue 15's measure of what a model reads, on one program):
`gdb -tui` on a small C program, then break main, run, next x5, info frame, tui disable, next;
each result's bytes and, with TERMLOOM_BENCH_SHOW=1, its text. `plain` runs the same steps in
gdb without its TUI (no `tui disable`), for comparison.

Usage: gdb_tui.py TERMLOOM_BINARY [tui|plain]   (needs gdb, gcc and the `mcp` SDK)
"""

import asyncio
import os
import subprocess
import sys
import tempfile

PROGRAM = """#include <stdio.h>

static int square(int x) {
    return x * x;
}

int main(void) {
    int total = 0;
    for (int i = 0; i < 3; i++) {
        total += square(i);
    }
    printf("total=%d\\n", total);
    int doubled = total * 2;
    printf("doubled=%d\\n", doubled);
    return 0;
}
"""

STEPS = ["break main", "run"] + ["next"] * 5 + ["info frame", "tui disable", "next"]


async def main() -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    binary = sys.argv[1]
    tui = (sys.argv[2] if len(sys.argv) > 2 else "tui") == "tui"
    show = os.environ.get("TERMLOOM_BENCH_SHOW") == "1"
    work = tempfile.mkdtemp(prefix="termloom-gdb-tui-")
    with open(os.path.join(work, "prog.c"), "w") as f:
        f.write(PROGRAM)
    subprocess.run(["gcc", "-g", "-O0", "-o", "prog", "prog.c"], cwd=work, check=True)
    env = {**os.environ, "TERM": "xterm-256color", "DEBUGINFOD_URLS": ""}
    params = StdioServerParameters(command=binary, args=["mcp"], env=env)
    argv = ["gdb", "-nx", "-q"] + (["-tui"] if tui else []) + ["./prog"]
    steps = STEPS if tui else [step for step in STEPS if step != "tui disable"]
    total = 0
    async with Client(params, read_timeout_seconds=120) as client:
        started = await client.call_tool(
            "terminal_start",
            {"argv": argv, "cwd": work, "cols": 80, "rows": 24, "input_wait": True},
        )
        sid = started.structured_content["session_id"]
        results = [("start", started)]
        for step in steps:
            args = {"session_id": sid, "text": step, "submit": True}
            results.append((step, await client.call_tool("terminal_send", args)))
        await client.call_tool("terminal_close", {"session_id": sid})
    print("| step | bytes |\n|---|---:|")
    for step, result in results:
        text = "".join(getattr(c, "text", "") for c in result.content)
        total += len(text.encode())
        print(f"| {step} | {len(text.encode())} |")
        if show:
            print(text, file=sys.stderr)
    print(f"| **all** | {total} |")


asyncio.run(main())
