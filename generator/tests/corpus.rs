//! `write_corpus`: the same seed gives the same files; malformed files come with their tags.

use sframe_gen::check::reported;
use sframe_gen::{write_corpus, Config};
use sframe_spec::{validate, Abi, Endian, Rule, Version};
use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("sframe-gen-corpus")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn contents(paths: &[PathBuf]) -> Vec<(String, Vec<u8>)> {
    paths
        .iter()
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(p).unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_same_seed_gives_the_same_bytes() {
    let cfg = Config::default();
    for malformed in [false, true] {
        let a = write_corpus(&cfg, 40, 1234, &dir(&format!("a-{malformed}")), malformed).unwrap();
        let b = write_corpus(&cfg, 40, 1234, &dir(&format!("b-{malformed}")), malformed).unwrap();
        assert_eq!(contents(&a), contents(&b));
        let c = write_corpus(&cfg, 40, 1235, &dir(&format!("c-{malformed}")), malformed).unwrap();
        assert_ne!(contents(&a), contents(&c));
        // Item i does not depend on the count.
        let d = write_corpus(&cfg, 10, 1234, &dir(&format!("d-{malformed}")), malformed).unwrap();
        assert_eq!(contents(&a)[..10], contents(&d)[..]);
    }
}

#[test]
fn valid_files_are_valid() {
    let cfg = Config::pinned(Version::V2, Abi::Aarch64Le, Some(Endian::Big)).unwrap();
    let paths = write_corpus(&cfg, 30, 7, &dir("valid"), false).unwrap();
    assert_eq!(paths.len(), 30);
    for p in paths {
        assert!(p
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("valid-"));
        assert!(p.to_str().unwrap().contains("-v2-aarch64-be"), "{p:?}");
        let b = std::fs::read(&p).unwrap();
        assert_eq!(validate(&b), vec![], "{p:?}");
        assert!(!p.with_extension("json").exists());
    }
}

#[test]
fn malformed_files_carry_their_tags() {
    let paths = write_corpus(&Config::default(), 60, 99, &dir("malformed"), true).unwrap();
    for p in paths {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(p.with_extension("json")).unwrap())
                .unwrap();
        let tagged: Vec<Rule> = json["violates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| Rule::from_id(v.as_str().unwrap()).unwrap())
            .collect();
        assert!(!tagged.is_empty());
        let got = reported(&std::fs::read(&p).unwrap());
        assert!(
            tagged.iter().all(|r| got.contains(r)),
            "{p:?}: {tagged:?} vs {got:?}"
        );
        assert!(json["description"].is_string() && json["mutation"].is_string());
    }
}

#[test]
fn a_config_without_targets_is_refused() {
    let cfg = Config {
        versions: vec![Version::V1],
        abis: vec![Abi::S390x],
        ..Config::default()
    };
    let err = write_corpus(&cfg, 1, 0, &dir("none"), false).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
}
