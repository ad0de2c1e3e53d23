//! Which implementations a differential target tests: every one the registry finds
//! provisioned here, less those excluded by name. One that cannot be provisioned (no
//! `sframe-worker`, no libsframe release, no glibc reader) and is not excluded refuses the
//! start, with the command that provisions it: a run never tests less than it says.
//!
//! Exclusion names are implementation names (`libsframe-2.40`, `glibc-2.43`) or prefixes
//! ending in `*` (`libsframe-*`, `glibc-*`: every release, including when none is built).

use sframe_harness::impls::Implementation;
use sframe_impls::registry::{Registry, Unavailable};
use std::sync::Arc;

/// What a run tests and leaves out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// The implementations under test, by name.
    pub tested: Vec<String>,
    /// Left out by an exclusion: name, and whether it was provisioned.
    pub excluded: Vec<(String, Provisioned)>,
}

/// Whether an excluded implementation was there to be tested.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provisioned {
    Yes,
    No,
}

/// Implementations that are neither provisioned nor excluded.
#[derive(Debug, Clone)]
pub struct Missing(pub Vec<Unavailable>);

impl std::fmt::Display for Missing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "sframe-fuzz: {} implementation(s) cannot be tested here; provision them, or exclude them by name (SFRAME_FUZZ_EXCLUDE={}, or ci/fuzz-long --exclude):",
            self.0.len(),
            self.0.iter().map(|u| u.name.as_str()).collect::<Vec<_>>().join(",")
        )?;
        for u in &self.0 {
            writeln!(f, "  {}: {}", u.name, u.reason)?;
        }
        Ok(())
    }
}

/// Whether exclusion `pattern` names `name`.
pub fn matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix),
        None => pattern == name,
    }
}

/// Split `reg` by `exclude`: the implementations to test and what was left out, or what is
/// missing.
pub fn select(
    reg: Registry,
    exclude: &[String],
) -> Result<(Vec<Arc<dyn Implementation>>, Selection), Missing> {
    let excluded = |name: &str| exclude.iter().any(|p| matches(p, name));
    let missing: Vec<Unavailable> = reg
        .unavailable
        .iter()
        .filter(|u| !excluded(&u.name))
        .cloned()
        .collect();
    if !missing.is_empty() {
        return Err(Missing(missing));
    }
    let mut sel = Selection::default();
    let mut impls = Vec::new();
    for i in reg.available {
        if excluded(&i.name()) {
            sel.excluded.push((i.name(), Provisioned::Yes));
        } else {
            sel.tested.push(i.name());
            impls.push(i);
        }
    }
    for u in reg.unavailable {
        sel.excluded.push((u.name, Provisioned::No));
    }
    Ok((impls, sel))
}

impl Selection {
    /// One line per list: `tested: a, b` and `excluded: c (not provisioned), d`.
    pub fn render(&self) -> String {
        let excluded: Vec<String> = self
            .excluded
            .iter()
            .map(|(n, p)| match p {
                Provisioned::Yes => n.clone(),
                Provisioned::No => format!("{n} (not available here)"),
            })
            .collect();
        format!(
            "implementations tested: {}\nimplementations excluded: {}\n",
            self.tested.join(", "),
            if excluded.is_empty() {
                "none".to_string()
            } else {
                excluded.join(", ")
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sframe_harness::impls::reference::Reference;

    fn registry(unavailable: &[&str]) -> Registry {
        Registry {
            available: vec![Arc::new(Reference)],
            unavailable: unavailable
                .iter()
                .map(|n| Unavailable {
                    name: n.to_string(),
                    reason: "run ci/toolchains".into(),
                })
                .collect(),
        }
    }

    #[test]
    fn a_missing_implementation_refuses_the_start() {
        let Err(Missing(m)) = select(registry(&["libsframe-*", "glibc-2.43"]), &[]) else {
            panic!("started without libsframe and glibc");
        };
        assert_eq!(m.len(), 2);
        let Err(Missing(m)) = select(
            registry(&["libsframe-*", "glibc-2.43"]),
            &["glibc-*".into()],
        ) else {
            panic!("started without libsframe");
        };
        assert_eq!(m[0].name, "libsframe-*");
    }

    #[test]
    fn excluded_by_name_or_prefix() {
        let (impls, sel) = select(
            registry(&["libsframe-*", "glibc-2.43"]),
            &[
                "libsframe-*".into(),
                "glibc-2.43".into(),
                "reference".into(),
            ],
        )
        .unwrap_or_else(|m| panic!("{m}"));
        assert!(impls.is_empty());
        assert_eq!(sel.tested, Vec::<String>::new());
        assert_eq!(
            sel.excluded,
            vec![
                ("reference".to_string(), Provisioned::Yes),
                ("libsframe-*".to_string(), Provisioned::No),
                ("glibc-2.43".to_string(), Provisioned::No)
            ]
        );
        assert!(!matches("libsframe-2.4", "libsframe-2.40"));
    }
}
