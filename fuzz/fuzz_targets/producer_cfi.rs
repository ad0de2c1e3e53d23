#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = sframe_fuzz::producer_cfi::run(&mut arbitrary::Unstructured::new(data));
});
