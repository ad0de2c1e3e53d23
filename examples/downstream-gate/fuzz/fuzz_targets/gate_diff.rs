#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| tiny_sframe_fuzz::run(data));
