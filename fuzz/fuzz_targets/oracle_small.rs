#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = sframe_fuzz::oracle_small::run(&mut arbitrary::Unstructured::new(data));
});
