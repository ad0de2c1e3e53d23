//! Whole-stack walks (issue: oracle, "whole-stack check ... with every implementation that
//! can unwind"): the emulator keeps a snapshot of the deepest point of each run, with the
//! true frames; every implementation that finds rows walks that stack with its own rows,
//! and where the reference's walk is true, theirs must be too (or be a ledgered finding).

mod common;

use sframe_conform::stackwalk;
use sframe_harness::diff::version_tag;
use sframe_harness::impls::reference::Reference;
use sframe_harness::ledger::Ledger;
use sframe_harness::signature::{Signature, ToolName, Unwind};
use sframe_impls::registry::{Options, Registry};
use sframe_oracle::{Options as OracleOptions, Oracle};
use std::collections::BTreeMap;
use std::path::Path;

const FILES: &[&str] = &[
    "gnu-as-2.40/amd64/linked/all-O2-fp",
    "gnu-as-2.44/amd64/linked/all-O2-fp",
    "gnu-as-2.47/amd64/linked/all-O2-fp",
    "gnu-as-2.47/amd64/linked/all-O2-nofp",
    "gnu-as-2.40/aarch64/linked/all-O2-fp",
    "gnu-as-2.44/aarch64/linked/all-O2-fp",
    "gnu-as-2.47/aarch64/linked/all-O2-fp",
    "gnu-as-2.47/s390x/linked/all-O2-fp",
];

#[test]
fn every_implementation_walks_the_true_stack_or_the_difference_is_ledgered() {
    let reg = Registry::discover(&Options {
        objdump: false,
        ..Options::default()
    });
    assert!(
        reg.libsframes().len() >= 3,
        "the provisioned libsframe releases are missing (run ci/toolchains): {:?}",
        reg.unavailable
    );
    let ledger = Ledger::load(&Ledger::default_dir()).expect("ledger");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/elf");
    let mut compared: BTreeMap<String, usize> = BTreeMap::new();
    let mut new: BTreeMap<String, String> = BTreeMap::new();
    for f in FILES {
        let path = root.join(f);
        let elf = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let oracle = Oracle::new(&elf).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let opts = common::stack_walk_options();
        let report = oracle.check_all(&opts).expect("oracle runs");
        let section = &oracle.image().section;
        let vaddr = oracle.image().section_vaddr;
        let version = sframe_spec::SectionRef::parse(section)
            .expect("section")
            .version();
        let deep: Vec<_> = report
            .snapshots
            .iter()
            .filter(|s| s.frames.len() >= 2)
            .collect();
        assert!(!deep.is_empty(), "{f}: no snapshot with a caller frame");
        for imp in reg
            .available
            .iter()
            .filter(|i| !i.tool().is(ToolName::Reference) && i.supports(version))
        {
            for snap in &deep {
                *compared.entry(imp.name()).or_default() += 1;
                if let Some(d) = stackwalk::check(&Reference, imp.as_ref(), snap, section, vaddr) {
                    if ledger.lookup_signature(&d.signature).is_none() {
                        new.entry(d.signature.to_string()).or_insert_with(|| {
                            format!(
                                "{} in {f} ({}): frame {} {} pc {:#x}: {}",
                                d.signature,
                                version_tag(section),
                                d.frame,
                                d.function,
                                d.pc,
                                d.detail
                            )
                        });
                    }
                }
            }
        }
    }
    assert!(
        new.is_empty(),
        "unwind discrepancies no finding covers:\n  {}",
        new.values().cloned().collect::<Vec<_>>().join("\n  ")
    );
    for name in [
        "simple-frame-rs",
        "libsframe-2.40",
        "libsframe-2.44",
        "libsframe-2.47",
    ] {
        assert!(
            compared.get(name).copied().unwrap_or(0) >= 5,
            "{name} walked too few stacks: {compared:?}"
        );
    }
}

/// The check can fail: an implementation whose rows put the CFA one byte off is caught at
/// the first frame the reference walks truthfully.
#[test]
fn a_wrong_cfa_is_caught() {
    use sframe_harness::impls::{Decoded, Found, Implementation, Outcome};
    use sframe_spec::{Loc, Version};
    struct OffByOne;
    impl Implementation for OffByOne {
        fn name(&self) -> String {
            "off-by-one".into()
        }
        fn version(&self) -> String {
            "test".into()
        }
        fn hosting(&self) -> sframe_harness::impls::Hosting {
            sframe_harness::impls::Hosting::InProcess
        }
        fn supports(&self, _: Version) -> bool {
            true
        }
        fn decode(&self, data: &[u8]) -> Outcome<Decoded> {
            Reference.decode(data)
        }
        fn find_fre(&self, data: &[u8], pc: i64) -> Outcome<Option<Found>> {
            Reference.find_fre(data, pc).map(|f| {
                f.map(|mut f| {
                    if let Some(Loc::Expr { offset, .. }) = f.row.cfa.as_mut() {
                        *offset += 1;
                    }
                    f
                })
            })
        }
    }
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../corpus/elf/gnu-as-2.47/amd64/linked/all-O2-fp");
    let oracle = Oracle::new(&std::fs::read(path).unwrap()).unwrap();
    let opts = OracleOptions {
        runs: 2,
        extra_runs: 0,
        seed: 7,
        jobs: 1,
        snapshots: true,
        ..OracleOptions::default()
    };
    let report = oracle.check_all(&opts).unwrap();
    let snap = report
        .snapshots
        .iter()
        .find(|s| s.frames.len() >= 2)
        .expect("a deep snapshot");
    let d = stackwalk::check(
        &Reference,
        &OffByOne,
        snap,
        &oracle.image().section,
        oracle.image().section_vaddr,
    )
    .expect("caught");
    assert!(
        matches!(
            d.signature,
            Signature::Unwind {
                what: Unwind::Cfa,
                ..
            }
        ),
        "{d:?}"
    );
    assert!(stackwalk::check(
        &Reference,
        &Reference,
        snap,
        &oracle.image().section,
        oracle.image().section_vaddr
    )
    .is_none());
}
