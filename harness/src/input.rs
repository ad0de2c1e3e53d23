//! Reading one file into an SFrame section, the sections of files and directories as
//! cases (walked by [`crate::walk`]), and the bundled sections a run without files of its
//! own starts from ([`Bundled`]).

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

/// The bundled sections a run without files of its own starts from: the corpus's ELF files
/// (`corpus/elf`), the built-in seeds, and mutations of them all.
#[derive(Debug, Clone)]
pub struct Bundled {
    /// The corpus's sections, then the built-in seeds (from [`Bundled::seeds_from`]).
    pub held: Vec<Case>,
    /// Where the seeds start in `held`.
    pub seeds_from: usize,
    /// The mutations of `held`.
    pub mutations: Vec<Case>,
}

impl Bundled {
    /// The corpus, the seeds and `mutations` mutations of them (seed `seed`).
    pub fn load(mutations: usize, seed: u64) -> Bundled {
        let mut held = corpus_cases(&corpus_dir().join("elf"));
        let seeds_from = held.len();
        held.extend(crate::diff::seeds::builtin());
        let mutations = crate::diff::mutate::generate(&held, mutations, seed);
        Bundled {
            held,
            seeds_from,
            mutations,
        }
    }

    /// The corpus's sections.
    pub fn corpus(&self) -> &[Case] {
        &self.held[..self.seeds_from]
    }

    /// The built-in seeds.
    pub fn seeds(&self) -> &[Case] {
        &self.held[self.seeds_from..]
    }

    /// Every section: the corpus's, the seeds, the mutations.
    pub fn all(&self) -> impl Iterator<Item = &Case> {
        self.held.iter().chain(&self.mutations)
    }
}
