//! Valid sections: [`generate`] draws a [`Section`] model under a [`Config`] from
//! unstructured bytes and encodes it with the reference writer.
//!
//! "Valid" is strict: [`sframe_spec::validate()`] reports no violation at all, warnings
//! included. Each choice below names the rule that constrains it.

use crate::config::Config;
use crate::edge;
use crate::layout::Layout;
use crate::rows::{self, RowContext};
use arbitrary::{Result, Unstructured};
use sframe_spec::constants::{flags, HEADER_SIZE};
use sframe_spec::{
    encode, BaseReg, FdeType, Fre, FreType, Function, PauthKey, PcType, Section, Version,
};

/// A generated section: the model (with the writer's layout filled in, as
/// [`sframe_spec::decode()`] returns it) and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// Every function has `fre_offset: Some(..)`, so `decode(&bytes) == Ok(section)`.
    pub section: Section,
    pub bytes: Vec<u8>,
}

impl Generated {
    /// Encode `section` and record the layout in the model: the functions' own
    /// `fre_offset`s when all have one, else the writer's dense layout in FDE order.
    ///
    /// # Panics
    /// When the writer refuses the model: the generator and mutator only build models whose
    /// fields hold their values.
    pub fn from_section(mut section: Section) -> Generated {
        if !section.functions.iter().all(|f| f.fre_offset.is_some()) {
            section.clear_layout();
            let layout = Layout::of(&section);
            for (f, off) in section.functions.iter_mut().zip(layout.fre_offsets()) {
                f.fre_offset = Some(off);
            }
        }
        let bytes = encode(&section)
            .unwrap_or_else(|e| panic!("the writer refuses a generated model: {e}\n{section:#?}"));
        Generated { section, bytes }
    }

    /// Byte offsets of every field of [`Generated::bytes`].
    pub fn layout(&self) -> Layout {
        Layout::of(&self.section)
    }
}

/// A valid section under a swarm [`Config`] drawn from the same input: `Generated` is what
/// `arbitrary` gives a fuzz target or a property test that wants any valid section.
impl<'a> arbitrary::Arbitrary<'a> for Generated {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Generated> {
        let cfg: Config = u.arbitrary()?;
        generate(&cfg, u)
    }
}

/// Draw one valid section under `cfg`.
///
/// Fails only when `cfg` allows no target ([`arbitrary::Error::IncorrectFormat`]) or has an
/// empty list ([`arbitrary::Error::EmptyChoose`]); running out of input yields the most
/// ordinary choices, never an error.
pub fn generate(cfg: &Config, u: &mut Unstructured) -> Result<Generated> {
    build(
        cfg,
        Source {
            header: u,
            functions: None,
            empty: Unstructured::new(&[]),
        },
    )
}

/// Like [`generate`], with one input per function: the section-wide choices come from
/// `header`, function `k`'s from `functions[k]`, and there are `functions.len()` functions
/// (within the configuration's bounds, and fewer if the address range runs out). Removing an
/// input removes a function and leaves the others as they were, which is what makes the
/// proptest strategies shrink well.
pub fn generate_with_parts<'a>(
    cfg: &Config,
    header: &mut Unstructured<'a>,
    functions: &mut [Unstructured<'a>],
) -> Result<Generated> {
    build(
        cfg,
        Source {
            header,
            functions: Some(functions),
            empty: Unstructured::new(&[]),
        },
    )
}

/// Where the choices come from.
struct Source<'x, 'a> {
    header: &'x mut Unstructured<'a>,
    /// Per-function inputs; `None`: functions draw from `header` too.
    functions: Option<&'x mut [Unstructured<'a>]>,
    /// Stands in for missing per-function inputs.
    empty: Unstructured<'a>,
}

impl<'a> Source<'_, 'a> {
    fn function(&mut self, k: usize) -> &mut Unstructured<'a> {
        match &mut self.functions {
            None => self.header,
            Some(parts) => parts.get_mut(k).unwrap_or(&mut self.empty),
        }
    }
}

fn build(cfg: &Config, mut src: Source) -> Result<Generated> {
    let targets = cfg.targets();
    if targets.is_empty() {
        return Err(arbitrary::Error::IncorrectFormat);
    }
    let u = &mut *src.header;
    let &(version, abi) = u.choose(&targets)?;
    // Section::new sets the fixed RA offset each ABI needs (HDR-FIXED-RA-AMD64: -8,
    // HDR-FIXED-RA-TRACKED: 0) and the byte order its identifier names (HDR-ABI-ENDIAN).
    let mut s = Section::new(version, abi);
    s.flags = section_flags(cfg, version, u)?;
    if cfg.fixed_fp_offset && edge::chance(u, 1, 4)? {
        s.cfa_fixed_fp_offset = edge::small_i8(u)?;
    }
    let aux_len = usize::from(edge::pick(u, &[0, cfg.max_aux_header_len, 1], |u| {
        u.int_in_range(0..=cfg.max_aux_header_len)
    })?);
    s.aux_header = (0..aux_len).map(|_| u.arbitrary()).collect::<Result<_>>()?;
    let n = match &src.functions {
        None => function_count(cfg, u)?,
        Some(parts) => parts
            .len()
            .clamp(cfg.min_functions, cfg.max_functions.max(cfg.min_functions)),
    };
    let space = AddressSpace::new(cfg, &s, n, u)?;
    let shuffle = u.int_in_range(0..=2u8)?;

    let ctx = RowContext {
        version,
        abi,
        ra_undefined: cfg.ra_undefined,
        s390x_regnum_offsets: cfg.s390x_regnum_offsets,
    };
    let mut functions = Vec::with_capacity(n);
    let mut cursor = i128::from(space.base);
    for k in 0..n {
        let u = src.function(k);
        let Some((start, size)) = space.next(cfg, k, &mut cursor, u)? else {
            break;
        };
        functions.push(function(cfg, &ctx, start, size, u)?);
    }
    // FDE-SORTED: with the flag, FDEs are in increasing address order (they already are).
    if !s.is_sorted_flag() && cfg.shuffle_unsorted {
        match shuffle {
            0 => {}
            1 => functions.reverse(),
            _ => {
                let u = &mut *src.header;
                for i in (1..functions.len()).rev() {
                    let j = u.int_in_range(0..=i)?;
                    functions.swap(i, j);
                }
            }
        }
    }
    s.functions = functions;
    if cfg.shuffle_data && edge::chance(&mut *src.header, 1, 2)? {
        shuffle_data(&mut s, &mut *src.header)?;
    }
    Ok(Generated::from_section(s))
}

/// Lay the functions' data out densely in a random order (FRE-DENSE, FDE-BLOCKS-DISJOINT
/// hold in any order); v1/v2 functions without FREs have empty data, which may start
/// anywhere up to the end of the FRE sub-section (FDE-DATA-FITS).
fn shuffle_data(s: &mut Section, u: &mut Unstructured) -> Result<()> {
    let layout = Layout::of(s);
    let len = |i: usize| layout.functions[i].block.1 - layout.functions[i].block.0;
    let mut order: Vec<usize> = (0..s.functions.len()).filter(|&i| len(i) > 0).collect();
    for i in (1..order.len()).rev() {
        let j = u.int_in_range(0..=i)?;
        order.swap(i, j);
    }
    let mut off = 0u32;
    for &i in &order {
        s.functions[i].fre_offset = Some(off);
        off += len(i) as u32;
    }
    let total = off;
    for f in s.functions.iter_mut().filter(|f| f.fre_offset.is_none()) {
        f.fre_offset = Some(edge::pick(u, &[0, total], |u| u.int_in_range(0..=total))?);
    }
    Ok(())
}

/// Flags defined for the version only (HDR-FLAGS-*, HDR-FLAG-VERSION).
fn section_flags(cfg: &Config, version: Version, u: &mut Unstructured) -> Result<u8> {
    let mut f = 0;
    if cfg.sorted.map_or_else(|| u.arbitrary(), Ok)? {
        f |= flags::FDE_SORTED;
    }
    if version != Version::V1 && cfg.pcrel.map_or_else(|| u.arbitrary(), Ok)? {
        f |= flags::FDE_FUNC_START_PCREL;
    }
    if version != Version::V3 && cfg.frame_pointer_flag.map_or_else(|| u.arbitrary(), Ok)? {
        f |= flags::FRAME_POINTER;
    }
    Ok(f)
}

/// Mostly a handful of functions; sometimes none, one, or the maximum.
fn function_count(cfg: &Config, u: &mut Unstructured) -> Result<usize> {
    let (min, max) = (cfg.min_functions, cfg.max_functions.max(cfg.min_functions));
    if u.ratio(1u8, 6)? {
        return Ok(*u.choose(&[min, (min + 1).min(max), max])?);
    }
    // Zero functions is an edge case: drawn above only.
    let lo = min.max(1).min(max);
    let few = max.min(lo + 8);
    if u.ratio(7u8, 8)? {
        u.int_in_range(lo..=few)
    } else {
        u.int_in_range(lo..=max)
    }
}

/// The range function start addresses may take, and where the first one goes.
///
/// v1/v2 start fields are int32: without PCREL the start itself must fit; with PCREL the
/// field holds `start - field_offset`, so the lowest start leaves room for the FDE's offset
/// in the section. v3 fields are int64; function ends are kept within int64 too.
struct AddressSpace {
    version: Version,
    hi: i64,
    base: i64,
}

impl AddressSpace {
    fn new(cfg: &Config, s: &Section, n: usize, u: &mut Unstructured) -> Result<AddressSpace> {
        let max_field_off =
            (HEADER_SIZE + s.aux_header.len() + n * s.version.fde_entry_size()) as i64;
        let pcrel = s.version != Version::V1 && s.is_pcrel();
        let (lo, hi): (i64, i64) = match s.version {
            Version::V3 => (i64::MIN, i64::MAX),
            _ => (
                i64::from(i32::MIN) + if pcrel { max_field_off } else { 0 },
                i64::from(i32::MAX),
            ),
        };
        let base = if cfg.wide_addresses {
            edge::pick(u, &[0x1000, 0, lo, hi - 0x1_0000, -0x1000, hi - 1], |u| {
                u.int_in_range(lo..=hi)
            })?
        } else {
            u.int_in_range(-0x10_0000..=0x10_0000)?
        };
        Ok(AddressSpace {
            version: s.version,
            hi,
            base,
        })
    }

    /// The `k`th function's range after `cursor` (the end of the previous one): increasing
    /// and non-overlapping, sizes at least 1 (FDE-OVERLAP, FDE-SIZE-ZERO); `None` when the
    /// start field's range has run out.
    fn next(
        &self,
        cfg: &Config,
        k: usize,
        cursor: &mut i128,
        u: &mut Unstructured,
    ) -> Result<Option<(i64, u32)>> {
        let gap: i128 = if k == 0 {
            0
        } else if cfg.wide_addresses {
            edge::pick(u, &[0, 1, 16], |u| {
                if u.ratio(3u8, 4)? {
                    u.int_in_range(0..=4096)
                } else {
                    u.int_in_range(0..=u32::MAX as i128)
                }
            })?
        } else {
            edge::pick(u, &[0, 1, 16], |u| u.int_in_range(0..=4096))?
        };
        let start = *cursor + gap;
        if start > i128::from(self.hi) {
            return Ok(None);
        }
        let mut size = edge::function_size(u, cfg.max_function_size)?;
        if self.version == Version::V3 {
            let room = (i128::from(i64::MAX) - start).min(i128::from(u32::MAX)) as u32;
            size = size.min(room);
            if size == 0 {
                return Ok(None);
            }
        }
        *cursor = start + i128::from(size);
        Ok(Some((start as i64, size)))
    }
}

/// One function with valid FDE fields and FREs.
fn function(
    cfg: &Config,
    ctx: &RowContext,
    start: i64,
    size: u32,
    u: &mut Unstructured,
) -> Result<Function> {
    let v = ctx.version;
    let mut f = Function::new(start, size);
    f.pc_type = *u.choose(&cfg.pc_types)?;
    if v == Version::V3 {
        f.fde_type = *u.choose(&cfg.fde_types)?;
    }
    // FDE-REP-SIZE / FDE-REP-SIZE-INC: a mask FDE has a non-zero block size, an
    // increment FDE none (v1 has no such field).
    if f.pc_type == PcType::Mask && v != Version::V1 {
        f.rep_size = edge::pick(u, &[16, 1, 255, 2], |u| u.int_in_range(1..=255))?;
    }
    // FRE-START-IN-FUNCTION: starts below the function size, or the repeated block's size.
    let span = match (f.pc_type, v) {
        (PcType::Mask, Version::V2 | Version::V3) => u64::from(f.rep_size),
        _ => u64::from(size),
    };
    let narrowest = FreType::for_start((span - 1).min(u64::from(u32::MAX)) as u32);
    f.fre_type = if cfg.fre_types.contains(&narrowest) && u.ratio(1u8, 2)? {
        narrowest
    } else {
        *u.choose(&cfg.fre_types)?
    };
    let limit = span.min(f.fre_type.limit());
    let cap = (cfg.max_fres as u64).min(limit) as usize;
    let mut n = edge::count(u, cfg.min_fres.min(cap), cap)?;
    // FDE-SIGNAL-FRES: a signal frame has at least one FRE.
    if v == Version::V3 && cfg.signal_frames && edge::chance(u, 1, 8)? {
        f.signal = true;
        n = n.max(1);
    }
    // FDE-PAUTH-ABI: key B only on AArch64.
    if ctx.abi.is_aarch64() && cfg.pauth_key_b && u.arbitrary()? {
        f.pauth_key = PauthKey::B;
    }
    // FRE-FIRST-AT-ZERO (PC-increment), FRE-START-ORDER.
    let starts = fre_starts(u, n, f.pc_type == PcType::Inc, limit)?;
    for start in starts {
        f.fres.push(fre(cfg, ctx, f.fde_type, start, u)?);
    }
    Ok(f)
}

/// `n` strictly increasing starts below `limit` (`n <= limit`), the first 0 when
/// `first_zero`: consecutive, spread out, or ending at `limit - 1`.
fn fre_starts(u: &mut Unstructured, n: usize, first_zero: bool, limit: u64) -> Result<Vec<u32>> {
    let mut out = Vec::with_capacity(n);
    if n == 0 {
        return Ok(out);
    }
    let n64 = n as u64;
    let first = if first_zero {
        0
    } else {
        edge::pick(u, &[0, limit - n64], |u| u.int_in_range(0..=limit - n64))?
    };
    out.push(first as u32);
    let mut prev = first;
    for k in 1..n64 {
        let lo = prev + 1;
        let hi = limit - (n64 - k);
        let next = edge::pick(u, &[lo, hi], |u| {
            if u.ratio(3u8, 4)? {
                u.int_in_range(lo..=hi.min(lo + 15))
            } else {
                u.int_in_range(lo..=hi)
            }
        })?;
        out.push(next as u32);
        prev = next;
    }
    Ok(out)
}

/// One FRE of a function of `fde_type`, with data words valid for the ABI and version.
fn fre(
    cfg: &Config,
    ctx: &RowContext,
    fde_type: FdeType,
    start: u32,
    u: &mut Unstructured,
) -> Result<Fre> {
    let size = *u.choose(&cfg.dataword_sizes)?;
    let datawords = match fde_type {
        FdeType::Default => {
            // FRE-COUNT-ZERO-V1, FRE-COUNT-MAX, FRE-COUNT-AMD64/AARCH64/S390X,
            // FRE-S390X-V3-REGNUM, FRE-S390X-RA-PADDING.
            let counts = rows::default_counts(ctx.version, ctx.abi, ctx.ra_undefined);
            let count = *u.choose(&counts)?;
            rows::default_words(u, ctx, size, count)?
        }
        FdeType::Flex => {
            // FLEX-LAYOUT, FLEX-CFA-REG, FLEX-FP-CONTROL, FLEX-CONTROL-UNUSED.
            let count = *u.choose(&rows::flex_counts(ctx.ra_undefined))?;
            rows::flex_words(u, ctx.abi, size, count)?
        }
    };
    Ok(Fre {
        start,
        base_reg: if u.arbitrary()? {
            BaseReg::Sp
        } else {
            BaseReg::Fp
        },
        // FRE-MANGLED-RA-ABI: AArch64 only.
        mangled_ra: ctx.abi.is_aarch64() && cfg.mangled_ra && edge::chance(u, 1, 4)?,
        dataword_size: size,
        datawords,
    })
}
