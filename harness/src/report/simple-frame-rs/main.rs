//! sframe-conform's look-up program for simple-frame-rs bug reports.
//!
//! Reads a raw SFrame section with simple-frame-rs's public API, loaded at address 0
//! (`SFrameSection::from(data, 0)`), and prints what the crate answers: the parse result;
//! every FDE (`get_fde`: `get_pc`, `func_size`) with its FREs (`iter_fre`: start, CFA base,
//! and the CFA/RA/FP offsets of the getters, or the flexible-FDE rules); and for each PC
//! given, the FDE `find_fde` finds and the FRE `find_fre` finds in it.
//!
//! Usage: cargo run -q -- SECTION [PC...]   (PCs decimal or 0x-hex, may be negative)

use fallible_iterator::FallibleIterator;
use simple_frame_rs::{SFrameFDE, SFrameFRE, SFrameSection};

fn parse_pc(s: &str) -> u64 {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s),
    };
    let v = match digits.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => digits.parse(),
    }
    .unwrap_or_else(|e| panic!("PC {s}: {e}"));
    if neg {
        v.wrapping_neg()
    } else {
        v
    }
}

/// An FRE as the crate's getters give it; `flex`: the rules of a v3 flexible FDE.
fn fre_text(section: &SFrameSection<'_>, fre: &SFrameFRE, flex: bool) -> String {
    let start = match fre {
        SFrameFRE::V1(f) => f.start_address.get(),
        SFrameFRE::V2(f) => f.start_address.get(),
        SFrameFRE::V3(f) => f.start_address.get(),
    };
    let rules = match (fre, flex) {
        (SFrameFRE::V3(f), true) => f.get_flex_recovery_rules(),
        _ => {
            let base = if fre.get_cfa_base_reg_id() == 0 {
                "fp"
            } else {
                "sp"
            };
            return format!(
                "FRE start {start:#x}: CFA base {base}, CFA offset {:?}, RA offset {:?}, FP offset {:?}",
                fre.get_cfa_offset(section).ok().flatten(),
                fre.get_ra_offset(section).ok().flatten(),
                fre.get_fp_offset(section).ok().flatten(),
            );
        }
    };
    let Some(r) = rules else {
        return format!("FRE start {start:#x}: flex: no rules");
    };
    let rule = |name: &str, r: &simple_frame_rs::v3::SFrameFlexRecoveryRule| {
        format!(
            "{name}: reg_p {}, deref_p {}, regnum {}, offset {}",
            r.control.reg_p(),
            r.control.deref_p(),
            r.control.regnum(),
            r.offset
        )
    };
    let mut text = vec![rule("CFA", &r.cfa)];
    text.extend(r.ra.as_ref().map(|ra| rule("RA", ra)));
    text.extend(r.fp.as_ref().map(|fp| rule("FP", fp)));
    format!("FRE start {start:#x}: flex {}", text.join("; "))
}

/// Every FDE of a section of the crate's module `$m` (`v1`, `v2`, `v3`), with its FREs.
macro_rules! list {
    ($outer:expr, $s:expr, $variant:ident) => {{
        let s = $s;
        for i in 0..s.get_fde_count() {
            let fde = match s.get_fde(i) {
                Ok(Some(fde)) => fde,
                Ok(None) => {
                    println!("FDE {i}: none");
                    continue;
                }
                Err(e) => {
                    println!("FDE {i}: Err({e:?})");
                    continue;
                }
            };
            println!(
                "FDE {i}: pc {:#x}, size {}, {} FREs at FRE sub-section offset {:#x}",
                fde.get_pc(s),
                fde.func_size,
                fde.func_num_fres,
                fde.func_start_fre_off
            );
            let flex = is_flex(&SFrameFDE::$variant(fde));
            let mut fres = fde.iter_fre(s);
            loop {
                match fres.next() {
                    Ok(Some(fre)) => {
                        println!("  {}", fre_text($outer, &SFrameFRE::$variant(fre), flex))
                    }
                    Ok(None) => break,
                    Err(e) => {
                        println!("  FRE: Err({e:?})");
                        break;
                    }
                }
            }
        }
    }};
}

/// The FDE's start (`get_pc`) and size.
fn fde_range(section: &SFrameSection<'_>, fde: &SFrameFDE) -> (u64, u32) {
    match (section, fde) {
        (SFrameSection::V1(s), SFrameFDE::V1(f)) => (f.get_pc(s), f.func_size),
        (SFrameSection::V2(s), SFrameFDE::V2(f)) => (f.get_pc(s), f.func_size),
        (SFrameSection::V3(s), SFrameFDE::V3(f)) => (f.get_pc(s), f.func_size),
        _ => unreachable!("an FDE of another version"),
    }
}

fn is_flex(fde: &SFrameFDE) -> bool {
    matches!(fde, SFrameFDE::V3(f) if matches!(f.get_fde_type(), Ok(simple_frame_rs::v3::SFrameFDEType::Flex)))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: sframe-lookup SECTION [PC...]");
        std::process::exit(2);
    };
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let section = match SFrameSection::from(&data, 0) {
        Ok(s) => s,
        Err(e) => {
            println!("SFrameSection::from: Err({e:?})");
            std::process::exit(1);
        }
    };
    match &section {
        SFrameSection::V1(s) => list!(&section, s, V1),
        SFrameSection::V2(s) => list!(&section, s, V2),
        SFrameSection::V3(s) => list!(&section, s, V3),
    }
    for pc in &args[1..] {
        let pc = parse_pc(pc);
        let fde = match section.find_fde(pc) {
            Ok(Some(fde)) => fde,
            Ok(None) => {
                println!("pc {pc:#x}: find_fde: no FDE");
                continue;
            }
            Err(e) => {
                println!("pc {pc:#x}: find_fde: Err({e:?})");
                continue;
            }
        };
        let (start, size) = fde_range(&section, &fde);
        let found = match fde.find_fre(&section, pc) {
            Ok(Some(fre)) => fre_text(&section, &fre, is_flex(&fde)),
            Ok(None) => "find_fre: no FRE".to_string(),
            Err(e) => format!("find_fre: Err({e:?})"),
        };
        println!("pc {pc:#x}: FDE pc {start:#x}, size {size}; {found}");
    }
}
