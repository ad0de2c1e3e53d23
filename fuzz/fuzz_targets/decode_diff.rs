#![no_main]
// init: build every implementation before the first input (exit 1 when one is missing).
libfuzzer_sys::fuzz_target!(init: sframe_fuzz::differential::init(), |data: &[u8]| {
    let _ = sframe_fuzz::decode_diff::run(&mut arbitrary::Unstructured::new(data));
});
