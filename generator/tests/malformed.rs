//! Malformed and invalid sections: every mutation makes the validator report at least the
//! rules it is tagged with (exactly them, in fact), `decode` never panics on them, and it
//! fails exactly when a malformed-class rule is reported.

use arbitrary::Unstructured;
use proptest::prelude::*;
use sframe_gen::check::{check_mutated, reported};
use sframe_gen::reach::rich_config;
use sframe_gen::rng::SplitMix64;
use sframe_gen::strategy::{config_strategy, generated_strategy, malformed_strategy};
use sframe_gen::{generate, mutate, mutate_with, Config, MutationKind};
use sframe_spec::{decode, is_malformed, validate};

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// The contract: `validate` reports at least the tagged rules; `decode` (which must not
    /// panic) fails iff one of the reported rules is malformed-class.
    #[test]
    fn mutations_break_at_least_their_tags((_g, m) in malformed_strategy(Config::default())) {
        if let Err(e) = check_mutated(&m, false) {
            return Err(TestCaseError::fail(e));
        }
    }

    /// Stronger: the tags are exact, no rule is reported that the mutation does not name.
    #[test]
    fn mutations_break_exactly_their_tags((_g, m) in malformed_strategy(Config::default())) {
        if let Err(e) = check_mutated(&m, true) {
            return Err(TestCaseError::fail(e));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Swarm configurations, and every kind that applies to each section.
    #[test]
    fn every_applicable_kind_is_exact(cfg in config_strategy(), seed in any::<u64>()) {
        let data = SplitMix64::input(seed, 0, 0);
        let g = generate(&cfg, &mut Unstructured::new(&data)).unwrap();
        for kind in sframe_gen::mutate::applicable(&g) {
            let data = SplitMix64::input(seed, 0, 1);
            let m = mutate_with(kind, &g, &mut Unstructured::new(&data)).unwrap().expect("applicable");
            if let Err(e) = check_mutated(&m, true) {
                return Err(TestCaseError::fail(e));
            }
        }
    }

    /// Havoc on top of a mutation: whatever the bytes, decode does not panic and agrees with
    /// the validator's malformed verdict.
    #[test]
    fn decode_agrees_with_validate_after_havoc(g in generated_strategy(Config::default()), flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
        let mut b = g.bytes.clone();
        for (at, x) in flips {
            let n = b.len();
            b[at % n] ^= x;
        }
        let v = validate(&b);
        prop_assert_eq!(decode(&b).is_err(), is_malformed(&v), "{:?}", v);
    }
}

/// Every kind applies to some section of some target, and each of its tags is reported.
#[test]
fn every_kind_applies_somewhere() {
    for &kind in MutationKind::ALL {
        let mut applied = 0;
        for (v, a) in Config::all_targets() {
            let cfg = rich_config(v, a);
            for seed in 0..4 {
                let data = SplitMix64::input(seed, 0, 0);
                let g = generate(&cfg, &mut Unstructured::new(&data)).unwrap();
                let data = SplitMix64::input(seed, 0, 1);
                if let Some(m) = mutate_with(kind, &g, &mut Unstructured::new(&data)).unwrap() {
                    check_mutated(&m, true).unwrap();
                    applied += 1;
                }
            }
        }
        assert!(applied > 0, "{} never applies", kind.name());
    }
}

/// Mutations of a section without functions (header kinds only) are still exact.
#[test]
fn empty_sections_mutate() {
    let cfg = Config {
        max_functions: 0,
        ..Config::default()
    };
    for seed in 0..200 {
        let data = SplitMix64::input(seed, 0, 0);
        let g = generate(&cfg, &mut Unstructured::new(&data)).unwrap();
        assert!(g.section.functions.is_empty());
        let data = SplitMix64::input(seed, 0, 1);
        let m = mutate(&g, &mut Unstructured::new(&data)).unwrap();
        check_mutated(&m, true).unwrap();
        assert!(!reported(&m.bytes).is_empty());
    }
}
