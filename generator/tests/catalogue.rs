//! The catalogue check: every rule that bytes can break is broken by some mutation, for
//! every version and ABI it applies to; the few that cannot be are listed with the reason
//! (`sframe_gen::reach::UNREACHABLE`).

use sframe_gen::reach::{applicable_rules, reach, table, UNREACHABLE};
use sframe_spec::Rule;
use std::collections::BTreeSet;

#[test]
fn every_applicable_rule_is_reached_per_version_and_abi() {
    let reached = reach(12);
    println!("{}", table(&reached));
    let mut missing = Vec::new();
    for (&(v, a), rules) in &reached {
        for r in applicable_rules(v, a) {
            let excused = UNREACHABLE.iter().any(|&(u, uv, _)| u == r && uv == v);
            if !rules.contains(&r) && !excused {
                missing.push(format!("{} ({v}, {a})", r.id()));
            }
            if rules.contains(&r) && excused {
                missing.push(format!(
                    "{} ({v}, {a}) is listed unreachable but was reached",
                    r.id()
                ));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "rules not reached:\n{}",
        missing.join("\n")
    );
    // And over all targets, the whole catalogue.
    let all: BTreeSet<Rule> = reached.values().flatten().copied().collect();
    let never: Vec<&str> = Rule::ALL
        .iter()
        .filter(|r| !all.contains(r))
        .map(|r| r.id())
        .collect();
    assert!(never.is_empty(), "rules no target reaches: {never:?}");
}
