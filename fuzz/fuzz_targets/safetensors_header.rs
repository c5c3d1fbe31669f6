#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| engram_testkit::fuzzing::safetensors_header(data));
