#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| sframe_fuzz::reference_robustness::check(data));
