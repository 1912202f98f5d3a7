//! `termloom::fuzzing::feed_terminal` under libFuzzer; its corpus is `fuzz/corpus/feed_terminal/`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| termloom::fuzzing::feed_terminal(data));
