#!/bin/bash
# The keystroke bench under three settings of the machine, alternated, two rounds
# (BENCHMARKS.md §14, "Where a quiet keystroke's time goes"): as configured, with the guest's
# halt-polling on (`guest_halt_poll_ns`), and with the kernel's unbound workqueues on CPU 0.
# Needs root and a KVM guest with the haltpoll cpuidle driver; restores both settings after.
#   cargo bench --bench keystroke --no-run && sudo benches/keystroke_settings.sh
set -u
bench=$(ls -t target/release/deps/keystroke-* | grep -v '\.d$' | head -1)
poll=/sys/module/haltpoll/parameters/guest_halt_poll_ns
mask=/sys/devices/virtual/workqueue/cpumask
saved_poll=$(cat "$poll") saved_mask=$(cat "$mask")
restore() { echo "$saved_poll" > "$poll"; echo "$saved_mask" > "$mask"; }
trap restore EXIT
for round in 1 2; do
    for setting in configured halt-polling workqueues-on-cpu0; do
        restore
        case $setting in
            halt-polling) echo 200000 > "$poll" ;;
            workqueues-on-cpu0) echo 1 > "$mask" ;;
        esac
        echo "== round $round: $setting ($(head -1 /proc/pressure/cpu))"
        TERMLOOM_BENCH_SAMPLES=400 "$bench" --bench 2>&1 \
            | grep -E '^\| (raw echo|termloom, screen wait|termloom, send_keys_and_wait)'
    done
done
