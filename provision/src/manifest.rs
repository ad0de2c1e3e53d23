//! The `manifest.json` a corpus builder writes beside what it built (`corpus/manifest.json`
//! from `ci/build-corpus`, `corpus/real/manifest.json` from `ci/build-realworld`): one entry
//! per file, naming the producer that wrote its SFrame. This is the one reader of it, and
//! [`Producer`] the one spelling of a producer: `gnu-as-2.44`, and for a linked file
//! `gnu-as-2.44+ld-2.44` (the linker wrote the section out of the assembler's).

use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// The file name of a manifest.
pub const MANIFEST: &str = "manifest.json";

/// One built file. The fields every builder writes are typed; the others (a project's
/// Debian version, a testsuite verdict, ...) are kept in [`Entry::extra`].
#[derive(Debug, Clone, Deserialize)]
pub struct Entry {
    /// Path relative to the manifest's directory.
    pub file: PathBuf,
    /// The assembler: `gnu-as`, `llvm`.
    pub producer: String,
    /// Its release as signatures name it: `2.44`, `23`.
    pub release: String,
    /// Its own `--version` line.
    #[serde(default)]
    pub producer_version: Option<String>,
    /// The linker's `--version` line, for linked files.
    #[serde(default)]
    pub linker_version: Option<String>,
    /// `amd64`, `aarch64`, `aarch64_be`, `s390x`.
    #[serde(default)]
    pub abi: Option<String>,
    /// `relocatable`, `shared`, `executable`.
    #[serde(default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub sframe_version: Option<u8>,
    #[serde(default)]
    pub sframe_flags: Option<u8>,
    #[serde(default)]
    pub sframe_abi_arch: Option<u8>,
    #[serde(default)]
    pub num_fdes: Option<u64>,
    #[serde(default)]
    pub num_fres: Option<u64>,
    /// The commands that built it.
    #[serde(default)]
    pub build: Vec<String>,
    /// Every other field.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl Entry {
    /// The producer of the file's SFrame section.
    pub fn producer(&self) -> Producer {
        Producer {
            assembler: self.producer.clone(),
            release: self.release.clone(),
            linker_release: self.linker_version.as_deref().map(release_of_version_line),
        }
    }

    /// A string field of [`Entry::extra`].
    pub fn extra_str(&self, key: &str) -> Option<&str> {
        self.extra.get(key)?.as_str()
    }
}

/// `GNU ld (GNU Binutils for Debian) 2.47.50.20261021` -> `2.47`.
fn release_of_version_line(line: &str) -> String {
    let full = line.split_whitespace().last().unwrap_or("?");
    full.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// Who wrote a file's SFrame: an assembler release, and the linker release that linked it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Producer {
    pub assembler: String,
    pub release: String,
    pub linker_release: Option<String>,
}

impl fmt::Display for Producer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.assembler, self.release)?;
        if let Some(ld) = &self.linker_release {
            write!(f, "+ld-{ld}")?;
        }
        Ok(())
    }
}

/// Why a manifest could not be read.
#[derive(Debug)]
pub enum ManifestError {
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    Json {
        path: PathBuf,
        error: serde_json::Error,
    },
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ManifestError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            ManifestError::Json { path, error } => {
                write!(f, "{}: not a manifest: {error}", path.display())
            }
        }
    }
}

impl std::error::Error for ManifestError {}

/// The entries of `dir/manifest.json`.
pub fn read(dir: &Path) -> Result<Vec<Entry>, ManifestError> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read_to_string(&path).map_err(|error| ManifestError::Io {
        path: path.clone(),
        error,
    })?;
    serde_json::from_str(&text).map_err(|error| ManifestError::Json { path, error })
}

/// The producer name signatures give `file` ([`Manifests::producer_for`]), for a single
/// look-up: a caller that names several files keeps one [`Manifests`].
pub fn producer_for(file: &Path) -> String {
    Manifests::default().producer_for(file)
}

/// The manifests met while looking files up, each read once: a file's entry is in the nearest
/// manifest above it that lists it.
#[derive(Default)]
pub struct Manifests {
    by_dir: BTreeMap<PathBuf, Option<BTreeMap<PathBuf, Entry>>>,
    unreadable: Vec<ManifestError>,
}

impl Manifests {
    /// The entry of `file` (any path to it), if a manifest above it lists it.
    pub fn entry(&mut self, file: &Path) -> Option<&Entry> {
        let file = std::fs::canonicalize(file).ok()?;
        let dir = file.ancestors().skip(1).find(|d| {
            let rel = file.strip_prefix(d).ok();
            let listed = self.by_dir.entry(d.to_path_buf()).or_insert_with(|| {
                if !d.join(MANIFEST).is_file() {
                    return None;
                }
                match read(d) {
                    Ok(v) => Some(v.into_iter().map(|e| (e.file.clone(), e)).collect()),
                    Err(e) => {
                        self.unreadable.push(e);
                        None
                    }
                }
            });
            matches!((listed, rel), (Some(m), Some(rel)) if m.contains_key(rel))
        })?;
        let rel = file.strip_prefix(dir).ok()?;
        self.by_dir.get(dir)?.as_ref()?.get(rel)
    }

    /// The producer of `file`'s SFrame, if a manifest above it lists it.
    pub fn producer(&mut self, file: &Path) -> Option<Producer> {
        self.entry(file).map(Entry::producer)
    }

    /// The producer name signatures give `file`: its manifest's [`Producer`], else the
    /// file's stem (a file no manifest lists names itself).
    pub fn producer_for(&mut self, file: &Path) -> String {
        self.producer(file).map_or_else(
            || {
                file.file_stem()
                    .map_or_else(|| "unknown".into(), |s| s.to_string_lossy().into_owned())
            },
            |p| p.to_string(),
        )
    }

    /// The manifests met that could not be read.
    pub fn unreadable(&self) -> &[ManifestError] {
        &self.unreadable
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(json: &str) -> Entry {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_linked_file_names_its_assembler_and_linker_release() {
        let e = entry(
            r#"{"file": "a/lib.so", "producer": "gnu-as", "release": "2.47",
                "linker_version": "GNU ld (GNU Binutils for Debian) 2.47.50.20261021",
                "project": "zlib"}"#,
        );
        assert_eq!(e.producer().to_string(), "gnu-as-2.47+ld-2.47");
        assert_eq!(e.extra_str("project"), Some("zlib"));
        let o = entry(
            r#"{"file": "a.o", "producer": "llvm", "release": "23", "linker_version": null}"#,
        );
        assert_eq!(o.producer().to_string(), "llvm-23");
    }

    #[test]
    fn the_nearest_manifest_that_lists_a_file_names_it() {
        let root = std::env::temp_dir().join(format!("provision-manifest-{}", std::process::id()));
        let inner = root.join("x/y");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::write(inner.join("f.o"), b"").unwrap();
        std::fs::write(inner.join("g.o"), b"").unwrap();
        std::fs::write(
            root.join(MANIFEST),
            r#"[{"file": "x/y/f.o", "producer": "gnu-as", "release": "2.40"}]"#,
        )
        .unwrap();
        // A nearer manifest that does not list f.o, and one that is broken.
        std::fs::write(
            root.join("x").join(MANIFEST),
            r#"[{"file": "y/g.o", "producer": "gnu-as", "release": "2.44"}]"#,
        )
        .unwrap();
        std::fs::write(inner.join(MANIFEST), b"{").unwrap();
        let mut m = Manifests::default();
        assert_eq!(
            m.producer(&inner.join("f.o")).unwrap().to_string(),
            "gnu-as-2.40"
        );
        assert_eq!(
            m.producer(&inner.join("g.o")).unwrap().to_string(),
            "gnu-as-2.44"
        );
        assert!(m.producer(&root.join("none.o")).is_none());
        // Signatures name a listed file by its producer, any other by its stem.
        assert_eq!(m.producer_for(&inner.join("f.o")), "gnu-as-2.40");
        assert_eq!(m.producer_for(&root.join("none.o")), "none");
        assert_eq!(m.unreadable().len(), 1);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
