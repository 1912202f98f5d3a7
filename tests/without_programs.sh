#!/bin/sh
# Runs the README's test command as on a machine that lacks some of the programs the tests
# drive, and checks the rule of `tests/common::require`: without `CI` the tests that need a
# missing program say so and pass; with `CI` set the same run fails, naming the program.
#
#   tests/without_programs.sh [PROGRAM...] [-- CARGO TEST ARGS...]
#
# Hides htop, whiptail, gdb, zsh and vim unless programs are named: PATH becomes one folder of
# links to everything on the current PATH except those programs (and `SHELL` is unset, so the
# shell of shell command lines is looked up in that PATH too). Arguments after `--` go to
# `cargo test --all-features` (e.g. `-- --test programs`).
set -eu
cd "$(dirname "$0")/.."

hidden=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    hidden="$hidden $1"
    shift
done
[ $# -gt 0 ] && shift
[ -n "$hidden" ] || hidden="htop whiptail gdb zsh vim"
hidden=$(echo $hidden)

bin=$(mktemp -d "${TMPDIR:-/tmp}/termloom-path.XXXXXX")
chmod 755 "$bin" # sessions run as another user (nobody) look programs up in it too
trap 'rm -rf "$bin"' EXIT
old_ifs=$IFS
IFS=:
for dir in $PATH; do
    IFS=$old_ifs
    [ -d "$dir" ] || continue
    for program in "$dir"/*; do
        name=${program##*/}
        case " $hidden " in *" $name "*) continue ;; esac
        if [ -x "$program" ] && [ ! -L "$bin/$name" ]; then
            ln -s "$program" "$bin/$name"
        fi
    done
done
IFS=$old_ifs
for name in $hidden; do
    if PATH=$bin command -v "$name" >/dev/null 2>&1; then
        echo "without_programs: $name is still found" >&2
        exit 1
    fi
done

log=$(mktemp "${TMPDIR:-/tmp}/termloom-without.XXXXXX")
trap 'rm -rf "$bin" "$log"' EXIT
echo "without $hidden, CI unset: the tests that need them skip"
if ! env -u CI -u SHELL PATH="$bin" cargo test --all-features --no-fail-fast "$@" -- --show-output >"$log" 2>&1
then
    grep -E '^(test .* FAILED|---- |thread .* panicked|error)' "$log" >&2 || tail -n 40 "$log" >&2
    echo "without_programs: FAILED: the run without CI must pass" >&2
    exit 1
fi
grep -o 'skipped: .*' "$log" | sort | uniq
# Each hidden program is named unless a test needing it skipped on another one first.
for name in $hidden; do
    grep -q "needs $name, which is not installed" "$log" || echo "(no test skipped naming $name)"
done
if ! grep -q "needs \($(echo $hidden | sed 's/ /\\|/g')\), which is not installed" "$log"; then
    echo "without_programs: FAILED: no test said it skipped" >&2
    exit 1
fi

echo "without $hidden, CI=1: the run fails, naming them"
if env -u SHELL CI=1 PATH="$bin" cargo test --all-features --no-fail-fast "$@" >"$log" 2>&1
then
    echo "without_programs: FAILED: the run with CI=1 must pass no test that needs them" >&2
    exit 1
fi
grep -o 'needs [^ ]*, which is not installed: CI must install it' "$log" | sort | uniq -c
if ! grep -q "needs \($(echo $hidden | sed 's/ /\\|/g')\), which is not installed: CI must" "$log"
then
    echo "without_programs: FAILED: with CI=1, no test failed naming a hidden program" >&2
    exit 1
fi
echo "without_programs: ok"
