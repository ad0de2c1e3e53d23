//! `sframe-conform dump`: a readable listing of a section (in the spirit of
//! `objdump --sframe`), or its normalized model as JSON.

use serde_json::{json, Value};
use sframe_spec::constants::flags;
use sframe_spec::{Abi, Base, FdeType, Loc, PcType, Section};

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
    let mut o = String::new();
    o.push_str("  Header :\n\n");
    o.push_str(&format!(
        "    Version: SFRAME_VERSION_{}\n",
        s.version.number()
    ));
    o.push_str(&format!("    Flags: {}\n", flag_names(s.flags)));
    o.push_str(&format!(
        "    ABI: {} ({}), {}-endian\n",
        s.abi,
        s.abi.id(),
        s.endian.name()
    ));
    o.push_str(&format!(
        "    CFA fixed FP offset: {}\n",
        s.cfa_fixed_fp_offset
    ));
    o.push_str(&format!(
        "    CFA fixed RA offset: {}\n",
        s.cfa_fixed_ra_offset
    ));
    if !s.aux_header.is_empty() {
        o.push_str(&format!(
            "    Auxiliary header: {} bytes\n",
            s.aux_header.len()
        ));
    }
    o.push_str(&format!(
        "    Num FDEs: {}\n    Num FREs: {}\n\n  Function Index :\n",
        s.functions.len(),
        s.num_fres()
    ));
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
        o.push_str(&format!(
            "\n    func idx [{i}]: pc = {pc:#x}, size = {} bytes, {}\n",
            f.size,
            attrs.join(", ")
        ));
        o.push_str(&format!(
            "    {:<18}{:<14}{:<14}{:<14}\n",
            "STARTPC", "CFA", "FP", "RA"
        ));
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
            o.push_str(&format!("    {start:016x}  {cfa:<14}{fp:<14}{ra:<14}\n"));
        }
    }
    o
}

/// The normalized model as JSON, with each row's recovery rules.
pub fn render_json(s: &Section, vaddr: u64) -> Value {
    json!({
        "version": s.version.number(),
        "abi": s.abi.name(),
        "endian": s.endian.name(),
        "flags": s.flags,
        "flag_names": flag_names(s.flags),
        "cfa_fixed_fp_offset": s.cfa_fixed_fp_offset,
        "cfa_fixed_ra_offset": s.cfa_fixed_ra_offset,
        "aux_header_len": s.aux_header.len(),
        "section_vaddr": vaddr,
        "num_fres": s.num_fres(),
        "functions": s.functions.iter().map(|f| json!({
            "start": f.start,
            "pc": vaddr.wrapping_add(f.start as u64),
            "size": f.size,
            "fre_type": f.fre_type,
            "pc_type": f.pc_type,
            "fde_type": f.fde_type,
            "pauth_key": f.pauth_key,
            "signal": f.signal,
            "rep_size": f.rep_size,
            "fre_offset": f.fre_offset,
            "fres": f.fres.iter().map(|fre| json!({
                "start": fre.start,
                "base_reg": fre.base_reg,
                "mangled_ra": fre.mangled_ra,
                "dataword_size": fre.dataword_size.bytes(),
                "datawords": fre.datawords,
                "rules": s.recovery(f, fre).ok(),
                "rules_error": s.recovery(f, fre).err().map(|r| r.id()),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}
