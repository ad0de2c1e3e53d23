#![no_main]
use std::sync::atomic::AtomicU8;

/// libsframe's and glibc's reader's edges for the input, when `SFRAME_FUZZ_LIB_COVERAGE=1`
/// (`sframe_fuzz::lib_coverage`): libFuzzer reads this section as extra counters.
#[used]
#[link_section = "__libfuzzer_extra_counters"]
static LIB_COUNTERS: [AtomicU8;
    sframe_fuzz::lib_coverage::SLOT * sframe_fuzz::lib_coverage::SLOTS] = [const { AtomicU8::new(0) };
    sframe_fuzz::lib_coverage::SLOT * sframe_fuzz::lib_coverage::SLOTS];

// init: build every implementation before the first input (exit 1 when one is missing).
libfuzzer_sys::fuzz_target!(init: {
    sframe_fuzz::differential::init();
    sframe_fuzz::lib_coverage::get();
}, |data: &[u8]| {
    let _ = sframe_fuzz::decode_diff::run(&mut arbitrary::Unstructured::new(data));
    sframe_fuzz::lib_coverage::observe(data, &LIB_COUNTERS);
});
