//! Reading the files given on the command line into SFrame sections.

use crate::diff::Case;
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

/// Expand the command line's paths: files stay as given; directories are walked (sorted,
/// recursively) for files that start with the ELF or SFrame magic.
pub fn expand_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, InputError> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            walk(p, &mut out)?;
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), InputError> {
    let err = |e: std::io::Error| InputError {
        path: dir.to_path_buf(),
        message: e.to_string(),
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(err)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out)?;
        } else if looks_like_input(&p) {
            out.push(p);
        }
    }
    Ok(())
}

fn looks_like_input(p: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4];
    let Ok(mut f) = std::fs::File::open(p) else {
        return false;
    };
    let Ok(n) = f.read(&mut head) else {
        return false;
    };
    let head = &head[..n];
    head.starts_with(b"\x7fELF") || sframe_spec::Endian::from_magic(head).is_some()
}

/// The repository's corpus directory (`corpus/` beside this crate).
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus")
}

/// Read the sections of `paths` (files and directories) as cases.
pub fn read_cases(paths: &[PathBuf]) -> Result<Vec<Case>, String> {
    let mut out = Vec::new();
    for p in expand_paths(paths).map_err(|e| e.to_string())? {
        let input = read_input(&p).map_err(|e| e.to_string())?;
        out.push(Case {
            name: p.display().to_string(),
            data: input.loaded.bytes,
        });
    }
    Ok(out)
}

/// Sections of the corpus that load (files that do not are skipped: the corpus may hold
/// other things, and `check` is the tool that complains about them).
pub fn corpus_cases(dir: &Path) -> Vec<Case> {
    let Ok(paths) = expand_paths(&[dir.to_path_buf()]) else {
        return Vec::new();
    };
    paths
        .into_iter()
        .filter(|p| !p.components().any(|c| c.as_os_str() == "findings"))
        .filter_map(|p| {
            read_input(&p).ok().map(|i| Case {
                name: p.display().to_string(),
                data: i.loaded.bytes,
            })
        })
        .collect()
}
