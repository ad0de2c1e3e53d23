//! The fuzz target's body on seeded inputs, as `cargo test` runs it: every input through the
//! gate without an unexplained discrepancy.

use sframe_gen::rng::SplitMix64;

#[test]
fn seeded_inputs_pass_the_gate() {
    let mut rng = SplitMix64::new(0x5eed);
    for _ in 0..300 {
        let input: Vec<u8> = (0..2048).map(|_| rng.next_u64() as u8).collect();
        tiny_sframe_fuzz::run(&input);
    }
}
