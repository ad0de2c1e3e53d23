//! The oracle on a sample of the corpus (real toolchains, every ABI): high coverage, and
//! mismatches only in the functions the findings ledger explains.

use sframe_oracle::{Options, Oracle};
use std::path::Path;

/// One file per producer and ABI, with the functions whose mismatches are recorded findings.
const SAMPLE: &[(&str, &[&str])] = &[
    ("gnu-as-2.40/amd64/basic-O2-fp.o", &[]),
    ("gnu-as-2.40/amd64/cfi-edge.o", &["edge_cfa_r10"]), // F0101, F0106
    ("gnu-as-2.44/amd64/linked/all-O2-nofp.so", &["edge_cfa_r10"]), // F0106
    ("gnu-as-2.47/amd64/realign-O2-fp.o", &["aligned_alloca"]), // F0104
    ("llvm-23/amd64/tailcall-O2-nofp.o", &[]),
    ("gnu-as-2.40/aarch64/alloca-O2-fp.o", &[]),
    ("gnu-as-2.47/aarch64/linked/all-O2-fp", &[]),
    ("gnu-as-2.44/aarch64_be/basic-O2-pac-b.o", &[]),
    ("gnu-as-2.47/s390x/stubs-O2-nofp.o", &[]),
];

#[test]
fn corpus_sample_is_covered_and_explained() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/elf");
    assert!(
        root.is_dir(),
        "{} is missing: run ci/build-corpus",
        root.display()
    );
    let (mut insns, mut exec) = (0usize, 0usize);
    for (file, known) in SAMPLE {
        let bytes = std::fs::read(root.join(file))
            .unwrap_or_else(|e| panic!("{file}: {e} (run ci/build-corpus)"));
        let r = Oracle::new(&bytes)
            .unwrap()
            .check_all(&Options {
                jobs: 2,
                ..Options::default()
            })
            .unwrap();
        insns += r.summary.instructions;
        exec += r.summary.executed;
        for m in r.mismatches() {
            assert!(
                known.contains(&m.function.as_str()),
                "{file}: unexplained mismatch {m:?}"
            );
        }
    }
    let cov = 100.0 * exec as f64 / insns as f64;
    assert!(cov >= 95.0, "coverage {cov:.1}% of {insns} instructions");
}
