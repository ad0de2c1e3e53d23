#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = sframe_fuzz::decode_diff::run(&mut arbitrary::Unstructured::new(data));
});
