//! `Generated` and `Mutated` are `Arbitrary`: any input gives a valid section (the validator
//! finds nothing) or a broken one whose rules the validator reports.

use arbitrary::{Arbitrary, Unstructured};
use sframe_gen::rng::SplitMix64;
use sframe_gen::{Generated, Mutated};

fn input(seed: u64) -> Vec<u8> {
    let mut rng = SplitMix64::new(seed);
    (0..4096).map(|_| rng.next_u64() as u8).collect()
}

#[test]
fn arbitrary_sections_are_valid_and_arbitrary_mutations_break_their_rules() {
    let mut versions = std::collections::BTreeSet::new();
    for seed in 0..200 {
        let data = input(seed);
        let g = Generated::arbitrary(&mut Unstructured::new(&data)).unwrap();
        assert_eq!(sframe_spec::validate(&g.bytes), vec![], "seed {seed}");
        versions.insert(g.section.version);
        let m = Mutated::arbitrary(&mut Unstructured::new(&data)).unwrap();
        let reported: Vec<_> = sframe_spec::validate(&m.bytes)
            .into_iter()
            .map(|v| v.rule)
            .collect();
        assert!(
            m.violates.iter().all(|r| reported.contains(r)),
            "seed {seed}: {} breaks {:?}, the validator says {reported:?}",
            m.description,
            m.violates
        );
    }
    assert_eq!(versions.len(), 3, "{versions:?}");
}
