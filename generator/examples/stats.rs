//! Distribution of generated sections and mutations over seeded inputs (a development aid).

use arbitrary::{Arbitrary, Unstructured};
use sframe_gen::rng::SplitMix64;
use sframe_gen::{generate, mutate, Config};
use std::collections::BTreeMap;

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000);
    let swarm = std::env::args().nth(2).is_some_and(|s| s == "swarm");
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    let mut targets: BTreeMap<String, usize> = BTreeMap::new();
    let (mut fns, mut fres, mut bytes, mut errs, mut empty) =
        (0usize, 0usize, 0usize, 0usize, 0usize);
    for seed in 0..n {
        let data = SplitMix64::input(seed, 0, 0);
        let mut u = Unstructured::new(&data);
        let cfg = if swarm {
            Config::arbitrary(&mut u).unwrap()
        } else {
            Config::default()
        };
        let Ok(g) = generate(&cfg, &mut u) else {
            errs += 1;
            continue;
        };
        fns += g.section.functions.len();
        empty += usize::from(g.section.functions.is_empty());
        fres += g.section.num_fres();
        bytes += g.bytes.len();
        *targets
            .entry(format!("v{} {}", g.section.version.number(), g.section.abi))
            .or_default() += 1;
        let data = SplitMix64::input(seed, 0, 1);
        let m = mutate(&g, &mut Unstructured::new(&data)).unwrap();
        *kinds.entry(m.kind.name()).or_default() += 1;
    }
    println!(
        "{n} sections, {errs} errors, {empty} without functions; mean {} functions, {} FREs, {} bytes",
        fns as u64 / n,
        fres as u64 / n,
        bytes as u64 / n
    );
    println!("{targets:?}");
    println!("{kinds:#?}");
}
