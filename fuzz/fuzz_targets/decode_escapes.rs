//! `termloom::fuzzing::decode_escapes` under libFuzzer; its corpus is `fuzz/corpus/decode_escapes/`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| termloom::fuzzing::decode_escapes(data));
