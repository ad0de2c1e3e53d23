//! The compact answer form between `sframe-worker` and the harness
//! (`sframe_harness::impls::compact`) gives the same outcomes as the JSON form: every
//! provisioned worker implementation, asked `decode_and_find` on every section of the corpus
//! and of the findings' reproducers (crashes included: their answers mix the two forms),
//! answers alike both ways.

use sframe_harness::diff::pcs_for;
use sframe_harness::impls::process::{Launch, ProcessImpl, DEFAULT_TIMEOUT};
use sframe_harness::impls::reference::Reference;
use sframe_harness::impls::{Hosting, Implementation};
use sframe_harness::input::{corpus_cases, corpus_dir, read_cases};
use sframe_impls::registry::{glibc_launch, libsframe_launch};
use sframe_impls::toolchains::{glibc_readers, libsframe_releases, worker_path, PROVISION_HINT};

#[test]
fn every_worker_answers_alike_in_json_and_in_the_compact_form() {
    let mut cases = corpus_cases(&corpus_dir());
    cases.extend(read_cases(&[corpus_dir().join("findings")]).expect("the findings read"));
    assert!(cases.len() > 300, "{} sections", cases.len());
    let asked: Vec<(&[u8], Vec<i64>)> = cases
        .iter()
        .map(|c| {
            let pcs = pcs_for(&c.data, Reference.decode(&c.data).value(), 64);
            (&c.data[..], pcs)
        })
        .collect();
    let worker = worker_path().expect("sframe-worker is built");
    let mut launches = vec![Launch::new(worker).arg("--impl").arg("reference")];
    let libs = libsframe_releases();
    assert!(
        !libs.is_empty(),
        "no libsframe provisioned: {PROVISION_HINT}"
    );
    for l in libs {
        launches.push(libsframe_launch(&l.release, &l.path, &l.version, DEFAULT_TIMEOUT).unwrap());
    }
    for g in glibc_readers() {
        launches.push(glibc_launch(&g.release, &g.path, &g.version, DEFAULT_TIMEOUT).unwrap());
    }
    std::thread::scope(|s| {
        for launch in launches {
            let asked = &asked;
            s.spawn(move || {
                let compact = ProcessImpl::start(launch.clone(), Hosting::Worker).unwrap();
                let json = ProcessImpl::start(launch, Hosting::Worker)
                    .unwrap()
                    .json_answers();
                let name = compact.name();
                assert!(
                    compact.compact(),
                    "{name}: its hello offers no compact form"
                );
                let mut crashes = 0;
                for (data, pcs) in asked {
                    let c = compact.decode_and_find(data, pcs);
                    crashes += usize::from(c.0.is_failure());
                    assert_eq!(c, json.decode_and_find(data, pcs), "{name}");
                }
                eprintln!("{name}: {} sections alike, {crashes} crashes", asked.len());
            });
        }
    });
}
