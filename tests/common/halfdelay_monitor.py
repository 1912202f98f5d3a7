# A curses monitor that redraws a tick counter and the last key every second, reading keys
# with halfdelay(10) between (tests/readiness.rs, benches/monitor_keys.rs).
import curses


def main(w):
    curses.halfdelay(10)
    n, k = 0, -1
    while True:
        n += 1
        w.addstr(0, 0, f'tick {n} key {k}   ')
        w.refresh()
        c = w.getch()
        k = k if c == -1 else c


curses.wrapper(main)
