//! `impls/ADDING.md` stays true: an in-process adapter is one file, `src/<module>.rs`, plus
//! one line `module => Adapter,` in the `in_process!` list of `src/lib.rs`, and nothing else
//! in this crate names it: `Registry::discover` builds every adapter of that list.

use sframe_impls::registry::{Options, Registry};
use std::path::Path;

fn src(file: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The `(module, Adapter)` lines of the `in_process!` list in `src/lib.rs`.
fn registered() -> Vec<(String, String)> {
    let lib = src("src/lib.rs");
    let start = lib
        .find("\nin_process! {\n")
        .expect("src/lib.rs invokes in_process! at the crate root");
    let body = &lib[start + "\nin_process! {\n".len()..];
    let body = &body[..body.find("\n}").expect("the list ends")];
    body.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .map(|l| {
            let (m, a) = l
                .trim_end_matches(',')
                .split_once(" => ")
                .unwrap_or_else(|| panic!("not `module => Adapter,`: {l:?}"));
            (m.to_string(), a.to_string())
        })
        .collect()
}

#[test]
fn the_guide_names_the_one_file_and_the_one_line() {
    let guide = src("ADDING.md");
    for says in [
        "impls/src/<name>.rs",
        "in_process!",
        "impls/src/lib.rs",
        "One line",
    ] {
        assert!(guide.contains(says), "ADDING.md does not say {says:?}");
    }
}

#[test]
fn each_adapter_is_its_file_and_its_line_and_nothing_else_names_it() {
    let list = registered();
    assert!(!list.is_empty());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (module, adapter) in &list {
        let own = src(&format!("src/{module}.rs"));
        assert!(
            own.contains(&format!("impl Implementation for {adapter}")),
            "src/{module}.rs does not implement Implementation for {adapter}"
        );
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if name == "lib.rs" || name == format!("{module}.rs") || path.is_dir() {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let mentions = text.split(|c: char| !c.is_alphanumeric() && c != '_');
            assert!(
                !mentions.into_iter().any(|w| w == adapter),
                "src/{name} names {adapter}: an adapter is registered by its line in in_process! only"
            );
        }
    }
}

#[test]
fn discover_builds_every_adapter_of_the_list() {
    let listed: Vec<String> = sframe_impls::in_process()
        .iter()
        .map(|i| i.name())
        .collect();
    assert_eq!(listed.len(), registered().len());
    let r = Registry::discover(&Options {
        objdump: false,
        ..Options::default()
    });
    let names: Vec<String> = r.available.iter().map(|i| i.name()).collect();
    for n in &listed {
        assert!(
            names.contains(n),
            "{n} is listed in in_process! but discover() lacks it: {names:?}"
        );
    }
}
