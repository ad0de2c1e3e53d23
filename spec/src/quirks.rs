//! Known deviations of real implementations, as switches of the reference reader.
//!
//! A [`Quirk`] reproduces one behaviour of a real SFrame reader that departs from the texts
//! (an implementation bug, or a reading of an ambiguous sentence). The reference with a set
//! of [`Quirks`] on ([`SectionRef::parse_with`](crate::SectionRef::parse_with),
//! [`decode_with`](crate::decode::decode_with)) answers as that implementation does; the
//! differential harness uses this to *explain* a discrepancy only when the quirky reference
//! gives exactly the implementation's answer on that input, so a new bug of an
//! implementation that has known ones is still new.
//!
//! Each quirk names the finding of the ledger (`corpus/findings/`) that documents it, with
//! the upstream source lines of the release that behaves so. With no quirk on, the reader is
//! the reference; quirks never make it panic or read out of bounds.

/// One known deviation of a real reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum Quirk {
    /// `sfh_fdeoff` and `sfh_freoff` are not read: the FDE sub-section is taken to start
    /// right after the header (auxiliary header included) and the FRE sub-section right
    /// after the FDEs (libsframe 2.40 and 2.44 `sframe_decode`; F0133).
    SubsectionOffsetsIgnored,
    /// `sfh_auxhdr_len` is not added: sub-section offsets count from the end of the fixed
    /// 28-byte header (simple-frame-rs 0.3.0; F0135).
    AuxHeaderIgnored,
    /// The look-up reads every v2 start as PC-relative, whatever
    /// `SFRAME_F_FDE_FUNC_START_PCREL` says; decoding reads the flag (libsframe 2.47
    /// `sframe_decoder_get_secrel_func_start_addr`, which keeps old v2 for dumping only;
    /// F0111).
    #[cfg_attr(feature = "serde", serde(rename = "lookup-v2-start-always-pcrel"))]
    LookupV2StartAlwaysPcrel,
    /// The same for v3 starts (libsframe 2.47; F0137).
    #[cfg_attr(feature = "serde", serde(rename = "lookup-v3-start-always-pcrel"))]
    LookupV3StartAlwaysPcrel,
    /// A PC-relative start is taken relative to where its field would be if the FDE
    /// sub-section followed the header: `sfh_fdeoff` is left out of the field's offset
    /// (libsframe 2.47 `sframe_decoder_get_offsetof_fde_start_addr`; F0125).
    PcrelFieldOffsetWithoutFdeoff,
    /// The FDE search is a binary search that returns the first probed FDE containing the
    /// PC (`start <= pc && pc - start < size`), moving right when `start < pc`, instead of
    /// the last FDE starting at or before the PC: among overlapping functions it may pick
    /// an earlier one (libsframe 2.47 `sframe_get_funcdesc_with_addr_internal`; F0127).
    SearchFirstProbedContaining,
    /// Whether a PC is inside a function is decided on a 32-bit distance:
    /// `(u32)(pc - start) < size` (libsframe 2.47; F0126).
    #[cfg_attr(feature = "serde", serde(rename = "pc-distance-32"))]
    PcDistance32,
    /// No look-up in a section without `SFRAME_F_FDE_SORTED` (libsframe: binary search
    /// only; F0110).
    LookupRequiresSorted,
    /// The s390x CFA offset decode (`offset * 8 - 160`) is computed in 32-bit arithmetic,
    /// wrapping (libsframe 2.47, simple-frame-rs 0.3.0 in release builds; F0114).
    #[cfg_attr(feature = "serde", serde(rename = "s390x-cfa-decode-32"))]
    S390xCfaDecode32,
    /// The flexible-FDE control word is read sign-extended from its data-word size before
    /// the register number is shifted out (simple-frame-rs 0.3.0; F0119).
    FlexControlSignExtended,
    /// The s390x CFA offset of a flexible FDE is used as stored, unscaled (simple-frame-rs
    /// 0.3.0, following the v3 text; F0120).
    S390xFlexCfaUnscaled,
    /// The return address is reported from the FRE's data words only: where the header's
    /// fixed RA offset applies, the RA shows as not saved (objdump 2.40 `--sframe`; F0121).
    FixedRaUnreported,
    /// `sfh_freoff` is not read: the FRE sub-section is taken to follow the FDEs
    /// (llvm-readobj's SFrameParser; F0141).
    FreOffsetIgnored,
    /// v1 PC-mask FREs never match: the test `pc % start >= start` cannot hold
    /// (simple-frame-rs 0.3.0 `src/v1.rs`; F0138).
    #[cfg_attr(feature = "serde", serde(rename = "mask-v1-never-matches"))]
    MaskV1NeverMatches,
    /// v2/v3 PC-mask look-up on the absolute PC (the section loaded at 2^48, as the harness
    /// loads it for simple-frame-rs): the first FRE whose start is at most
    /// `(2^48 + pc) % rep_size`; none when `rep_size` is 0 (simple-frame-rs 0.3.0; F0138).
    MaskAbsolutePcFirstMatch,
    /// PC-mask look-up on the section-relative PC: `masked = (i32)pc % rep_size` (C
    /// remainder), the first FRE `k` with `start_k <= masked <= end_k`, where `end_k` is the
    /// next FRE's start less 1 (the function's size less 1 for the last); the function's
    /// end is not checked (libsframe 2.44 `sframe_fre_check_range_p`; F0139).
    MaskSectionPcModulo,
    /// PC-mask look-up on the low bytes of section-relative addresses: FRE `k` is taken when
    /// `(start + start_k) & 0xff <= pc & 0xff < (start + end_k) & 0xff` in order, where
    /// `end_k` is the next FRE's start (the function's size for the last); the look-up
    /// stops with no row at the first FRE failing the first test; the function's end is
    /// not checked (libsframe 2.40 `sframe_find_fre`; F0140).
    MaskLowByte,
    /// v2 FREs without data words (v2 erratum 2: the outermost frame, RA undefined) are
    /// read as ordinary rows: CFA at the base register plus 0, RA and FP as the header's
    /// fixed offsets say or not saved (libsframe 2.44, simple-frame-rs 0.3.0 `src/v2.rs`,
    /// llvm-readobj; F0113, F0138, F0141).
    #[cfg_attr(feature = "serde", serde(rename = "ra-undefined-unknown-v2"))]
    RaUndefinedUnknownV2,
    /// The s390x ABI of the v2 errata is unknown: CFA offsets are used unscaled and RA/FP
    /// offsets are always stack slots (libsframe 2.44; F0113).
    #[cfg_attr(feature = "serde", serde(rename = "s390x-v2-unknown"))]
    S390xV2Unknown,
    /// Which data word holds the RA or the FP follows the ABI, not the header's fixed
    /// offsets: on AMD64 the RA is the header's fixed RA and the FP word 1; elsewhere the RA
    /// is word 1 and the FP word 2 (simple-frame-rs 0.3.0, llvm-readobj; F0138, F0141).
    RaFpByAbi,
    /// Flag bits the implementation does not know refuse the section, in every version: v1
    /// knows `SFRAME_F_FDE_SORTED` and `SFRAME_F_FRAME_POINTER` only, v2 and v3 also
    /// `SFRAME_F_FDE_FUNC_START_PCREL` (simple-frame-rs 0.3.0 `SFrameFlags::from_bits` in
    /// `src/v1.rs`, `v2.rs`, `v3.rs` `SFrameSection::from`; F0146).
    UnknownFlagsRefused,
    /// `sfh_fre_len` is not read: FREs (and v3 FDE attributes) are read up to the end of the
    /// section's bytes, wherever the FRE sub-section ends (simple-frame-rs 0.3.0, whose FRE
    /// iterators check `offset + entry_size > self.section.data.len()`; F0146).
    FresReadToSectionEnd,
    /// A function whose FREs cannot be read does not fail the decode: it is reported with an
    /// error after the FREs read before it, with its FDE's fields as stored (an invalid FRE
    /// type is an error only when the function has FREs to read; an unknown v3 FDE type
    /// reads as the default type), and the other functions are read on (simple-frame-rs
    /// 0.3.0: errors come from each FDE's own FRE iterator, which never looks at the FDE
    /// type; F0146). Used by [`crate::decode::decode_per_function_with`] and the look-up.
    PerFunctionErrors,
    /// v2 FREs without data words (v2 erratum 2: the outermost frame, RA undefined) are read
    /// as ordinary rows that have no CFA offset: the CFA is not known (undefined), RA and FP
    /// as the header's fixed offsets or the other quirks say, else not saved
    /// (simple-frame-rs 0.3.0 `src/v2.rs` `get_cfa_offset`, `stack_offsets.first()`; F0140).
    #[cfg_attr(feature = "serde", serde(rename = "no-words-cfa-undefined-v2"))]
    NoWordsCfaUndefinedV2,
    /// The FDE search compares absolute `u64` PCs (the section loaded at 2^48, as the harness
    /// loads it): `pc(i) = 2^48 + start_i` (wrapping). A sorted section is searched with Rust's
    /// `binary_search_by` scheme: `size = n, base = 0; while size > 1 { mid = base + size / 2;
    /// if pc(mid) <= pc { base = mid }; size -= size / 2 }`, then FDE `base` when `pc(base) <=
    /// pc < pc(base) + size` (wrapping); it probes other FDEs than the reference's search when
    /// the starts are not in order as `u64`. An unsorted one is scanned for the first FDE
    /// with `pc(i) <= pc && pc - pc(i) < size` (simple-frame-rs 0.3.0
    /// `SFrameSection::find_fde`; F0148).
    SearchAbsoluteU64,
}

impl Quirk {
    /// Every quirk, in declaration order.
    pub const ALL: [Quirk; 25] = [
        Quirk::SubsectionOffsetsIgnored,
        Quirk::AuxHeaderIgnored,
        Quirk::LookupV2StartAlwaysPcrel,
        Quirk::LookupV3StartAlwaysPcrel,
        Quirk::PcrelFieldOffsetWithoutFdeoff,
        Quirk::SearchFirstProbedContaining,
        Quirk::PcDistance32,
        Quirk::LookupRequiresSorted,
        Quirk::S390xCfaDecode32,
        Quirk::FlexControlSignExtended,
        Quirk::S390xFlexCfaUnscaled,
        Quirk::FixedRaUnreported,
        Quirk::FreOffsetIgnored,
        Quirk::MaskV1NeverMatches,
        Quirk::MaskAbsolutePcFirstMatch,
        Quirk::MaskSectionPcModulo,
        Quirk::MaskLowByte,
        Quirk::RaUndefinedUnknownV2,
        Quirk::S390xV2Unknown,
        Quirk::RaFpByAbi,
        Quirk::UnknownFlagsRefused,
        Quirk::FresReadToSectionEnd,
        Quirk::PerFunctionErrors,
        Quirk::NoWordsCfaUndefinedV2,
        Quirk::SearchAbsoluteU64,
    ];

    /// The kebab-case name used in the ledger (`finding.json`).
    pub fn name(self) -> &'static str {
        match self {
            Quirk::SubsectionOffsetsIgnored => "subsection-offsets-ignored",
            Quirk::AuxHeaderIgnored => "aux-header-ignored",
            Quirk::LookupV2StartAlwaysPcrel => "lookup-v2-start-always-pcrel",
            Quirk::LookupV3StartAlwaysPcrel => "lookup-v3-start-always-pcrel",
            Quirk::PcrelFieldOffsetWithoutFdeoff => "pcrel-field-offset-without-fdeoff",
            Quirk::SearchFirstProbedContaining => "search-first-probed-containing",
            Quirk::PcDistance32 => "pc-distance-32",
            Quirk::LookupRequiresSorted => "lookup-requires-sorted",
            Quirk::S390xCfaDecode32 => "s390x-cfa-decode-32",
            Quirk::FlexControlSignExtended => "flex-control-sign-extended",
            Quirk::S390xFlexCfaUnscaled => "s390x-flex-cfa-unscaled",
            Quirk::FixedRaUnreported => "fixed-ra-unreported",
            Quirk::FreOffsetIgnored => "fre-offset-ignored",
            Quirk::MaskV1NeverMatches => "mask-v1-never-matches",
            Quirk::MaskAbsolutePcFirstMatch => "mask-absolute-pc-first-match",
            Quirk::MaskSectionPcModulo => "mask-section-pc-modulo",
            Quirk::MaskLowByte => "mask-low-byte",
            Quirk::RaUndefinedUnknownV2 => "ra-undefined-unknown-v2",
            Quirk::S390xV2Unknown => "s390x-v2-unknown",
            Quirk::RaFpByAbi => "ra-fp-by-abi",
            Quirk::UnknownFlagsRefused => "unknown-flags-refused",
            Quirk::FresReadToSectionEnd => "fres-read-to-section-end",
            Quirk::PerFunctionErrors => "per-function-errors",
            Quirk::NoWordsCfaUndefinedV2 => "no-words-cfa-undefined-v2",
            Quirk::SearchAbsoluteU64 => "search-absolute-u64",
        }
    }

    /// The quirk of a ledger name.
    pub fn from_name(name: &str) -> Option<Quirk> {
        Quirk::ALL.into_iter().find(|q| q.name() == name)
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

impl core::fmt::Display for Quirk {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of quirks (the empty set is the reference).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Quirks(u32);

impl Quirks {
    /// No quirk: the reference.
    pub const NONE: Quirks = Quirks(0);

    pub fn has(self, q: Quirk) -> bool {
        self.0 & q.bit() != 0
    }
    pub fn with(self, q: Quirk) -> Quirks {
        Quirks(self.0 | q.bit())
    }
    pub fn without(self, q: Quirk) -> Quirks {
        Quirks(self.0 & !q.bit())
    }
    pub fn union(self, other: Quirks) -> Quirks {
        Quirks(self.0 | other.0)
    }
    /// This set less every quirk of `other`.
    pub fn minus(self, other: Quirks) -> Quirks {
        Quirks(self.0 & !other.0)
    }
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The quirks in the set, in declaration order.
    pub fn iter(self) -> impl Iterator<Item = Quirk> {
        Quirk::ALL.into_iter().filter(move |q| self.has(*q))
    }
}

impl FromIterator<Quirk> for Quirks {
    fn from_iter<I: IntoIterator<Item = Quirk>>(iter: I) -> Quirks {
        iter.into_iter().fold(Quirks::NONE, Quirks::with)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_sets_hold_what_was_put_in() {
        for q in Quirk::ALL {
            assert_eq!(Quirk::from_name(q.name()), Some(q));
        }
        assert_eq!(Quirk::from_name("no-such-quirk"), None);
        let s: Quirks = [Quirk::PcDistance32, Quirk::AuxHeaderIgnored]
            .into_iter()
            .collect();
        assert!(s.has(Quirk::PcDistance32) && s.has(Quirk::AuxHeaderIgnored));
        assert!(!s.has(Quirk::LookupRequiresSorted));
        assert_eq!(
            s.iter().collect::<Vec<_>>(),
            vec![Quirk::AuxHeaderIgnored, Quirk::PcDistance32]
        );
        assert!(s
            .without(Quirk::PcDistance32)
            .without(Quirk::AuxHeaderIgnored)
            .is_empty());
    }
}
