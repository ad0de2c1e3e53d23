//! Zero-copy reader: typed views of the header, FDEs and FREs over `&[u8]`.
//!
//! [`SectionRef::parse`] checks only what it needs to give bounded, well-typed access
//! (the malformed-class rules of the header); per-function checks happen when a function is
//! read, so one bad FDE does not hide the others. Nothing here allocates.

use crate::constants::*;
use crate::error::Violation;
use crate::layout::{fde_info, fde_info2, fre_info, FdeAttrLayout, FdeLayout, Field, FreLayout};
use crate::quirks::{Quirk, Quirks};
use crate::rules::Rule;
use crate::Endian;

/// The format version byte of a section whose magic is right (in either byte order),
/// read without checking anything else: what a report names a section by before any
/// reader has looked at it.
pub fn section_version(data: &[u8]) -> Option<Version> {
    Endian::from_magic(data)?;
    Version::from_u8(*data.get(crate::layout::header::VERSION)?)
}

/// The decoded `sframe_header` fields, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub version: Version,
    pub flags: u8,
    pub abi_arch: u8,
    pub cfa_fixed_fp_offset: i8,
    pub cfa_fixed_ra_offset: i8,
    pub auxhdr_len: u8,
    pub num_fdes: u32,
    pub num_fres: u32,
    pub fre_len: u32,
    pub fdeoff: u32,
    pub freoff: u32,
}

impl Header {
    /// Size of the header including the auxiliary header: where sub-section offsets start.
    pub fn size(&self) -> usize {
        HEADER_SIZE + usize::from(self.auxhdr_len)
    }
}

/// Read the preamble and header; checks PRE-MAGIC, PRE-VERSION, HDR-FITS only.
pub fn read_header(data: &[u8]) -> Result<(Endian, Header), Violation> {
    use crate::layout::header as o;
    let e = Endian::from_magic(data).ok_or_else(|| {
        let v = Violation::new(Rule::PreambleMagic, o::MAGIC).expected(i64::from(MAGIC));
        // Fewer than two bytes: no magic was found at all.
        match data.get(..2) {
            Some(b) => v.found(i64::from(u16::from_be_bytes([b[0], b[1]]))),
            None => v,
        }
    })?;
    let raw_version = data.get(o::VERSION).copied();
    let version = raw_version.and_then(Version::from_u8).ok_or_else(|| {
        let v = Violation::new(Rule::PreambleVersion, o::VERSION);
        match raw_version {
            Some(b) => v.found(b),
            None => v,
        }
    })?;
    if data.len() < HEADER_SIZE {
        return Err(Violation::new(Rule::HeaderFits, 0)
            .found(data.len() as i64)
            .expected(HEADER_SIZE as i64));
    }
    // Infallible after the length check, but stay panic-free regardless.
    let bad = || Violation::new(Rule::HeaderFits, 0);
    Ok((
        e,
        Header {
            version,
            flags: e.read_u8(data, o::FLAGS).ok_or_else(bad)?,
            abi_arch: e.read_u8(data, o::ABI_ARCH).ok_or_else(bad)?,
            cfa_fixed_fp_offset: e.read_i8(data, o::CFA_FIXED_FP_OFFSET).ok_or_else(bad)?,
            cfa_fixed_ra_offset: e.read_i8(data, o::CFA_FIXED_RA_OFFSET).ok_or_else(bad)?,
            auxhdr_len: e.read_u8(data, o::AUXHDR_LEN).ok_or_else(bad)?,
            num_fdes: e.read_u32(data, o::NUM_FDES).ok_or_else(bad)?,
            num_fres: e.read_u32(data, o::NUM_FRES).ok_or_else(bad)?,
            fre_len: e.read_u32(data, o::FRE_LEN).ok_or_else(bad)?,
            fdeoff: e.read_u32(data, o::FDEOFF).ok_or_else(bad)?,
            freoff: e.read_u32(data, o::FREOFF).ok_or_else(bad)?,
        },
    ))
}

/// A section whose header has been checked enough to read functions in bounds.
#[derive(Debug, Clone, Copy)]
pub struct SectionRef<'a> {
    data: &'a [u8],
    endian: Endian,
    header: Header,
    abi: Abi,
    /// Absolute offset of the FDE sub-section.
    fde_start: usize,
    /// How far the FDE sub-section was placed after the header: `sfh_fdeoff`, or 0 when the
    /// reader does not read it ([`Quirk::SubsectionOffsetsIgnored`]).
    fdeoff_applied: usize,
    /// Absolute offsets of the FRE sub-section, `[fre_start, fre_end)`.
    fre_start: usize,
    fre_end: usize,
    /// Known deviations this reader reproduces ([`Quirks::NONE`]: the reference).
    quirks: Quirks,
}

/// The size of one FDE entry of `version`, as a reader with `quirks` steps through them: the
/// v2 size for v1 too with [`Quirk::V1ReadAsV2`].
pub(crate) fn fde_entry_size(version: Version, quirks: Quirks) -> usize {
    if version == Version::V1 && quirks.has(Quirk::V1ReadAsV2) {
        Version::V2.fde_entry_size()
    } else {
        version.fde_entry_size()
    }
}

impl<'a> SectionRef<'a> {
    /// Check the header's malformed-class rules (PRE-MAGIC, PRE-VERSION, HDR-FITS, HDR-ABI,
    /// HDR-AUX-FITS, HDR-FDE-FITS, HDR-FRE-FITS) and give access to the rest.
    pub fn parse(data: &'a [u8]) -> Result<SectionRef<'a>, Violation> {
        Self::parse_with(data, Quirks::NONE)
    }

    /// [`SectionRef::parse`] reading as an implementation with `quirks` does (see
    /// [`crate::quirks`]).
    pub fn parse_with(data: &'a [u8], quirks: Quirks) -> Result<SectionRef<'a>, Violation> {
        use crate::layout::header as o;
        let (endian, header) = read_header(data)?;
        let abi = Abi::from_u8(header.abi_arch)
            .filter(|a| a.defined_in(header.version))
            .ok_or_else(|| {
                Violation::new(Rule::HeaderAbiKnown, o::ABI_ARCH).found(header.abi_arch)
            })?;
        let hsize = if quirks.has(Quirk::AuxHeaderIgnored) {
            HEADER_SIZE
        } else {
            header.size()
        };
        if data.len() < hsize {
            return Err(Violation::new(Rule::HeaderAuxFits, o::AUXHDR_LEN)
                .found(header.auxhdr_len)
                .expected((data.len() - HEADER_SIZE) as i64));
        }
        let entry = fde_entry_size(header.version, quirks);
        let fde_bytes = u64::from(header.num_fdes) * entry as u64;
        let offsets_ignored = quirks.has(Quirk::SubsectionOffsetsIgnored);
        let fde_start = hsize as u64
            + if offsets_ignored {
                0
            } else {
                u64::from(header.fdeoff)
            };
        // A reader with [`Quirk::V1ReadAsV2`] copies what the 20-byte stride names without
        // checking it fits (libsframe 2.44 memcpy's past the buffer): nothing is refused
        // here; FDEs and FREs beyond the bytes fail when read.
        let unchecked = header.version == Version::V1 && quirks.has(Quirk::V1ReadAsV2);
        if fde_start + fde_bytes > data.len() as u64 && !unchecked {
            return Err(Violation::new(Rule::HeaderFdeSubsectionFits, o::NUM_FDES)
                .found(header.num_fdes)
                .expected(((data.len() as u64).saturating_sub(fde_start) / entry as u64) as i64));
        }
        let fre_start = if offsets_ignored || quirks.has(Quirk::FreOffsetIgnored) {
            fde_start + fde_bytes
        } else {
            hsize as u64 + u64::from(header.freoff)
        };
        let to_data_end = quirks.has(Quirk::FresReadToSectionEnd);
        let mut fre_end = if to_data_end {
            data.len() as u64
        } else {
            fre_start + u64::from(header.fre_len)
        };
        let mut fre_start = fre_start;
        if unchecked {
            fre_end = fre_end.min(data.len() as u64);
            fre_start = fre_start.min(fre_end);
        }
        if !to_data_end && fre_end > data.len() as u64 {
            return Err(Violation::new(Rule::HeaderFreSubsectionFits, o::FRE_LEN)
                .found(i64::from(header.fre_len))
                .expected((data.len() as u64).saturating_sub(fre_start) as i64));
        }
        let section = SectionRef {
            data,
            endian,
            header,
            abi,
            fde_start: fde_start as usize,
            fdeoff_applied: (fde_start - hsize as u64) as usize,
            fre_start: fre_start as usize,
            fre_end: fre_end as usize,
            quirks,
        };
        if quirks.refuses_sections() {
            // The refusals judge the section as the byte-swapping pass lays it out: with the
            // sub-section offsets (libsframe 2.40/2.44 `flip_sframe` reads them although
            // their `sframe_decode` does not) and the reader's other layout quirks.
            let walk_quirks = quirks
                .minus(Quirks::REFUSALS)
                .without(Quirk::SubsectionOffsetsIgnored);
            let plain = SectionRef::parse_with(data, walk_quirks)?;
            if let Some(v) = crate::refusals::refusal(&plain, quirks) {
                return Err(v);
            }
        }
        Ok(section)
    }

    pub fn data(&self) -> &'a [u8] {
        self.data
    }
    pub fn endian(&self) -> Endian {
        self.endian
    }
    pub fn header(&self) -> &Header {
        &self.header
    }
    pub fn version(&self) -> Version {
        self.header.version
    }
    pub fn abi(&self) -> Abi {
        self.abi
    }
    pub fn num_fdes(&self) -> usize {
        self.header.num_fdes as usize
    }
    /// The quirks this view reads with.
    pub fn quirks(&self) -> Quirks {
        self.quirks
    }
    pub fn is_sorted(&self) -> bool {
        self.header.flags & flags::FDE_SORTED != 0
    }
    pub fn is_pcrel(&self) -> bool {
        // The flag exists only from v2 (Errata 1) on; in v1 the bit has no meaning.
        self.header.version != Version::V1 && self.header.flags & flags::FDE_FUNC_START_PCREL != 0
    }
    /// `[start, end)` of the FRE sub-section, as absolute offsets.
    pub fn fre_subsection(&self) -> (usize, usize) {
        (self.fre_start, self.fre_end)
    }
    /// Absolute offset of FDE `i`.
    pub fn fde_offset(&self, i: usize) -> usize {
        self.fde_start + i * fde_entry_size(self.header.version, self.quirks)
    }

    /// The resolved start (offset from the section's start) and size of FDE `i`, reading only
    /// the FDE index fields; for searching.
    #[inline]
    pub fn fde_range(&self, i: usize) -> Option<(i64, u32)> {
        if i >= self.num_fdes() {
            return None;
        }
        let off = self.fde_offset(i);
        let e = self.endian;
        let l = FdeLayout::of(self.header.version);
        let raw = e.read_int(self.data, off + l.start.offset, l.start.width)?;
        let size = e.read_u32(self.data, off + l.size.offset)?;
        Some((self.resolve_lookup_start(off, raw), size))
    }

    /// How the look-up resolves a start field: as [`SectionRef::resolve_start`], but with
    /// [`Quirk::LookupV2StartAlwaysPcrel`] ([`Quirk::LookupV3StartAlwaysPcrel`]) every v2
    /// (v3) start is PC-relative.
    pub fn resolve_lookup_start(&self, field_off: usize, raw: i64) -> i64 {
        let always = match self.header.version {
            Version::V1 => false,
            Version::V2 => self.quirks.has(Quirk::LookupV2StartAlwaysPcrel),
            Version::V3 => self.quirks.has(Quirk::LookupV3StartAlwaysPcrel),
        };
        if always {
            self.pcrel_start(field_off, raw)
        } else {
            self.resolve_start(field_off, raw)
        }
    }

    /// The offset a PC-relative start is relative to: its field's, or with
    /// [`Quirk::PcrelFieldOffsetWithoutFdeoff`] where the field would be if the FDE
    /// sub-section followed the header (less the `sfh_fdeoff` this reader applied: none when
    /// it ignores the sub-section offsets too).
    fn pcrel_field_offset(&self, field_off: usize) -> usize {
        if self.quirks.has(Quirk::PcrelFieldOffsetWithoutFdeoff) {
            field_off.wrapping_sub(self.fdeoff_applied)
        } else {
            field_off
        }
    }

    /// Resolve a start-address field at absolute offset `field_off` holding `raw`, to an
    /// offset from the start of the section. With `SFRAME_F_FDE_FUNC_START_PCREL` the field
    /// is relative to itself; otherwise to the start of the section (v3 manual §1.3, Errata 1,
    /// and §2.3.1; v1 is read the same way, see the discrepancy list).
    pub fn resolve_start(&self, field_off: usize, raw: i64) -> i64 {
        if self.is_pcrel() {
            self.pcrel_start(field_off, raw)
        } else {
            raw
        }
    }

    /// A PC-relative start: the field's value plus where it is relative to (in 32 bits,
    /// wrapping, with [`Quirk::PcrelStartInt32`]).
    fn pcrel_start(&self, field_off: usize, raw: i64) -> i64 {
        let start = raw.wrapping_add(self.pcrel_field_offset(field_off) as i64);
        if self.quirks.has(Quirk::PcrelStartInt32) {
            i64::from(start as i32)
        } else {
            start
        }
    }

    /// The fields of FDE `i` as stored (v3: its index entry and its attribute), before the
    /// checks of [`SectionRef::fde`] on the FRE type, FDE type and where its FREs are.
    #[inline]
    pub fn fde_fields(&self, i: usize) -> Result<FdeFields, Violation> {
        let bad_bounds = || {
            Violation::new(
                Rule::HeaderFdeSubsectionFits,
                crate::layout::header::NUM_FDES,
            )
            .at_function(i)
        };
        if i >= self.num_fdes() {
            return Err(bad_bounds());
        }
        let e = self.endian;
        let d = self.data;
        let off = self.fde_offset(i);
        let version = self.header.version;
        let l = FdeLayout::of(version);
        let raw_start = e
            .read_int(d, off + l.start.offset, l.start.width)
            .ok_or_else(bad_bounds)?;
        let size = e.read_u32(d, off + l.size.offset).ok_or_else(bad_bounds)?;
        let fre_off = e
            .read_u32(d, off + l.fre_off.offset)
            .ok_or_else(bad_bounds)?;
        let (num_fres, info, info2, rep_size, padding, attr_off) = match version {
            Version::V1 | Version::V2 => {
                // The v2 fields (rep_size, padding) are read for v1 too by a reader that
                // reads v1 with the v2 layout.
                let l2 = FdeLayout::of(Version::V2);
                let at = |f: Option<Field>| off + f.map_or(0, |f| f.offset);
                let num = e.read_u32(d, at(l.num_fres)).ok_or_else(bad_bounds)?;
                let info = e.read_u8(d, at(l.info)).ok_or_else(bad_bounds)?;
                let (rep, pad) = if version == Version::V2 || self.quirks.has(Quirk::V1ReadAsV2) {
                    (
                        e.read_u8(d, at(l2.rep_size)).ok_or_else(bad_bounds)?,
                        e.read_u16(d, at(l2.padding)).ok_or_else(bad_bounds)?,
                    )
                } else {
                    (0, 0)
                };
                (num, info, 0u8, rep, pad, None)
            }
            Version::V3 => {
                let fre_off_at = off + l.fre_off.offset;
                let attr = self.fre_start as u64 + u64::from(fre_off);
                if attr + FdeAttrLayout::SIZE as u64 > self.fre_end as u64 {
                    return Err(Violation::new(Rule::FdeDataFits, fre_off_at)
                        .at_function(i)
                        .found(i64::from(fre_off)));
                }
                let a = attr as usize;
                let oob = || Violation::new(Rule::FdeDataFits, fre_off_at).at_function(i);
                let num = e
                    .read_u16(d, a + FdeAttrLayout::NUM_FRES.offset)
                    .ok_or_else(oob)?;
                let byte = |f: Field| e.read_u8(d, a + f.offset).ok_or_else(oob);
                let info = byte(FdeAttrLayout::INFO)?;
                let info2 = byte(FdeAttrLayout::INFO2)?;
                let rep = byte(FdeAttrLayout::REP_SIZE)?;
                (u32::from(num), info, info2, rep, 0, Some(a))
            }
        };
        Ok(FdeFields {
            index: i,
            offset: off,
            attr_offset: attr_off,
            raw_start,
            size,
            fre_off,
            num_fres,
            info,
            info2,
            rep_size,
            padding,
        })
    }

    /// Read FDE `i` (v3: its index entry and its attribute).
    #[inline]
    pub fn fde(&self, i: usize) -> Result<FdeRef, Violation> {
        let FdeFields {
            index: _,
            offset: off,
            attr_offset: attr_off,
            raw_start,
            size,
            fre_off,
            num_fres,
            info,
            info2,
            rep_size,
            padding,
        } = self.fde_fields(i)?;
        let version = self.header.version;
        let info_off = crate::layout::info_offset(version, off, attr_off.unwrap_or(0));
        let fre_type = FreType::from_u8(fde_info::fre_type(info)).ok_or_else(|| {
            Violation::new(Rule::FdeFreType, info_off)
                .at_function(i)
                .found(fde_info::fre_type(info))
        })?;
        let fde_type = match version {
            Version::V3 => match FdeType::from_u8(fde_info2::fde_type(info2)) {
                Some(t) => t,
                // A reader that reads each function on its own reads the FREs of an FDE of
                // unknown type as default-type rows (simple-frame-rs: its FRE iterator does
                // not look at the type).
                None if self.quirks.has(Quirk::PerFunctionErrors) => FdeType::Default,
                None => {
                    let info2_off = attr_off.unwrap_or(0) + FdeAttrLayout::INFO2.offset;
                    return Err(Violation::new(Rule::FdeType, info2_off)
                        .at_function(i)
                        .found(fde_info2::fde_type(info2)));
                }
            },
            _ => FdeType::Default,
        };
        let data_start = match attr_off {
            Some(a) => a + FDE_ATTR_V3_SIZE,
            None => {
                let s = self.fre_start as u64 + u64::from(fre_off);
                if s > self.fre_end as u64 || (num_fres > 0 && s >= self.fre_end as u64) {
                    return Err(Violation::new(
                        Rule::FdeDataFits,
                        off + FdeLayout::of(version).fre_off.offset,
                    )
                    .at_function(i)
                    .found(i64::from(fre_off)));
                }
                s as usize
            }
        };
        Ok(FdeRef {
            index: i,
            offset: off,
            attr_offset: attr_off,
            start: self.resolve_start(off, raw_start),
            raw_start,
            size,
            fre_off,
            num_fres,
            info,
            info2,
            rep_size,
            padding,
            fre_type,
            fde_type,
            data_start,
        })
    }

    /// The start address of the FRE of `fde` at absolute offset `off`, reading nothing else
    /// of it (a reader that looks ahead for where the current row ends). FRE-FITS when the
    /// start address is not inside the FRE sub-section.
    pub fn fre_start_at(&self, fde: &FdeRef, off: usize) -> Result<u32, Violation> {
        let asz = fde.fre_type.addr_size();
        off.checked_add(asz)
            .filter(|&end| end <= self.fre_end)
            .and_then(|_| self.endian.read_uint(self.data, off, asz))
            .map(|v| v as u32)
            .ok_or_else(|| Violation::new(Rule::FreFits, off).at_function(fde.index))
    }

    /// Iterate over FDE `i`'s FREs.
    pub fn fres(&self, fde: &FdeRef) -> FreIter<'a> {
        self.fres_from(fde, fde.data_start, 0, fde.num_fres)
    }

    /// The FRE of `fde` at absolute offset `off`, read as [`SectionRef::fres`] reads its
    /// FRE `k` when that FRE lies at `off`.
    pub fn fre_at(&self, fde: &FdeRef, off: usize, k: usize) -> Result<FreRef<'a>, Violation> {
        self.fres_from(fde, off, k, 1)
            .next()
            .unwrap_or_else(|| Err(Violation::new(Rule::FreFits, off).at_function(fde.index)))
    }

    fn fres_from(&self, fde: &FdeRef, pos: usize, index: usize, remaining: u32) -> FreIter<'a> {
        FreIter {
            data: self.data,
            endian: self.endian,
            end: self.fre_end,
            pos,
            remaining,
            index,
            function: fde.index,
            fre_type: fde.fre_type,
            size3_as_bytes: Quirk::libsframe_sanity_limit(self.quirks).is_some(),
        }
    }

    /// The FRE of type `fre_type` at absolute offset `off`, read as [`SectionRef::fres`]
    /// reads it; `None` where that would fail. Only for a reader without quirks (the
    /// reserved data-word size is then unreadable).
    #[inline]
    pub(crate) fn fre_in_place(&self, fre_type: FreType, off: usize) -> Option<FreRef<'a>> {
        read_fre(self.data, self.endian, self.fre_end, off, fre_type, false).ok()
    }

    /// Whether `fre` fails the FRE sanity check of a reader with a libsframe quirk
    /// ([`Quirk::libsframe_sanity_limit`]): more data words than it holds, or the reserved
    /// data-word size. Such an FRE is read (to walk past it) but none of its fields is.
    pub fn fails_sanity(&self, fre: &FreRef<'_>) -> bool {
        Quirk::libsframe_sanity_limit(self.quirks).is_some_and(|max| {
            fre.dataword_count() > max
                || DataWordSize::from_u8(fre_info::dataword_size(fre.info)).is_none()
        })
    }
}

/// One function descriptor's fields as stored, unchecked ([`SectionRef::fde_fields`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FdeFields {
    pub index: usize,
    /// Absolute offset of the FDE (v3: of the FDE index entry).
    pub offset: usize,
    /// v3: absolute offset of the FDE attribute.
    pub attr_offset: Option<usize>,
    /// The start-address field as stored.
    pub raw_start: i64,
    pub size: u32,
    pub fre_off: u32,
    pub num_fres: u32,
    pub info: u8,
    pub info2: u8,
    pub rep_size: u8,
    pub padding: u16,
}

/// One function descriptor, as stored, with its fields decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FdeRef {
    pub index: usize,
    /// Absolute offset of the FDE (v3: of the FDE index entry).
    pub offset: usize,
    /// v3: absolute offset of the FDE attribute.
    pub attr_offset: Option<usize>,
    /// Start address resolved to an offset from the start of the section.
    pub start: i64,
    /// The start-address field as stored.
    pub raw_start: i64,
    pub size: u32,
    pub fre_off: u32,
    pub num_fres: u32,
    /// `sfde_func_info` / `sfda_func_info`.
    pub info: u8,
    /// v3 `sfda_func_info2` (0 before v3).
    pub info2: u8,
    pub rep_size: u8,
    /// v2 `sfde_func_padding2` (0 otherwise).
    pub padding: u16,
    pub fre_type: FreType,
    pub fde_type: FdeType,
    /// Absolute offset of the first FRE.
    pub data_start: usize,
}

impl FdeRef {
    pub fn pc_type(&self) -> PcType {
        if fde_info::pc_type(self.info) != 0 {
            PcType::Mask
        } else {
            PcType::Inc
        }
    }
    pub fn pauth_key(&self) -> PauthKey {
        if fde_info::pauth_key(self.info) != 0 {
            PauthKey::B
        } else {
            PauthKey::A
        }
    }
    /// v3 `signal_p`; bit 7 of the info byte is unused before v3.
    pub fn signal(&self, version: Version) -> bool {
        version == Version::V3 && fde_info::signal(self.info)
    }
    /// Unused bits of the info byte for `version`, in place (v1: 7-6, v2: 7-6, v3: 6).
    pub fn info_unused_bits(&self, version: Version) -> u8 {
        self.info & fde_info::unused_mask(version)
    }
    /// Unused bits (7-5) of v3 info2, in place.
    pub fn info2_unused_bits(&self) -> u8 {
        self.info2 & fde_info2::UNUSED_MASK
    }
    /// Whether `pc_offset` (PC minus function start) lies in the function.
    pub fn contains_offset(&self, pc_offset: i64) -> bool {
        pc_offset >= 0 && pc_offset < i64::from(self.size)
    }
}

/// One frame row entry, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FreRef<'a> {
    /// Absolute offset of the FRE.
    pub offset: usize,
    /// Offset of the first byte after the FRE.
    pub end: usize,
    pub start: u32,
    pub info: u8,
    pub dataword_size: DataWordSize,
    words: &'a [u8],
    endian: Endian,
}

impl<'a> FreRef<'a> {
    pub fn base_reg(&self) -> BaseReg {
        if fre_info::base_reg(self.info) != 0 {
            BaseReg::Sp
        } else {
            BaseReg::Fp
        }
    }
    pub fn dataword_count(&self) -> usize {
        usize::from(fre_info::dataword_count(self.info))
    }
    pub fn mangled_ra(&self) -> bool {
        fre_info::mangled_ra(self.info)
    }
    /// Data word `i`, signed.
    pub fn dataword(&self, i: usize) -> Option<i64> {
        let s = self.dataword_size.bytes();
        self.endian.read_int(self.words, i.checked_mul(s)?, s)
    }
    /// Data word `i`, unsigned (flex control words).
    pub fn control_word(&self, i: usize) -> Option<u64> {
        let s = self.dataword_size.bytes();
        self.endian.read_uint(self.words, i.checked_mul(s)?, s)
    }
    /// Absolute offset of data word `i`.
    pub fn dataword_offset(&self, i: usize) -> usize {
        self.end - self.words.len() + i * self.dataword_size.bytes()
    }
}

/// Why an FRE could not be read ([`read_fre`]).
enum FreFault {
    /// It does not fit before the end of the FRE sub-section (FRE-FITS at its offset).
    Fits,
    /// The reserved data-word size `bits` in its info byte at `at` (FRE-DATAWORD-SIZE).
    DataWordSize { at: usize, bits: u8 },
}

/// The FRE of type `fre_type` at absolute offset `off` of `data`, whose FRE sub-section
/// ends at `end`; with `size3_as_bytes`, the reserved data-word size is read as 1-byte
/// words (see [`FreIter`]).
#[inline]
fn read_fre<'a>(
    data: &'a [u8],
    endian: Endian,
    end: usize,
    off: usize,
    fre_type: FreType,
    size3_as_bytes: bool,
) -> Result<FreRef<'a>, FreFault> {
    let asz = FreLayout::start(fre_type).width;
    let info_off = off
        .checked_add(FreLayout::info(fre_type).offset)
        .ok_or(FreFault::Fits)?;
    if info_off >= end {
        return Err(FreFault::Fits);
    }
    let (Some(start), Some(info)) = (
        endian.read_uint(data, off, asz),
        endian.read_u8(data, info_off),
    ) else {
        return Err(FreFault::Fits);
    };
    let bits = fre_info::dataword_size(info);
    let size = if size3_as_bytes && bits == 3 {
        Some(DataWordSize::B1)
    } else {
        DataWordSize::from_u8(bits)
    };
    let Some(dataword_size) = size else {
        return Err(FreFault::DataWordSize { at: info_off, bits });
    };
    let words_end = off
        + FreLayout::size_of(
            fre_type,
            usize::from(fre_info::dataword_count(info)),
            dataword_size,
        );
    if words_end > end {
        return Err(FreFault::Fits);
    }
    let words = data
        .get(off + FreLayout::datawords(fre_type)..words_end)
        .ok_or(FreFault::Fits)?;
    Ok(FreRef {
        offset: off,
        end: words_end,
        start: start as u32,
        info,
        dataword_size,
        words,
        endian,
    })
}

/// Iterator over a function's FREs; stops after the first error.
#[derive(Debug, Clone)]
pub struct FreIter<'a> {
    data: &'a [u8],
    endian: Endian,
    end: usize,
    pos: usize,
    remaining: u32,
    index: usize,
    function: usize,
    fre_type: FreType,
    /// The reserved data-word size (3) is read as 1-byte words, as libsframe's
    /// `sframe_fre_datawords_bytes_size` does ([`Quirk::libsframe_sanity_limit`]).
    size3_as_bytes: bool,
}

impl<'a> FreIter<'a> {
    /// Offset just after the last FRE read so far.
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl<'a> Iterator for FreIter<'a> {
    type Item = Result<FreRef<'a>, Violation>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.remaining == 0 {
            return None;
        }
        let read = read_fre(
            self.data,
            self.endian,
            self.end,
            self.pos,
            self.fre_type,
            self.size3_as_bytes,
        );
        let fre = match read {
            Ok(f) => f,
            Err(fault) => {
                self.remaining = 0;
                let v = match fault {
                    FreFault::Fits => Violation::new(Rule::FreFits, self.pos),
                    FreFault::DataWordSize { at, bits } => {
                        Violation::new(Rule::FreDataWordSize, at).found(bits)
                    }
                };
                return Some(Err(v.at_function(self.function).at_fre(self.index)));
            }
        };
        self.pos = fre.end;
        self.remaining -= 1;
        self.index += 1;
        Some(Ok(fre))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        // Every FRE takes at least two bytes: the bound comes from the data, not the count.
        let by_bytes = self.end.saturating_sub(self.pos) / 2;
        (0, Some((self.remaining as usize).min(by_bytes)))
    }
}
