//! `termloom::fuzzing::config_toml` under libFuzzer; its corpus is `fuzz/corpus/config_toml/`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| termloom::fuzzing::config_toml(data));
