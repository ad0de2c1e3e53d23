//! `objdump --sframe` of a binutils release, compared at the level of what it prints.
//!
//! The section's bytes are wrapped in a minimal ELF executable (one allocated `.sframe`
//! section at address 0, the machine and byte order the section's ABI and magic name), the
//! release's `objdump --sframe` is run on it, and the listing is parsed back into the same
//! row model as every other implementation. At address 0, a printed `pc` is the function's
//! start relative to the section. An executable (not a relocatable object) is used so that
//! objdump applies no relocation fix-ups of its own.
//!
//! The printed notation, as seen in 2.40, 2.44 and sid: CFA `sp+N`, `fp+N`, `rN+N` (a DWARF
//! register, flex FDEs), `(reg+N)` (the value at that address); FP and RA `u` (not saved),
//! `c+N` (the slot at CFA+N), `f` (at the header's fixed offset, printed from 2.44 on as
//! "CFA fixed RA offset"), `U` (RA padding word of a flex FDE: the format's default, i.e. the
//! fixed offset), a register form as for the CFA, and a `[s]` suffix for a mangled RA;
//! `RA undefined` for an outermost-frame row. In a flex row objdump 2.47 prints `c±N` for
//! an RA or FP rule on the CFA whatever its `deref_p` (never `(c±N)`), read here as the slot,
//! as in default rows (quirk `flex-cfa-base-deref-ignored`, F0156). objdump 2.40 prints `u` for an RA at a fixed
//! offset; that is what it says, and it is compared as such. Columns are `%-10s`, so a wide
//! CFA runs into the FP column: the row is tokenized, not split on blanks.
//!
//! objdump does not look PCs up: [`Implementation::find_fre`] is unsupported.

use crate::text_tool::{
    objdump_many, run_on_elf, wrap_elf, Preamble, Printed, EM_AARCH64, EM_S390, EM_X86_64,
};
use crate::toolchains::Objdump;
use sframe_harness::impls::{
    Decoded, Found, FreFacts, FunctionFacts, Hosting, Implementation, Outcome, Row,
};
use sframe_spec::constants::flags;
use sframe_spec::{Abi, Base, Endian, FdeType, Loc, PcType, Version};
use std::time::Duration;

/// The objdump text adapter of one release (one objdump per target triple).
#[derive(Debug, Clone)]
pub struct ObjdumpImpl {
    release: String,
    tools: Vec<Objdump>,
    timeout: Duration,
}

impl ObjdumpImpl {
    pub fn new(release: String, tools: Vec<Objdump>, timeout: Duration) -> ObjdumpImpl {
        ObjdumpImpl {
            release,
            tools,
            timeout,
        }
    }

    fn tool_for(&self, triple: &str) -> Option<&Objdump> {
        self.tools.iter().find(|t| t.triple == triple)
    }

    /// The objdump for `data` and the ELF file to give it, or the outcome without one.
    fn prepare(&self, data: &[u8]) -> Result<(&Objdump, Vec<u8>, Abi), Outcome<Decoded>> {
        let (triple, elf, abi) = wrapped(data)?;
        let Some(tool) = self.tool_for(triple) else {
            return Err(Outcome::unsupported(format!(
                "no {triple}-objdump-{} provisioned",
                self.release
            )));
        };
        Ok((tool, elf, abi))
    }
}

/// The target triple whose objdump reads `data`, the ELF file it is given, and the ABI its
/// listing is read as; or the outcome where no objdump reads it.
fn wrapped(data: &[u8]) -> Result<(&'static str, Vec<u8>, Abi), Outcome<Decoded>> {
    let Preamble { endian, abi, .. } = Preamble::of(data)?;
    let (triple, machine) = match abi {
        Some(Abi::Aarch64Be | Abi::Aarch64Le) => ("aarch64-linux-gnu", EM_AARCH64),
        Some(Abi::S390x) => ("s390x-linux-gnu", EM_S390),
        _ => ("x86_64-linux-gnu", EM_X86_64),
    };
    if (machine == EM_S390 && endian == Endian::Little)
        || (machine == EM_X86_64 && endian == Endian::Big)
    {
        return Err(Outcome::unsupported(format!(
            "{triple} ELF files cannot be {}-endian",
            endian.name()
        )));
    }
    Ok((
        triple,
        wrap_elf(data, machine, endian),
        abi.unwrap_or(Abi::Amd64),
    ))
}

/// The target triple whose objdump the adapter runs on `data` and the ELF file it gives
/// it, or why it runs none (`ci/check-triggers` runs the ASan-backed objdumps on these).
pub fn elf_for(data: &[u8]) -> Result<(&'static str, Vec<u8>), String> {
    match wrapped(data) {
        Ok((triple, elf, _)) => Ok((triple, elf)),
        Err(Outcome::Unsupported { reason }) => Err(reason.to_string()),
        Err(o) => Err(o.status().to_string()),
    }
}

/// A section to dump: its index among the inputs, its ELF file, its ABI.
type Wrapped = (usize, Vec<u8>, Abi);

/// What objdump's output says of a section of `abi`.
fn interpret(printed: Printed, abi: Abi) -> Outcome<Decoded> {
    let (stdout, stderr) = match printed {
        Ok(x) => x,
        Err(o) => return o,
    };
    if !stdout.contains("Contents of the SFrame section")
        || stderr.contains("SFrame decode failure")
    {
        let class = if stderr.contains("SFrame decode failure") {
            "decode failure"
        } else {
            "no listing"
        };
        return Outcome::rejected(class, Some(stderr.trim().to_string()));
    }
    match parse_listing(&stdout, abi) {
        Ok(d) => Outcome::ok(d),
        // Not objdump's failure but this parser's: nothing to compare.
        Err(e) => Outcome::unsupported(format!("unparseable listing: {e}")),
    }
}

impl Implementation for ObjdumpImpl {
    fn name(&self) -> String {
        format!("objdump-{}", self.release)
    }
    fn version(&self) -> String {
        self.tools
            .first()
            .map(|t| t.version.clone())
            .unwrap_or_default()
    }
    fn supports(&self, version: Version) -> bool {
        // The libsframe each release links (see the libsframe adapter): 2.40 reads v1 only,
        // 2.44 v1 and v2, later releases v2 and v3.
        match self.release.as_str() {
            "2.40" => version == Version::V1,
            "2.44" => version != Version::V3,
            _ => version != Version::V1,
        }
    }
    fn hosting(&self) -> Hosting {
        Hosting::Text
    }
    fn decode(&self, data: &[u8]) -> Outcome<Decoded> {
        let (tool, elf, abi) = match self.prepare(data) {
            Ok(p) => p,
            Err(o) => return o,
        };
        interpret(
            run_on_elf(&tool.path, &elf, self.timeout).map(|(_, o, e)| (o, e)),
            abi,
        )
    }
    fn decode_many(&self, inputs: &[&[u8]]) -> Vec<Outcome<Decoded>> {
        let mut out: Vec<Option<Outcome<Decoded>>> = vec![None; inputs.len()];
        // Per objdump (target triple): the inputs it reads, run together.
        let mut groups: Vec<(&Objdump, Vec<Wrapped>)> = Vec::new();
        for (i, data) in inputs.iter().enumerate() {
            // A section the reference finds invalid most likely makes objdump complain,
            // which would cut the batch short (see `objdump_many`): it is run alone at once.
            if !sframe_spec::is_valid(&sframe_spec::validate(data)) {
                out[i] = Some(self.decode(data));
                continue;
            }
            match self.prepare(data) {
                Err(o) => out[i] = Some(o),
                Ok((tool, elf, abi)) => match groups.iter_mut().find(|g| g.0.path == tool.path) {
                    Some(g) => g.1.push((i, elf, abi)),
                    None => groups.push((tool, vec![(i, elf, abi)])),
                },
            }
        }
        for (tool, items) in groups {
            let elfs: Vec<Vec<u8>> = items.iter().map(|x| x.1.clone()).collect();
            let printed = objdump_many(&tool.path, &elfs, self.timeout);
            for ((i, _, abi), p) in items.into_iter().zip(printed) {
                out[i] = Some(interpret(p, abi));
            }
        }
        out.into_iter()
            .map(|o| o.unwrap_or_else(|| Outcome::unsupported("not run")))
            .collect()
    }
    fn find_fre(&self, _data: &[u8], _pc: i64) -> Outcome<Option<Found>> {
        Outcome::unsupported("objdump does not look PCs up")
    }
}

fn flag_bits(names: &str) -> u8 {
    let mut f = 0;
    for (name, bit) in [
        ("SFRAME_F_FDE_SORTED", flags::FDE_SORTED),
        ("SFRAME_F_FRAME_POINTER", flags::FRAME_POINTER),
        ("SFRAME_F_FDE_FUNC_START_PCREL", flags::FDE_FUNC_START_PCREL),
    ] {
        if names.contains(name) {
            f |= bit;
        }
    }
    f
}

/// A tiny cursor over one row's text.
struct Cursor<'a> {
    s: &'a str,
}

impl<'a> Cursor<'a> {
    fn skip_ws(&mut self) {
        self.s = self.s.trim_start();
    }
    fn eat(&mut self, p: &str) -> bool {
        match self.s.strip_prefix(p) {
            Some(r) => {
                self.s = r;
                true
            }
            None => false,
        }
    }
    /// A signed decimal number: `+N`, `-N` or `+-N` (objdump prints `"%s+%d"`, so a negative
    /// offset comes out as `sp+-47`; the sign is required).
    fn signed(&mut self) -> Option<i64> {
        let neg = if self.eat("+-") || self.eat("-") {
            true
        } else if self.eat("+") {
            false
        } else {
            return None;
        };
        let end = self
            .s
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(self.s.len());
        if end == 0 {
            return None;
        }
        let v: i64 = self.s[..end].parse().ok()?;
        self.s = &self.s[end..];
        Some(if neg { -v } else { v })
    }
    /// `sp`, `fp` or `rN`, as a DWARF register of `abi`.
    fn reg(&mut self, abi: Abi) -> Option<u32> {
        let regs = abi.regs();
        if self.eat("sp") {
            return Some(u32::from(regs.sp));
        }
        if self.s.starts_with("fp") && self.s[2..].starts_with(['+', '-']) {
            self.s = &self.s[2..];
            return Some(u32::from(regs.fp));
        }
        if self.s.starts_with('r') && self.s[1..].starts_with(|c: char| c.is_ascii_digit()) {
            let end = 1 + self.s[1..]
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(self.s.len() - 1);
            let n = self.s[1..end].parse().ok()?;
            self.s = &self.s[end..];
            return Some(n);
        }
        None
    }
    /// `reg±N` or `(reg±N)`.
    fn reg_expr(&mut self, abi: Abi) -> Option<Loc> {
        let deref = self.eat("(");
        let reg = self.reg(abi)?;
        let offset = self.signed()?;
        if deref && !self.eat(")") {
            return None;
        }
        Some(Loc::Expr {
            base: Base::Reg(reg),
            offset,
            deref,
        })
    }
}

/// What the FP/RA column said.
enum Col {
    Loc(Loc),
    Fixed,
    Padding,
}

fn column(c: &mut Cursor<'_>, abi: Abi) -> Option<Col> {
    c.skip_ws();
    if c.s.starts_with("fp+")
        || c.s.starts_with("fp-")
        || c.s.starts_with('(')
        || c.s.starts_with("sp")
        || c.s.starts_with('r')
    {
        return c.reg_expr(abi).map(Col::Loc);
    }
    if c.eat("c") {
        let off = c.signed()?;
        return Some(Col::Loc(Loc::slot(off)));
    }
    if c.eat("u") {
        return Some(Col::Loc(Loc::SameValue));
    }
    if c.eat("U") {
        return Some(Col::Padding);
    }
    if c.eat("f") {
        return Some(Col::Fixed);
    }
    None
}

/// Parse a whole listing (one section).
pub fn parse_listing(text: &str, abi: Abi) -> Result<Decoded, String> {
    let mut d = Decoded::default();
    let mut flags_text = String::new();
    let mut in_flags = false;
    let mut fixed_ra: Option<i8> = None;
    let mut fixed_fp: Option<i8> = None;
    let mut cur: Option<(FunctionFacts, i64)> = None;
    let num = |s: &str| {
        s.trim()
            .parse::<i64>()
            .map_err(|e| format!("bad number {s:?}: {e}"))
    };
    for line in text.lines() {
        let t = line.trim();
        if in_flags {
            if t.starts_with("SFRAME_F_") || t.starts_with("0x") {
                flags_text.push_str(t);
                continue;
            }
            in_flags = false;
        }
        if let Some(v) = t.strip_prefix("Version: SFRAME_VERSION_") {
            d.header.version = v.trim().parse().ok();
        } else if let Some(v) = t.strip_prefix("Flags:") {
            flags_text.push_str(v);
            in_flags = true;
        } else if let Some(v) = t.strip_prefix("CFA fixed RA offset:") {
            fixed_ra = Some(num(v)? as i8);
        } else if let Some(v) = t.strip_prefix("CFA fixed FP offset:") {
            fixed_fp = Some(num(v)? as i8);
        } else if let Some(v) = t.strip_prefix("Num FDEs:") {
            d.header.num_fdes = Some(num(v)? as u32);
        } else if let Some(v) = t.strip_prefix("Num FREs:") {
            d.header.num_fres = Some(num(v)? as u32);
        } else if let Some(rest) = t.strip_prefix("func idx [") {
            if let Some((f, _)) = cur.take() {
                d.functions.push(f);
            }
            let pc_hex = rest
                .split("pc = 0x")
                .nth(1)
                .and_then(|s| s.split(',').next())
                .ok_or("no pc")?;
            let pc = u64::from_str_radix(pc_hex.trim(), 16)
                .map_err(|e| format!("bad pc {pc_hex}: {e}"))? as i64;
            let size = rest
                .split("size = ")
                .nth(1)
                .and_then(|s| s.split_whitespace().next())
                .ok_or("no size")?;
            let attr = rest
                .split("attr = \"")
                .nth(1)
                .and_then(|s| s.split('"').next())
                .unwrap_or("");
            let f = FunctionFacts {
                start: Some(pc),
                size: Some(num(size)? as u32),
                fde_type: Some(if attr.contains('F') {
                    FdeType::Flex.into()
                } else {
                    FdeType::Default.into()
                }),
                ..FunctionFacts::default()
            };
            cur = Some((f, pc));
        } else if t.starts_with("STARTPC") {
            if let Some((f, _)) = cur.as_mut() {
                f.pc_type = Some(if t.starts_with("STARTPC[m]") {
                    PcType::Mask.into()
                } else {
                    PcType::Inc.into()
                });
            }
        } else if t.len() > 16
            && t.as_bytes()[..16].iter().all(u8::is_ascii_hexdigit)
            && line.starts_with("    ")
        {
            let Some((f, fpc)) = cur.as_mut() else {
                return Err(format!("row outside a function: {line}"));
            };
            let addr = u64::from_str_radix(&t[..16], 16).map_err(|e| e.to_string())? as i64;
            let start = if f.is_pc_mask() {
                addr
            } else {
                addr.wrapping_sub(*fpc)
            };
            let rest = &t[16..];
            let row = if rest.trim() == "RA undefined" {
                Row {
                    cfa: Some(Loc::Undefined),
                    ra: Some(Loc::Undefined),
                    fp: None,
                    ra_mangled: None,
                }
            } else {
                parse_row(rest, abi, fixed_ra, fixed_fp)
                    .ok_or_else(|| format!("cannot parse row {line:?}"))?
            };
            f.fres.push(FreFacts {
                start: Some(start as u32),
                row,
            });
        }
    }
    if let Some((f, _)) = cur.take() {
        d.functions.push(f);
    }
    for f in &mut d.functions {
        f.num_fres = Some(f.fres.len() as u32);
    }
    d.header.flags = Some(flag_bits(&flags_text));
    d.header.cfa_fixed_ra_offset = fixed_ra;
    d.header.cfa_fixed_fp_offset = fixed_fp;
    Ok(d)
}

fn parse_row(rest: &str, abi: Abi, fixed_ra: Option<i8>, fixed_fp: Option<i8>) -> Option<Row> {
    let mut c = Cursor { s: rest };
    c.skip_ws();
    let cfa = c.reg_expr(abi)?;
    let fixed = |v: Option<i8>| {
        v.map(|o| {
            if o == 0 {
                Loc::SameValue
            } else {
                Loc::slot(i64::from(o))
            }
        })
    };
    let fp = match column(&mut c, abi)? {
        Col::Loc(l) => Some(l),
        Col::Fixed | Col::Padding => fixed(fixed_fp),
    };
    let ra = match column(&mut c, abi)? {
        Col::Loc(l) => Some(l),
        Col::Fixed | Col::Padding => fixed(fixed_ra),
    };
    let mangled = c.eat("[s]");
    c.skip_ws();
    if !c.s.is_empty() {
        return None;
    }
    Some(Row {
        cfa: Some(cfa),
        ra,
        fp,
        ra_mangled: Some(mangled),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_with_run_together_columns_parse() {
        let r = parse_row(
            "  r11+1048592u         f            ",
            Abi::Amd64,
            Some(-8),
            None,
        )
        .unwrap();
        assert_eq!(r.cfa, Some(Loc::reg(11, 1048592)));
        assert_eq!(r.fp, Some(Loc::SameValue));
        assert_eq!(r.ra, Some(Loc::slot(-8)));
        let r = parse_row(
            "  (fp-8)    (fp+0)    U            ",
            Abi::Amd64,
            Some(-8),
            None,
        )
        .unwrap();
        assert_eq!(r.cfa, Some(Loc::at_reg(6, -8)));
        assert_eq!(r.fp, Some(Loc::at_reg(6, 0)));
        let r = parse_row(
            "  sp+16     c-16      c-8[s]       ",
            Abi::Aarch64Le,
            None,
            None,
        )
        .unwrap();
        assert_eq!(r.ra_mangled, Some(true));
        assert_eq!(r.ra, Some(Loc::slot(-8)));
        let r = parse_row(
            "  sp+-47    c+0       c+117[s]     ",
            Abi::Aarch64Le,
            None,
            None,
        )
        .unwrap();
        assert_eq!(r.cfa, Some(Loc::reg(31, -47)));
        let r = parse_row(
            "  sp+0      u         r0+0         ",
            Abi::Amd64,
            Some(-8),
            None,
        )
        .unwrap();
        assert_eq!(r.ra, Some(Loc::reg(0, 0)));
    }

    #[test]
    fn a_listing_parses() {
        let text = "\nContents of the SFrame section .sframe:\n  Header :\n\n    Version: SFRAME_VERSION_3\n    Flags: SFRAME_F_FDE_SORTED,\n           SFRAME_F_FDE_FUNC_START_PCREL\n    CFA fixed RA offset: -8\n    Num FDEs: 2\n    Num FREs: 3\n\n  Function Index :\n\n    func idx [0]: pc = 0x1000, size = 16 bytes\n    STARTPC         CFA       FP        RA           \n    0000000000001000  sp+16     u         f            \n    0000000000001006  sp+24     u         f            \n\n    func idx [1]: pc = 0xffffffffffffeeb0, size = 48 bytes, attr = \"F\"\n    STARTPC[m]      CFA       FP        RA           \n    000000000000000b  sp+16     u         f            \n";
        let d = parse_listing(text, Abi::Amd64).unwrap();
        assert_eq!(d.header.version, Some(3));
        assert_eq!(d.header.flags, Some(5));
        assert_eq!(d.functions.len(), 2);
        assert_eq!(d.functions[0].fres[1].start, Some(6));
        assert_eq!(d.functions[1].start, Some(-0x1150));
        assert_eq!(d.functions[1].pc_type, Some(PcType::Mask.into()));
        assert_eq!(d.functions[1].fde_type, Some(FdeType::Flex.into()));
        assert_eq!(d.functions[1].fres[0].start, Some(0xb));
    }
}
