//! `sframe-conform dump`: a readable listing of a section (in the spirit of
//! `objdump --sframe`), or its normalized model as JSON.

use crate::{out, walking};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;
use sframe_harness::input::InputSection;
use sframe_harness::walk::{Outcome, Summary};
use sframe_spec::constants::flags;
use sframe_spec::{Abi, Base, FdeType, Loc, PcType, Section};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Names of the flags set in `f`, as the macros spell them.
pub fn flag_names(f: u8) -> String {
    let mut v = Vec::new();
    for (bit, name) in [
        (flags::FDE_SORTED, "SFRAME_F_FDE_SORTED"),
        (flags::FRAME_POINTER, "SFRAME_F_FRAME_POINTER"),
        (flags::FDE_FUNC_START_PCREL, "SFRAME_F_FDE_FUNC_START_PCREL"),
    ] {
        if f & bit != 0 {
            v.push(name.to_string());
        }
    }
    let rest = f & !0x7;
    if rest != 0 {
        v.push(format!("{rest:#x}"));
    }
    if v.is_empty() {
        "NONE".to_string()
    } else {
        v.join(", ")
    }
}

/// A register name for the ABI's DWARF number, where the dump has a short one.
fn reg_name(abi: Abi, n: u32) -> String {
    let r = abi.regs();
    if n == u32::from(r.sp) {
        "sp".into()
    } else if n == u32::from(r.fp) {
        "fp".into()
    } else if n == u32::from(r.ra) {
        "ra".into()
    } else {
        format!("r{n}")
    }
}

/// Text of one recovery rule, in `objdump --sframe`'s notation where it has one: `sp+8`
/// (CFA), `c-16` (the slot at CFA-16), `*(r6-8)`, `u` (unchanged), `U` (undefined), `r16`
/// (value in a register).
pub fn loc_text(abi: Abi, loc: &Loc) -> String {
    let Loc::Expr {
        base,
        offset,
        deref,
    } = *loc
    else {
        return if *loc == Loc::SameValue { "u" } else { "U" }.into();
    };
    let b = match base {
        Base::Cfa => "c".to_string(),
        Base::Reg(n) => reg_name(abi, n),
    };
    let e = if offset == 0 && !deref && !matches!(base, Base::Cfa) {
        b.clone()
    } else {
        format!("{b}{offset:+}")
    };
    match (base, deref) {
        (Base::Cfa, true) => e,
        (Base::Cfa, false) => format!("={e}"),
        (Base::Reg(_), true) => format!("*({e})"),
        (Base::Reg(_), false) => e,
    }
}

/// The CFA column: always `base+offset`, as objdump prints it (`sp+0`).
fn cfa_text(abi: Abi, loc: &Loc) -> String {
    match *loc {
        Loc::Expr {
            base: Base::Reg(n),
            offset,
            deref: false,
        } => format!("{}{offset:+}", reg_name(abi, n)),
        _ => loc_text(abi, loc),
    }
}

/// The text dump of a decoded section loaded at `vaddr`.
pub fn render_text(s: &Section, vaddr: u64) -> String {
    let mut o = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = write_text(&mut o, s, vaddr);
    String::from_utf8_lossy(&o).into_owned()
}

/// The text dump of a decoded section loaded at `vaddr`, onto `o` function by function.
pub fn write_text(o: &mut dyn Write, s: &Section, vaddr: u64) -> std::io::Result<()> {
    o.write_all(b"  Header :\n\n")?;
    writeln!(o, "    Version: SFRAME_VERSION_{}", s.version.number())?;
    writeln!(o, "    Flags: {}", flag_names(s.flags))?;
    writeln!(
        o,
        "    ABI: {} ({}), {}-endian",
        s.abi,
        s.abi.id(),
        s.endian.name()
    )?;
    writeln!(o, "    CFA fixed FP offset: {}", s.cfa_fixed_fp_offset)?;
    writeln!(o, "    CFA fixed RA offset: {}", s.cfa_fixed_ra_offset)?;
    if !s.aux_header.is_empty() {
        writeln!(o, "    Auxiliary header: {} bytes", s.aux_header.len())?;
    }
    write!(
        o,
        "    Num FDEs: {}\n    Num FREs: {}\n\n  Function Index :\n",
        s.functions.len(),
        s.num_fres()
    )?;
    for (i, f) in s.functions.iter().enumerate() {
        let pc = vaddr.wrapping_add(f.start as u64);
        let mut attrs = vec![format!("FRE type ADDR{}", f.fre_type.addr_size())];
        if f.pc_type == PcType::Mask {
            attrs.push(format!("PC type MASK, rep size {}", f.rep_size));
        }
        if f.fde_type == FdeType::Flex {
            attrs.push("FDE type FLEX".into());
        }
        if f.signal {
            attrs.push("signal frame".into());
        }
        if f.pauth_key == sframe_spec::PauthKey::B {
            attrs.push("pauth key B".into());
        }
        write!(
            o,
            "\n    func idx [{i}]: pc = {pc:#x}, size = {} bytes, {}\n",
            f.size,
            attrs.join(", ")
        )?;
        writeln!(
            o,
            "    {:<18}{:<14}{:<14}{:<14}",
            "STARTPC", "CFA", "FP", "RA"
        )?;
        for fre in &f.fres {
            let start = pc.wrapping_add(u64::from(fre.start));
            let (cfa, fp, ra) = match s.recovery(f, fre) {
                Ok(r) => (
                    cfa_text(s.abi, &r.cfa),
                    loc_text(s.abi, &r.fp),
                    format!(
                        "{}{}",
                        loc_text(s.abi, &r.ra),
                        if r.ra_mangled { "[s]" } else { "" }
                    ),
                ),
                Err(rule) => (format!("<{}>", rule.id()), String::new(), String::new()),
            };
            writeln!(o, "    {start:016x}  {cfa:<14}{fp:<14}{ra:<14}")?;
        }
    }
    Ok(())
}

/// The normalized model as JSON, with each row's recovery rules (built in memory: for a
/// file's dump use [`SectionJson`], which streams).
pub fn render_json(s: &Section, vaddr: u64) -> Value {
    serde_json::to_value(SectionJson {
        file: None,
        section: s,
        vaddr,
    })
    .unwrap_or_default()
}

/// The normalized model of a section loaded at `vaddr` as JSON, serialized function by
/// function and row by row (nothing of the whole output is built in memory). With `file`,
/// the object starts with a `file` member.
pub struct SectionJson<'a> {
    pub file: Option<&'a str>,
    pub section: &'a Section,
    pub vaddr: u64,
}

impl Serialize for SectionJson<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let s = self.section;
        let mut m = ser.serialize_map(None)?;
        if let Some(f) = self.file {
            m.serialize_entry("file", f)?;
        }
        m.serialize_entry("version", &s.version.number())?;
        m.serialize_entry("abi", s.abi.name())?;
        m.serialize_entry("endian", s.endian.name())?;
        m.serialize_entry("flags", &s.flags)?;
        m.serialize_entry("flag_names", &flag_names(s.flags))?;
        m.serialize_entry("cfa_fixed_fp_offset", &s.cfa_fixed_fp_offset)?;
        m.serialize_entry("cfa_fixed_ra_offset", &s.cfa_fixed_ra_offset)?;
        m.serialize_entry("aux_header_len", &s.aux_header.len())?;
        m.serialize_entry("section_vaddr", &self.vaddr)?;
        m.serialize_entry("num_fres", &s.num_fres())?;
        m.serialize_entry(
            "functions",
            &Seq(|| {
                s.functions.iter().map(|f| FunctionJson {
                    s,
                    f,
                    vaddr: self.vaddr,
                })
            }),
        )?;
        m.end()
    }
}

/// A JSON array of what an iterator gives, serialized as it goes.
struct Seq<F>(F);

impl<F, I> Serialize for Seq<F>
where
    F: Fn() -> I,
    I: Iterator,
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        ser.collect_seq((self.0)())
    }
}

struct FunctionJson<'a> {
    s: &'a Section,
    f: &'a sframe_spec::Function,
    vaddr: u64,
}

impl Serialize for FunctionJson<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let (s, f) = (self.s, self.f);
        let mut m = ser.serialize_map(None)?;
        m.serialize_entry("start", &f.start)?;
        m.serialize_entry("pc", &self.vaddr.wrapping_add(f.start as u64))?;
        m.serialize_entry("size", &f.size)?;
        m.serialize_entry("fre_type", &f.fre_type)?;
        m.serialize_entry("pc_type", &f.pc_type)?;
        m.serialize_entry("fde_type", &f.fde_type)?;
        m.serialize_entry("pauth_key", &f.pauth_key)?;
        m.serialize_entry("signal", &f.signal)?;
        m.serialize_entry("rep_size", &f.rep_size)?;
        m.serialize_entry("fre_offset", &f.fre_offset)?;
        m.serialize_entry(
            "fres",
            &Seq(|| {
                f.fres.iter().map(|fre| {
                    let rules = s.recovery(f, fre);
                    FreJson { fre, rules }
                })
            }),
        )?;
        m.end()
    }
}

struct FreJson<'a> {
    fre: &'a sframe_spec::Fre,
    rules: Result<sframe_spec::Recovery, sframe_spec::Rule>,
}

impl Serialize for FreJson<'_> {
    fn serialize<S: Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let fre = self.fre;
        let mut m = ser.serialize_map(None)?;
        m.serialize_entry("start", &fre.start)?;
        m.serialize_entry("base_reg", &fre.base_reg)?;
        m.serialize_entry("mangled_ra", &fre.mangled_ra)?;
        m.serialize_entry("dataword_size", &fre.dataword_size.bytes())?;
        m.serialize_entry("datawords", &fre.datawords)?;
        m.serialize_entry("rules", &self.rules.as_ref().ok())?;
        m.serialize_entry("rules_error", &self.rules.as_ref().err().map(|r| r.id()))?;
        m.end()
    }
}

/// `sframe-conform dump FILE|DIR... [--json]`: each section's listing (or model) as its
/// file is read, then the walk's summary. Exit status as [`crate::walking`] says, a
/// section that does not decode being what is found.
pub fn run(files: &[PathBuf], json: bool) -> ExitCode {
    let mut summary = Summary::default();
    let mut failed = false;
    let mut stream = json.then(|| out::JsonStream::begin("files"));
    for e in walking::walk(files, false) {
        summary.add(&e);
        let Outcome::Section { loaded, .. } = e.outcome else {
            continue;
        };
        let input = InputSection {
            path: e.path,
            loaded,
        };
        let file = input.path.display().to_string();
        match (sframe_spec::decode(&input.loaded.bytes), &mut stream) {
            (Ok(s), Some(stream)) => stream.item(&SectionJson {
                file: Some(&file),
                section: &s,
                vaddr: input.loaded.vaddr,
            }),
            (Ok(s), None) => {
                crate::outln!("{file}: SFrame section ({})\n", input.origin());
                if let Err(e) = write_text(&mut out::stdout(), &s, input.loaded.vaddr) {
                    out::failed(&e)
                }
            }
            (Err(e), Some(stream)) => {
                failed = true;
                stream.item(&serde_json::json!({"file": file, "error": e}));
            }
            (Err(e), None) => {
                failed = true;
                eprintln!("{file}: cannot decode: {e}");
            }
        }
    }
    match stream {
        Some(stream) => {
            stream.end(&[("walk", serde_json::json!(summary))]);
            walking::finish(files, &summary, failed)
        }
        None => walking::finish_text(files, &summary, failed),
    }
}
