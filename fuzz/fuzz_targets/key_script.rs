//! `termloom::fuzzing::key_script` under libFuzzer; its corpus is `fuzz/corpus/key_script/`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| termloom::fuzzing::key_script(data));
