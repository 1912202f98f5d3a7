//! `termloom::fuzzing::screen_diff` under libFuzzer; its corpus is `fuzz/corpus/screen_diff/`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| termloom::fuzzing::screen_diff(data));
