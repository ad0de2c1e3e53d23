//! Running a producer on a `.s` file: GNU as (`<triple>-as-<release> --gsframe`) or LLVM's
//! assembler (`llvm-mc-<major> -filetype=obj --gsframe`).

use crate::gen::Arch;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Which assembler a producer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Assembler {
    GnuAs,
    LlvmMc,
}

/// One producer: an assembler release for one target.
#[derive(Debug, Clone)]
pub struct Producer {
    /// The name signatures give it: `gnu-as-2.40`, `llvm-mc-23`.
    pub name: String,
    pub assembler: Assembler,
    pub arch: Arch,
    pub path: PathBuf,
}

pub use sframe_provision::bin_dir;

/// The provisioned tools named `<prefix><release>` (release starting with a digit).
fn releases(prefix: &str) -> Vec<(String, PathBuf)> {
    let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(bin_dir())
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().into_string().ok()?;
            let rel = n.strip_prefix(prefix)?;
            rel.starts_with(|c: char| c.is_ascii_digit())
                .then(|| (rel.to_string(), e.path()))
        })
        .collect();
    v.sort();
    v
}

/// Every provisioned assembler for `arch` (GNU as releases oldest first, then LLVM's), whether
/// or not it writes SFrame for `arch` ([`Producer::writes_sframe`]).
pub fn producers(arch: Arch) -> Vec<Producer> {
    let of = |prefix: String, name: &'static str, assembler: Assembler| {
        releases(&prefix)
            .into_iter()
            .map(move |(rel, path)| Producer {
                name: format!("{name}-{rel}"),
                assembler,
                arch,
                path,
            })
    };
    of(
        format!("{}-as-", arch.gnu_triple()),
        "gnu-as",
        Assembler::GnuAs,
    )
    .chain(of("llvm-mc-".into(), "llvm-mc", Assembler::LlvmMc))
    .collect()
}

/// What an assembler run gave.
#[derive(Debug, Clone)]
pub struct Assembled {
    /// The object, when the assembler succeeded.
    pub object: Option<Vec<u8>>,
    pub stderr: String,
}

impl Producer {
    /// The producer's `--version` line that names its release.
    pub fn version(&self) -> String {
        let out = Command::new(&self.path)
            .arg("--version")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .unwrap_or_default();
        let pick = match self.assembler {
            Assembler::GnuAs => out.lines().next(),
            Assembler::LlvmMc => out.lines().find(|l| l.contains("LLVM version")),
        };
        pick.map(|l| l.trim().to_string()).unwrap_or_default()
    }

    /// Whether the producer writes an SFrame section for its target at all: an empty
    /// function is assembled, and the answer is whether the object has `.sframe` (GNU as
    /// 2.40 and 2.44 refuse `--gsframe` for s390x: ".sframe not supported for target").
    pub fn writes_sframe(&self, work: &Path) -> bool {
        let probe = "\t.text\nf:\n\t.cfi_startproc\n\t.cfi_endproc\n";
        self.assemble(probe, work)
            .ok()
            .and_then(|a| a.object)
            .is_some_and(|o| sframe_elf::load(&o).is_ok())
    }

    /// Assemble `asm` with SFrame generation on, in `work` (a scratch directory).
    pub fn assemble(&self, asm: &str, work: &Path) -> std::io::Result<Assembled> {
        std::fs::create_dir_all(work)?;
        let s = work.join("in.s");
        let o = work.join("out.o");
        std::fs::write(&s, asm)?;
        let _ = std::fs::remove_file(&o);
        let mut cmd = Command::new(&self.path);
        match self.assembler {
            Assembler::GnuAs => {
                cmd.arg("--gsframe");
                if self.arch == Arch::Aarch64Be {
                    cmd.arg("-EB");
                }
            }
            Assembler::LlvmMc => {
                cmd.arg("-filetype=obj")
                    .arg(format!("-triple={}", self.arch.llvm_triple()))
                    .arg("--gsframe");
            }
        }
        let out = cmd.arg("-o").arg(&o).arg(&s).output()?;
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let object = if out.status.success() {
            Some(std::fs::read(&o)?)
        } else {
            None
        };
        Ok(Assembled { object, stderr })
    }
}
