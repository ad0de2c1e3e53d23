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
    LookupV2StartAlwaysPcrel,
    /// The same for v3 starts (libsframe 2.47; F0137).
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
}

impl Quirk {
    /// Every quirk, in declaration order.
    pub const ALL: [Quirk; 12] = [
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
