//! `simple-frame-rs` (crates.io, by Jiajie Chen), in this process behind `catch_unwind`.
//!
//! Its public API gives per FDE the resolved start PC (`get_pc` with section base 0, so
//! section-relative), size, info-byte fields and an FRE iterator; per FRE the start address,
//! the info byte, and the CFA/RA/FP offsets (`None` when absent), and for v3 flex FDEs the
//! control/offset pairs. Those numbers become [`sframe_spec::Loc`]s through [`sframe_harness::impls::norm`],
//! as for every foreign implementation, except where the crate has its own reading:
//!
//! - v1: an RA/FP offset is the slot at CFA+offset (fixed or tracked alike);
//! - v3: an FRE without data words is "RA undefined" (as its dumper prints); v1/v2 have no
//!   such reading, so the getters' answers stand;
//! - flex: the control word is the crate's sign-extended `i32`, read through its own
//!   `reg_p`/`deref_p`/`regnum` accessors; an absent or padding RA/FP pair means the header's
//!   fixed offset or "unchanged".
//!
//! A panic is reported as a crash with signal `panic`.

use fallible_iterator::FallibleIterator;
use sframe_harness::impls::guard::guarded;
use sframe_harness::impls::norm;
use sframe_harness::impls::norm::Ctx;
use sframe_harness::impls::{
    BenchTiming, Decoded, Found, FreFacts, FunctionFacts, HeaderFacts, Implementation, Outcome, Row,
};
use sframe_spec::{Base, FdeType, Loc, Stored, Version};
use simple_frame_rs::{SFrameError, SFrameFRE, SFrameSection};
use std::hint::black_box;

/// The `simple-frame-rs` crate.
#[derive(Debug, Default, Clone, Copy)]
pub struct SimpleFrame;

/// The crate version this adapter is built against (pinned by `Cargo.lock`).
pub const VERSION: &str = "0.3.0";

fn err_class(e: &SFrameError) -> String {
    format!("{e:?}")
}

fn rejected<T>(e: SFrameError) -> Outcome<T> {
    Outcome::rejected(err_class(&e), Some(e.to_string()))
}

/// The [`Ctx`] of a section `$s` of the crate's module `$m` (`v1`, `v2`, `v3`: distinct types
/// with the same getters).
macro_rules! ctx {
    ($m:ident, $s:expr) => {
        Ctx {
            abi: $m::abi($s.get_abi()),
            version: $m::VERSION,
            fixed_fp: $s.get_cfa_fixed_fp_offset(),
            fixed_ra: $s.get_cfa_fixed_ra_offset(),
        }
    };
}

fn loc_of(ctx: Ctx, o: Option<i32>, is_ra: bool) -> Loc {
    match o {
        None => Loc::SameValue,
        Some(o) if ctx.version == 1 => norm::slot(i64::from(o)),
        Some(o) => norm::tracked(ctx.abi, ctx.version, i64::from(o), is_ra),
    }
}

/// The rules of one FRE of a default-type FDE, from the crate's getters.
fn default_row(
    ctx: Ctx,
    base_reg: u8,
    words: usize,
    cfa: Option<i32>,
    ra: Option<i32>,
    fp: Option<i32>,
    mangled: bool,
) -> Row {
    if words == 0 && ctx.version == 3 {
        return Row::outermost(mangled);
    }
    Row {
        cfa: Some(cfa.map_or(Loc::Undefined, |o| {
            norm::cfa(ctx.abi, base_reg, i64::from(o))
        })),
        ra: Some(loc_of(ctx, ra, true)),
        fp: Some(loc_of(ctx, fp, false)),
        ra_mangled: Some(mangled),
    }
}

/// [`default_row`] of an FRE `$fre` of a section `$s` of the crate's v1, v2 or v3 types.
macro_rules! default_fre_row {
    ($ctx:expr, $s:expr, $fre:expr) => {
        default_row(
            $ctx,
            $fre.info.get_cfa_base_reg_id(),
            $fre.stack_offsets.len(),
            $fre.get_cfa_offset($s),
            $fre.get_ra_offset($s),
            $fre.get_fp_offset($s),
            $fre.info.get_mangled_ra_p(),
        )
    };
}

fn flex_rule(r: &v3::SFrameFlexRecoveryRule) -> Loc {
    let c = r.control;
    let base = if c.reg_p() {
        Base::Reg(c.regnum() as u32)
    } else {
        Base::Cfa
    };
    Loc::Expr {
        base,
        offset: i64::from(r.offset),
        deref: c.deref_p(),
    }
}

/// The rules of one FRE of a v3 FDE.
fn v3_row(ctx: Ctx, s: &v3::SFrameSection<'_>, flex: bool, fre: &v3::SFrameFRE) -> Row {
    let mangled = fre.info.get_mangled_ra_p();
    let words = fre.stack_offsets.len();
    if !flex {
        return default_fre_row!(ctx, s, fre);
    }
    if words == 0 {
        return Row::outermost(mangled);
    }
    let Some(rules) = fre.get_flex_recovery_rules() else {
        return Row::unknown(mangled);
    };
    let fallback = |fixed: i8| norm::fixed(fixed).unwrap_or(Loc::SameValue);
    let ra = match &rules.ra {
        Some(r) if !r.control.is_padding() => flex_rule(r),
        _ => fallback(ctx.fixed_ra),
    };
    let fp = match &rules.fp {
        Some(r) if !r.control.is_padding() => flex_rule(r),
        _ => fallback(ctx.fixed_fp),
    };
    Row {
        cfa: Some(flex_rule(&rules.cfa)),
        ra: Some(ra),
        fp: Some(fp),
        ra_mangled: Some(mangled),
    }
}

fn header(ctx: Ctx, flags: u8, num_fdes: u32) -> HeaderFacts {
    HeaderFacts {
        version: Some(ctx.version),
        flags: Some(flags),
        abi: Some(ctx.abi.id()),
        cfa_fixed_fp_offset: Some(ctx.fixed_fp),
        cfa_fixed_ra_offset: Some(ctx.fixed_ra),
        num_fdes: Some(num_fdes),
        num_fres: None,
    }
}

/// Collect FREs from the crate's fallible iterator into `f`, noting the first error.
fn collect_fres<I, T>(f: &mut FunctionFacts, mut it: I, mut conv: impl FnMut(&T) -> FreFacts)
where
    I: FallibleIterator<Item = T, Error = SFrameError>,
{
    loop {
        match it.next() {
            Ok(Some(fre)) => f.fres.push(conv(&fre)),
            Ok(None) => break,
            Err(e) => {
                f.error = Some(err_class(&e).into());
                break;
            }
        }
    }
}

/// The crate's per-version modules, with what this adapter needs of each beside the crate's
/// own getters: the version number and the ABI enumeration as [`sframe_spec::Abi`].
macro_rules! version_module {
    ($m:ident, $version:literal $(, $s390:ident)?) => {
        mod $m {
            pub use simple_frame_rs::$m::*;
            use sframe_spec::Abi;

            pub const VERSION: u8 = $version;

            pub fn abi(a: SFrameABI) -> Abi {
                match a {
                    SFrameABI::AArch64BigEndian => Abi::Aarch64Be,
                    SFrameABI::AArch64LittleEndian => Abi::Aarch64Le,
                    SFrameABI::AMD64LittleEndian => Abi::Amd64,
                    $(SFrameABI::$s390 => Abi::S390x,)?
                }
            }
        }
    };
}
version_module!(v1, 1);
version_module!(v2, 2, S390XBigEndian);
version_module!(v3, 3, S390XBigEndian);

/// Decode a section `s` of the crate's module `$m`. Per FDE `fde`: `$pc_type`, `$fde_type`
/// and `$rep_size` are what differs between the versions' getters; per FRE `fre`, `$row` is
/// its row (with `ctx`).
macro_rules! decode_sections {
    (
        $name:ident, $m:ident, |$s:ident, $ctx:ident, $fde:ident, $fre:ident|
        pc_type: $pc_type:expr, fde_type: $fde_type:expr, rep_size: $rep_size:expr, row: $row:expr
    ) => {
        fn $name($s: &$m::SFrameSection<'_>) -> Result<Decoded, SFrameError> {
            let $ctx = ctx!($m, $s);
            let mut d = Decoded {
                header: header($ctx, $s.get_flags().bits(), $s.get_fde_count()),
                functions: Vec::new(),
            };
            for i in 0..$s.get_fde_count() {
                let Some($fde) = $s.get_fde(i)? else { break };
                let mut f = FunctionFacts {
                    start: Some($fde.get_pc($s) as i64),
                    size: Some($fde.func_size),
                    fre_type: $fde
                        .func_info
                        .get_fre_type()
                        .ok()
                        .map(|t| Stored::from(t as u8)),
                    pc_type: $pc_type.ok().map(|t| Stored::from(t as u8)),
                    fde_type: $fde_type,
                    rep_size: $rep_size,
                    num_fres: Some(u32::from($fde.func_num_fres)),
                    ..FunctionFacts::default()
                };
                collect_fres(&mut f, $fde.iter_fre($s), |$fre: &$m::SFrameFRE| FreFacts {
                    start: Some($fre.start_address.get()),
                    row: $row,
                });
                d.functions.push(f);
            }
            Ok(d)
        }
    };
}

decode_sections!(decode_v1, v1, |s, ctx, fde, fre|
    pc_type: fde.func_info.get_fde_type(), fde_type: Some(FdeType::Default.into()), rep_size: None,
    row: default_fre_row!(ctx, s, fre));
decode_sections!(decode_v2, v2, |s, ctx, fde, fre|
    pc_type: fde.func_info.get_fde_type(), fde_type: Some(FdeType::Default.into()),
    rep_size: Some(fde.func_rep_size),
    row: default_fre_row!(ctx, s, fre));
decode_sections!(decode_v3, v3, |s, ctx, fde, fre|
    pc_type: fde.func_info.get_fde_pctype(),
    fde_type: fde.get_fde_type().ok().map(|t| Stored::from(t as u8)),
    rep_size: Some(fde.func_rep_size),
    row: v3_row(ctx, s, is_flex(&fde), fre));

fn is_flex(fde: &v3::SFrameFDE) -> bool {
    matches!(fde.get_fde_type(), Ok(v3::SFrameFDEType::Flex))
}

/// The section's load address given to the crate: its API takes absolute `u64` PCs, while
/// PCs here are section-relative (and negative when code precedes the section).
const BASE: u64 = 1 << 48;

fn rel(pc: u64) -> i64 {
    pc.wrapping_sub(BASE) as i64
}

/// The row the crate finds for `pc` (section-relative), in a section loaded at [`BASE`].
fn find(section: &SFrameSection<'_>, pc: i64) -> Result<Option<Found>, SFrameError> {
    let pc = BASE.wrapping_add(pc as u64);
    let Some(fde) = section.find_fde(pc)? else {
        return Ok(None);
    };
    let Some(fre) = fde.find_fre(section, pc)? else {
        return Ok(None);
    };
    use simple_frame_rs::SFrameFDE as Fde;
    let (start, fre_start, row) = match (&fde, &fre, section) {
        (Fde::V1(fde), SFrameFRE::V1(fre), SFrameSection::V1(s)) => (
            fde.get_pc(s),
            fre.start_address.get(),
            default_fre_row!(ctx!(v1, s), s, fre),
        ),
        (Fde::V2(fde), SFrameFRE::V2(fre), SFrameSection::V2(s)) => (
            fde.get_pc(s),
            fre.start_address.get(),
            default_fre_row!(ctx!(v2, s), s, fre),
        ),
        (Fde::V3(fde), SFrameFRE::V3(fre), SFrameSection::V3(s)) => (
            fde.get_pc(s),
            fre.start_address.get(),
            v3_row(ctx!(v3, s), s, is_flex(fde), fre),
        ),
        _ => return Err(SFrameError::UnsupportedVersion),
    };
    let found = Found {
        function_start: Some(rel(start)),
        fre_start: Some(fre_start),
        row,
    };
    Ok(Some(found))
}

impl Implementation for SimpleFrame {
    fn name(&self) -> String {
        "simple-frame-rs".into()
    }
    fn version(&self) -> String {
        format!("simple-frame-rs {VERSION}")
    }
    fn supports(&self, _version: Version) -> bool {
        true
    }
    fn decode(&self, data: &[u8]) -> Outcome<Decoded> {
        guarded(|| {
            let r = match SFrameSection::from(data, 0) {
                Ok(SFrameSection::V1(s)) => decode_v1(&s),
                Ok(SFrameSection::V2(s)) => decode_v2(&s),
                Ok(SFrameSection::V3(s)) => decode_v3(&s),
                Err(e) => Err(e),
            };
            match r {
                Ok(d) => Outcome::ok(d),
                Err(e) => rejected(e),
            }
        })
    }
    fn find_fre(&self, data: &[u8], pc: i64) -> Outcome<Option<Found>> {
        guarded(
            || match SFrameSection::from(data, BASE).and_then(|s| find(&s, pc)) {
                Ok(f) => Outcome::ok(f),
                Err(e) => rejected(e),
            },
        )
    }
    fn bench_find(&self, data: &[u8], pcs: &[i64], rounds: u32) -> Outcome<BenchTiming> {
        guarded(|| {
            let s = match SFrameSection::from(data, BASE) {
                Ok(s) => s,
                Err(e) => return rejected(e),
            };
            Outcome::ok(BenchTiming::measure(pcs, rounds, |pc| {
                let pc = BASE.wrapping_add(pc as u64);
                let Ok(Some(fde)) = s.find_fde(pc) else {
                    return false;
                };
                let Ok(Some(fre)) = fde.find_fre(&s, pc) else {
                    return false;
                };
                black_box(fre.get_cfa_offset(&s).ok());
                true
            }))
        })
    }
}
