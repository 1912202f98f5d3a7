# Raw mode; prints `ready`, then polls the terminal between naps of 50 ms, so it never waits
# on it (a program that never waits for input), noting each read's bytes (hex) and time, and
# prints nothing more until a read ending in `q`: then every read, `TIME HEX` from the second
# row on, and exits (tests/mcp.rs, tests/toolbox.rs: keys after an Escape typed to a quiet
# poller).
import os
import select
import sys
import time
import tty

tty.setraw(0)
print('ready', end='\r\n', flush=True)
start, reads = time.monotonic(), []
while not reads or not reads[-1].endswith('71'):
    if select.select([0], [], [], 0)[0]:
        reads.append(f'{time.monotonic() - start:.2f} {os.read(0, 64).hex()}')
    time.sleep(0.05)
sys.stdout.write(''.join(f'\x1b[{row};1H{read}' for row, read in enumerate(reads, 2)))
sys.stdout.flush()
