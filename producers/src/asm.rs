//! Running a producer: an assembler (`<triple>-as-<release> --gsframe`) on a `.s` file.

use crate::gen::Arch;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One producer: a GNU as release for one target.
#[derive(Debug, Clone)]
pub struct Producer {
    /// The name signatures give it: `gnu-as-2.40`.
    pub name: String,
    pub arch: Arch,
    pub path: PathBuf,
}

/// The directory of the provisioned tool wrappers.
pub fn bin_dir() -> PathBuf {
    if let Ok(d) = std::env::var("SFRAME_CACHE") {
        return Path::new(&d).join("bin");
    }
    let home = std::env::var("HOME").unwrap_or_default();
    Path::new(&home).join(".cache/sframe-conform/bin")
}

/// The GNU as releases provisioned for `arch` (`<triple>-as-<release>`), oldest first.
pub fn producers(arch: Arch) -> Vec<Producer> {
    let dir = bin_dir();
    let prefix = format!("{}-as-", arch.triple());
    let mut v: Vec<Producer> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().into_string().ok()?;
            let rel = n.strip_prefix(&prefix)?;
            rel.starts_with(|c: char| c.is_ascii_digit())
                .then(|| Producer {
                    name: format!("gnu-as-{rel}"),
                    arch,
                    path: e.path(),
                })
        })
        .collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

/// What an assembler run gave.
#[derive(Debug, Clone)]
pub struct Assembled {
    /// The object, when the assembler succeeded.
    pub object: Option<Vec<u8>>,
    pub stderr: String,
}

impl Producer {
    /// The producer's `--version` first line.
    pub fn version(&self) -> String {
        Command::new(&self.path)
            .arg("--version")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.lines().next().map(str::to_string))
            .unwrap_or_default()
    }

    /// Assemble `asm` with `--gsframe` in `work` (a scratch directory).
    pub fn assemble(&self, asm: &str, work: &Path) -> std::io::Result<Assembled> {
        std::fs::create_dir_all(work)?;
        let s = work.join("in.s");
        let o = work.join("out.o");
        std::fs::write(&s, asm)?;
        let _ = std::fs::remove_file(&o);
        let out = Command::new(&self.path)
            .arg("--gsframe")
            .arg("-o")
            .arg(&o)
            .arg(&s)
            .output()?;
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let object = if out.status.success() {
            Some(std::fs::read(&o)?)
        } else {
            None
        };
        Ok(Assembled { object, stderr })
    }
}
