//! `llvm-readobj --sframe` of the optional LLVM tier, compared at the level of what it prints.
//!
//! Like the objdump adapter ([`crate::objdump`]): the section's bytes are wrapped in a minimal
//! ELF executable (one allocated `.sframe` section at address 0, machine and byte order from
//! the section's ABI and magic: [`crate::text_tool::wrap_elf`]), `llvm-readobj --sframe` is run
//! on it, and its listing is parsed back into the row model. At address 0 a printed `PC` is
//! the function's start relative to the section (LLVM's `getAbsoluteStartAddress`: section
//! address + field, + the field's own offset under `SFRAME_F_FDE_FUNC_START_PCREL`).
//!
//! The tool is provisioned by `ci/toolchains --llvm` (an entry `llvm-readobj-<N>` of
//! `toolchains.json`); without it the implementation is listed as unavailable. Its
//! `SFrameParser` reads SFrame version 2 only (`invalid/unsupported version number` for the
//! others), so v1 and v3 are unsupported here, never counted as agreement.
//!
//! What the listing says (LLVM 23, `ScopedPrinter` style, one `key: value` per line):
//!
//! ```text
//! SFrame section '.sframe' {
//!   Header {
//!     Version: V2 (0x2)            Flags [ (0x5) ... ]        ABI: AMD64EndianLittle (0x3)
//!     CFA fixed FP offset (unused): 0                          CFA fixed RA offset: -8
//!     Num FDEs: 9                  Num FREs: 34  ...
//!   }
//!   Function Index [
//!     FuncDescEntry [0] {
//!       PC: 0x1000                 (a relocatable input: `PC { ... Start Address: 0x0 }`)
//!       Size: 0x8   Start FRE Offset: 0x0   Num FREs: 1
//!       Info { FRE Type: Addr1 (0x0)  FDE Type: PCInc (0x0)  [PAuth Key: A (0x0)]  Raw: 0x0 }
//!       Repetitive block size (unused): 0x0
//!       FREs [
//!         Frame Row Entry {
//!           Start Address: 0x1000    (PC-increment: function start + FRE start; PC-mask: the FRE start)
//!           Return Address Signed: No
//!           Offset Size: B1 (0x0)
//!           Base Register: SP (0x1)
//!           CFA Offset: 8            (each offset line only when LLVM finds the offset)
//!           RA Offset: -8
//!           FP Offset: -16
//!           Extra Offsets: [...]     (more data words than the ABI uses)
//! ```
//!
//! The printed numbers become rules with the format's documented semantics, the same for
//! every foreign implementation ([`sframe_harness::impls::norm`]): CFA = base register (`fre_cfa_base_reg_id`,
//! 0 FP, 1 SP) + `CFA Offset` as printed; `RA Offset`/`FP Offset` = the slot at CFA + offset
//! (on s390x: RA 0 unchanged, a v2 odd offset a register), absent = not saved (unchanged). A
//! row without a `CFA Offset` line says nothing about the CFA (not compared). The tool's own
//! choices stay visible: it takes the AMD64 RA offset from the header and every other ABI's
//! from the FRE, ignores the fixed FP offset ("unused"), and prints the s390x CFA word as is.
//!
//! Problems are reported on stderr as `warning: '<file>': <message>` while the listing goes
//! on with what could be read (`invalid sframe section: ...` for the preamble and header,
//! `unexpected end of data ...` for the auxiliary header, the FDE array or an FRE,
//! `unsupported FRE type/offset size ...`). A warning is the tool noticing that the section
//! cannot be read: the answer is a rejection, of the class of the first warning (its message
//! up to the first number: `unexpected end of data`, `invalid magic number`, ...). What it
//! reads without a warning is what it accepts.
//!
//! llvm-readobj does not look PCs up: [`Implementation::find_fre`] is unsupported.

use crate::text_tool::{
    readobj_many, run_on_elf, wrap_elf, Preamble, Printed, EM_AARCH64, EM_S390, EM_X86_64,
};
use crate::toolchains::{cache_dir, tool_entries};
use sframe_harness::impls::{
    norm, Decoded, Found, FreFacts, FunctionFacts, Hosting, Implementation, Outcome, Row,
};
use sframe_spec::{Abi, Endian, Stored, Version};
use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

/// The command that provisions the LLVM tier.
pub const PROVISION_HINT: &str = "run `ci/toolchains --llvm` (it provisions clang and llvm-readobj from Debian sid, about 560 MB, into $SFRAME_CONFORM_CACHE)";

/// Environment variable that asks for the LLVM adapter even where text adapters are not
/// wanted (the `diff` command asks for text adapters by default and for `--impl llvm-readobj-N`).
pub const ENV: &str = "SFRAME_CONFORM_LLVM";

/// A provisioned `llvm-readobj`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlvmTool {
    /// LLVM major version as the cache names it (`23`).
    pub release: String,
    pub path: PathBuf,
    /// `--version`'s "LLVM version" line as `ci/toolchains` recorded it, with the Debian
    /// package version when the cache knows it.
    pub version: String,
}

/// The Debian version of package `name` in the LLVM tier's root (`$CACHE/root/sid-llvm/.packages`).
fn package_version(name: &str) -> Option<String> {
    let text = std::fs::read_to_string(cache_dir().join("root/sid-llvm/.packages")).ok()?;
    text.lines().find_map(|l| {
        let (n, v) = l.split_once('\t')?;
        (n == name).then(|| v.trim().to_string())
    })
}

/// Every provisioned `llvm-readobj-<N>` (empty when the tier is absent).
pub fn tools() -> Vec<LlvmTool> {
    let mut out: Vec<LlvmTool> = tool_entries()
        .into_iter()
        .filter(|t| {
            t.tool
                .strip_prefix("llvm-readobj-")
                .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
        })
        .filter(|t| t.path.is_file())
        .map(|t| {
            let pkg = package_version(&format!("llvm-{}", t.release));
            let version = match pkg {
                Some(p) => format!("{} (Debian package llvm-{} {p})", t.version, t.release),
                None => t.version.clone(),
            };
            LlvmTool {
                release: t.release.clone(),
                path: t.path.clone(),
                version,
            }
        })
        .collect();
    out.sort_by_key(|t| t.release.parse::<u32>().unwrap_or(0));
    out.dedup_by(|a, b| a.release == b.release);
    out
}

/// Whether `SFRAME_CONFORM_LLVM=1` asks for the adapters even where text adapters are not
/// wanted.
pub fn asked_by_env() -> bool {
    std::env::var(ENV).is_ok_and(|v| v == "1")
}

/// The llvm-readobj text adapter.
#[derive(Debug, Clone)]
pub struct LlvmReadobj {
    tool: LlvmTool,
    timeout: Duration,
}

impl LlvmReadobj {
    pub fn new(tool: LlvmTool, timeout: Duration) -> LlvmReadobj {
        LlvmReadobj { tool, timeout }
    }

    /// `data` wrapped in an ELF file llvm-readobj opens, and the ABI its listing is read
    /// with; the outcome instead when llvm-readobj is not to be asked (not v2, no magic).
    fn prepare(&self, data: &[u8]) -> Result<(Vec<u8>, Abi), Outcome<Decoded>> {
        let Preamble {
            endian,
            version,
            abi,
        } = Preamble::of(data)?;
        if version != Some(2) {
            return Err(Outcome::unsupported(
                "llvm-readobj reads SFrame version 2 only",
            ));
        }
        let machine = machine_for(abi, endian);
        Ok((wrap_elf(data, machine, endian), abi.unwrap_or(Abi::Amd64)))
    }

    /// Run `llvm-readobj --sframe` on `elf`: stdout and stderr, or a failure outcome.
    fn run(&self, elf: &[u8]) -> Result<(String, String), Outcome<Decoded>> {
        let (status, stdout, stderr) = run_on_elf(&self.tool.path, elf, self.timeout)?;
        printed(status, stdout, stderr)
    }
}

impl Implementation for LlvmReadobj {
    fn name(&self) -> String {
        format!("llvm-readobj-{}", self.tool.release)
    }
    fn version(&self) -> String {
        self.tool.version.clone()
    }
    fn supports(&self, version: Version) -> bool {
        // SFrameParser<E>::create: "invalid/unsupported version number" unless V2.
        version == Version::V2
    }
    fn hosting(&self) -> Hosting {
        Hosting::Text
    }
    fn decode(&self, data: &[u8]) -> Outcome<Decoded> {
        let (elf, abi) = match self.prepare(data) {
            Ok(x) => x,
            Err(o) => return o,
        };
        let (stdout, stderr) = match self.run(&elf) {
            Ok(x) => x,
            Err(o) => return o,
        };
        interpret(&stdout, &stderr, abi)
    }
    fn decode_many(&self, inputs: &[&[u8]]) -> Vec<Outcome<Decoded>> {
        let mut out: Vec<Option<Outcome<Decoded>>> = vec![None; inputs.len()];
        // The inputs it reads, wrapped, run together (`readobj_many`).
        let mut items: Vec<(usize, Vec<u8>, Abi)> = Vec::new();
        for (i, data) in inputs.iter().enumerate() {
            match self.prepare(data) {
                Ok((elf, abi)) => items.push((i, elf, abi)),
                Err(o) => out[i] = Some(o),
            }
        }
        let elfs: Vec<Vec<u8>> = items.iter().map(|x| x.1.clone()).collect();
        let printed = readobj_many(&self.tool.path, &elfs, self.timeout, printed);
        for ((i, _, abi), p) in items.into_iter().zip(printed) {
            out[i] = Some(match p {
                Ok((stdout, stderr)) => interpret(&stdout, &stderr, abi),
                Err(o) => o,
            });
        }
        out.into_iter()
            .map(|o| o.unwrap_or_else(|| Outcome::unsupported("not run")))
            .collect()
    }
    fn find_fre(&self, _data: &[u8], _pc: i64) -> Outcome<Option<Found>> {
        Outcome::unsupported("llvm-readobj does not look PCs up")
    }
}

/// What a run that exited with `status` printed, or why it says nothing: llvm-readobj
/// exits non-zero on errors about the file itself (it cannot be read as ELF), not on SFrame
/// problems (those are warnings): our wrapper's fault.
fn printed(status: ExitStatus, stdout: String, stderr: String) -> Printed {
    if !status.success() {
        return Err(Outcome::unsupported(format!(
            "llvm-readobj failed ({status}): {}",
            stderr.trim()
        )));
    }
    Ok((stdout, stderr))
}

/// The ELF machine for a section of `abi` in byte order `endian`. The machine only has to be
/// one llvm-readobj opens with that byte order (it reads the ABI from the SFrame header);
/// an ABI/byte order mismatch gets a machine of the right byte order.
fn machine_for(abi: Option<Abi>, endian: Endian) -> u16 {
    match (abi, endian) {
        (Some(Abi::Aarch64Be | Abi::Aarch64Le), _) => EM_AARCH64,
        (_, Endian::Big) => EM_S390,
        (_, Endian::Little) => EM_X86_64,
    }
}

/// The class of a warning message: its words up to the first one with a digit or a
/// bracket, after an `invalid sframe section: ` prefix (`unexpected end of data`,
/// `invalid magic number`, `unsupported FRE offset size`, ...).
pub fn warning_class(message: &str) -> String {
    let m = message.trim();
    let m = m
        .strip_prefix("invalid sframe section:")
        .map_or(m, str::trim);
    let m = m.split(" at offset").next().unwrap_or(m);
    let words: Vec<&str> = m
        .split_whitespace()
        .take_while(|w| {
            !w.chars()
                .any(|c| c.is_ascii_digit() || matches!(c, '(' | '['))
        })
        .collect();
    let class = words.join(" ");
    if class.is_empty() {
        "warning".into()
    } else {
        class
    }
}

/// The warnings llvm-readobj printed: `(is the header/preamble refused, message)` each.
pub fn warnings(stderr: &str) -> Vec<(bool, String)> {
    stderr
        .lines()
        .filter_map(|l| {
            let rest = l.split_once(": warning: ")?.1;
            // `'<file>': <message>`
            let msg = match rest.strip_prefix('\'') {
                Some(r) => r.split_once("': ").map_or(r, |(_, m)| m),
                None => rest,
            };
            Some((msg.starts_with("invalid sframe section:"), msg.to_string()))
        })
        .collect()
}

/// What stdout and stderr of one run say about the section.
pub fn interpret(stdout: &str, stderr: &str, abi: Abi) -> Outcome<Decoded> {
    let warns = warnings(stderr);
    if let Some((_, first)) = warns.first() {
        // llvm-readobj found something it cannot read (it says so and prints what it could):
        // a refusal, of the class of its first complaint.
        let all: Vec<&str> = warns.iter().map(|(_, m)| m.as_str()).collect();
        return Outcome::rejected(warning_class(first), Some(all.join("; ")));
    }
    if !stdout.contains("SFrame section '") {
        return Outcome::rejected("no listing", Some(stderr.trim().to_string()));
    }
    match parse_listing(stdout, abi) {
        Ok(d) => Outcome::ok(d),
        // Not llvm-readobj's failure but this parser's: nothing to compare.
        Err(e) => Outcome::unsupported(format!("unparseable listing: {e}")),
    }
}

/// `0x1F` → 31.
fn hex(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let h = t
        .strip_prefix("0x")
        .or_else(|| t.strip_prefix("0X"))
        .ok_or_else(|| format!("not hex: {t:?}"))?;
    u64::from_str_radix(h, 16).map_err(|e| format!("bad hex {t:?}: {e}"))
}

/// `-8` → -8.
fn dec(s: &str) -> Result<i64, String> {
    s.trim()
        .parse::<i64>()
        .map_err(|e| format!("bad number {s:?}: {e}"))
}

/// The raw value of an enumeration line: `Addr1 (0x0)` → 0, or a bare `0x3` (a value LLVM
/// has no name for).
fn enum_value(s: &str) -> Result<u64, String> {
    let t = s.trim();
    match t.rfind("(0x") {
        Some(i) => hex(t[i + 1..].split(')').next().unwrap_or_default()),
        None => hex(t),
    }
}

/// One row as printed.
#[derive(Debug, Default)]
struct PrintedFre {
    start: Option<u64>,
    signed: Option<bool>,
    base: Option<u64>,
    cfa: Option<i64>,
    ra: Option<i64>,
    fp: Option<i64>,
}

/// One function as printed.
#[derive(Debug, Default)]
struct PrintedFde {
    start: Option<u64>,
    size: Option<u64>,
    num_fres: Option<u64>,
    fre_type: Option<u64>,
    pc_type: Option<u64>,
    rep_size: Option<u64>,
    fres: Vec<PrintedFre>,
}

/// The rules a printed row stands for (see the module documentation).
fn row_of(p: &PrintedFre, abi: Abi) -> Result<Row, String> {
    let base = p.base.ok_or("row without a base register")?;
    let cfa = p.cfa.map(|o| norm::cfa(abi, base as u8, o));
    let ra = Some(p.ra.map_or(sframe_spec::Loc::SameValue, |o| {
        norm::tracked(abi, 2, o, true)
    }));
    let fp = Some(p.fp.map_or(sframe_spec::Loc::SameValue, |o| {
        norm::tracked(abi, 2, o, false)
    }));
    Ok(Row {
        cfa,
        ra,
        fp,
        ra_mangled: p.signed,
    })
}

fn finish(f: PrintedFde, abi: Abi) -> Result<FunctionFacts, String> {
    let start = f.start.ok_or("function without a PC")?;
    let mask = f.pc_type == Some(1);
    let fres = f
        .fres
        .iter()
        .map(|p| {
            let at = p.start.ok_or("row without a start address")?;
            // PC-increment rows are printed at function start + FRE start (64-bit).
            let s = if mask { at } else { at.wrapping_sub(start) };
            Ok(FreFacts {
                start: Some(s as u32),
                row: row_of(p, abi)?,
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(FunctionFacts {
        start: Some(start as i64),
        size: f.size.map(|s| s as u32),
        fre_type: f.fre_type.map(|t| Stored::from(t as u8)),
        pc_type: f.pc_type.map(|t| Stored::from(t as u8)),
        fde_type: None,
        rep_size: f.rep_size.map(|r| r as u8),
        num_fres: f.num_fres.map(|n| n as u32),
        fres,
        error: None,
    })
}

/// Parse the listing of one section.
pub fn parse_listing(text: &str, abi: Abi) -> Result<Decoded, String> {
    let mut d = Decoded::default();
    let mut sections = 0;
    let mut in_header = false;
    let mut in_pc = false;
    let mut cur: Option<PrintedFde> = None;
    let mut fre: Option<PrintedFre> = None;
    for line in text.lines() {
        let t = line.trim();
        let (key, value) = match t.split_once(": ") {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (t, ""),
        };
        if t.starts_with("SFrame section '") {
            sections += 1;
            if sections > 1 {
                return Err("more than one SFrame section listed".into());
            }
            continue;
        }
        if t == "Header {" {
            in_header = true;
            continue;
        }
        if t == "Function Index [" {
            in_header = false;
            continue;
        }
        if in_header {
            match key {
                "Version" => d.header.version = Some(enum_value(value)? as u8),
                "ABI" => d.header.abi = Some(enum_value(value)? as u8),
                "Num FDEs" => d.header.num_fdes = Some(dec(value)? as u32),
                "Num FREs" => d.header.num_fres = Some(dec(value)? as u32),
                k if k.starts_with("Flags [") => {
                    d.header.flags = Some(enum_value(k.trim_start_matches("Flags ["))? as u8)
                }
                k if k.starts_with("CFA fixed FP offset") => {
                    d.header.cfa_fixed_fp_offset = Some(dec(value)? as i8)
                }
                k if k.starts_with("CFA fixed RA offset") => {
                    d.header.cfa_fixed_ra_offset = Some(dec(value)? as i8)
                }
                _ => {}
            }
            continue;
        }
        if t.starts_with("FuncDescEntry [") {
            if let Some(p) = fre.take() {
                cur.as_mut().ok_or("row outside a function")?.fres.push(p);
            }
            if let Some(f) = cur.take() {
                d.functions.push(finish(f, abi)?);
            }
            cur = Some(PrintedFde::default());
            in_pc = false;
            continue;
        }
        let Some(f) = cur.as_mut() else { continue };
        if t == "PC {" {
            in_pc = true;
            continue;
        }
        if in_pc {
            match (t, key) {
                ("}", _) => in_pc = false,
                (_, "Start Address") => f.start = Some(hex(value)?),
                _ => {}
            }
            continue;
        }
        if t == "Frame Row Entry {" {
            if let Some(p) = fre.take() {
                f.fres.push(p);
            }
            fre = Some(PrintedFre::default());
            continue;
        }
        if let Some(p) = fre.as_mut() {
            match key {
                "}" => {
                    if let Some(p) = fre.take() {
                        f.fres.push(p);
                    }
                }
                "Start Address" => p.start = Some(hex(value)?),
                "Return Address Signed" => p.signed = Some(value == "Yes"),
                "Base Register" => p.base = Some(enum_value(value)?),
                "CFA Offset" => p.cfa = Some(dec(value)?),
                "RA Offset" => p.ra = Some(dec(value)?),
                "FP Offset" => p.fp = Some(dec(value)?),
                _ => {}
            }
            continue;
        }
        match key {
            "PC" => f.start = Some(hex(value)?),
            "Size" => f.size = Some(hex(value)?),
            "Num FREs" => f.num_fres = Some(dec(value)? as u64),
            "FRE Type" => f.fre_type = Some(enum_value(value)?),
            "FDE Type" => f.pc_type = Some(enum_value(value)?),
            k if k.starts_with("Repetitive block size") => f.rep_size = Some(hex(value)?),
            _ => {}
        }
    }
    if sections == 0 {
        return Err("no SFrame section listed".into());
    }
    if let Some(p) = fre.take() {
        cur.as_mut().ok_or("row outside a function")?.fres.push(p);
    }
    if let Some(f) = cur.take() {
        d.functions.push(finish(f, abi)?);
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sframe_spec::Loc;

    #[test]
    fn warning_classes_stop_at_the_first_number() {
        assert_eq!(
            warning_class("unexpected end of data at offset 0x4e while reading [0x1c, 0xba)"),
            "unexpected end of data"
        );
        assert_eq!(
            warning_class("invalid sframe section: invalid magic number (0xdede)"),
            "invalid magic number"
        );
        assert_eq!(
            warning_class("invalid sframe section: invalid/unsupported version number (3)"),
            "invalid/unsupported version number"
        );
        assert_eq!(
            warning_class("unsupported FRE offset size 3 at offset 0x41"),
            "unsupported FRE offset size"
        );
        let w = warnings(
            "/x/llvm-readobj-23: warning: '/tmp/a.elf': unsupported FRE type 3 at offset 0x2c\n",
        );
        assert_eq!(
            w,
            vec![(false, "unsupported FRE type 3 at offset 0x2c".to_string())]
        );
    }

    #[test]
    fn enumerations_read_their_raw_value() {
        assert_eq!(enum_value("Addr2 (0x1)"), Ok(1));
        assert_eq!(enum_value("0x4"), Ok(4));
        assert_eq!(enum_value("AMD64EndianLittle (0x3)"), Ok(3));
        assert_eq!(enum_value("(0x5)"), Ok(5));
    }

    #[test]
    fn rows_follow_the_printed_offsets() {
        let p = PrintedFre {
            start: Some(0),
            signed: Some(false),
            base: Some(0),
            cfa: Some(16),
            ra: Some(-8),
            fp: Some(-16),
        };
        let r = row_of(&p, Abi::Amd64).unwrap();
        assert_eq!(r.cfa, Some(Loc::reg(6, 16)));
        assert_eq!(r.ra, Some(Loc::slot(-8)));
        assert_eq!(r.fp, Some(Loc::slot(-16)));
        let p = PrintedFre {
            base: Some(1),
            cfa: None,
            ..PrintedFre::default()
        };
        let r = row_of(&p, Abi::Aarch64Le).unwrap();
        assert_eq!(r.cfa, None);
        assert_eq!(r.ra, Some(Loc::SameValue));
    }
}
