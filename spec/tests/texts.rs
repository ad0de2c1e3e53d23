//! Every quote of the rule catalogue (`Rule::info().basis`) and of the discrepancy list is
//! really in the text it cites, as Debian ships it:
//!
//! - `<suite>/sframe-spec.info`: the SFrame manual of Debian's `binutils-doc` in that suite
//!   (bookworm: version 1, binutils 2.40; trixie: version 2, 2.44; sid: version 3),
//!   which `ci/toolchains` fetches and decompresses to `$CACHE/spec/<suite>/sframe-spec.info`;
//! - `sframe.h@<release>`: the header of that binutils release (`binutils-dev`, `libsframe1`,
//!   `libsframe-dev`), which `ci/toolchains` copies to `$CACHE/include/<release>/sframe.h`.
//!
//! `$CACHE` is `$SFRAME_CONFORM_CACHE`, by default `$HOME/.cache/sframe-conform`. A missing
//! text fails the test (it is never skipped). Nothing outside the repository and that cache
//! is read.
//!
//! Both sides are compared after the same normalisation: whitespace runs (info hard-wraps its
//! lines and pads table columns) become one space; quotation marks (`'x'` in the 2.40 manual,
//! `‘x’` in later ones, none in the catalogue) are dropped; in headers, the `*` that starts a
//! comment line is dropped. A quote may be several pieces separated by `...`; every piece
//! must be there whole, and the pieces in the order quoted.

mod common;
use sframe_spec::discrepancies::DISCREPANCIES;
use sframe_spec::rules::Basis;
use sframe_spec::Rule;
use std::collections::HashMap;
use std::path::PathBuf;

/// Citations of texts no Debian suite ships (so they cannot be checked): (discrepancy ID,
/// cited file). Each is explained in the discrepancy list; the test fails if this list and the
/// catalogue disagree, so no other citation can slip out of the check.
const NOT_IN_DEBIAN: &[(&str, &str)] = &[
    ("D-V1-ADDR-LIMIT-MACROS", "sframe-v1.h (2022)"),
    ("D-V1-PAUTH-BIT", "sframe-spec.texi (v1, 2022)"),
    ("D-V2-CURRENT-VERSION", "sframe-spec.info (v2, 2024)"),
];

/// Where a cited file is provisioned, or None for a text Debian does not ship.
fn path_of(file: &str) -> Option<PathBuf> {
    if let Some(suite) = file.strip_suffix("/sframe-spec.info") {
        return Some(
            common::cache()
                .join("spec")
                .join(suite)
                .join("sframe-spec.info"),
        );
    }
    if let Some(release) = file.strip_prefix("sframe.h@") {
        return Some(
            common::cache()
                .join("include")
                .join(release)
                .join("sframe.h"),
        );
    }
    None
}

fn normalise(s: &str, header: bool) -> String {
    let s: String = s
        .chars()
        .filter(|c| !matches!(c, '‘' | '’' | '\''))
        .map(|c| match c {
            '\u{1f}' => ' ',      // info node separator
            '*' if header => ' ', // comment decoration (and, harmlessly, multiplication)
            c => c,
        })
        .collect();
    // Info renders @emph{...} as _..._: drop an underscore at either end of a word
    // (identifiers such as sfh_fre_len keep theirs).
    let c: Vec<char> = s.chars().collect();
    let word = |i: Option<&char>| i.is_some_and(|c| c.is_alphanumeric());
    let s: String = (0..c.len())
        .filter(|&i| c[i] != '_' || (i > 0 && word(c.get(i - 1)) && word(c.get(i + 1))))
        .map(|i| c[i])
        .collect();
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every quote: (who cites it, file, quote).
fn citations() -> Vec<(String, &'static str, &'static str)> {
    let mut out = Vec::new();
    for r in Rule::ALL {
        match r.info().basis {
            Basis::Spec { file, quote, .. } | Basis::Header { file, quote, .. } => {
                out.push((r.id().to_string(), file, quote))
            }
            Basis::Inferred { .. } => {}
        }
    }
    for d in DISCREPANCIES {
        for c in d.citations {
            out.push((d.id.to_string(), c.file, c.quote));
        }
    }
    out
}

/// The normalised text of a provisioned file; panics with one line naming ci/toolchains.
fn text(file: &str, path: &PathBuf, cache: &mut HashMap<PathBuf, String>) -> String {
    cache
        .entry(path.clone())
        .or_insert_with(|| {
            let raw = std::fs::read_to_string(path).unwrap_or_else(|e| {
                panic!(
                    "{file}: cannot read {} ({e}): run ci/toolchains to provision the SFrame texts from Debian",
                    path.display()
                )
            });
            normalise(&raw, file.starts_with("sframe.h@"))
        })
        .clone()
}

/// The pieces of a quote that are not in `text` in order.
fn missing_pieces(text: &str, quote: &str, header: bool) -> Vec<String> {
    let mut missing = Vec::new();
    let mut from = 0;
    for piece in quote.split("...").map(str::trim).filter(|p| !p.is_empty()) {
        let piece = normalise(piece, header);
        match text[from..].find(&piece) {
            Some(i) => from += i + piece.len(),
            None => missing.push(piece),
        }
    }
    missing
}

#[test]
fn every_quote_is_in_the_debian_text_it_cites() {
    let mut texts = HashMap::new();
    let mut failures = Vec::new();
    let mut exceptions = Vec::new();
    let mut checked = 0;
    for (who, file, quote) in citations() {
        let Some(path) = path_of(file) else {
            exceptions.push((who, file));
            continue;
        };
        let t = text(file, &path, &mut texts);
        checked += 1;
        for piece in missing_pieces(&t, quote, file.starts_with("sframe.h@")) {
            failures.push(format!(
                "{who}: not in {file} ({}): {piece:?}",
                path.display()
            ));
        }
    }
    exceptions.sort();
    exceptions.dedup();
    for (who, file) in &exceptions {
        println!("not checked: {who} cites {file}, which no Debian suite ships");
    }
    let expected: Vec<(String, &str)> = NOT_IN_DEBIAN
        .iter()
        .map(|(w, f)| (w.to_string(), *f))
        .collect();
    assert_eq!(
        exceptions, expected,
        "citations of texts that are not provisioned (from Debian by ci/toolchains) must be the documented exceptions"
    );
    println!("{checked} quotes checked");
    assert!(checked > 80, "only {checked} quotes checked");
    assert!(
        failures.is_empty(),
        "{} quote pieces not found:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_provisioned_manuals_are_the_versions_the_catalogue_cites() {
    // The citations name suites, not versions: check that each suite's manual describes the
    // version the catalogue takes it for (sid moves; a new version there must be noticed).
    let mut texts = HashMap::new();
    for (suite, version) in [("bookworm", 1), ("trixie", 2), ("sid", 3)] {
        let file = format!("{suite}/sframe-spec.info");
        let t = text(&file, &path_of(&file).unwrap(), &mut texts);
        let want = format!("This manual describes version {version} of the SFrame file format.");
        assert!(
            t.to_lowercase().contains(&want.to_lowercase()),
            "{file} does not say {want:?}"
        );
    }
}

#[test]
fn the_check_can_fail() {
    // Normalisation keeps words: a changed word, a dropped word, or pieces out of order are
    // all reported.
    let t = normalise(
        "The magic number for SFrame section: 0xdee2.\n     Defined as a macro\n   ‘SFRAME_MAGIC’.",
        false,
    );
    assert!(missing_pieces(
        &t,
        "The magic number for SFrame section: 0xdee2. Defined as a macro SFRAME_MAGIC.",
        false
    )
    .is_empty());
    assert_eq!(
        missing_pieces(&t, "The magic number for SFrame sections: 0xdee2.", false).len(),
        1
    );
    assert_eq!(
        missing_pieces(&t, "The magic number for section: 0xdee2.", false).len(),
        1
    );
    assert_eq!(
        missing_pieces(&t, "Defined as a macro ... The magic number", false).len(),
        1
    );
    // Emphasis underscores go; identifiers keep theirs.
    let t = normalise(
        "relative to the _end of the SFrame FDE_ sub-section ‘sfh_fre_len’",
        false,
    );
    assert_eq!(
        t,
        "relative to the end of the SFrame FDE sub-section sfh_fre_len"
    );
    assert_eq!(missing_pieces(&t, "sfhfrelen", false).len(), 1);
    assert_eq!(path_of("sframe-v1.h (2022)"), None);
}
