//! Run the fuzz drivers over many seeded inputs (stable Rust, no libFuzzer), and every
//! applicable mutation kind over swarm sections: `cargo run --release -p sframe-gen --example
//! soak -- [ITERATIONS] [FIRST_SEED]`.

use arbitrary::{Arbitrary, Unstructured};
use sframe_gen::check::{check_lookups, check_mutated, check_valid};
use sframe_gen::drivers::{malformed, seeded::run_seeded, valid};
use sframe_gen::rng::SplitMix64;
use sframe_gen::{generate, mutate::applicable, mutate_with, Config};
use sframe_spec::{decode, is_malformed, validate};

/// Random byte flips: decode must not panic, and fails exactly when validate reports a
/// malformed-class rule.
fn havoc(bytes: &[u8], seed: u64) {
    if bytes.is_empty() {
        return;
    }
    let mut rng = SplitMix64::new(seed ^ bytes.len() as u64);
    let mut b = bytes.to_vec();
    for _ in 0..1 + rng.next_u64() % 4 {
        let at = (rng.next_u64() % b.len() as u64) as usize;
        b[at] ^= 1 << (rng.next_u64() % 8);
    }
    let v = validate(&b);
    assert_eq!(
        decode(&b).is_err(),
        is_malformed(&v),
        "seed {seed}: {v:?}\n{}",
        sframe_gen::check::hex(&b)
    );
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(20_000);
    let first: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(0);
    run_seeded(n, 16384, valid::run);
    run_seeded(n, 16384, malformed::run);
    let mut mutations = 0u64;
    for seed in first..first + n {
        let data = SplitMix64::input(seed, 0, 0);
        let mut u = Unstructured::new(&data);
        let cfg = Config::arbitrary(&mut u).unwrap();
        let g = generate(&cfg, &mut u).unwrap();
        check_valid(&g).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        check_lookups(&g).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        for kind in applicable(&g) {
            let data = SplitMix64::input(seed, 0, 1);
            let m = mutate_with(kind, &g, &mut Unstructured::new(&data))
                .unwrap()
                .unwrap();
            check_mutated(&m, true).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            mutations += 1;
            havoc(&m.bytes, seed);
        }
        havoc(&g.bytes, seed);
    }
    println!("{n} iterations of each driver; {n} swarm sections, {mutations} mutations: all properties hold");
}
