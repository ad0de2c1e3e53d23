//! Malformed and invalid sections: [`mutate`] breaks a valid [`Generated`] section in one
//! named way and tags the result with exactly the catalogue rules the change breaks.
//!
//! Each [`MutationKind`] works either on the model (re-encoded by the reference writer,
//! which writes whatever the fields can hold) or on the bytes at offsets computed by
//! [`Layout`] from the model, never through the reader under test. The tags are computed
//! from the section being mutated, so that they are exact: a change that, say, makes an FDE
//! unreadable also tags `HDR-NUM-FRES` when that FDE's FREs no longer count.

use crate::edge;
use crate::generate::Generated;
use crate::layout::Layout;
use crate::rows;
use arbitrary::{Result, Unstructured};
use sframe_spec::constants::{flags, FDE_ATTR_V3_SIZE, HEADER_SIZE, MAX_DATAWORD_COUNT};
use sframe_spec::layout::fde_info::unused_mask as info_unused_mask;
use sframe_spec::layout::header as ho;
use sframe_spec::layout::{fde_info, fde_info2, fre_info, FdeLayout, WORD_SIZE};
use sframe_spec::{
    encode, Abi, Control, DataWordSize, Endian, FdeType, FreType, PauthKey, PcType, Rule, Section,
    Version,
};

/// A broken section and what it breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mutated {
    pub bytes: Vec<u8>,
    /// Every rule the bytes break (sorted, no duplicates). `validate` reports exactly these.
    pub violates: Vec<Rule>,
    /// What was changed, for people.
    pub description: String,
    pub kind: MutationKind,
}

macro_rules! kinds {
    ($( $(#[$doc:meta])* $name:ident => [$($rule:ident),* $(,)?], )*) => {
        /// The ways [`mutate`] breaks a section.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum MutationKind { $( $(#[$doc])* $name, )* }

        impl MutationKind {
            pub const ALL: &'static [MutationKind] = &[ $( MutationKind::$name, )* ];

            /// Every rule a mutation of this kind may be tagged with (depending on the
            /// version, ABI and section).
            pub fn rules(self) -> &'static [Rule] {
                match self { $( MutationKind::$name => &[ $( Rule::$rule, )* ], )* }
            }

            pub fn name(self) -> &'static str {
                match self { $( MutationKind::$name => stringify!($name), )* }
            }
        }
    };
}

kinds! {
    /// Cut the section short: inside the preamble, header, auxiliary header, FDE or FRE
    /// sub-section.
    Truncate => [PreambleMagic, PreambleVersion, HeaderFits, HeaderAuxFits, HeaderFdeSubsectionFits, HeaderFreSubsectionFits],
    /// A magic number that is 0xdee2 in neither byte order.
    Magic => [PreambleMagic],
    /// An undefined version number.
    VersionNumber => [PreambleVersion],
    /// A flag bit no version defines.
    FlagUndefined => [HeaderFlagsReserved, HeaderFlagsUnknownLegacy],
    /// A flag of another version (FRAME_POINTER in v3, FDE_FUNC_START_PCREL in v1).
    FlagOtherVersion => [HeaderFlagVersion],
    /// An ABI/arch identifier the version does not define.
    AbiUnknown => [HeaderAbiKnown],
    /// The other byte order than the ABI identifier names.
    AbiEndian => [HeaderAbiEndian],
    /// An auxiliary header longer than the section.
    AuxHeaderLength => [HeaderAuxFits],
    /// A wrong `sfh_cfa_fixed_ra_offset`.
    FixedRaOffset => [HeaderFixedRaAmd64, HeaderFixedRaTracked],
    /// Bytes between the header and the FDE sub-section (`sfh_fdeoff` != 0).
    FdeOffset => [HeaderFdeOffsetZero],
    /// `sfh_num_fdes` or `sfh_fdeoff` pointing past the end.
    FdeCountTooLarge => [HeaderFdeSubsectionFits],
    /// `sfh_num_fdes` smaller than the FDEs present.
    FdeCountTooSmall => [HeaderFdeSubsectionTiles, HeaderNumFres, FreSubsectionDense],
    /// Bytes between the FDE and FRE sub-sections.
    FreSubsectionOffset => [HeaderFdeSubsectionTiles],
    /// `sfh_fre_len` or `sfh_freoff` pointing past the end.
    FreSubsectionTooLong => [HeaderFreSubsectionFits],
    /// Bytes after the FRE sub-section.
    TrailingBytes => [HeaderSectionEnd],
    /// A wrong `sfh_num_fres`.
    FreCount => [HeaderNumFres],
    /// The sorted flag over FDEs out of address order.
    Unsorted => [FdeSorted],
    /// A function starting inside another.
    Overlap => [FdeOverlap],
    /// An FDE's data offset past the FRE sub-section.
    DataOutside => [FdeDataFits, HeaderNumFres],
    /// An undefined FRE type.
    FreTypeUndefined => [FdeFreType, HeaderNumFres],
    /// An undefined v3 FDE type.
    FdeTypeUndefined => [FdeType, HeaderNumFres],
    /// Unused FDE info bits set.
    InfoUnused => [FdeInfoUnused],
    /// PAuth key B outside AArch64.
    PauthKeyAbi => [FdePauthKeyAbi],
    /// A PC-mask FDE with repetition block size 0.
    RepSizeZero => [FdeRepSizeMask],
    /// A PC-increment FDE with a repetition block size.
    RepSizeOnInc => [FdeRepSizeInc],
    /// Non-zero v2 FDE padding.
    Padding => [FdePadding],
    /// A v3 signal frame without FREs.
    SignalWithoutFres => [FdeSignalV3],
    /// A function of size 0 (in v1 a PC-mask function's FREs then all lie at or past its end).
    SizeZero => [FdeSizeZero, FreStartAtEnd, FreStartInFunction],
    /// Two FDEs pointing at the same data.
    SharedData => [FdeBlocksDisjoint, HeaderNumFres, FreStartAtEnd, FreStartInFunction],
    /// Bytes of the FRE sub-section that belong to no function.
    FreSubsectionGap => [FreSubsectionDense],
    /// The last FRE cut short (in v1/v2, FRE-less FDEs after it then point past the end, and
    /// so does the function itself when all its FREs are cut).
    FreCut => [FreFits, FdeDataFits, HeaderNumFres],
    /// An undefined data-word size.
    DataWordSizeUndefined => [FreDataWordSize],
    /// FRE starts not increasing.
    FreOrder => [FreStartIncreasing],
    /// An FRE starting at the end of its function or repetition block, or past it.
    FreOutside => [FreStartAtEnd, FreStartInFunction, FreFirstAtZero],
    /// A PC-increment function whose first FRE does not start at 0.
    FirstNotAtZero => [FreFirstAtZero],
    /// A v1 FRE without data words.
    NoDataWordsV1 => [FreCountZeroV1],
    /// A v1/v2 FRE with more than 3 data words.
    CountOverMax => [FreCountMax, FreCountAmd64, FreCountS390x],
    /// An AMD64 FRE with 3 or more data words.
    CountAmd64 => [FreCountAmd64, FreCountMax],
    /// A v3 AArch64 FRE with 2 or more than 3 data words.
    CountAarch64 => [FreCountAarch64],
    /// An s390x FRE with more than 3 data words.
    CountS390x => [FreCountS390x, FreCountMax],
    /// The mangled-RA bit outside AArch64.
    MangledRaAbi => [FreMangledRaAbi],
    /// A v3 s390x RA/FP offset encoding a register number (odd).
    S390xRegnum => [FreS390xV3NoRegnum],
    /// An s390x RA padding offset without an FP offset after it.
    S390xRaPadding => [FreS390xRaPadding],
    /// Flex data words in no valid layout.
    FlexLayout => [FlexLayout],
    /// A flex CFA control word without a register.
    FlexCfaRegister => [FlexCfaRegister],
    /// A flex FP control word that is the padding value.
    FlexFpControl => [FlexFpControl],
    /// Bit 2 of a flex control word set.
    FlexControlUnused => [FlexControlUnused],
}

/// Break `valid` in one way drawn from the kinds that apply to it (the header kinds
/// always do).
///
/// `valid` must come from [`generate`](crate::generate()) (or satisfy what it guarantees:
/// no violation, layout filled in).
pub fn mutate(valid: &Generated, u: &mut Unstructured) -> Result<Mutated> {
    let kinds = applicable(valid);
    let kind = *u.choose(&kinds)?;
    Ok(mutate_with(kind, valid, u)?.expect("an applicable kind applies whatever the input"))
}

/// A section broken by one mutation of an arbitrary valid one, with the rules it breaks.
impl<'a> arbitrary::Arbitrary<'a> for Mutated {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Mutated> {
        let valid: Generated = u.arbitrary()?;
        mutate(&valid, u)
    }
}

/// The kinds that apply to `valid`. Whether a kind applies depends on the section only
/// (its version, ABI, functions and FREs), never on the input, so a dry run on empty input
/// decides it.
pub fn applicable(valid: &Generated) -> Vec<MutationKind> {
    MutationKind::ALL
        .iter()
        .copied()
        .filter(|&k| {
            matches!(
                mutate_with(k, valid, &mut Unstructured::new(&[])),
                Ok(Some(_))
            )
        })
        .collect()
}

/// Break `valid` in the way `kind` says, or `None` when the kind does not apply to it (no
/// function with FREs, another version or ABI, ...).
pub fn mutate_with(
    kind: MutationKind,
    valid: &Generated,
    u: &mut Unstructured,
) -> Result<Option<Mutated>> {
    let c = Ctx::new(valid);
    use MutationKind as K;
    match kind {
        K::Truncate => truncate(&c, u),
        K::Magic => magic(&c, u),
        K::VersionNumber => version_number(&c, u),
        K::FlagUndefined => flag_undefined(&c, u),
        K::FlagOtherVersion => flag_other_version(&c),
        K::AbiUnknown => abi_unknown(&c, u),
        K::AbiEndian => abi_endian(&c, u),
        K::AuxHeaderLength => aux_header_length(&c, u),
        K::FixedRaOffset => fixed_ra_offset(&c, u),
        K::FdeOffset => fde_offset(&c, u),
        K::FdeCountTooLarge => fde_count_too_large(&c, u),
        K::FdeCountTooSmall => fde_count_too_small(&c, u),
        K::FreSubsectionOffset => fre_subsection_offset(&c, u),
        K::FreSubsectionTooLong => fre_subsection_too_long(&c, u),
        K::TrailingBytes => trailing_bytes(&c, u),
        K::FreCount => fre_count(&c, u),
        K::Unsorted => unsorted(&c, u),
        K::Overlap => overlap(&c, u),
        K::DataOutside => data_outside(&c, u),
        K::FreTypeUndefined => fre_type_undefined(&c, u),
        K::FdeTypeUndefined => fde_type_undefined(&c, u),
        K::InfoUnused => info_unused(&c, u),
        K::PauthKeyAbi => pauth_key_abi(&c, u),
        K::RepSizeZero => rep_size_zero(&c, u),
        K::RepSizeOnInc => rep_size_on_inc(&c, u),
        K::Padding => padding(&c, u),
        K::SignalWithoutFres => signal_without_fres(&c, u),
        K::SizeZero => size_zero(&c, u),
        K::SharedData => shared_data(&c, u),
        K::FreSubsectionGap => fre_subsection_gap(&c, u),
        K::FreCut => fre_cut(&c, u),
        K::DataWordSizeUndefined => dataword_size_undefined(&c, u),
        K::FreOrder => fre_order(&c, u),
        K::FreOutside => fre_outside(&c, u),
        K::FirstNotAtZero => first_not_at_zero(&c, u),
        K::NoDataWordsV1 => no_datawords_v1(&c, u),
        K::CountOverMax => count_over_max(&c, u),
        K::CountAmd64 => count_amd64(&c, u),
        K::CountAarch64 => count_aarch64(&c, u),
        K::CountS390x => count_s390x(&c, u),
        K::MangledRaAbi => mangled_ra_abi(&c, u),
        K::S390xRegnum => s390x_regnum(&c, u),
        K::S390xRaPadding => s390x_ra_padding(&c, u),
        K::FlexLayout => flex(&c, u, FlexBreak::Layout),
        K::FlexCfaRegister => flex(&c, u, FlexBreak::CfaRegister),
        K::FlexFpControl => flex(&c, u, FlexBreak::FpControl),
        K::FlexControlUnused => flex(&c, u, FlexBreak::ControlUnused),
    }
    .map(|change| {
        change.map(
            |Change {
                 bytes,
                 mut violates,
                 description,
             }| {
                violates.sort();
                violates.dedup();
                Mutated {
                    bytes,
                    violates,
                    description,
                    kind,
                }
            },
        )
    })
}

/// What one mutation function produces.
struct Change {
    bytes: Vec<u8>,
    violates: Vec<Rule>,
    description: String,
}

type Out = Result<Option<Change>>;

/// A change that applies.
fn done(bytes: Vec<u8>, violates: Vec<Rule>, description: String) -> Out {
    Ok(Some(Change {
        bytes,
        violates,
        description,
    }))
}

/// The section being mutated, and shorthands.
struct Ctx<'a> {
    g: &'a Generated,
    s: &'a Section,
    layout: Layout,
    e: Endian,
    v: Version,
    /// The FDE fields of `v`.
    fde: FdeLayout,
    abi: Abi,
}

impl<'a> Ctx<'a> {
    fn new(g: &'a Generated) -> Ctx<'a> {
        Ctx {
            g,
            s: &g.section,
            layout: g.layout(),
            e: g.section.endian,
            v: g.section.version,
            fde: FdeLayout::of(g.section.version),
            abi: g.section.abi,
        }
    }

    fn n(&self) -> usize {
        self.s.functions.len()
    }

    /// Overwrite a field of `width` bytes in the section's byte order.
    fn put(&self, b: &mut [u8], off: usize, value: u64, width: usize) {
        assert!(
            self.e.write_at(b, off, value, width),
            "field at {off:#x} lies outside the section"
        );
    }

    fn read_u32(&self, off: usize) -> u32 {
        self.e
            .read_u32(&self.g.bytes, off)
            .expect("header field inside the section")
    }

    /// Encode a mutated model; the writer lays functions out densely unless every function
    /// has an explicit `fre_offset`.
    fn encode(&self, s: &Section) -> Vec<u8> {
        encode(s).unwrap_or_else(|e| panic!("the writer refuses a mutated model: {e}\n{s:#?}"))
    }

    /// A copy of the model with the layout cleared, for changes that resize data.
    fn model(&self) -> Section {
        let mut s = self.s.clone();
        s.clear_layout();
        s
    }

    /// The block limit of function `i`'s FRE starts (FRE-START-IN-FUNCTION): the repetition
    /// block for v2/v3 PC-mask FDEs, the function size otherwise.
    fn fre_limit(&self, i: usize) -> u64 {
        let f = &self.s.functions[i];
        match (f.pc_type, self.v) {
            (PcType::Mask, Version::V2 | Version::V3) => u64::from(f.rep_size),
            _ => u64::from(f.size),
        }
    }
}

/// The rules FRE `starts` break against the end of what they describe, `limit` (the function
/// or repetition block size): FRE-START-AT-END for one starting there, FRE-START-IN-FUNCTION
/// for one starting past it.
fn end_faults(starts: impl IntoIterator<Item = u32>, limit: u32) -> Vec<Rule> {
    let mut out = Vec::new();
    for start in starts {
        let rule = match start.cmp(&limit) {
            core::cmp::Ordering::Less => continue,
            core::cmp::Ordering::Equal => Rule::FreStartAtEnd,
            core::cmp::Ordering::Greater => Rule::FreStartInFunction,
        };
        if !out.contains(&rule) {
            out.push(rule);
        }
    }
    out
}

/// One of the indices `0..n` satisfying `pred`, or `None`.
fn pick_index(
    u: &mut Unstructured,
    n: usize,
    pred: impl Fn(usize) -> bool,
) -> Result<Option<usize>> {
    let candidates: Vec<usize> = (0..n).filter(|&i| pred(i)).collect();
    if candidates.is_empty() {
        return Ok(None);
    }
    Ok(Some(*u.choose(&candidates)?))
}

/// A function satisfying `pred`, and one of its FREs.
fn pick_fre(
    u: &mut Unstructured,
    s: &Section,
    pred: impl Fn(&sframe_spec::Function) -> bool,
) -> Result<Option<(usize, usize)>> {
    let Some(i) = pick_index(u, s.functions.len(), |i| {
        !s.functions[i].fres.is_empty() && pred(&s.functions[i])
    })?
    else {
        return Ok(None);
    };
    let k = u.choose_index(s.functions[i].fres.len())?;
    Ok(Some((i, k)))
}

/// A value in `lo..=hi`, often one of the bounds.
fn in_range_u64(u: &mut Unstructured, lo: u64, hi: u64) -> Result<u64> {
    edge::pick(u, &[lo, hi], |u| u.int_in_range(lo..=hi))
}

// ---- preamble and header ----

fn truncate(c: &Ctx, u: &mut Unstructured) -> Out {
    let len = c.g.bytes.len();
    let l = &c.layout;
    let edges: Vec<usize> = [
        ho::MAGIC,
        ho::MAGIC + 1,
        ho::VERSION,
        ho::FLAGS,
        HEADER_SIZE - 1,
        HEADER_SIZE,
        l.header_size,
        l.fre_start,
        l.fre_start + 1,
        len - 1,
    ]
    .into_iter()
    .filter(|&x| x < len)
    .collect();
    let cut = edge::pick(u, &edges, |u| u.int_in_range(0..=len - 1))?;
    let violates = match cut {
        x if x < ho::VERSION => vec![Rule::PreambleMagic],
        x if x == ho::VERSION => vec![Rule::PreambleVersion],
        x if x < HEADER_SIZE => vec![Rule::HeaderFits],
        x if x < l.header_size => vec![Rule::HeaderAuxFits],
        // The FRE sub-section always ends at the old end; the FDE sub-section ends where
        // the FRE sub-section starts.
        x if x < l.fre_start => vec![Rule::HeaderFdeSubsectionFits, Rule::HeaderFreSubsectionFits],
        _ => vec![Rule::HeaderFreSubsectionFits],
    };
    done(
        c.g.bytes[..cut].to_vec(),
        violates,
        format!("truncated from {len} to {cut} bytes"),
    )
}

fn magic(c: &Ctx, u: &mut Unstructured) -> Out {
    let pair = edge::pick(
        u,
        &[[0u8, 0], [0xde, 0xde], [0xe2, 0xe2], [0xd2, 0xee]],
        |u| u.arbitrary(),
    )?;
    let pair = if Endian::from_magic(&pair).is_some() {
        [0xde, 0xde]
    } else {
        pair
    };
    let mut b = c.g.bytes.clone();
    b[ho::MAGIC..ho::VERSION].copy_from_slice(&pair);
    done(
        b,
        vec![Rule::PreambleMagic],
        format!("magic bytes set to {:02x} {:02x}", pair[0], pair[1]),
    )
}

fn version_number(c: &Ctx, u: &mut Unstructured) -> Out {
    let v = edge::u8_other_than(u, 0, u8::MAX, &[1, 2, 3])?;
    let mut b = c.g.bytes.clone();
    b[ho::VERSION] = v;
    done(
        b,
        vec![Rule::PreambleVersion],
        format!("version set to {v}"),
    )
}

fn flag_undefined(c: &Ctx, u: &mut Unstructured) -> Out {
    // The bits above every flag any version defines (0xf8): the lowest, the highest, all.
    let beyond = !(flags::FDE_SORTED | flags::FRAME_POINTER | flags::FDE_FUNC_START_PCREL);
    let lowest = 1 << beyond.trailing_zeros();
    let bits = edge::pick(u, &[lowest, 0x80, beyond], |u| {
        u.int_in_range(lowest..=beyond)
    })? & beyond;
    let bits = if bits == 0 { lowest } else { bits };
    let mut b = c.g.bytes.clone();
    b[ho::FLAGS] |= bits;
    let rule = if c.v == Version::V3 {
        Rule::HeaderFlagsReserved
    } else {
        Rule::HeaderFlagsUnknownLegacy
    };
    done(
        b,
        vec![rule],
        format!("undefined flag bits {bits:#04x} set"),
    )
}

fn flag_other_version(c: &Ctx) -> Out {
    let flag = match c.v {
        Version::V1 => flags::FDE_FUNC_START_PCREL,
        Version::V2 => return Ok(None), // v2 defines all three flags
        Version::V3 => flags::FRAME_POINTER,
    };
    let mut b = c.g.bytes.clone();
    b[ho::FLAGS] |= flag;
    done(
        b,
        vec![Rule::HeaderFlagVersion],
        format!("flag {flag:#04x} of another version set"),
    )
}

fn abi_unknown(c: &Ctx, u: &mut Unstructured) -> Out {
    let defined: Vec<u8> = Abi::ALL
        .iter()
        .filter(|a| a.defined_in(c.v))
        .map(|a| a.id())
        .collect();
    let id = edge::pick(u, &[0u8, 5, u8::MAX, Abi::S390x.id()], |u| u.arbitrary())?;
    let id = if defined.contains(&id) {
        edge::u8_other_than(u, 5, u8::MAX, &defined)?
    } else {
        id
    };
    let mut b = c.g.bytes.clone();
    b[ho::ABI_ARCH] = id;
    done(
        b,
        vec![Rule::HeaderAbiKnown],
        format!("ABI identifier set to {id}"),
    )
}

fn abi_endian(c: &Ctx, u: &mut Unstructured) -> Out {
    if c.abi.is_aarch64() && u.arbitrary()? {
        // The other AArch64 identifier: same ABI, other byte order.
        let other = if c.abi == Abi::Aarch64Le {
            Abi::Aarch64Be
        } else {
            Abi::Aarch64Le
        };
        let mut b = c.g.bytes.clone();
        b[ho::ABI_ARCH] = other.id();
        return done(
            b,
            vec![Rule::HeaderAbiEndian],
            format!(
                "ABI identifier {} in a {} endian section",
                other,
                c.e.name()
            ),
        );
    }
    let mut s = c.s.clone();
    s.endian = if c.e == Endian::Little {
        Endian::Big
    } else {
        Endian::Little
    };
    done(
        c.encode(&s),
        vec![Rule::HeaderAbiEndian],
        format!("{} section written {} endian", c.abi, s.endian.name()),
    )
}

fn aux_header_length(c: &Ctx, u: &mut Unstructured) -> Out {
    let len = c.g.bytes.len();
    let keep = u.int_in_range(0..=(len - HEADER_SIZE).min(254))?;
    let aux = u.int_in_range(keep as u8 + 1..=u8::MAX)?;
    let mut b = c.g.bytes[..HEADER_SIZE + keep].to_vec();
    b[ho::AUXHDR_LEN] = aux;
    done(
        b,
        vec![Rule::HeaderAuxFits],
        format!(
            "section cut to {} bytes with sfh_auxhdr_len {aux}",
            HEADER_SIZE + keep
        ),
    )
}

fn fixed_ra_offset(c: &Ctx, u: &mut Unstructured) -> Out {
    let (want, rule) = if c.abi == Abi::Amd64 {
        (-8i8, Rule::HeaderFixedRaAmd64)
    } else {
        (0, Rule::HeaderFixedRaTracked)
    };
    let mut ra = edge::small_i8(u)?;
    if ra == want {
        ra = if want == 0 { -8 } else { 0 };
    }
    let mut b = c.g.bytes.clone();
    b[ho::CFA_FIXED_RA_OFFSET] = ra as u8;
    done(
        b,
        vec![rule],
        format!("sfh_cfa_fixed_ra_offset set to {ra}"),
    )
}

/// Insert `k` bytes at `at`; returns the new bytes.
fn insert(bytes: &[u8], at: usize, k: usize, fill: u8) -> Vec<u8> {
    let mut b = Vec::with_capacity(bytes.len() + k);
    b.extend_from_slice(&bytes[..at]);
    b.resize(at + k, fill);
    b.extend_from_slice(&bytes[at..]);
    b
}

fn fde_offset(c: &Ctx, u: &mut Unstructured) -> Out {
    let k = edge::pick(u, &[1usize, 4, 64], |u| u.int_in_range(1..=64))?;
    let mut b = insert(&c.g.bytes, c.layout.header_size, k, u.arbitrary()?);
    let freoff = c.read_u32(ho::FREOFF);
    c.put(&mut b, ho::FDEOFF, k as u64, WORD_SIZE);
    c.put(&mut b, ho::FREOFF, u64::from(freoff) + k as u64, WORD_SIZE);
    done(
        b,
        vec![Rule::HeaderFdeOffsetZero],
        format!("{k} bytes inserted before the FDE sub-section (sfh_fdeoff {k})"),
    )
}

fn fde_count_too_large(c: &Ctx, u: &mut Unstructured) -> Out {
    let len = c.g.bytes.len() as u64;
    let room = len - c.layout.header_size as u64;
    let mut b = c.g.bytes.clone();
    let entry = c.v.fde_entry_size() as u64;
    if u.arbitrary()? {
        let n = in_range_u64(u, room / entry + 1, u64::from(u32::MAX))?;
        c.put(&mut b, ho::NUM_FDES, n, WORD_SIZE);
        done(
            b,
            vec![Rule::HeaderFdeSubsectionFits],
            format!("sfh_num_fdes set to {n}"),
        )
    } else {
        let fde_bytes = c.n() as u64 * entry;
        let off = in_range_u64(u, room - fde_bytes + 1, u64::from(u32::MAX))?;
        c.put(&mut b, ho::FDEOFF, off, WORD_SIZE);
        done(
            b,
            vec![Rule::HeaderFdeSubsectionFits],
            format!("sfh_fdeoff set to {off}"),
        )
    }
}

fn fde_count_too_small(c: &Ctx, u: &mut Unstructured) -> Out {
    let n = c.n();
    if n == 0 {
        return Ok(None);
    }
    let keep = edge::pick(u, &[n - 1, 0], |u| u.int_in_range(0..=n - 1))?;
    let dropped = &c.s.functions[keep..];
    let mut violates = vec![Rule::HeaderFdeSubsectionTiles];
    if dropped.iter().any(|f| !f.fres.is_empty()) {
        violates.push(Rule::HeaderNumFres);
    }
    // The dropped functions' data belongs to no FDE any more (v3: attributes at least).
    if c.layout.functions[keep..]
        .iter()
        .any(|f| f.block.1 > f.block.0)
    {
        violates.push(Rule::FreSubsectionDense);
    }
    let mut b = c.g.bytes.clone();
    c.put(&mut b, ho::NUM_FDES, keep as u64, WORD_SIZE);
    done(b, violates, format!("sfh_num_fdes set to {keep} of {n}"))
}

fn fre_subsection_offset(c: &Ctx, u: &mut Unstructured) -> Out {
    let k = edge::pick(u, &[1usize, 3, 16], |u| u.int_in_range(1..=64))?;
    let mut b = insert(&c.g.bytes, c.layout.fre_start, k, u.arbitrary()?);
    let freoff = c.read_u32(ho::FREOFF);
    c.put(&mut b, ho::FREOFF, u64::from(freoff) + k as u64, WORD_SIZE);
    done(
        b,
        vec![Rule::HeaderFdeSubsectionTiles],
        format!("{k} bytes inserted between the FDE and FRE sub-sections"),
    )
}

fn fre_subsection_too_long(c: &Ctx, u: &mut Unstructured) -> Out {
    let mut b = c.g.bytes.clone();
    let max = u64::from(u32::MAX);
    if u.arbitrary()? {
        let fre_len = c.read_u32(ho::FRE_LEN);
        let v = in_range_u64(u, u64::from(fre_len) + 1, max)?;
        c.put(&mut b, ho::FRE_LEN, v, WORD_SIZE);
        done(
            b,
            vec![Rule::HeaderFreSubsectionFits],
            format!("sfh_fre_len set to {v} (was {fre_len})"),
        )
    } else {
        let freoff = c.read_u32(ho::FREOFF);
        let v = in_range_u64(u, u64::from(freoff) + 1, max)?;
        c.put(&mut b, ho::FREOFF, v, WORD_SIZE);
        done(
            b,
            vec![Rule::HeaderFreSubsectionFits],
            format!("sfh_freoff set to {v} (was {freoff})"),
        )
    }
}

fn trailing_bytes(c: &Ctx, u: &mut Unstructured) -> Out {
    let k = edge::pick(u, &[1usize, 8], |u| u.int_in_range(1..=16))?;
    let mut b = c.g.bytes.clone();
    for _ in 0..k {
        b.push(u.arbitrary()?);
    }
    done(
        b,
        vec![Rule::HeaderSectionEnd],
        format!("{k} bytes appended"),
    )
}

fn fre_count(c: &Ctx, u: &mut Unstructured) -> Out {
    let total = c.s.num_fres() as u64;
    let mut v = edge::pick(
        u,
        &[total + 1, u64::from(u32::MAX), 0, total.wrapping_sub(1)],
        |u| u.int_in_range(0..=u64::from(u32::MAX)),
    )?;
    if v == total || v > u64::from(u32::MAX) {
        v = total + 1;
    }
    let mut b = c.g.bytes.clone();
    c.put(&mut b, ho::NUM_FRES, v, WORD_SIZE);
    done(
        b,
        vec![Rule::HeaderNumFres],
        format!("sfh_num_fres set to {v} (FDEs have {total})"),
    )
}

// ---- function descriptors ----

fn unsorted(c: &Ctx, u: &mut Unstructured) -> Out {
    let n = c.n();
    if n < 2 {
        return Ok(None);
    }
    let mut s = c.model();
    s.flags |= flags::FDE_SORTED;
    let ascending = s.functions.windows(2).all(|w| w[0].start <= w[1].start);
    let what = if ascending {
        let i = u.int_in_range(0..=n - 2)?;
        s.functions.swap(i, i + 1);
        format!("FDEs {i} and {} swapped under the sorted flag", i + 1)
    } else {
        "sorted flag set over unsorted FDEs".to_string()
    };
    done(c.encode(&s), vec![Rule::FdeSorted], what)
}

fn overlap(c: &Ctx, u: &mut Unstructured) -> Out {
    let n = c.n();
    if n < 2 {
        return Ok(None);
    }
    // Address order; moving the second of an adjacent pair into the first keeps the sorted
    // order (the new start is still at or after the first's).
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| c.s.functions[i].start);
    let k = u.int_in_range(0..=n - 2)?;
    let (a, b) = (order[k], order[k + 1]);
    let fa = &c.s.functions[a];
    let into = in_range_u64(u, 0, u64::from(fa.size) - 1)?;
    let mut s = c.model();
    s.functions[b].start = fa.start + into as i64;
    done(
        c.encode(&s),
        vec![Rule::FdeOverlap],
        format!("function {b} moved to {into} bytes into function {a}"),
    )
}

/// `HDR-NUM-FRES` when function `i`'s FREs stop counting because its FDE is unreadable.
fn lost_fres(c: &Ctx, i: usize, rule: Rule) -> Vec<Rule> {
    let mut v = vec![rule];
    if !c.s.functions[i].fres.is_empty() {
        v.push(Rule::HeaderNumFres);
    }
    v
}

fn data_outside(c: &Ctx, u: &mut Unstructured) -> Out {
    let Some(i) = pick_index(u, c.n(), |_| true)? else {
        return Ok(None);
    };
    let fre_len = c.layout.fre_len as u64;
    let min = match c.v {
        // The attribute must fit: offset + 5 <= sfh_fre_len.
        Version::V3 => (fre_len + 1).saturating_sub(FDE_ATTR_V3_SIZE as u64),
        // A function with FREs must start before the end; one without, at most at it.
        _ if c.s.functions[i].fres.is_empty() => fre_len + 1,
        _ => fre_len,
    };
    let off = in_range_u64(u, min, u64::from(u32::MAX))?;
    let mut b = c.g.bytes.clone();
    c.put(
        &mut b,
        c.layout.functions[i].fre_off_field,
        off,
        c.fde.fre_off.width,
    );
    done(
        b,
        lost_fres(c, i, Rule::FdeDataFits),
        format!("function {i}'s data offset set to {off} (FRE sub-section of {fre_len} bytes)"),
    )
}

fn fre_type_undefined(c: &Ctx, u: &mut Unstructured) -> Out {
    let Some(i) = pick_index(u, c.n(), |_| true)? else {
        return Ok(None);
    };
    // From the first type after the defined ones to the largest the field holds.
    let (lo, hi) = (FreType::ALL.len() as u8, fde_info::FRE_TYPE_MASK);
    let t = edge::pick(u, &[lo, hi], |u| u.int_in_range(lo..=hi))?;
    let at = c.layout.functions[i].info;
    let mut b = c.g.bytes.clone();
    b[at] = (b[at] & !fde_info::FRE_TYPE_MASK) | t;
    done(
        b,
        lost_fres(c, i, Rule::FdeFreType),
        format!("function {i}'s FRE type set to {t}"),
    )
}

fn fde_type_undefined(c: &Ctx, u: &mut Unstructured) -> Out {
    if c.v != Version::V3 {
        return Ok(None);
    }
    let Some(i) = pick_index(u, c.n(), |_| true)? else {
        return Ok(None);
    };
    // From the first type after Default and Flex to the largest the field holds.
    let (lo, hi) = (FdeType::Flex as u8 + 1, fde_info2::FDE_TYPE_MASK);
    let t = edge::pick(u, &[lo, hi], |u| u.int_in_range(lo..=hi))?;
    let at = c.layout.functions[i].info2.expect("v3 has info2");
    let mut b = c.g.bytes.clone();
    b[at] = (b[at] & fde_info2::UNUSED_MASK) | t;
    done(
        b,
        lost_fres(c, i, Rule::FdeType),
        format!("function {i}'s FDE type set to {t}"),
    )
}

fn info_unused(c: &Ctx, u: &mut Unstructured) -> Out {
    let Some(i) = pick_index(u, c.n(), |_| true)? else {
        return Ok(None);
    };
    let mut s = c.model();
    let r = &mut s.functions[i].reserved;
    match c.v {
        Version::V3 => match u.int_in_range(0..=2u8)? {
            0 => r.info = info_unused_mask(Version::V3),
            1 => {
                let unused = fde_info2::UNUSED_MASK;
                let shift = unused.trailing_zeros();
                r.info2 = edge::pick(u, &[1 << shift, unused], |u| {
                    u.int_in_range(1..=unused >> shift).map(|x| x << shift)
                })?
            }
            _ => {
                r.info = info_unused_mask(Version::V3);
                r.info2 = fde_info2::UNUSED_MASK;
            }
        },
        _ => {
            // The lowest unused bit, the highest, both.
            let unused = info_unused_mask(c.v);
            let (lowest, highest) = (
                1 << unused.trailing_zeros(),
                1 << (u8::BITS - 1 - unused.leading_zeros()),
            );
            r.info = *u.choose(&[lowest, highest, unused])?
        }
    }
    let what = format!(
        "function {i}'s unused info bits set ({:#04x}, {:#04x})",
        r.info, r.info2
    );
    done(c.encode(&s), vec![Rule::FdeInfoUnused], what)
}

fn pauth_key_abi(c: &Ctx, u: &mut Unstructured) -> Out {
    if c.abi.is_aarch64() {
        return Ok(None);
    }
    let Some(i) = pick_index(u, c.n(), |_| true)? else {
        return Ok(None);
    };
    let mut s = c.model();
    s.functions[i].pauth_key = PauthKey::B;
    done(
        c.encode(&s),
        vec![Rule::FdePauthKeyAbi],
        format!("function {i} signed with PAuth key B on {}", c.abi),
    )
}

fn rep_size_zero(c: &Ctx, u: &mut Unstructured) -> Out {
    if c.v == Version::V1 {
        return Ok(None);
    }
    let Some(i) = pick_index(u, c.n(), |_| true)? else {
        return Ok(None);
    };
    let mut s = c.model();
    s.functions[i].pc_type = PcType::Mask;
    s.functions[i].rep_size = 0;
    done(
        c.encode(&s),
        vec![Rule::FdeRepSizeMask],
        format!("function {i} made PC-mask with repetition block size 0"),
    )
}

fn rep_size_on_inc(c: &Ctx, u: &mut Unstructured) -> Out {
    if c.v == Version::V1 {
        return Ok(None);
    }
    let Some(i) = pick_index(u, c.n(), |i| c.s.functions[i].pc_type == PcType::Inc)? else {
        return Ok(None);
    };
    let rep = edge::pick(u, &[1u8, 255], |u| u.int_in_range(1..=255))?;
    let mut s = c.model();
    s.functions[i].rep_size = rep;
    done(
        c.encode(&s),
        vec![Rule::FdeRepSizeInc],
        format!("PC-increment function {i} given repetition block size {rep}"),
    )
}

fn padding(c: &Ctx, u: &mut Unstructured) -> Out {
    if c.v != Version::V2 {
        return Ok(None);
    }
    let Some(i) = pick_index(u, c.n(), |_| true)? else {
        return Ok(None);
    };
    let p = edge::pick(u, &[1u16, u16::MAX, 0x100], |u| {
        u.int_in_range(1..=u16::MAX)
    })?;
    let mut s = c.model();
    s.functions[i].reserved.padding = p;
    done(
        c.encode(&s),
        vec![Rule::FdePadding],
        format!("function {i}'s padding set to {p:#06x}"),
    )
}

fn signal_without_fres(c: &Ctx, u: &mut Unstructured) -> Out {
    if c.v != Version::V3 {
        return Ok(None);
    }
    let Some(i) = pick_index(u, c.n(), |_| true)? else {
        return Ok(None);
    };
    let mut s = c.model();
    s.functions[i].signal = true;
    s.functions[i].fres.clear();
    done(
        c.encode(&s),
        vec![Rule::FdeSignalV3],
        format!("function {i} made a signal frame without FREs"),
    )
}

fn size_zero(c: &Ctx, u: &mut Unstructured) -> Out {
    let Some(i) = pick_index(u, c.n(), |_| true)? else {
        return Ok(None);
    };
    let f = &c.s.functions[i];
    let mut violates = vec![Rule::FdeSizeZero];
    // v1 PC-mask FREs are bounded by the function size (v1 has no repetition block): one
    // starting at 0 is now at the end, any other past it.
    if c.v == Version::V1 && f.pc_type == PcType::Mask {
        violates.extend(end_faults(f.fres.iter().map(|r| r.start), 0));
    }
    let mut b = c.g.bytes.clone();
    c.put(
        &mut b,
        c.layout.functions[i].size_field,
        0,
        c.fde.size.width,
    );
    done(b, violates, format!("function {i}'s size set to 0"))
}

fn shared_data(c: &Ctx, u: &mut Unstructured) -> Out {
    let l = &c.layout;
    let Some(i) = pick_index(u, c.n(), |i| {
        l.functions[i].block.1 > l.functions[i].block.0
    })?
    else {
        return Ok(None);
    };
    let Some(j) = pick_index(u, c.n(), |j| j != i)? else {
        return Ok(None);
    };
    let (fi, fj) = (&c.s.functions[i], &c.s.functions[j]);
    let mut b = c.g.bytes.clone();
    // Function j now reads function i's data: v3 its attribute and FREs, v1/v2 its
    // data offset, FRE count, info byte (and v2 repetition size and padding).
    let (from, to) = (l.functions[i].fre_off_field, l.functions[j].fre_off_field);
    // From the data offset to the end of the FDE (v3: the offset is the index entry's last).
    let width = c.fde.size_of - c.fde.fre_off.offset;
    let field = c.g.bytes[from..from + width].to_vec();
    b[to..to + width].copy_from_slice(&field);
    let mut violates = vec![Rule::FdeBlocksDisjoint];
    if fi.fres.len() != fj.fres.len() {
        violates.push(Rule::HeaderNumFres);
    }
    // i's FREs checked against j's size (the repetition block is i's own).
    let by_size = fi.pc_type == PcType::Inc || c.v == Version::V1;
    if by_size {
        violates.extend(end_faults(fi.fres.iter().map(|r| r.start), fj.size));
    }
    done(
        b,
        violates,
        format!("function {j} points at function {i}'s data"),
    )
}

fn fre_subsection_gap(c: &Ctx, u: &mut Unstructured) -> Out {
    let k = edge::pick(u, &[1usize, 4], |u| u.int_in_range(1..=32))?;
    let l = &c.layout;
    let inner = pick_index(u, c.n(), |i| {
        l.functions[i].block.1 > l.functions[i].block.0
    })?;
    match inner {
        Some(p) if u.arbitrary()? => {
            // Explicit layout with a gap before function p's data: everything from there
            // on moves up.
            let mut s = c.s.clone();
            let at = s.functions[p]
                .fre_offset
                .expect("generated sections have their layout");
            for f in &mut s.functions {
                let off = f.fre_offset.expect("generated sections have their layout");
                f.fre_offset = Some(if off >= at { off + k as u32 } else { off });
            }
            done(
                c.encode(&s),
                vec![Rule::FreSubsectionDense],
                format!("{k} unused bytes before function {p}'s data"),
            )
        }
        _ => {
            let mut b = c.g.bytes.clone();
            b.resize(b.len() + k, 0);
            c.put(&mut b, ho::FRE_LEN, (l.fre_len + k) as u64, WORD_SIZE);
            done(
                b,
                vec![Rule::FreSubsectionDense],
                format!("{k} unused bytes at the end of the FRE sub-section"),
            )
        }
    }
}

// ---- frame row entries ----

fn fre_cut(c: &Ctx, u: &mut Unstructured) -> Out {
    let l = &c.layout;
    // The function whose data ends the FRE sub-section, if it has FREs.
    let Some(last) = (0..c.n()).find(|&i| {
        l.functions[i].block.1 == l.fre_start + l.fre_len
            && l.functions[i].block.1 > l.functions[i].block.0
    }) else {
        return Ok(None);
    };
    let Some(first_fre) = l.functions[last].fres.first() else {
        return Ok(None);
    };
    let fre_bytes = l.functions[last].block.1 - first_fre.start;
    let k = edge::pick(u, &[1usize, fre_bytes], |u| u.int_in_range(1..=fre_bytes))?;
    let new_len = l.fre_len - k;
    let mut b = c.g.bytes[..c.g.bytes.len() - k].to_vec();
    c.put(&mut b, ho::FRE_LEN, new_len as u64, WORD_SIZE);
    let mut violates = if c.v != Version::V3 && k == fre_bytes {
        // A v1/v2 function with FREs whose data starts at the very end is "data outside";
        // its FREs stop counting.
        vec![Rule::FdeDataFits, Rule::HeaderNumFres]
    } else {
        vec![Rule::FreFits]
    };
    // v1/v2 FDEs without FREs laid out after the cut now point past the end.
    if c.v != Version::V3
        && c.s
            .functions
            .iter()
            .any(|f| f.fres.is_empty() && f.fre_offset.unwrap_or(0) as usize > new_len)
    {
        violates.push(Rule::FdeDataFits);
    }
    done(
        b,
        violates,
        format!("the last {k} bytes of function {last}'s FREs cut off"),
    )
}

fn dataword_size_undefined(c: &Ctx, u: &mut Unstructured) -> Out {
    let Some((i, k)) = pick_fre(u, c.s, |_| true)? else {
        return Ok(None);
    };
    let at = c.layout.functions[i].fres[k].info;
    let mut b = c.g.bytes.clone();
    // Both bits of the data-word size field: 3, which names no size.
    b[at] |= fre_info::DATAWORD_SIZE_MASK << fre_info::DATAWORD_SIZE_SHIFT;
    done(
        b,
        vec![Rule::FreDataWordSize],
        format!("function {i} FRE {k}: data-word size set to 3"),
    )
}

fn fre_order(c: &Ctx, u: &mut Unstructured) -> Out {
    let Some(i) = pick_index(u, c.n(), |i| c.s.functions[i].fres.len() >= 2)? else {
        return Ok(None);
    };
    let mut s = c.model();
    let fres = &mut s.functions[i].fres;
    let k = u.int_in_range(1..=fres.len() - 1)?;
    let prev = fres[k - 1].start;
    // Equal to the previous start, or before it.
    let start = if u.arbitrary()? {
        prev
    } else {
        u.int_in_range(0..=prev)?
    };
    fres[k].start = start;
    done(
        c.encode(&s),
        vec![Rule::FreStartIncreasing],
        format!("function {i} FRE {k} starts at {start}, not after {prev}"),
    )
}

fn fre_outside(c: &Ctx, u: &mut Unstructured) -> Out {
    let Some(i) = pick_index(u, c.n(), |i| !c.s.functions[i].fres.is_empty())? else {
        return Ok(None);
    };
    let limit = c.fre_limit(i);
    let start = in_range_u64(u, limit, u64::from(u32::MAX))? as u32;
    let mut s = c.model();
    let f = &mut s.functions[i];
    if u64::from(start) >= f.fre_type.limit() {
        f.fre_type = FreType::for_start(start);
    }
    let k = f.fres.len() - 1;
    f.fres[k].start = start;
    let mut violates = end_faults([start], limit as u32);
    if k == 0 && f.pc_type == PcType::Inc {
        violates.push(Rule::FreFirstAtZero);
    }
    done(
        c.encode(&s),
        violates,
        format!("function {i}'s last FRE starts at {start}, limit {limit}"),
    )
}

fn first_not_at_zero(c: &Ctx, u: &mut Unstructured) -> Out {
    // The first FRE can move to 1..next-1 where next is the second FRE's start, or the end.
    let room = |i: usize| -> u64 {
        let f = &c.s.functions[i];
        let next = f
            .fres
            .get(1)
            .map_or(c.fre_limit(i).min(f.fre_type.limit()), |r| {
                u64::from(r.start)
            });
        next.saturating_sub(1)
    };
    let Some(i) = pick_index(u, c.n(), |i| {
        let f = &c.s.functions[i];
        f.pc_type == PcType::Inc && !f.fres.is_empty() && room(i) >= 1
    })?
    else {
        return Ok(None);
    };
    let start = in_range_u64(u, 1, room(i))? as u32;
    let mut s = c.model();
    s.functions[i].fres[0].start = start;
    done(
        c.encode(&s),
        vec![Rule::FreFirstAtZero],
        format!("function {i}'s first FRE starts at {start}"),
    )
}

fn no_datawords_v1(c: &Ctx, u: &mut Unstructured) -> Out {
    if c.v != Version::V1 {
        return Ok(None);
    }
    let Some((i, k)) = pick_fre(u, c.s, |_| true)? else {
        return Ok(None);
    };
    let mut s = c.model();
    s.functions[i].fres[k].datawords.clear();
    done(
        c.encode(&s),
        vec![Rule::FreCountZeroV1],
        format!("function {i} FRE {k}: no data words"),
    )
}

/// Resize FRE `(i, k)`'s data words to `count`, filling with words that fit its size (even
/// ones on v3 s390x, where odd RA/FP offsets break another rule).
fn resize_words(
    c: &Ctx,
    s: &mut Section,
    i: usize,
    k: usize,
    count: usize,
    u: &mut Unstructured,
) -> Result<()> {
    let fre = &mut s.functions[i].fres[k];
    let even = c.abi == Abi::S390x && c.v == Version::V3;
    fre.datawords.truncate(count);
    while fre.datawords.len() < count {
        let w = if even {
            edge::even_word(u, fre.dataword_size)?
        } else {
            edge::word(u, fre.dataword_size)?
        };
        fre.datawords.push(w);
    }
    Ok(())
}

/// Default-type FRE data-word count rules for the section's ABI and version that `count`
/// breaks (FRE-COUNT-MAX, FRE-COUNT-AMD64/AARCH64/S390X).
fn count_rules(c: &Ctx, count: usize) -> Vec<Rule> {
    let mut v = Vec::new();
    if c.v != Version::V3 && count > 3 {
        v.push(Rule::FreCountMax);
    }
    match c.abi {
        Abi::Amd64 if count > 2 => v.push(Rule::FreCountAmd64),
        Abi::Aarch64Le | Abi::Aarch64Be if c.v == Version::V3 && (count == 2 || count > 3) => {
            v.push(Rule::FreCountAarch64)
        }
        Abi::S390x if count > 3 => v.push(Rule::FreCountS390x),
        _ => {}
    }
    v
}

/// Give a default-type FRE a data-word count drawn from `counts`.
fn bad_count(c: &Ctx, u: &mut Unstructured, counts: &[usize]) -> Out {
    let Some((i, k)) = pick_fre(u, c.s, |f| f.fde_type == FdeType::Default)? else {
        return Ok(None);
    };
    let count = *u.choose(counts)?;
    let mut s = c.model();
    resize_words(c, &mut s, i, k, count, u)?;
    done(
        c.encode(&s),
        count_rules(c, count),
        format!("function {i} FRE {k}: {count} data words"),
    )
}

fn count_over_max(c: &Ctx, u: &mut Unstructured) -> Out {
    if c.v == Version::V3 {
        return Ok(None);
    }
    bad_count(
        c,
        u,
        &(4..=usize::from(MAX_DATAWORD_COUNT)).collect::<Vec<_>>(),
    )
}

fn count_amd64(c: &Ctx, u: &mut Unstructured) -> Out {
    if c.abi != Abi::Amd64 {
        return Ok(None);
    }
    bad_count(c, u, &[3, 15, 4])
}

fn count_aarch64(c: &Ctx, u: &mut Unstructured) -> Out {
    if !(c.abi.is_aarch64() && c.v == Version::V3) {
        return Ok(None);
    }
    bad_count(c, u, &[2, 4, 15])
}

fn count_s390x(c: &Ctx, u: &mut Unstructured) -> Out {
    if c.abi != Abi::S390x {
        return Ok(None);
    }
    bad_count(c, u, &[4, 15, 6])
}

fn mangled_ra_abi(c: &Ctx, u: &mut Unstructured) -> Out {
    if c.abi.is_aarch64() {
        return Ok(None);
    }
    let Some((i, k)) = pick_fre(u, c.s, |_| true)? else {
        return Ok(None);
    };
    let mut s = c.model();
    s.functions[i].fres[k].mangled_ra = true;
    done(
        c.encode(&s),
        vec![Rule::FreMangledRaAbi],
        format!("function {i} FRE {k}: mangled-RA bit on {}", c.abi),
    )
}

fn s390x_regnum(c: &Ctx, u: &mut Unstructured) -> Out {
    if !(c.abi == Abi::S390x && c.v == Version::V3) {
        return Ok(None);
    }
    let Some((i, k)) = pick_fre(u, c.s, |f| f.fde_type == FdeType::Default)? else {
        return Ok(None);
    };
    let mut s = c.model();
    let fre = &mut s.functions[i].fres[k];
    if fre.datawords.len() < 2 {
        let size = fre.dataword_size;
        let cfa = match fre.datawords.first() {
            Some(&w) => w,
            None => edge::word(u, size)?,
        };
        fre.datawords = vec![cfa, 0];
    }
    let w = if fre.datawords.len() == 3 {
        u.int_in_range(1..=2)?
    } else {
        1
    };
    let odd = edge::word(u, fre.dataword_size)? | 1;
    fre.datawords[w] = odd;
    done(
        c.encode(&s),
        vec![Rule::FreS390xV3NoRegnum],
        format!("function {i} FRE {k}: data word {w} set to odd {odd}"),
    )
}

fn s390x_ra_padding(c: &Ctx, u: &mut Unstructured) -> Out {
    if c.abi != Abi::S390x {
        return Ok(None);
    }
    let Some((i, k)) = pick_fre(u, c.s, |f| f.fde_type == FdeType::Default)? else {
        return Ok(None);
    };
    let mut s = c.model();
    let fre = &mut s.functions[i].fres[k];
    let cfa = match fre.datawords.first() {
        Some(&w) => w,
        None => edge::word(u, fre.dataword_size)?,
    };
    fre.datawords = vec![cfa, 0];
    done(
        c.encode(&s),
        vec![Rule::FreS390xRaPadding],
        format!("function {i} FRE {k}: RA padding offset without FP offset"),
    )
}

// ---- flexible FDEs ----

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FlexBreak {
    Layout,
    CfaRegister,
    FpControl,
    ControlUnused,
}

/// Break one flex FRE (v3); a default-type function is first made flex with valid rows,
/// and a function without FREs first given one at offset 0.
fn flex(c: &Ctx, u: &mut Unstructured, what: FlexBreak) -> Out {
    if c.v != Version::V3 {
        return Ok(None);
    }
    let Some(i) = pick_index(u, c.n(), |_| true)? else {
        return Ok(None);
    };
    let mut s = c.model();
    let abi = c.abi;
    let f = &mut s.functions[i];
    if f.fde_type != FdeType::Flex {
        f.fde_type = FdeType::Flex;
        for r in &mut f.fres {
            let count = *u.choose(&rows::flex_counts(true))?;
            r.datawords = rows::flex_words(u, abi, r.dataword_size, count)?;
        }
    }
    if f.fres.is_empty() {
        // Start 0 is inside every function and repetition block.
        f.fres.push(sframe_spec::Fre {
            start: 0,
            base_reg: sframe_spec::BaseReg::Sp,
            mangled_ra: false,
            dataword_size: DataWordSize::B1,
            datawords: Vec::new(),
        });
    }
    let k = u.choose_index(f.fres.len())?;
    let fre = &mut f.fres[k];
    let size = fre.dataword_size;
    let reg = |u: &mut Unstructured| rows::register_control(u, abi, size);
    let word = |u: &mut Unstructured| edge::word(u, size);
    let (rule, note) = match what {
        FlexBreak::Layout => {
            let (c0, o0, r, o1, f0, o2) = (reg(u)?, word(u)?, reg(u)?, word(u)?, reg(u)?, word(u)?);
            let layout = u.int_in_range(0..=5u8)?;
            let mut w = match layout {
                0 => vec![c0],                    // CFA control without offset
                1 => vec![c0, o0, 0],             // RA padding without FP pair
                2 => vec![c0, o0, r],             // RA control without offset
                3 => vec![c0, o0, r, o1, f0],     // FP control without offset
                4 => vec![c0, o0, r, o1, f0, o2], // complete (6) ...
                _ => vec![c0, o0, 0, f0, o2],     // complete (5) ...
            };
            // ... followed by words that have no place.
            if layout >= 4 {
                let extra = u.int_in_range(1..=usize::from(MAX_DATAWORD_COUNT) - w.len())?;
                for _ in 0..extra {
                    w.push(word(u)?);
                }
            }
            let n = w.len();
            fre.datawords = w;
            (
                Rule::FlexLayout,
                format!("{n} data words in no flex layout"),
            )
        }
        FlexBreak::CfaRegister => {
            ensure_pairs(fre, u, abi)?;
            let ctl = Control {
                reg_p: false,
                deref_p: u.arbitrary()?,
                unused: false,
                regnum: u.int_in_range(0..=rows::max_regnum(size))?,
            };
            fre.datawords[0] = ctl.to_word(size) as i32;
            (
                Rule::FlexCfaRegister,
                "CFA control word without reg_p".to_string(),
            )
        }
        FlexBreak::FpControl => {
            let (c0, o0, r, o1, o2) = (reg(u)?, word(u)?, reg(u)?, word(u)?, word(u)?);
            fre.datawords = if u.arbitrary()? {
                vec![c0, o0, r, o1, 0, o2]
            } else {
                vec![c0, o0, 0, 0, o2]
            };
            (
                Rule::FlexFpControl,
                "FP control word is the padding value 0".to_string(),
            )
        }
        FlexBreak::ControlUnused => {
            ensure_pairs(fre, u, abi)?;
            let n = fre.datawords.len();
            let ra_padding = n > 2 && fre.datawords[2] == 0;
            let mut positions = vec![0];
            if n > 2 && !ra_padding {
                positions.push(2);
            }
            let fp_at = if ra_padding { 3 } else { 4 };
            if n > fp_at {
                positions.push(fp_at);
            }
            let p = *u.choose(&positions)?;
            let mut ctl = Control::from_word(i64::from(fre.datawords[p]), size);
            ctl.unused = true;
            fre.datawords[p] = ctl.to_word(size) as i32;
            (
                Rule::FlexControlUnused,
                format!("bit 2 of control word {p} set"),
            )
        }
    };
    done(
        c.encode(&s),
        vec![rule],
        format!("function {i} FRE {k}: {note}"),
    )
}

/// Make a flex FRE carry at least the CFA pair.
fn ensure_pairs(fre: &mut sframe_spec::Fre, u: &mut Unstructured, abi: Abi) -> Result<()> {
    if fre.datawords.is_empty() {
        let count = *u.choose(&[2, 4, 5, 6])?;
        fre.datawords = rows::flex_words(u, abi, fre.dataword_size, count)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn every_rule_has_a_mutation_kind() {
        let covered: HashSet<Rule> = MutationKind::ALL
            .iter()
            .flat_map(|k| k.rules().iter().copied())
            .collect();
        let missing: Vec<_> = Rule::ALL
            .iter()
            .filter(|r| !covered.contains(r))
            .map(|r| r.id())
            .collect();
        assert!(
            missing.is_empty(),
            "rules without a mutation kind: {missing:?}"
        );
    }
}
