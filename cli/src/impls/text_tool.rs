//! What the text adapters ([`super::objdump`], [`super::llvm_readobj`]) share: the section's
//! bytes wrapped in a minimal ELF executable (one allocated `.sframe` section at address 0,
//! the machine and byte order of the section), written to a temporary file, and one run of
//! `TOOL --sframe FILE` under a time limit, whose signal is a crash and whose deadline a hang.

use super::{Decoded, Outcome};
use sframe_spec::read::header_offsets;
use sframe_spec::{Abi, Endian};
use std::io::Read;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// ELF machine numbers.
pub const EM_S390: u16 = 22;
pub const EM_X86_64: u16 = 62;
pub const EM_AARCH64: u16 = 183;

/// What a text adapter needs to know of a section before wrapping it: its byte order (from
/// the magic), its version and ABI bytes as stored (`None` past the end or unknown).
#[derive(Debug, Clone, Copy)]
pub struct Preamble {
    pub endian: Endian,
    pub version: Option<u8>,
    pub abi: Option<Abi>,
}

impl Preamble {
    /// The preamble of `data`, or the outcome of a section with no magic: nothing to wrap.
    pub fn of(data: &[u8]) -> Result<Preamble, Outcome<Decoded>> {
        let Some(endian) = Endian::from_magic(data) else {
            return Err(Outcome::unsupported(
                "not an SFrame section (no magic): nothing to wrap in ELF",
            ));
        };
        Ok(Preamble {
            endian,
            version: data.get(header_offsets::VERSION).copied(),
            abi: data
                .get(header_offsets::ABI_ARCH)
                .copied()
                .and_then(Abi::from_u8),
        })
    }
}

/// A minimal ELF64 executable holding `data` as its `.sframe` section at address 0.
pub fn wrap_elf(data: &[u8], machine: u16, endian: Endian) -> Vec<u8> {
    let shstr: &[u8] = b"\0.sframe\0.shstrtab\0";
    let off_data = 64usize;
    let off_shstr = off_data + data.len();
    let off_sh = (off_shstr + shstr.len() + 7) & !7;
    let mut out = Vec::with_capacity(off_sh + 3 * 64);
    let put = |out: &mut Vec<u8>, v: u64, n: usize| endian.put(out, v, n);
    out.extend_from_slice(b"\x7fELF");
    out.push(2); // ELFCLASS64
    out.push(if endian == Endian::Little { 1 } else { 2 });
    out.push(1); // EV_CURRENT
    out.extend_from_slice(&[0; 9]);
    put(&mut out, 2, 2); // ET_EXEC
    put(&mut out, u64::from(machine), 2);
    put(&mut out, 1, 4); // e_version
    put(&mut out, 0, 8); // e_entry
    put(&mut out, 0, 8); // e_phoff
    put(&mut out, off_sh as u64, 8); // e_shoff
    put(&mut out, 0, 4); // e_flags
    put(&mut out, 64, 2); // e_ehsize
    put(&mut out, 0, 2); // e_phentsize
    put(&mut out, 0, 2); // e_phnum
    put(&mut out, 64, 2); // e_shentsize
    put(&mut out, 3, 2); // e_shnum
    put(&mut out, 2, 2); // e_shstrndx
    out.extend_from_slice(data);
    out.extend_from_slice(shstr);
    out.resize(off_sh, 0);
    out.extend_from_slice(&[0; 64]); // SHN_UNDEF
                                     // .sframe: SHT_PROGBITS, SHF_ALLOC, address 0.
    for (name, ty, flags, off, size, align) in [
        (1u64, 1u64, 2u64, off_data, data.len(), 8u64),
        (9, 3, 0, off_shstr, shstr.len(), 1),
    ] {
        put(&mut out, name, 4);
        put(&mut out, ty, 4);
        put(&mut out, flags, 8);
        put(&mut out, 0, 8); // sh_addr
        put(&mut out, off as u64, 8);
        put(&mut out, size as u64, 8);
        put(&mut out, 0, 4); // sh_link
        put(&mut out, 0, 4); // sh_info
        put(&mut out, align, 8);
        put(&mut out, 0, 8); // sh_entsize
    }
    out
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Write `elf` to a temporary file, run `TOOL --sframe` on it (see [`run_sframe_dump`]) and
/// remove the file.
pub fn run_on_elf(
    tool: &Path,
    elf: &[u8],
    timeout: Duration,
) -> Result<(ExitStatus, String, String), Outcome<Decoded>> {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("sframe-conform-{}-{n}.elf", std::process::id()));
    if let Err(e) = std::fs::write(&path, elf) {
        return Err(Outcome::unsupported(format!(
            "cannot write {}: {e}",
            path.display()
        )));
    }
    let r = run_sframe_dump(tool, &path, timeout);
    let _ = std::fs::remove_file(&path);
    r
}

/// Run `TOOL --sframe PATH` (objdump, llvm-readobj) within `timeout`: its exit status, stdout
/// and stderr; a signal is a crash, the deadline a hang.
pub fn run_sframe_dump(
    tool: &Path,
    path: &Path,
    timeout: Duration,
) -> Result<(ExitStatus, String, String), Outcome<Decoded>> {
    let mut child = Command::new(tool)
        .arg("--sframe")
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Outcome::unsupported(format!("cannot run {}: {e}", tool.display())))?;
    let mut out = child
        .stdout
        .take()
        .ok_or_else(|| Outcome::unsupported("no stdout"))?;
    let mut err = child
        .stderr
        .take()
        .ok_or_else(|| Outcome::unsupported("no stderr"))?;
    let t_out = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break s,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(1)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Outcome::Hung {
                    timeout_ms: timeout.as_millis() as u64,
                });
            }
            Err(e) => return Err(Outcome::unsupported(format!("wait failed: {e}"))),
        }
    };
    let stdout = String::from_utf8_lossy(&t_out.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&t_err.join().unwrap_or_default()).into_owned();
    use std::os::unix::process::ExitStatusExt;
    if let Some(sig) = status.signal() {
        return Err(Outcome::Crashed {
            signal: super::process::signal_name(sig),
            detail: Some(stderr),
        });
    }
    Ok((status, stdout, stderr))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wrapper_is_an_elf_file_sframe_elf_reads_back() {
        let data = [0xe2u8, 0xde, 2, 0, 3, 0, 0xf8, 0];
        let elf = wrap_elf(&data, EM_X86_64, Endian::Little);
        let l = sframe_elf::load(&elf).unwrap();
        assert_eq!(l.bytes, data);
        assert_eq!(l.vaddr, 0);
    }
}
