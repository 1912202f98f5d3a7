//! `termloom::fuzzing::mcp_message` under libFuzzer; its corpus is `fuzz/corpus/mcp_message/`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| termloom::fuzzing::mcp_message(data));
