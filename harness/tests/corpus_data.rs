//! `sframe-corpus-data`'s blob is the repository's corpora, packed: every distinct `.sframe`
//! section of `corpus/elf` and `corpus/real` as the ELF loader reads it, named by its file,
//! in name order, each distinct section once (under its first name). Packing them again
//! gives the same bytes; `SFRAME_RECORD_CORPUS_DATA=1` writes the blob instead.

use sframe_corpus_data::{pack, Section};
use sframe_provision::manifest;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every file of `dir` (recursively), by path relative to it.
fn files(dir: &Path, rel: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir.join(rel))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    entries.sort();
    for name in entries {
        let r = rel.join(name);
        let p = dir.join(&r);
        if p.is_dir() {
            files(dir, &r, out);
        } else {
            out.push((r.display().to_string(), std::fs::read(&p).unwrap()));
        }
    }
}

/// The files of the corpora: `elf:<path under corpus/elf>`, `real:<manifest file>`.
fn corpora() -> Vec<(String, Vec<u8>)> {
    let mut elf = Vec::new();
    files(&repo().join("corpus/elf"), Path::new(""), &mut elf);
    let mut out: Vec<(String, Vec<u8>)> = elf
        .into_iter()
        .map(|(n, b)| (format!("elf:{n}"), b))
        .collect();
    let real = repo().join("corpus/real");
    for e in manifest::read(&real).expect("corpus/real/manifest.json") {
        let stored = real.join(e.extra_str("stored").expect("a stored file"));
        let unpacked = Command::new("xz")
            .arg("-dc")
            .arg(&stored)
            .output()
            .unwrap_or_else(|err| panic!("xz (ci/install-deps installs xz-utils): {err}"));
        assert!(unpacked.status.success(), "xz -dc {}", stored.display());
        out.push((format!("real:{}", e.file.display()), unpacked.stdout));
    }
    out
}

#[test]
fn the_blob_is_the_repository_corpora_packed() {
    let mut by_name: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for (name, file) in corpora() {
        if let Ok(loaded) = sframe_elf::load(&file) {
            by_name.insert(name, loaded.bytes);
        }
    }
    let mut seen = BTreeSet::new();
    let sections: Vec<Section> = by_name
        .iter()
        .filter(|(_, b)| seen.insert(b.as_slice()))
        .map(|(name, bytes)| Section { name, bytes })
        .collect();
    let blob = pack(sections.iter().copied());
    let path = repo().join("corpus-data/data/sections.bin");
    if std::env::var_os("SFRAME_RECORD_CORPUS_DATA").is_some() {
        std::fs::write(&path, &blob).unwrap();
    }
    assert!(sections.len() > 200, "{} sections", sections.len());
    assert!(
        blob == sframe_corpus_data::BLOB,
        "corpus-data/data/sections.bin is not the corpora packed: run \
         SFRAME_RECORD_CORPUS_DATA=1 cargo test -p sframe-harness --test corpus_data, then \
         cargo build again ({} sections, {} bytes)",
        sections.len(),
        blob.len()
    );
}
