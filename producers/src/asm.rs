//! Running a producer on a `.s` file: GNU as (`<triple>-as-<release> --gsframe`) or LLVM's
//! assembler (`llvm-mc-<major> -filetype=obj --gsframe`), under the suite's deadline and retry
//! policy ([`sframe_run`]): an assembler that hangs or dies on a signal is said so, never
//! waited for without end.

use crate::gen::Arch;
use sframe_run::{run, Failure, Policy};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The time limit of an assembler run (a few functions: milliseconds); the retry policy
/// gives a run that misses it a second, longer try.
const ASSEMBLER_TIMEOUT: Duration = Duration::from_secs(30);

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

impl Producer {
    /// The producer as signatures name it.
    pub fn signature_name(&self) -> sframe_findings::signature::Producer {
        sframe_findings::signature::Producer::named(&self.name)
    }
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
        let out = run(
            Command::new(&self.path).arg("--version"),
            Policy::new(ASSEMBLER_TIMEOUT),
        )
        .ok()
        .and_then(Result::ok)
        .map(|r| r.stdout_text())
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
        cmd.arg("-o").arg(&o).arg(&s);
        match run(&mut cmd, Policy::new(ASSEMBLER_TIMEOUT))? {
            Ok(ran) => {
                let object = if ran.status.is_some_and(|s| s.success()) {
                    Some(std::fs::read(&o)?)
                } else {
                    None
                };
                Ok(Assembled {
                    object,
                    stderr: ran.stderr_text(),
                })
            }
            Err(Failure::Crashed { signal, detail, .. }) => Ok(Assembled {
                object: None,
                stderr: format!(
                    "{}(the assembler died: {signal})",
                    detail.unwrap_or_default()
                ),
            }),
            Err(Failure::Hung { timeout_ms }) => Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("{} did not finish in {timeout_ms} ms", self.path.display()),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in assembler (not an assembler: this tests how a death is reported) that
    /// kills itself with SIGSEGV after a word on stderr.
    #[test]
    fn an_assembler_that_dies_on_a_signal_is_said_so_in_its_stderr() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("sframe-dying-as-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("as");
        std::fs::write(&path, "#!/bin/sh\necho 'about to die' >&2\nkill -SEGV $$\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let p = Producer {
            name: "stand-in".into(),
            assembler: Assembler::GnuAs,
            arch: Arch::X86_64,
            path,
        };
        let a = p.assemble("\t.text\n", &dir.join("work")).unwrap();
        assert!(a.object.is_none());
        assert!(a.stderr.contains("about to die"), "{}", a.stderr);
        assert!(
            a.stderr.ends_with("(the assembler died: SIGSEGV)"),
            "{}",
            a.stderr
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
