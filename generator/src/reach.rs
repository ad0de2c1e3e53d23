//! Which catalogue rules the mutator reaches, per target: every [`MutationKind`] applied to
//! seeded sections of each (version, ABI), keeping only tags that the validator confirms.
//! The catalogue test and `examples/catalogue.rs` are built on it.

use crate::check::reported;
use crate::config::Config;
use crate::generate::generate;
use crate::mutate::{mutate_with, MutationKind};
use crate::rng::SplitMix64;
use arbitrary::Unstructured;
use sframe_spec::{Abi, Rule, Version};
use std::collections::{BTreeMap, BTreeSet};

/// Rules that apply to a target (by the catalogue's versions and ABIs) but that no bytes of
/// that target can break, with the reason.
pub const UNREACHABLE: &[(Rule, Version, &str)] = &[(
    Rule::HeaderFlagVersion,
    Version::V2,
    "version 2 (with Errata 1) defines all three flags, FRAME_POINTER and FDE_FUNC_START_PCREL included, so no flag of another version exists",
)];

/// A configuration whose sections give every mutation kind something to work on: several
/// functions with several FREs each.
pub fn rich_config(version: Version, abi: Abi) -> Config {
    Config {
        min_functions: 3,
        max_functions: 6,
        min_fres: 2,
        max_fres: 5,
        ..Config::pinned(version, abi, None).expect("a defined target")
    }
}

/// Rules reached per target: for each (version, ABI) of the format and each mutation kind,
/// up to `tries` sections generated under [`rich_config`], each mutated once by that kind.
/// A tag counts only when the validator reports it.
pub fn reach(tries: u64) -> BTreeMap<(Version, Abi), BTreeSet<Rule>> {
    let mut out = BTreeMap::new();
    for (version, abi) in Config::all_targets() {
        let cfg = rich_config(version, abi);
        let mut rules = BTreeSet::new();
        for (k, &kind) in MutationKind::ALL.iter().enumerate() {
            for seed in 0..tries {
                let data = SplitMix64::input(seed, k as u64, 0);
                let mut u = Unstructured::new(&data);
                let Ok(g) = generate(&cfg, &mut u) else {
                    continue;
                };
                let data = SplitMix64::input(seed, k as u64, 1);
                let Ok(Some(m)) = mutate_with(kind, &g, &mut Unstructured::new(&data)) else {
                    continue;
                };
                let got = reported(&m.bytes);
                rules.extend(m.violates.iter().filter(|r| got.contains(r)));
            }
        }
        out.insert((version, abi), rules);
    }
    out
}

/// Rules of the catalogue that apply to the target.
pub fn applicable_rules(version: Version, abi: Abi) -> Vec<Rule> {
    Rule::ALL
        .iter()
        .copied()
        .filter(|r| r.applies(version, Some(abi)))
        .collect()
}

/// A table: per target, reached / applicable / catalogue size, and what is not reached.
pub fn table(reached: &BTreeMap<(Version, Abi), BTreeSet<Rule>>) -> String {
    let mut s = format!(
        "{:<8} {:<12} {:>7} {:>10} {:>9}  not reached\n",
        "version", "abi", "reached", "applicable", "catalogue"
    );
    for (&(v, a), rules) in reached {
        let applicable = applicable_rules(v, a);
        let missing: Vec<&str> = applicable
            .iter()
            .filter(|r| !rules.contains(r))
            .map(|r| r.id())
            .collect();
        s += &format!(
            "{:<8} {:<12} {:>7} {:>10} {:>9}  {}\n",
            v.to_string(),
            a.name(),
            rules.len(),
            applicable.len(),
            Rule::ALL.len(),
            missing.join(", ")
        );
    }
    s
}
