use super::timers::later;
use super::*;

/// A process's threads are counted from its `stat` (a thread ended since a key is how btop's
/// quitting is told from its idling); a process gone has none to count.
#[cfg(target_os = "linux")]
#[test]
fn a_processs_threads_are_counted() {
    let mut sleep = std::process::Command::new("sleep").arg("30").spawn().unwrap();
    let pid = sleep.id() as i32;
    assert_eq!(thread_count(pid), Some(1));
    sleep.kill().unwrap();
    sleep.wait().unwrap();
    assert_eq!(thread_count(pid), None);
    assert_eq!(thread_count(-1), None);
}

/// A group whose leader ended goes by a member's name.
#[cfg(target_os = "linux")]
#[test]
fn a_group_whose_leader_ended_goes_by_a_members_name() {
    use std::io::Read;
    use std::os::unix::process::CommandExt;
    let mut leader = std::process::Command::new("sh")
        .args(["-c", "sleep 30 >/dev/null & echo $!"])
        .process_group(0)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let group = leader.id() as i32;
    let mut said = String::new();
    leader.stdout.take().unwrap().read_to_string(&mut said).unwrap();
    // (Once it has printed: before its exec the child goes by the test thread's name.)
    assert_eq!(group_name(group).as_deref(), Some("sh"), "the leader, not reaped");
    leader.wait().unwrap();
    let member: i32 = said.trim().parse().unwrap();
    assert_eq!(group_name(group).as_deref(), Some("sleep"), "a member, once it ended");
    rustix::process::kill_process(
        rustix::process::Pid::from_raw(member).unwrap(),
        rustix::process::Signal::KILL,
    )
    .unwrap();
    assert_eq!(group_name(-1), None);
}

/// A wait found repeated before an input counts after it once the thread woke and the
/// terminal was written to since the input (a monitor redrew after a key: `top -d 1`,
/// `halfdelay(10)`), and not otherwise; a wait not found repeated is forgotten at the
/// input (vim's 'timeoutlen' after an Escape, seen once per key).
#[test]
fn a_tick_found_before_an_input_counts_after_it_once_redrawn() {
    let second = std::time::Duration::from_secs(1);
    let timers = TimerSightings::default();
    let input = std::time::Instant::now();
    timers.since_input(input);
    for tid in 3..=7 {
        assert!(!timers.repeated(later(), tid, second, 10, true, || false));
        assert!(
            timers.repeated(later(), tid, second, 11, true, || false),
            "ticking before the input"
        );
    }
    assert!(!timers.repeated(later(), 9, second, 10, true, || false), "seen once before the input");
    timers.since_input(input + second);
    assert!(
        !timers.repeated(later(), 9, second, 11, true, || false),
        "a wait seen once is forgotten"
    );
    assert!(!timers.repeated(later(), 7, second, 11, true, || false), "not woken since the input");
    let unfed = || true;
    assert!(
        timers.repeated(later(), 7, second, 11, false, unfed),
        "the same wait, the input not its"
    );
    assert!(
        !timers.repeated(later(), 6, second, 12, false, || false),
        "nothing drawn since the input"
    );
    assert!(!timers.repeated(later(), 5, second / 2, 12, true, || false), "another timer");
    assert!(
        timers.repeated(later(), 4, second, 12, true, || false),
        "woken and back on it once redrawn"
    );
    assert!(
        timers.repeated(later(), 4, second, 12, true, || false),
        "and stays so while it sleeps"
    );
    // Carried across further input while the thread is not seen on a timer (3), or found
    // repeated again (4); forgotten once seen otherwise (5).
    timers.since_input(input + 2 * second);
    timers.since_input(input + 3 * second);
    assert!(
        timers.repeated(later(), 3, second, 12, true, || false),
        "carried across further input"
    );
    assert!(timers.repeated(later(), 4, second, 13, true, || false), "carried again");
    assert!(
        !timers.repeated(later(), 5, second, 13, true, || false),
        "forgotten once seen otherwise"
    );
}

#[test]
fn parse_stat_plain() {
    let s =
        b"1234 (bash) S 1000 1234 1234 34816 5678 4194560 0 0 0 0 1 2 0 0 20 0 3 0 98765 1000\n";
    let st = parse_stat(s).unwrap();
    assert_eq!(
        st,
        ProcStat {
            pid: 1234,
            comm: "bash".into(),
            state: 'S',
            ppid: 1000,
            pgrp: 1234,
            session: 1234,
            tty_nr: 34816,
            tpgid: 5678,
            num_threads: Some(3),
            starttime: Some(98765),
        }
    );
    // A stat cut short before them has none.
    let st = parse_stat(b"1234 (bash) S 1000 1234 1234 34816 5678 4194560 0 0").unwrap();
    assert_eq!((st.num_threads, st.starttime), (None, None));
}

#[test]
fn parse_stat_tricky_comm() {
    let s = b"42 (a b) c) (x) Z 1 -7 3 0 -1 0 0\n";
    let st = parse_stat(s).unwrap();
    assert_eq!(st.pid, 42);
    assert_eq!(st.comm, "a b) c) (x");
    assert_eq!(st.state, 'Z');
    assert_eq!((st.ppid, st.pgrp, st.session), (1, -7, 3));
    assert_eq!((st.tty_nr, st.tpgid), (0, -1));
    assert!(is_dead(&st));
    // The fields after the name are counted from its last parenthesis.
    let fields = "S 1 2 3 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 7 0 98765 1000 200";
    let st = parse_stat(format!("12 (a) b (c) {fields}\n").as_bytes()).unwrap();
    assert_eq!((st.num_threads, st.starttime), (Some(7), Some(98765)));

    let st = parse_stat(b"7 () R 1 2 3 4 5").unwrap();
    assert_eq!(st.comm, "");
    let st = parse_stat(b"7 (new\nline) R 1 2 3 4 5").unwrap();
    assert_eq!(st.comm, "new\nline");
    let st = parse_stat(b"7 (\xff\xfe) R 1 2 3 4 5").unwrap();
    assert_eq!(st.comm, "\u{fffd}\u{fffd}");
}

#[test]
fn parse_stat_rejects_garbage() {
    for bad in [
        &b""[..],
        b"12 bash S 1 2 3 4 5",
        b"12 (bash S 1 2 3 4 5",
        b"x (bash) S 1 2 3 4 5",
        b"12 (bash) S 1 2 3",
        b"12 (bash) SS 1 2 3 4 5",
        b"12 (bash) S 1 two 3 4 5",
        b"12 )bash( S 1 2 3 4 5",
    ] {
        let err = parse_stat(bad).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{bad:?}");
    }
}

#[test]
fn process_groups_sorted_dedup() {
    let mk = |pid, pgrp| ProcStat {
        pid,
        comm: "x".into(),
        state: 'S',
        ppid: 1,
        pgrp,
        session: 1,
        tty_nr: 0,
        tpgid: -1,
        num_threads: Some(1),
        starttime: Some(0),
    };
    let procs = [mk(1, 30), mk(2, 10), mk(3, 30), mk(4, 20), mk(5, 10)];
    assert_eq!(process_groups(&procs), vec![10, 20, 30]);
    assert!(process_groups(&[]).is_empty());
}

#[test]
fn is_gone_kinds() {
    assert!(is_gone(&io::Error::from(io::ErrorKind::NotFound)));
    assert!(is_gone(&io::Error::from_raw_os_error(ESRCH)));
    assert!(!is_gone(&io::Error::from(io::ErrorKind::PermissionDenied)));
}

#[test]
fn wchan_classification() {
    for w in [
        "n_tty_read",
        "wait_woken",
        "do_select",
        "do_sys_poll",
        "core_sys_select",
        "ep_poll",
        "do_epoll_wait",
        "poll_schedule_timeout.constprop.0",
        "tty_read",
    ] {
        assert!(matches!(classify_wchan(w), Some(Activity::Input(_))), "{w} should be input");
    }
    for w in ["pipe_read", "anon_pipe_read", "hrtimer_nanosleep", "do_wait", "futex_wait_queue"] {
        assert!(matches!(classify_wchan(w), Some(Activity::Other(_))), "{w} should not be input");
    }
    assert_eq!(classify_wchan("0"), None);
    assert_eq!(classify_wchan("\n"), None);
}

#[test]
fn syscall_field_parsing() {
    assert_eq!(parse_syscall("running\n"), Some(SyscallField::Running));
    assert_eq!(parse_syscall("-1 0x7ffd 0x0\n"), Some(SyscallField::NotInSyscall));
    assert_eq!(parse_syscall("230 0x0 0x0 0x7ff\n"), Some(SyscallField::Nr(230)));
    assert_eq!(parse_syscall(""), None);
    assert_eq!(parse_syscall("bogus"), None);
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[test]
fn syscall_table() {
    let input = [
        "read",
        "readv",
        "pread64",
        "preadv",
        "preadv2",
        "pselect6",
        "ppoll",
        "epoll_pwait",
        "epoll_pwait2",
    ];
    #[cfg(target_arch = "x86_64")]
    let input = [&input[..], &["select", "poll", "epoll_wait"]].concat();
    let table = SYSCALLS.unwrap();
    for name in input {
        let &(nr, _, is_input) = table.iter().find(|e| e.1 == name).unwrap();
        assert!(is_input, "{name}");
        assert_eq!(classify_syscall(nr), Some(Activity::Input(name.into())));
    }
    let others =
        ["nanosleep", "clock_nanosleep", "wait4", "waitid", "futex", "write", "restart_syscall"];
    for name in others {
        let &(nr, _, is_input) = table.iter().find(|e| e.1 == name).unwrap();
        assert!(!is_input, "{name}");
        assert_eq!(classify_syscall(nr), Some(Activity::Other(name.into())));
    }
    // Numbers are unique.
    let mut nrs: Vec<i64> = table.iter().map(|e| e.0).collect();
    nrs.sort_unstable();
    nrs.dedup();
    assert_eq!(nrs.len(), table.len());
    assert_eq!(classify_syscall(9999), Some(Activity::Other("system call 9999".into())));
}

#[test]
fn a_wait_on_the_world_outside_is_told_from_a_sleep_and_from_work() {
    let t = |tid, what: &str| ThreadObs {
        tid,
        activity: Activity::Other(what.into()),
        clock: None,
        tick: None,
        long_sleep: None,
    };
    let poll = format!("poll {NOT_THE_TERMINAL}");
    let sockets = format!("epoll_wait {ON_SOCKETS}");
    // `tail -f`, a server with its workers, one in `accept`, one reading its socket or
    // its inotify descriptor.
    assert!(waits_outside(&[t(1, &poll)]));
    assert!(waits_outside(&[t(1, &sockets), t(2, "futex"), t(3, "futex_wait_queue")]));
    assert!(waits_outside(&[t(1, "accept4")]));
    assert!(waits_outside(&[t(1, "read on socket:[77]")]));
    assert!(waits_outside(&[t(1, "read on anon_inode:inotify")]));
    // `tail -f` polling its inotify descriptor (and its output, into a pipe), which says so.
    let following = format!("poll {FOLLOWING}");
    assert!(waits_outside(&[t(1, &following)]));
    assert!(follows_files(&format!("tail (pid 7) is sleeping in {following}, not...")));
    assert!(follows_files("inotifywait (pid 7) is sleeping in read on anon_inode:inotify"));
    assert!(!follows_files(&format!("python3 (pid 7) is sleeping in {poll}")));
    // A relay to a terminal across the network that has not answered (`ssh`).
    assert!(waits_outside(&[t(1, &format!("ppoll {ON_NETWORK}"))]));
    // A sleep, a child, a pipe, a lock alone, a select on no descriptor, or a thread
    // that works beside it: not that.
    assert!(!waits_outside(&[t(1, "nanosleep")]));
    assert!(!waits_outside(&[t(1, "wait4")]));
    assert!(!waits_outside(&[t(1, "read on pipe:[5]")]));
    assert!(!waits_outside(&[t(1, "futex")]));
    assert!(!waits_outside(&[t(1, "select on no descriptor (a sleep)")]));
    assert!(!waits_outside(&[t(1, "read on /home/x/file")]));
    let working = ThreadObs {
        tid: 2,
        activity: Activity::NotSleeping('R'),
        clock: None,
        tick: None,
        long_sleep: None,
    };
    assert!(!waits_outside(&[t(1, &poll), working]));
    assert!(!waits_outside(&[]));
}

#[test]
fn only_the_internets_sockets_are_looked_up_and_only_established_ones_are_connected() {
    assert_eq!(inet_table(b"TCP\0"), Some("tcp"));
    assert_eq!(inet_table(b"TCPv6\0"), Some("tcp6"));
    assert_eq!(inet_table(b"UDP"), Some("udp"));
    assert_eq!(inet_table(b"UDPv6\0"), Some("udp6"));
    for name in [&b"UNIX-STREAM\0"[..], b"UNIX\0", b"NETLINK\0", b"MPTCP\0", b""] {
        assert_eq!(inet_table(name), None, "{name:?}");
    }
    let table = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n\
            0: 0100007F:A3D7 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 9104330 1 0000000000000000 100 0 0 10 0\n\
            1: 0100007F:08FB 0100007F:A3D7 01 00000000:00000000 02:000A7B3C 00000000     0        0 9104337 2 0000000000000000 20 4 30 10 -1\n";
    assert_eq!(connected_in(table, 9104337), Some(true));
    assert_eq!(connected_in(table, 9104330), Some(false), "listening");
    assert_eq!(connected_in(table, 910433), None, "a prefix of another's inode");
    assert_eq!(connected_in(table, 0), None, "the header");
}

#[test]
fn decide_combinations() {
    let t = |tid, activity| ThreadObs { tid, activity, clock: None, tick: None, long_sleep: None };
    let input = || Activity::Input("read".into());
    let futex = || Activity::Other("futex".into());
    let who = "pid 10 (x)";
    let waiting = InputWait::Waiting { reader: Some(10) };
    assert_eq!(decide(10, who, &[t(10, input())]), waiting);
    assert_eq!(decide(10, who, &[t(10, input()), t(11, futex())]), waiting);
    assert_eq!(decide(10, who, &[t(10, futex()), t(11, input())]), waiting);
    let InputWait::NotWaiting { reason } = decide(10, who, &[t(10, futex()), t(11, futex())])
    else {
        panic!("futex-only must not be waiting");
    };
    assert!(reason.contains("pid 10 (x)") && reason.contains("futex"), "{reason}");
    let InputWait::NotWaiting { reason } =
        decide(10, who, &[t(10, input()), t(11, Activity::NotSleeping('R'))])
    else {
        panic!("a running thread means not waiting");
    };
    assert!(reason.contains("thread 11 of pid 10 (x)"), "{reason}");
    assert!(reason.contains("running"), "{reason}");
    let InputWait::Unknown { reason } =
        decide(10, who, &[t(10, Activity::Unknown("no access".into()))])
    else {
        panic!("unreadable must be unknown");
    };
    assert!(reason.contains("no access"), "{reason}");
    assert_eq!(
        decide(10, who, &[t(10, input()), t(11, Activity::Unknown("no access".into()))]),
        waiting
    );
    assert!(matches!(
        decide(10, who, &[t(10, futex()), t(11, Activity::Unknown("?".into()))]),
        InputWait::Unknown { .. }
    ));
    assert!(matches!(decide(10, who, &[]), InputWait::NotWaiting { .. }));
}

#[cfg(target_os = "linux")]
mod live {
    use super::super::*;
    use std::path::PathBuf;
    use std::process::{Child, Command, Stdio};
    use std::time::{Duration, Instant};

    /// Kills (and reaps) a spawned child, and optionally its whole
    /// process group, when dropped — also when a test panics.
    struct Reaper {
        child: Child,
        group: Option<i32>,
    }

    impl Reaper {
        fn new(child: Child) -> Self {
            Reaper { child, group: None }
        }
        fn pid(&self) -> i32 {
            self.child.id() as i32
        }
    }

    impl Drop for Reaper {
        fn drop(&mut self) {
            if let Some(pgid) = self.group.and_then(rustix::process::Pid::from_raw) {
                let _ = rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL);
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    /// Removes a directory tree when dropped.
    struct TempDir(PathBuf);

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// How long [`wait_for`] waits: generous, so a slow or loaded machine (500 forks
    /// holding 1,000 descriptors each took over 5 s on one) cannot fail a test.
    const WAIT_FOR_LIMIT: Duration = Duration::from_secs(60);

    /// Polls `check` (up to [`WAIT_FOR_LIMIT`], 20 ms apart) until it returns `Ok`;
    /// panics with the last observation on timeout.
    fn wait_for<T>(what: &str, mut check: impl FnMut() -> Result<T, String>) -> T {
        let deadline = Instant::now() + WAIT_FOR_LIMIT;
        loop {
            match check() {
                Ok(value) => return value,
                Err(last) if Instant::now() >= deadline => {
                    panic!(
                        "timed out after {WAIT_FOR_LIMIT:?} waiting for {what}; last observation: {last}"
                    )
                }
                Err(_) => std::thread::sleep(Duration::from_millis(20)),
            }
        }
    }

    /// The CPU time this thread has used, its own and the kernel's on its behalf: what a
    /// look at `/proc` costs, which a loaded machine does not inflate as it does wall time.
    fn thread_cpu_time() -> Duration {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
    }

    /// A terminal for a test process's stdin: input-wait only counts reads of a terminal.
    /// The master side stays open (leaked) so reads block instead of failing.
    fn terminal_stdin() -> Stdio {
        let pty = crate::os::pty::open(80, 24).expect("open a pty");
        std::mem::forget(pty.master);
        Stdio::from(pty.slave)
    }

    fn spawn(cmd: &mut Command) -> Reaper {
        Reaper::new(cmd.spawn().expect("spawn test process"))
    }

    fn own_stat() -> ProcStat {
        read_stat(std::process::id() as i32).expect("read own stat")
    }

    fn thread_count(pid: i32) -> usize {
        std::fs::read_dir(format!("/proc/{pid}/task")).map(|d| d.count()).unwrap_or(0)
    }

    /// `python3` with piped stdin running `code`, or `None` (test
    /// skipped) if python3 is not installed.
    fn spawn_python(code: &str) -> Option<Reaper> {
        match Command::new("python3")
            .args(["-c", code])
            .stdin(terminal_stdin())
            .stdout(Stdio::null())
            .spawn()
        {
            Ok(child) => Some(Reaper::new(child)),
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                assert!(std::env::var_os("CI").is_none(), "CI must install python3");
                eprintln!("python3 not found; skipping");
                None
            }
            Err(err) => panic!("spawn python3: {err}"),
        }
    }

    /// Waits until `pid` is the real python interpreter (not e.g. a
    /// pyenv shim script) with at least `threads` threads.
    fn wait_python(pid: i32, threads: usize) {
        wait_for("python to start", || {
            let name = process_name(pid).unwrap_or_default();
            let n = thread_count(pid);
            if name.starts_with("python") && n >= threads {
                Ok(())
            } else {
                Err(format!("comm {name:?}, {n} threads"))
            }
        });
    }

    fn wait_waiting(pid: i32) {
        wait_for("process to wait for input", || match process_input_wait(pid) {
            InputWait::Waiting { reader: Some(reader) } if reader == pid => Ok(()),
            other => Err(format!("{other:?}")),
        });
    }

    fn temp_dir(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!(
            "termloom-procfs-{tag}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos())
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// Drives the per-thread reader over a fake task directory:
    /// `syscall: None` makes the syscall file unreadable (a directory,
    /// so reading fails with EISDIR), `wchan: None` leaves it missing.
    #[test]
    fn thread_observation_fallbacks() {
        let dir = temp_dir("fake");
        let base = dir.0.join("task");
        let base_str = base.to_str().unwrap().to_string();
        let observe = |state: char, syscall: Option<&str>, wchan: Option<&str>| {
            let _ = std::fs::remove_dir_all(&base);
            std::fs::create_dir_all(base.join("fd")).unwrap();
            // (Descriptor 0 open on a terminal: a read of no open one is of no terminal.)
            std::os::unix::fs::symlink("/dev/pts/9", base.join("fd/0")).unwrap();
            std::fs::write(base.join("stat"), format!("9 (t (x)) {state} 1 9 9 0 -1 0\n")).unwrap();
            match syscall {
                Some(text) => std::fs::write(base.join("syscall"), text).unwrap(),
                None => std::fs::create_dir(base.join("syscall")).unwrap(),
            }
            if let Some(text) = wchan {
                std::fs::write(base.join("wchan"), text).unwrap();
            }
            super::super::linux::observe_thread(
                &base_str,
                9,
                super::super::Probe::quiet_for(
                    std::time::Duration::ZERO,
                    &super::super::Looks::new(),
                ),
            )
            .map(|t| t.activity)
        };
        assert_eq!(observe('R', Some("0 0x0"), Some("0")), Some(Activity::NotSleeping('R')));
        assert_eq!(observe('T', Some("0 0x0"), Some("0")), Some(Activity::NotSleeping('T')));
        assert_eq!(observe('Z', None, None), None);
        assert_eq!(observe('S', Some("running\n"), Some("0")), Some(Activity::NotSleeping('R')));
        assert!(matches!(
            observe('S', Some("-1 0x0 0x0\n"), Some("n_tty_read")),
            Some(Activity::Other(_))
        ));
        assert_eq!(
            observe('S', None, Some("n_tty_read")),
            Some(Activity::Input("n_tty_read".into()))
        );
        assert_eq!(
            observe('S', None, Some("do_sys_poll.isra.0\n")),
            Some(Activity::Input("do_sys_poll".into()))
        );
        assert_eq!(
            observe('S', None, Some("pipe_read")),
            Some(Activity::Other("pipe_read".into()))
        );
        let Some(Activity::Unknown(why)) = observe('S', None, Some("0")) else {
            panic!("unreadable syscall + wchan 0 must be unknown");
        };
        assert!(why.contains("wchan is not available"), "{why}");
        let Some(Activity::Unknown(why)) = observe('S', None, None) else {
            panic!("unreadable syscall + missing wchan must be unknown");
        };
        assert!(why.contains("wchan is unreadable"), "{why}");
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        {
            let read = SYSCALLS.unwrap().iter().find(|e| e.1 == "read").unwrap().0;
            // A readable syscall file wins over wchan (pipe reads count).
            assert_eq!(
                observe('S', Some(&format!("{read} 0x0\n")), Some("anon_pipe_read")),
                Some(Activity::Input("read".into()))
            );
        }
        // The thread directory vanished: gone.
        std::fs::remove_dir_all(&base).unwrap();
        assert_eq!(
            super::super::linux::observe_thread(
                &base_str,
                9,
                super::super::Probe::quiet_for(
                    std::time::Duration::ZERO,
                    &super::super::Looks::new()
                )
            ),
            None
        );
    }

    #[test]
    fn missing_process_is_gone() {
        let err = read_stat(i32::MAX).unwrap_err();
        assert!(is_gone(&err), "{err}");
        assert!(read_stat(0).is_err());
        assert!(read_stat(-5).is_err());
        assert_eq!(process_name(i32::MAX), None);
        assert!(matches!(process_input_wait(i32::MAX), InputWait::NotWaiting { .. }));
        assert!(matches!(process_input_wait(0), InputWait::Unknown { .. }));
        assert!(matches!(
            group_input_wait(i32::MAX, None, None, TerminalSeen::default()),
            InputWait::Unknown { .. }
        ));
        assert!(session_processes(i32::MAX).is_empty());
    }

    /// A foreground group with no process left while the session's leader lives is the
    /// terminal between two jobs (a shell's loop between one `sleep` and the next, the
    /// first reaped before the shell took the terminal back): busy, not unknown, which
    /// let the default wait take the moment for settled.
    #[test]
    fn a_group_left_empty_while_its_session_leader_lives_is_busy() {
        let leader = spawn(Command::new("setsid").args(["sleep", "30"]));
        let sid = leader.pid();
        wait_for("the leader in a session of its own", || match read_stat(sid) {
            Ok(stat) if stat.session == sid && stat.comm == "sleep" => Ok(()),
            other => Err(format!("{other:?}")),
        });
        let between = group_input_wait(i32::MAX, Some(sid), None, TerminalSeen::default());
        assert!(matches!(between, InputWait::NotWaiting { .. }), "{between:?}");
        // A group with processes this look cannot see (here none are listed to look at, as
        // from a cgroup that could not be read) is not taken for empty.
        let unseen = group_input_wait(sid, Some(sid), Some(&[]), TerminalSeen::default());
        assert!(matches!(unseen, InputWait::Unknown { .. }), "{unseen:?}");
        drop(leader);
        let gone = group_input_wait(i32::MAX, Some(sid), None, TerminalSeen::default());
        assert!(matches!(gone, InputWait::Unknown { .. }), "{gone:?}");
    }

    #[test]
    fn own_process_stat() {
        let me = own_stat();
        assert_eq!(me.pid, std::process::id() as i32);
        // The main thread of the test harness sleeps while tests run.
        assert!(!is_dead(&me), "{me:?}");
        assert!(session_processes(me.session).iter().any(|p| p.pid == me.pid));
        assert!(process_name(me.pid).is_some());
    }

    /// Children and their children, however deep: what the supervisor stops and kills.
    #[test]
    fn descendants_are_found_at_every_depth() {
        let child = spawn(
            Command::new("sh")
                .args(["-c", "sh -c 'sleep 30 & wait' & wait"])
                .stdin(Stdio::null())
                .stdout(Stdio::null()),
        );
        let pid = child.pid();
        // The names are read in the wait: a forked child is called "sh" until its exec.
        let found = wait_for("a shell, its shell and its sleep", || {
            let found = descendants_of(pid);
            let names: Vec<String> =
                found.iter().filter_map(|p| read_stat(*p).ok()).map(|s| s.comm).collect();
            if names == ["sh", "sleep"] { Ok(found) } else { Err(format!("{found:?} {names:?}")) }
        });
        assert!(descendants_of(found[1]).is_empty());
        // Killed (the test's reaper waits for the shell), the grandchildren too.
        for pid in &found {
            crate::os::terminate::kill(*pid, rustix::process::Signal::KILL);
        }
    }

    #[test]
    fn sleep_is_not_waiting() {
        let child =
            spawn(Command::new("sleep").arg("30").stdin(terminal_stdin()).stdout(Stdio::null()));
        let pid = child.pid();
        let reason = wait_for("sleep to be in nanosleep", || match process_input_wait(pid) {
            InputWait::Waiting { .. } => panic!("sleep reported as waiting for input"),
            InputWait::NotWaiting { reason } if reason.contains("nanosleep") => Ok(reason),
            other => Err(format!("{other:?}")),
        });
        assert!(reason.contains(&format!("pid {pid} (sleep)")), "{reason}");
        for _ in 0..5 {
            assert!(matches!(process_input_wait(pid), InputWait::NotWaiting { .. }));
        }
    }

    #[test]
    fn cat_on_pipe_is_waiting() {
        let child = spawn(Command::new("cat").stdin(terminal_stdin()).stdout(Stdio::null()));
        let pid = child.pid();
        wait_waiting(pid);
        assert_eq!(process_name(pid).as_deref(), Some("cat"));
        assert_eq!(read_stat(pid).unwrap().state, 'S');
    }

    #[test]
    fn busy_loop_is_not_waiting() {
        let child = spawn(
            Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .stdin(Stdio::null())
                .stdout(Stdio::null()),
        );
        let pid = child.pid();
        wait_for("sh to start", || match process_name(pid) {
            Some(name) if name == "sh" => Ok(()),
            other => Err(format!("{other:?}")),
        });
        let mut running_seen = false;
        for _ in 0..20 {
            match process_input_wait(pid) {
                InputWait::NotWaiting { reason } => {
                    running_seen |= reason.contains("running");
                }
                other => panic!("busy loop reported as {other:?}"),
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(running_seen, "busy loop never seen running");
    }

    #[test]
    fn python_select_is_waiting() {
        let Some(child) = spawn_python("import select,sys; select.select([sys.stdin],[],[])")
        else {
            return;
        };
        let pid = child.pid();
        wait_python(pid, 1);
        wait_waiting(pid);
    }

    #[test]
    fn python_read_with_futex_thread_is_waiting() {
        let Some(child) = spawn_python(
            "import threading,sys\n\
                 threading.Thread(target=lambda: threading.Event().wait(), daemon=True).start()\n\
                 sys.stdin.read()",
        ) else {
            return;
        };
        let pid = child.pid();
        wait_python(pid, 2);
        wait_waiting(pid);
    }

    /// A Python that makes the terminal of its stdin its controlling terminal (a session of
    /// its own, its group killed with it), and polls it beside a self-pipe and an eventfd of its
    /// own, a thread idle on a lock beside: `held` hands the pipe's writing end to a child of
    /// its own, `timer` polls with a timeout, `child` has its signal handlers write into the
    /// pipe (`signal.set_wakeup_fd`), catches `SIGCHLD` and has a child (holding none of its
    /// descriptors), `posix` has a POSIX timer (not armed). `None` (skipped) without python3.
    fn spawn_event_loop(how: &str) -> Option<Reaper> {
        let code = format!(
            "import ctypes, os, select, signal, subprocess, threading\n\
             os.setsid()\n\
             tty = os.open(os.ttyname(0), os.O_RDWR)\n\
             r, w = os.pipe()\n\
             e = os.eventfd(0)\n\
             threading.Thread(target=threading.Event().wait, daemon=True).start()\n\
             if '{how}' == 'held': subprocess.Popen(['sleep', '60'], pass_fds=[w])\n\
             if '{how}' == 'child':\n\
             \x20   os.set_blocking(w, False)\n\
             \x20   signal.set_wakeup_fd(w)\n\
             \x20   signal.signal(signal.SIGCHLD, lambda *_: None)\n\
             \x20   subprocess.Popen(['sleep', '60'])\n\
             if '{how}' == 'posix':\n\
             \x20   ctypes.CDLL(None).timer_create(1, None, ctypes.byref(ctypes.c_void_p()))\n\
             p = select.poll()\n\
             for fd in (r, e, tty): p.register(fd, select.POLLIN)\n\
             p.poll(60000 if '{how}' == 'timer' else None)\n"
        );
        let mut child = spawn_python(&code)?;
        let pid = child.pid();
        child.group = Some(pid);
        wait_python(pid, 2);
        // (Every thread in its last wait, as a look that finds it asking needs, before a look
        // that must not: the helper thread parks on its lock after the main thread polls.)
        wait_for("the poll, the lock, the child", || {
            let children = descendants_of(pid).len();
            match in_final_waits(pid) {
                Ok(()) if children == usize::from(matches!(how, "held" | "child")) => Ok(()),
                Ok(()) => Err(format!("{children} children")),
                Err(why) => Err(why),
            }
        });
        Some(child)
    }

    /// Whether every thread of process `pid` is asleep in its last wait: the main thread in
    /// `poll`, every other one on a lock of the process's own with no timeout.
    fn in_final_waits(pid: i32) -> Result<(), String> {
        let tids = linux_task_ids(pid);
        if tids.len() < 2 {
            return Err(format!("threads {tids:?}"));
        }
        for tid in tids {
            let base = format!("/proc/{pid}/task/{tid}");
            let state = std::fs::read(format!("{base}/stat"))
                .ok()
                .and_then(|data| parse_stat(&data).ok())
                .map(|stat| stat.state);
            let text = std::fs::read_to_string(format!("{base}/syscall")).unwrap_or_default();
            let call = parse_syscall(&text).and_then(|field| match field {
                SyscallField::Nr(nr) => classify_syscall(nr),
                _ => None,
            });
            let last = match &call {
                Some(Activity::Input(name)) => tid == pid && name == "poll",
                Some(Activity::Other(name)) => {
                    tid != pid && name == "futex" && linux::waits_on_own_lock(&text)
                }
                _ => false,
            };
            if state != Some('S') || !last {
                return Err(format!("thread {tid}: {state:?} in {call:?}"));
            }
        }
        Ok(())
    }

    /// The threads of process `pid`.
    fn linux_task_ids(pid: i32) -> Vec<i32> {
        let Ok(dir) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return Vec::new() };
        dir.filter_map(|entry| entry.ok()?.file_name().to_str()?.parse().ok()).collect()
    }

    #[test]
    fn an_event_loop_on_descriptors_no_other_process_holds_awaits_input_alone() {
        let Some(own) = spawn_event_loop("own") else { return };
        wait_for("its wait on the terminal and its own descriptors alone", || {
            awaits_input_alone(own.pid(), None).then_some(()).ok_or_else(|| "not yet".to_owned())
        });
        // A child may write into the pipe; a timer wakes it on its own; a signal handler writes
        // into it when a child ends, or a POSIX timer goes off.
        for how in ["held", "timer", "child", "posix"] {
            let Some(child) = spawn_event_loop(how) else { return };
            for _ in 0..5 {
                assert!(!awaits_input_alone(child.pid(), None), "{how}");
            }
        }
    }

    /// Processes outside the event loop's session, started after it, are not looked through
    /// for holders of its pipes: eight holding a thousand descriptors each (more than a probe
    /// looks at) made the rule answer no, as another user's process did (`/proc` refuses to
    /// show its descriptors), for as long as they ran.
    #[test]
    fn processes_outside_the_session_do_not_keep_an_event_loop_from_awaiting_input_alone() {
        use std::os::unix::process::CommandExt;
        let Some(own) = spawn_event_loop("own") else { return };
        let code = "import os, time\n\
                    fds = [os.open('/dev/null', os.O_RDONLY) for _ in range(1000)]\n\
                    for _ in range(3): os.fork()\n\
                    time.sleep(60)\n";
        let mut strangers = Command::new("python3");
        strangers.args(["-c", code]).stdin(Stdio::null()).process_group(0);
        let mut strangers = spawn(&mut strangers);
        strangers.group = Some(strangers.pid());
        let group = strangers.pid();
        wait_for("eight strangers holding a thousand descriptors each", || {
            let holding: Vec<usize> = scan_processes(|s| s.pgrp == group)
                .iter()
                .map(|s| {
                    std::fs::read_dir(format!("/proc/{}/fd", s.pid)).map_or(0, Iterator::count)
                })
                .collect();
            let all = holding.len() == 8 && holding.iter().all(|&n| n >= 1000);
            if all { Ok(()) } else { Err(format!("{holding:?}")) }
        });
        for _ in 0..5 {
            assert!(awaits_input_alone(own.pid(), None), "the session's processes");
            assert!(awaits_input_alone(own.pid(), Some(&[own.pid()])), "its cgroup's");
        }
    }

    #[test]
    fn a_process_stopped_by_its_tracer_is_told_from_one_stopped_or_traced_by_another() {
        use std::os::unix::process::CommandExt;
        let mut traced = Command::new("sleep");
        traced.arg("30").stdin(Stdio::null());
        // SAFETY: only `ptrace`, async-signal-safe, runs between fork and exec; the thread
        // that forked it traces it, and it stops at its exec.
        unsafe {
            traced.pre_exec(|| {
                match libc::ptrace(libc::PTRACE_TRACEME, 0, std::ptr::null_mut::<libc::c_void>(), 0)
                {
                    0 => Ok(()),
                    _ => Err(io::Error::last_os_error()),
                }
            });
        }
        let traced = spawn(&mut traced);
        let me = std::process::id() as i32;
        wait_for("the traced program stopped at its exec", || {
            let state =
                read_stat(traced.pid()).map(|stat| stat.state).map_err(|e| e.to_string())?;
            if state == 't' { Ok(()) } else { Err(format!("state {state}")) }
        });
        assert!(linux::stopped_by_tracer(traced.pid(), me));
        assert!(!linux::stopped_by_tracer(traced.pid(), 1), "another tracer");
        // Stopped by a signal, not traced: a `SIGCONT` from anyone sets it running.
        let stopped = spawn(Command::new("sleep").arg("30").stdin(Stdio::null()));
        crate::os::terminate::kill(stopped.pid(), rustix::process::Signal::STOP);
        wait_for("the program stopped", || {
            let state =
                read_stat(stopped.pid()).map(|stat| stat.state).map_err(|e| e.to_string())?;
            if state == 'T' { Ok(()) } else { Err(format!("state {state}")) }
        });
        assert!(!linux::stopped_by_tracer(stopped.pid(), me));
    }

    #[test]
    fn python_join_on_sleeping_thread_is_not_waiting() {
        let Some(child) = spawn_python(
            "import threading,time\n\
                 t=threading.Thread(target=time.sleep, args=(30,))\n\
                 t.start()\n\
                 t.join()",
        ) else {
            return;
        };
        let pid = child.pid();
        wait_python(pid, 2);
        wait_for("both threads asleep", || match process_input_wait(pid) {
            InputWait::Waiting { .. } => panic!("futex + nanosleep reported as waiting"),
            InputWait::NotWaiting { reason } if reason.contains("sleeping in") => Ok(()),
            other => Err(format!("{other:?}")),
        });
    }

    #[test]
    fn stat_of_comm_with_spaces_and_parens() {
        let dir = temp_dir("comm");
        let exe = dir.0.join("a b) c");
        std::fs::copy("/bin/sleep", &exe).unwrap();
        // Another test thread may fork while the copy's write fd is
        // still open, briefly making the file "busy" (ETXTBSY).
        let child = wait_for("spawn of copied sleep", || {
            match Command::new(&exe).arg("30").stdin(Stdio::null()).stdout(Stdio::null()).spawn() {
                Ok(child) => Ok(Reaper::new(child)),
                Err(err) if err.raw_os_error() == Some(26) => Err(err.to_string()),
                Err(err) => panic!("spawn {exe:?}: {err}"),
            }
        });
        let pid = child.pid();
        let st = wait_for("exec of copied sleep", || {
            let st = read_stat(pid).map_err(|e| e.to_string())?;
            if st.comm == "a b) c" { Ok(st) } else { Err(format!("{st:?}")) }
        });
        let me = own_stat();
        assert_eq!(st.pid, pid);
        assert!(matches!(st.state, 'S' | 'R'), "{st:?}");
        assert_eq!(st.ppid, me.pid);
        assert_eq!(st.session, me.session);
        assert_eq!(st.pgrp, me.pgrp);
        assert_eq!(process_name(pid).as_deref(), Some("a b) c"));
        // By pid: the other fields (state, times) may change between two reads.
        assert!(session_processes(me.session).iter().any(|p| p.pid == pid));
    }

    #[test]
    fn zombie_is_dead() {
        let mut child = Command::new("true").spawn().expect("spawn true");
        let pid = child.id() as i32;
        let st = wait_for("true to become a zombie", || {
            let st = read_stat(pid).map_err(|e| e.to_string())?;
            if st.state == 'Z' { Ok(st) } else { Err(format!("{st:?}")) }
        });
        assert!(is_dead(&st));
        let sid = own_stat().session;
        assert!(session_processes(sid).iter().any(|p| p.pid == pid));
        assert!(!live_session_processes(sid).iter().any(|p| p.pid == pid));
        assert!(matches!(process_input_wait(pid), InputWait::NotWaiting { .. }));
        child.wait().unwrap();
        assert!(read_stat(pid).is_err_and(|e| is_gone(&e)));
    }

    #[test]
    fn new_session_and_background_child() {
        let me = own_stat();
        let mut leader = spawn(
            Command::new("setsid")
                .args(["sh", "-c", "sleep 30 & wait"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        );
        let pid = leader.pid();
        let st = wait_for("setsid to create a session", || {
            let st = read_stat(pid).map_err(|e| e.to_string())?;
            if st.session != me.session && st.comm == "sh" {
                Ok(st)
            } else {
                Err(format!("{st:?}"))
            }
        });
        let sid = st.session;
        assert_eq!(sid, pid, "setsid should exec in place: {st:?}");
        assert_ne!(st.pgrp, me.pgrp);
        leader.group = Some(st.pgrp);
        let procs = wait_for("background sleep in the session", || {
            let procs = live_session_processes(sid);
            if procs.iter().any(|p| p.ppid == pid && p.comm == "sleep" && p.session == sid) {
                Ok(procs)
            } else {
                Err(format!("{procs:?}"))
            }
        });
        assert!(procs.iter().any(|p| p.pid == pid));
        assert!(procs.iter().all(|p| p.session == sid));
        assert!(session_processes(sid).len() >= procs.len());
        assert_eq!(process_groups(&procs), vec![sid]);
        // The shell waits for its child: not waiting for input.
        let InputWait::NotWaiting { reason } =
            group_input_wait(sid, Some(sid), None, TerminalSeen::default())
        else {
            panic!("shell in wait4 must not be waiting");
        };
        assert!(reason.contains("pid"), "{reason}");
        // Kill the background child first so that the shell reaps it
        // (no orphan left for init); the Reaper then ends the shell.
        let bg = procs.iter().find(|p| p.ppid == pid && p.comm == "sleep").map(|p| p.pid).unwrap();
        rustix::process::kill_process(
            rustix::process::Pid::from_raw(bg).unwrap(),
            rustix::process::Signal::KILL,
        )
        .unwrap();
        wait_for("the shell to reap its background child", || match read_stat(bg) {
            Err(err) if is_gone(&err) => Ok(()),
            other => Err(format!("{other:?}")),
        });
    }

    /// A relay (a process of another session holding the terminal, as tmux's server)
    /// that hosts, in a session it started, a client of its own (a process waiting on a
    /// socket whose terminal the relay holds too): judging the relay judged the client,
    /// which judged the relay again, until the reactor's stack overflowed and the whole
    /// engine aborted. Each relay is judged once a probe: the client does not wait.
    #[test]
    fn a_relay_that_hosts_its_own_client_is_judged_once() {
        let code = r#"
import ctypes, os, socket, select, fcntl, termios
die_with_parent = lambda: ctypes.CDLL(None).prctl(1, 9)
die_with_parent()
os.setsid()
fcntl.ioctl(0, termios.TIOCSCTTY, 0)
a, b = socket.socketpair()
if os.fork() == 0:
    die_with_parent()
    os.setsid()
    master, slave = os.openpty()
    if os.fork() == 0:
        die_with_parent()
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        poll = select.poll()
        poll.register(a, select.POLLIN)
        while True:
            poll.poll()
    while True:
        os.read(slave, 1)
poll = select.poll()
poll.register(b, select.POLLIN)
while True:
    poll.poll()
"#;
        let Some(client) = spawn_python(code) else { return };
        let client = client.pid();
        wait_python(client, 1);
        // The relay (the client's child) reads the terminal of the session it started,
        // whose leader polls a socket.
        let pids = wait_for("the relay and the session it hosts", || {
            let pids = descendants_of(client);
            let stats: Vec<ProcStat> = pids.iter().filter_map(|&p| read_stat(p).ok()).collect();
            let hosted = stats.iter().any(|s| s.pid == s.session && s.tty_nr != 0);
            let relay = pids.iter().any(|&p| {
                    matches!(process_input_wait(p), InputWait::Waiting { reader: Some(r) } if r == p)
                });
            let own = read_stat(client).map(|s| s.session == client && s.tty_nr != 0);
            match (pids.len(), hosted, relay, own) {
                (2, true, true, Ok(true)) => Ok(pids),
                other => Err(format!("{other:?}")),
            }
        });
        let candidates: Vec<i32> = std::iter::once(client).chain(pids.iter().copied()).collect();
        let outcome = wait_for("the client to poll its socket", || {
            match group_input_wait(client, Some(client), Some(&candidates), TerminalSeen::default())
            {
                // No relay waits: the client waits on its socket, on the world outside.
                InputWait::Outside { reason, .. } if reason.contains("on sockets") => Ok(reason),
                other => Err(format!("{other:?}")),
            }
        });
        assert!(outcome.contains(&format!("pid {client}")), "{outcome}");
        // (The relay and the client it hosts end with their parents.)
    }

    /// A probe looks at a bounded number of descriptors, whatever the processes hold:
    /// 1,000 threads each polling the same 1,000 descriptors took two million looks (and
    /// seconds of the reactor) a probe.
    #[test]
    fn many_threads_polling_many_descriptors_cost_a_bounded_probe() {
        let code = r#"
import os, select, sys, threading
os.setpgid(0, 0)  # a group of its own: the test's may lie outside a PID namespace
fds = [os.open("/dev/null", os.O_RDONLY)]
fds += [os.dup(fds[0]) for _ in range(999)]
ready = threading.Barrier(1001)
def wait():
    poll = select.poll()
    for fd in fds:
        poll.register(fd, 0)
    ready.wait()
    poll.poll()
for _ in range(1000):
    threading.Thread(target=wait, daemon=True).start()
ready.wait()
sys.stdin.read()
"#;
        let Some(child) = spawn_python(code) else { return };
        let pid = child.pid();
        wait_python(pid, 1001);
        let candidates = [pid];
        let group = read_stat(pid).unwrap().pgrp;
        let probe = || group_input_wait(group, None, Some(&candidates), TerminalSeen::default());
        // The probe that finds them waiting has looked at every thread (one found running
        // ends a probe early, and under load one may be, now and then).
        let took = wait_for("the threads to poll", || {
            let started = thread_cpu_time();
            match probe() {
                InputWait::Waiting { reader: Some(reader) } if reader == pid => {
                    Ok(thread_cpu_time() - started)
                }
                other => Err(format!("{other:?}")),
            }
        });
        // About 40 ms of CPU in a debug build; 3.3 s before.
        assert!(took < Duration::from_secs(1), "a probe took {took:?} of CPU");
    }

    /// The relays of a terminal are looked for among processes of other sessions, a
    /// bounded number of descriptors in all, a few read at a time: 500 processes of other
    /// sessions holding 1,000 descriptors each took a second a look (the kernel lists a
    /// thousand of them for every read of a process's descriptors).
    #[test]
    fn processes_holding_many_descriptors_cost_a_bounded_look_for_relays() {
        let code = r#"
import ctypes, os, sys, fcntl, termios
die_with_parent = lambda: ctypes.CDLL(None).prctl(1, 9)
die_with_parent()
os.setsid()
fcntl.ioctl(0, termios.TIOCSCTTY, 0)
for _ in range(500):
    if os.fork() == 0:
        die_with_parent()
        os.setsid()
        null = os.open("/dev/null", os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        fds = [os.dup(null) for _ in range(1000)]
        os.read(os.pipe()[0], 1)
sys.stdin.read()
"#;
        let Some(client) = spawn_python(code) else { return };
        let client = client.pid();
        wait_python(client, 1);
        let candidates = wait_for("500 processes holding 1,000 descriptors", || {
            let pids = descendants_of(client);
            let ready = pids.len() == 500
                && pids.iter().all(|pid| {
                    std::fs::read_dir(format!("/proc/{pid}/fd")).is_ok_and(|d| d.count() > 1000)
                });
            match ready {
                true => Ok(std::iter::once(client).chain(pids).collect::<Vec<i32>>()),
                false => Err(format!("{} processes", pids.len())),
            }
        });
        let started = thread_cpu_time();
        let reads = group_reads(client, Some(client), Some(&candidates), None);
        let took = thread_cpu_time() - started;
        assert!(reads.is_some());
        // About 20 ms of CPU in a debug build; 1.1 s before.
        assert!(took < Duration::from_millis(250), "a look for relays took {took:?} of CPU");
    }

    /// The members of a group whose output goes nowhere are judged within the probe's bounds:
    /// 200 of them blocked on a lock, each holding 250 descriptors, beside the member that
    /// reads the terminal, took 50,000 looks at descriptors a probe, outside its budget (a
    /// server spent 3 s of CPU over one 5 s wait).
    #[test]
    fn many_members_printing_nowhere_cost_a_bounded_probe() {
        let code = r#"
import ctypes, fcntl, os, sys
os.setpgid(0, 0)  # a group of its own: the test's may lie outside a PID namespace
null = os.open("/dev/null", os.O_RDWR)
path = "/tmp/termloom-silent-test-%d.lock" % os.getpid()
lock = os.open(path, os.O_RDWR | os.O_CREAT)
fcntl.flock(lock, fcntl.LOCK_EX)
fds = [os.dup(null) for _ in range(240)]
for _ in range(200):
    own = os.open(path, os.O_RDWR)  # a lock of its own to wait for
    if os.fork() == 0:
        ctypes.CDLL(None).prctl(1, 9)  # die with the parent
        os.dup2(null, 1)
        os.dup2(null, 2)
        fcntl.flock(own, fcntl.LOCK_EX)
        os._exit(0)
    os.close(own)
os.unlink(path)
sys.stdin.read()
"#;
        let Some(child) = spawn_python(code) else { return };
        let pid = child.pid();
        wait_python(pid, 1);
        let in_flock = format!("{} ", libc::SYS_flock);
        let candidates = wait_for("200 members blocked on the lock", || {
            let pids = descendants_of(pid);
            let blocked = pids.iter().filter(|p| {
                std::fs::read_to_string(format!("/proc/{p}/syscall"))
                    .is_ok_and(|call| call.starts_with(&in_flock))
            });
            match blocked.count() {
                200 => Ok(std::iter::once(pid).chain(pids).collect::<Vec<i32>>()),
                n => Err(format!("{n} blocked")),
            }
        });
        wait_waiting(pid);
        let started = thread_cpu_time();
        let wait = group_input_wait(pid, None, Some(&candidates), TerminalSeen::default());
        let took = thread_cpu_time() - started;
        assert!(took < Duration::from_millis(50), "a probe took {took:?} of CPU: {wait:?}");
    }

    #[test]
    fn process_group_waiting() {
        use std::os::unix::process::CommandExt;
        let me = own_stat();
        let first = spawn(
            Command::new("cat").stdin(terminal_stdin()).stdout(Stdio::null()).process_group(0),
        );
        let pgrp = first.pid();
        let second = spawn(
            Command::new("cat").stdin(terminal_stdin()).stdout(Stdio::null()).process_group(pgrp),
        );
        wait_for("both cats waiting", || {
            let members = scan_processes(|p| p.pgrp == pgrp);
            match group_input_wait(pgrp, Some(me.session), None, TerminalSeen::default()) {
                InputWait::Waiting { .. }
                    if members.len() == 2 && members.iter().all(|m| m.comm == "cat") =>
                {
                    Ok(())
                }
                other => Err(format!("{other:?} {members:?}")),
            }
        });
        // The first member blocked reading names the group's reader: first in `/proc`'s
        // order, by pid, which is the second `cat` when the pids wrapped between the two
        // (`pid_max` is 32,768 on many systems, and a parallel run starts thousands).
        let first_listed = pgrp.min(second.pid());
        assert_eq!(
            group_input_wait(pgrp, None, None, TerminalSeen::default()),
            InputWait::Waiting { reader: Some(first_listed) }
        );
        assert!(matches!(
            group_input_wait(pgrp, Some(i32::MAX), None, TerminalSeen::default()),
            InputWait::Unknown { .. }
        ));
        // A member asleep on a clock (a background job of a shell without job control)
        // leaves the group waiting; one that runs does not.
        let _sleeper = spawn(
            Command::new("sleep")
                .arg("30")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .process_group(pgrp),
        );
        wait_for("the sleeper to sleep", || {
            let members = scan_processes(|p| p.pgrp == pgrp);
            let sleeping = members.iter().any(|m| m.comm == "sleep" && m.state == 'S');
            match group_input_wait(pgrp, Some(me.session), None, TerminalSeen::default()) {
                InputWait::Waiting { .. } if sleeping => Ok(()),
                other => Err(format!("{other:?} {members:?}")),
            }
        });
        let busy = spawn(
            Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .process_group(pgrp),
        );
        let busy_pid = busy.pid();
        let reason = wait_for("a busy member to make the group not waiting", || {
            match group_input_wait(pgrp, Some(me.session), None, TerminalSeen::default()) {
                InputWait::NotWaiting { reason }
                    if reason.contains(&format!("pid {busy_pid} (sh)")) =>
                {
                    Ok(reason)
                }
                other => Err(format!("{other:?}")),
            }
        });
        assert!(!reason.is_empty());
    }
}

#[test]
fn a_variant_suffix_is_dropped_from_a_program_name() {
    assert_eq!(super::without_variant("vim.basic"), "vim");
    assert_eq!(super::without_variant("vim.tiny"), "vim");
    assert_eq!(super::without_variant("less"), "less");
    assert_eq!(super::without_variant("python3.11"), "python3.11");
    assert_eq!(super::without_variant("a.b.c"), "a.b.c");
    assert_eq!(super::without_variant(".hidden"), ".hidden");
    assert_eq!(super::without_variant("vim."), "vim.");
}
