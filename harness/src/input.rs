//! Reading one file into an SFrame section, and the sections of files and directories as
//! cases (walked by [`crate::walk`]).

use crate::diff::Case;
use crate::walk::{Outcome, Walk};
use sframe_elf::{load, Loaded};
use std::path::{Path, PathBuf};

/// A section read from a file.
#[derive(Debug, Clone)]
pub struct InputSection {
    pub path: PathBuf,
    pub loaded: Loaded,
}

/// A file that could not be read as a section: a usage-level error (exit status 2).
#[derive(Debug)]
pub struct InputError {
    pub path: PathBuf,
    pub message: String,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// Read `path` as an ELF file with a `.sframe` section, or as a raw section.
pub fn read_input(path: &Path) -> Result<InputSection, InputError> {
    let err = |message: String| InputError {
        path: path.to_path_buf(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|e| err(e.to_string()))?;
    let loaded = load(&bytes).map_err(|e| err(e.to_string()))?;
    Ok(InputSection {
        path: path.to_path_buf(),
        loaded,
    })
}

impl InputSection {
    /// A short description of where the section comes from.
    pub fn origin(&self) -> String {
        match &self.loaded.elf {
            Some(e) => format!(
                "{} {:?} ({}-endian){}",
                e.machine.name(),
                e.kind,
                e.endian.name(),
                match (e.relocations_applied, e.start_fields_rebased) {
                    (0, _) => String::new(),
                    (n, false) => format!(", {n} relocations applied"),
                    (n, true) => format!(
                        ", {n} relocations applied, PC-relative ones against the section start"
                    ),
                }
            ),
            None => "raw section".to_string(),
        }
    }
}

/// The repository's corpus directory (`corpus/` beside this crate).
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

/// Read the sections of `paths` (files and directories, walked by [`Walk`]) as cases:
/// files found by walking that hold no SFrame are left out; a named file without SFrame or
/// any file that cannot be read is an error.
pub fn read_cases(paths: &[PathBuf]) -> Result<Vec<Case>, String> {
    let mut out = Vec::new();
    for e in Walk::new(paths) {
        match e.outcome {
            Outcome::Section { loaded, .. } => out.push(Case {
                name: e.path.display().to_string(),
                data: loaded.bytes,
            }),
            Outcome::NoSframe(why) if e.named => {
                return Err(format!("{}: {why}", e.path.display()))
            }
            Outcome::Unreadable(why) => return Err(format!("{}: {why}", e.path.display())),
            Outcome::NoSframe(_) | Outcome::Skipped(_) => {}
        }
    }
    Ok(out)
}

/// Sections of the corpus that load (files that do not are skipped: the corpus may hold
/// other things, and `check` is the tool that complains about them).
pub fn corpus_cases(dir: &Path) -> Vec<Case> {
    Walk::new(&[dir.to_path_buf()])
        .filter(|e| !e.path.components().any(|c| c.as_os_str() == "findings"))
        .filter_map(|e| match e.outcome {
            Outcome::Section { loaded, .. } => Some(Case {
                name: e.path.display().to_string(),
                data: loaded.bytes,
            }),
            _ => None,
        })
        .collect()
}
