# Raw mode; prints `ready`, then reads the terminal, noting each read's bytes (hex) and time;
# after a read with `x` in it, computes silently for 4 s (reading nothing meanwhile); after
# a read ending in `q`, prints the reads, `TIME HEX` a line, and exits (tests/toolbox.rs,
# tests/cli.rs: keys after an Escape typed to a busy program, behind a relay or not).
import os
import sys
import time
import tty

tty.setraw(0)
print('ready', end='\r\n', flush=True)
start, reads = time.monotonic(), []
while not reads or not reads[-1].endswith('71'):
    data = os.read(0, 64)
    reads.append(f'{time.monotonic() - start:.2f} {data.hex()}')
    if b'x' in data:
        busy_until = time.monotonic() + 4
        while time.monotonic() < busy_until:
            pass
sys.stdout.write(''.join(f'{read}\r\n' for read in reads))
sys.stdout.flush()
