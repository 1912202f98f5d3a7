//! `termloom::fuzzing::spawn_policy` under libFuzzer; its corpus is `fuzz/corpus/spawn_policy/`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| termloom::fuzzing::spawn_policy(data));
