//! The rule catalogue: every structural and semantic rule of the format, with a stable ID,
//! the versions and ABIs it applies to, its basis in the texts, and a severity.
//!
//! IDs are stable: tools, ledgers and generator tags refer to them. A rule's *class* keeps
//! the WebAssembly test suite's distinction: `Malformed` rules are those without which the
//! bytes cannot be decoded at all ([`crate::decode()`] fails exactly when one fires);
//! `Invalid` rules are broken by sections that decode but mean something the texts forbid.

use crate::constants::{Abi, Version};
use core::fmt;

/// How bad breaking a rule is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Severity {
    /// A producer wrote something the texts forbid, or a consumer cannot read it reliably.
    Error,
    /// A "should", a recommendation, or a reasonable expectation the texts do not state.
    Warning,
}

/// Whether breaking the rule prevents decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    Malformed,
    Invalid,
}

/// Where a rule comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Basis {
    /// A sentence of a manual: the text (`<suite>/sframe-spec.info`, Debian's `binutils-doc`
    /// as `ci/toolchains` provisions it), section, and the quoted words.
    Spec {
        file: &'static str,
        section: &'static str,
        quote: &'static str,
    },
    /// A macro or comment of `sframe.h` (`sframe.h@<release>`).
    Header {
        file: &'static str,
        item: &'static str,
        quote: &'static str,
    },
    /// Not stated by any text; why the rule holds anyway.
    Inferred { reason: &'static str },
}

impl Basis {
    /// Short citation, e.g. `sframe-spec-v3.txt §2.2`.
    pub fn source(&self) -> String {
        match self {
            Basis::Spec { file, section, .. } => format!("{file} §{section}"),
            Basis::Header { file, item, .. } => format!("{file} {item}"),
            Basis::Inferred { .. } => "inferred".to_string(),
        }
    }
    pub fn text(&self) -> &'static str {
        match self {
            Basis::Spec { quote, .. } | Basis::Header { quote, .. } => quote,
            Basis::Inferred { reason } => reason,
        }
    }
    pub fn kind(&self) -> &'static str {
        match self {
            Basis::Spec { .. } => "spec",
            Basis::Header { .. } => "header",
            Basis::Inferred { .. } => "inferred",
        }
    }
}

/// A set of versions, as a bit mask (bit n for version n).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Versions(pub u8);
impl Versions {
    pub const ALL: Versions = Versions(0b1110);
    pub const V1: Versions = Versions(0b0010);
    pub const V2: Versions = Versions(0b0100);
    pub const V3: Versions = Versions(0b1000);
    pub const V1_V2: Versions = Versions(0b0110);
    pub const V2_V3: Versions = Versions(0b1100);
    pub fn contains(self, v: Version) -> bool {
        self.0 & (1 << v.number()) != 0
    }
    pub fn list(self) -> Vec<u8> {
        Version::ALL
            .iter()
            .filter(|v| self.contains(**v))
            .map(|v| v.number())
            .collect()
    }
}

/// A set of ABIs, as a bit mask (bit n for ABI id n).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Abis(pub u8);
impl Abis {
    pub const ALL: Abis = Abis(0b11110);
    pub const AMD64: Abis = Abis(1 << 3);
    pub const AARCH64: Abis = Abis((1 << 1) | (1 << 2));
    pub const S390X: Abis = Abis(1 << 4);
    pub const NOT_AARCH64: Abis = Abis((1 << 3) | (1 << 4));
    pub fn contains(self, a: Abi) -> bool {
        self.0 & (1 << a.id()) != 0
    }
    pub fn list(self) -> Vec<&'static str> {
        Abi::ALL
            .iter()
            .filter(|a| self.contains(**a))
            .map(|a| a.name())
            .collect()
    }
}

/// Everything the catalogue says about a rule.
#[derive(Debug, Clone, Copy)]
pub struct RuleInfo {
    pub id: &'static str,
    pub summary: &'static str,
    pub versions: Versions,
    pub abis: Abis,
    pub severity: Severity,
    pub class: Class,
    pub basis: Basis,
}

// The texts as Debian ships them, provisioned by `ci/toolchains` into its cache
// (`spec/<suite>/sframe-spec.info`, `include/<release>/sframe.h`); `spec/tests/texts.rs`
// checks every quote. The manuals are those of Debian's `binutils-doc`: bookworm (2.40) has
// version 1, trixie (2.44) version 2, sid version 3. `sframe.h` of 2.40 (`binutils-dev`)
// is the version 1 header.
const V1T: &str = "bookworm/sframe-spec.info";
const V1H: &str = "sframe.h@2.40";
const V2T: &str = "trixie/sframe-spec.info";
const V3T: &str = "sid/sframe-spec.info";

macro_rules! catalogue {
    ($( $(#[$doc:meta])* $name:ident => $info:expr, )*) => {
        /// A rule of the catalogue. Match on it; its text is in [`Rule::info`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Rule { $( $(#[$doc])* $name, )* }

        impl Rule {
            /// Every rule, in catalogue order.
            pub const ALL: &'static [Rule] = &[ $( Rule::$name, )* ];

            pub fn info(self) -> &'static RuleInfo {
                match self { $( Rule::$name => { const I: RuleInfo = $info; &I } )* }
            }
        }
    };
}

use Basis::{Header as H, Inferred as Inf, Spec as S};
use Class::{Invalid as Inv, Malformed as Mal};
use Severity::{Error as E, Warning as W};

const fn r(
    id: &'static str,
    summary: &'static str,
    versions: Versions,
    abis: Abis,
    severity: Severity,
    class: Class,
    basis: Basis,
) -> RuleInfo {
    RuleInfo {
        id,
        summary,
        versions,
        abis,
        severity,
        class,
        basis,
    }
}

catalogue! {
    // ---- preamble and header ----
    PreambleMagic => r("PRE-MAGIC", "sfp_magic is 0xdee2 in either byte order", Versions::ALL, Abis::ALL, E, Mal,
        S { file: V3T, section: "2.1", quote: "The magic number for SFrame section: 0xdee2. Defined as a macro SFRAME_MAGIC." }),
    PreambleVersion => r("PRE-VERSION", "sfp_version is a defined version (1, 2 or 3)", Versions::ALL, Abis::ALL, E, Mal,
        S { file: V3T, section: "2.1.2", quote: "The following versions are currently valid: ... SFRAME_VERSION_1 1 First version, obsolete. SFRAME_VERSION_2 2 Second version. SFRAME_VERSION_3 3 Third version, under development." }),
    HeaderFits => r("HDR-FITS", "the section holds the whole 28-byte sframe_header", Versions::ALL, Abis::ALL, E, Mal,
        S { file: V3T, section: "2.2", quote: "0x18 uint32_t sfh_freoff The offset in bytes to the SFrame FRE sub-section." }),
    HeaderFlagsReserved => r("HDR-FLAGS-RESERVED", "flag bits not defined by the format are zero", Versions::V3, Abis::ALL, E, Inv,
        S { file: V3T, section: "2.1.3", quote: "Further flags may be added in future. Bits corresponding to the currently undefined flags must be set to zero." }),
    HeaderFlagsUnknownLegacy => r("HDR-FLAGS-UNKNOWN", "flag bits not defined for v1/v2 are zero", Versions::V1_V2, Abis::ALL, W, Inv,
        Inf { reason: "The v1 and v2 texts define only SFRAME_F_FDE_SORTED and SFRAME_F_FRAME_POINTER (v2 Errata 1 adds SFRAME_F_FDE_FUNC_START_PCREL) and do not say that other bits must be zero; a consumer of these versions cannot interpret any other bit." }),
    HeaderFlagVersion => r("HDR-FLAG-VERSION", "a defined flag is set only in the versions it belongs to (FRAME_POINTER 1-2, FDE_FUNC_START_PCREL 2-3)", Versions::ALL, Abis::ALL, E, Inv,
        S { file: V3T, section: "2.1.3", quote: "SFRAME_F_FRAME_POINTER 1-2 0x2 ... SFRAME_F_FDE_FUNC_START_PCREL2-3 0x4" }),
    HeaderAbiKnown => r("HDR-ABI", "sfh_abi_arch is an ABI/arch identifier defined for the version", Versions::ALL, Abis::ALL, E, Mal,
        S { file: V3T, section: "2.2.1", quote: "There are currently four identifiable ABI/arch values in the format." }),
    HeaderAbiEndian => r("HDR-ABI-ENDIAN", "the byte order of the magic is the byte order the ABI/arch identifier names", Versions::ALL, Abis::ALL, E, Inv,
        S { file: V3T, section: "1.1", quote: "The contents of the SFrame section are stored in the target endianness, i.e., in the endianness of the system on which the section is targeted to be used." }),
    HeaderAuxFits => r("HDR-AUX-FITS", "the auxiliary header (sfh_auxhdr_len bytes) fits in the section", Versions::ALL, Abis::ALL, E, Mal,
        S { file: V3T, section: "2.2", quote: "The auxiliary SFrame header follows right after the sframe_header structure." }),
    HeaderFixedRaAmd64 => r("HDR-FIXED-RA-AMD64", "on AMD64 sfh_cfa_fixed_ra_offset is -8 (RA at CFA-8, not tracked per FRE)", Versions::ALL, Abis::AMD64, E, Inv,
        S { file: V3T, section: "3.1.1", quote: "AMD64 ABI mandates that the RA be saved at a fixed offset from the CFA when entering a new function. ... The fixed offset is encoded in the SFrame file format in the field sfh_cfa_fixed_ra_offset" }),
    HeaderFixedRaTracked => r("HDR-FIXED-RA-TRACKED", "on AArch64 and s390x RA is tracked per FRE, so sfh_cfa_fixed_ra_offset is SFRAME_CFA_FIXED_RA_INVALID (0)", Versions::ALL, Abis(0b10110), E, Inv,
        S { file: V3T, section: "3.1.2", quote: "Hence the need to track RA in the SFrame stack trace format. As RA is being tracked in this ABI, the second stack offset is always used to locate the RA" }),
    HeaderFdeOffsetZero => r("HDR-FDEOFF-ZERO", "the FDE sub-section starts right after the header (sfh_fdeoff is 0)", Versions::ALL, Abis::ALL, W, Inv,
        S { file: V3T, section: "2.2", quote: "The two sub-sections tile the SFrame section: each section runs from the offset given until the start of the next section." }),
    HeaderFdeSubsectionFits => r("HDR-FDE-FITS", "the FDE sub-section (sfh_num_fdes entries at sfh_fdeoff) lies inside the section", Versions::ALL, Abis::ALL, E, Mal,
        S { file: V3T, section: "2.2", quote: "The SFrame section contains sfh_num_fdes number of fixed-length array elements in the SFrame FDE sub-section." }),
    HeaderFdeSubsectionTiles => r("HDR-FDE-TILES", "the FDE sub-section runs exactly up to the FRE sub-section (sfh_freoff - sfh_fdeoff = sfh_num_fdes x entry size)", Versions::ALL, Abis::ALL, E, Inv,
        S { file: V3T, section: "2.2", quote: "The two sub-sections tile the SFrame section: each section runs from the offset given until the start of the next section." }),
    HeaderFreSubsectionFits => r("HDR-FRE-FITS", "the FRE sub-section (sfh_fre_len bytes at sfh_freoff) lies inside the section", Versions::ALL, Abis::ALL, E, Mal,
        S { file: V3T, section: "2.2", quote: "An explicit length is given for the last sub-section, the SFrame Frame Row Entry (SFrame FRE) sub-section." }),
    HeaderSectionEnd => r("HDR-SECTION-END", "the FRE sub-section ends where the section ends (no trailing bytes)", Versions::ALL, Abis::ALL, W, Inv,
        S { file: V3T, section: "2.2", quote: "The two sub-sections tile the SFrame section ... An explicit length is given for the last sub-section" }),
    HeaderNumFres => r("HDR-NUM-FRES", "sfh_num_fres equals the sum of the functions' FRE counts", Versions::ALL, Abis::ALL, E, Inv,
        S { file: V3T, section: "2.2", quote: "0x0c uint32_t sfh_num_fres The number of SFrame FREs in the section." }),
    // ---- function descriptors ----
    FdeSorted => r("FDE-SORTED", "with SFRAME_F_FDE_SORTED, FDEs are in increasing order of function start address", Versions::ALL, Abis::ALL, E, Inv,
        S { file: V3T, section: "2.1.3", quote: "SFRAME_F_FDE_SORTED All 0x1 Function Descriptor Entries are sorted on PC." }),
    FdeOverlap => r("FDE-OVERLAP", "function address ranges do not overlap", Versions::ALL, Abis::ALL, W, Inv,
        Inf { reason: "A PC inside two functions has two candidate FDEs; binary search (sorted) and linear search (unsorted) then answer differently. The texts assume one FDE per PC (Appendix A: sframe_find_fre (pc))." }),
    FdeDataFits => r("FDE-DATA-FITS", "a function's data (v3: FDE attribute, then FREs) starts inside the FRE sub-section", Versions::ALL, Abis::ALL, E, Mal,
        S { file: V3T, section: "2.3.1", quote: "0x0c uint32_t sfdi_func_start_fre_off Unsigned 32-bit integral field specifying the offset to the start of the function’s stack trace data (SFrame FREs). This offset is relative to the beginning of the SFrame FRE sub-section." }),
    FdeFreType => r("FDE-FRE-TYPE", "the FRE type (info bits 0-3) is SFRAME_FRE_TYPE_ADDR1, ADDR2 or ADDR4", Versions::ALL, Abis::ALL, E, Mal,
        S { file: V3T, section: "2.3.3.3", quote: "SFrame format defines three types of SFrame FRE entries" }),
    FdeType => r("FDE-TYPE", "the v3 FDE type (info2 bits 0-4) is SFRAME_FDE_TYPE_DEFAULT or SFRAME_FDE_TYPE_FLEX", Versions::V3, Abis::ALL, E, Mal,
        S { file: V3T, section: "2.3.3", quote: "4-0 fde_type Specify the SFrame FDE type. Two possible values: SFRAME_FDE_TYPE_DEFAULT (0), or SFRAME_FDE_TYPE_FLEX (1)." }),
    FdeInfoUnused => r("FDE-INFO-UNUSED", "unused bits of the FDE info byte(s) are zero", Versions::ALL, Abis::ALL, W, Inv,
        Inf { reason: "The texts mark these bits 'unused' and reserve them 'for the purpose of extending the SFrame file format' (v3 §2.3.2); a set bit means something no consumer of this version can interpret." }),
    FdePauthKeyAbi => r("FDE-PAUTH-ABI", "the pauth_key bit is set only on AArch64", Versions::ALL, Abis::NOT_AARCH64, W, Inv,
        S { file: V3T, section: "2.3.3", quote: "5 pauth_key (For AArch64) Specify which key is used for signing the return addresses in the SFrame FDE. ... Unsed in AMD64, s390x" }),
    FdeRepSizeMask => r("FDE-REP-SIZE", "a PC-mask FDE has a non-zero repetition block size", Versions::V2_V3, Abis::ALL, E, Inv,
        S { file: V3T, section: "2.3.3.1", quote: "Stacktracers perform a (PC % REP_BLOCK_SIZE >= FRE_START_ADDR) to look up a matching FRE. REP_BLOCK_SIZE is the size in bytes of the repeating block" }),
    FdeRepSizeInc => r("FDE-REP-SIZE-INC", "a PC-increment FDE has repetition block size 0", Versions::V2_V3, Abis::ALL, W, Inv,
        Inf { reason: "sfde_func_rep_size is defined only 'for which an SFrame FDE of type SFRAME_FDE_PCTYPE_MASK is used' (v3 §2.3.2); any other value in a PC-increment FDE is meaningless." }),
    FdePadding => r("FDE-PADDING", "the v2 FDE padding (sfde_func_padding2) is zero", Versions::V2, Abis::ALL, W, Inv,
        S { file: V2T, section: "2.3", quote: "0x12 uint16_t sfde_func_padding2 Padding of 2 bytes. Currently unused bytes." }),
    FdeSignalV3 => r("FDE-SIGNAL-FRES", "a signal-frame FDE has at least one FRE", Versions::V3, Abis::ALL, W, Inv,
        Inf { reason: "v3 §1.2 marks signal frames in sfda_func_info and reserves a DEFAULT FDE with no FREs for the outermost frame; a signal frame without any row cannot be unwound through." }),
    FdeSizeZero => r("FDE-SIZE-ZERO", "a function has a non-zero size", Versions::ALL, Abis::ALL, W, Inv,
        Inf { reason: "An FDE of size 0 covers no PC: no look-up can select it, and any FRE it has describes no instruction (GNU as writes one for a function with an empty body)." }),
    FdeBlocksDisjoint => r("FDE-BLOCKS-DISJOINT", "the FRE data of two functions do not overlap", Versions::ALL, Abis::ALL, E, Mal,
        Inf { reason: "Each FDE points at 'the function's stack trace data' (v3 §2.3.1); data shared by two functions (or an FDE attribute overlapping another function's FREs) has no reading in the texts, and lets a small section describe unbounded numbers of rows." }),
    FreSubsectionDense => r("FRE-DENSE", "every byte of the FRE sub-section belongs to some function's data", Versions::ALL, Abis::ALL, W, Inv,
        S { file: V3T, section: "2.2", quote: "The two sub-sections tile the SFrame section" }),
    // ---- frame row entries ----
    FreFits => r("FRE-FITS", "each FRE (start address, info byte, data words) lies inside the FRE sub-section", Versions::ALL, Abis::ALL, E, Mal,
        S { file: V3T, section: "2.2", quote: "0x10 uint32_t sfh_fre_len The length in bytes of the SFrame FRE sub-section." }),
    FreDataWordSize => r("FRE-DATAWORD-SIZE", "the data-word size (info bits 5-6) is 1, 2 or 4 bytes (value 0, 1 or 2)", Versions::ALL, Abis::ALL, E, Mal,
        S { file: V3T, section: "2.4.1", quote: "5-6 fre_dataword_size Size of data word in bytes. Valid values are: SFRAME_FRE_DATAWORD_1B, SFRAME_FRE_DATAWORD_2B, and SFRAME_FRE_DATAWORD_4B." }),
    FreStartIncreasing => r("FRE-START-ORDER", "FRE start addresses increase strictly within a function", Versions::ALL, Abis::ALL, E, Inv,
        Inf { reason: "An FRE covers 'a range of contiguous (instruction) addresses, starting at the specified offset' (v3 §2.4); the row for a PC is the last FRE starting at or before it, which is only well defined when starts increase." }),
    FreStartInFunction => r("FRE-START-IN-FUNCTION", "an FRE does not start past the end of its function (PC-increment) or of the repeated block (PC-mask)", Versions::ALL, Abis::ALL, E, Inv,
        S { file: V3T, section: "2.4", quote: "An SFrame frame row entry (FRE) is a self-sufficient record containing SFrame stack trace information for a range of contiguous (instruction) addresses, starting at the specified offset from the start of the function." }),
    /// An FRE starting exactly where its function (or repeated block) ends describes no
    /// instruction. The texts do not say whether that is allowed; GNU as and LLVM write one
    /// when a CFI directive follows the last instruction (discrepancy
    /// D-FRE-START-AT-FUNCTION-END, finding F0006).
    FreStartAtEnd => r("FRE-START-AT-END", "an FRE does not start exactly at the end of its function (PC-increment) or of the repeated block (PC-mask), where it describes no instruction", Versions::ALL, Abis::ALL, W, Inv,
        S { file: V3T, section: "2.3.3.1", quote: "An FDE of PC type SFRAME_V3_FDE_PCTYPE_INC contains FREs whose PCs are to be interpreted as the address of a single instruction, measured in bytes and relative to the beginning of the function." }),
    FreFirstAtZero => r("FRE-FIRST-AT-ZERO", "the first FRE of a PC-increment function starts at offset 0", Versions::ALL, Abis::ALL, W, Inv,
        Inf { reason: "PCs before the first FRE's start have no row at all, although they lie inside the function the FDE describes." }),
    FreCountZeroV1 => r("FRE-COUNT-ZERO-V1", "a v1 FRE has at least one data word (the CFA offset)", Versions::V1, Abis::ALL, E, Inv,
        S { file: V1T, section: "SFrame FRE", quote: "The first offset is always used to locate the CFA, by interpreting it as: CFA = BASE_REG + offset1." }),
    FreCountMax => r("FRE-COUNT-MAX", "a v1/v2 FRE has at most 3 data words", Versions::V1_V2, Abis::ALL, E, Inv,
        S { file: V1T, section: "The SFrame FRE info word", quote: "fre_offset_count A value of upto 3 is allowed to track all three of CFA, FP and RA." }),
    FreCountAmd64 => r("FRE-COUNT-AMD64", "an AMD64 default-type FRE has 0 (RA undefined; v2+), 1 (CFA) or 2 (CFA, FP) data words", Versions::ALL, Abis::AMD64, E, Inv,
        S { file: V3T, section: "3.1.1", quote: "Hence, the second stack offset (in the SFrame FRE), when present, will be used to locate the FP ... Offset ID Interpretation in AMD64 ... 1 CFA = BASE_REG + offset1 2 FP = CFA + offset2" }),
    FreCountAarch64 => r("FRE-COUNT-AARCH64", "a v3 AArch64 default-type FRE has 0 (RA undefined), 1 or 3 data words", Versions::V3, Abis::AARCH64, W, Inv,
        S { file: V3T, section: "3.1.2", quote: "Given the nature of things, the number of stack offsets seen on AArch64 per SFrame FRE is either 1 or 3." }),
    FreCountS390x => r("FRE-COUNT-S390X", "an s390x default-type FRE has 0 (RA undefined), 1, 2 or 3 data words", Versions::V2_V3, Abis::S390X, E, Inv,
        S { file: V3T, section: "3.1.3", quote: "Given the nature of things, for default type FDEs, the number of stack offsets seen on s390x per SFrame FRE is either 1, 2, or 3." }),
    FreMangledRaAbi => r("FRE-MANGLED-RA-ABI", "the mangled-RA bit is set only on AArch64", Versions::ALL, Abis::NOT_AARCH64, W, Inv,
        H { file: V1H, item: "sframe_fre_info", quote: "1 bit: Mangled RA state bit (aarch64 only)." }),
    FreS390xV3NoRegnum => r("FRE-S390X-V3-REGNUM", "a v3 s390x default-type FRE does not encode a register number in an RA/FP offset (odd value)", Versions::V3, Abis::S390X, E, Inv,
        S { file: V3T, section: "1.2", quote: "On s390x, use FDE type SFRAME_FDE_TYPE_FLEX to encode FP/RA recovery from REG, instead of encoding DWARF register number in the SFrame FRE variable-length data of FDE type SFRAME_FDE_TYPE_DEFAULT." }),
    FreS390xRaPadding => r("FRE-S390X-RA-PADDING", "the s390x RA padding value (SFRAME_FRE_RA_OFFSET_INVALID) is used only when an FP offset follows", Versions::V2_V3, Abis::S390X, W, Inv,
        S { file: V3T, section: "1.3", quote: "SFRAME_FRE_RA_OFFSET_INVALID: Invalid RA offset value (like SFRAME_CFA_FIXED_RA_INVALID). Used on s390x as padding offset to represent FP without RA saved." }),
    // ---- flexible FDEs (v3) ----
    FlexLayout => r("FLEX-LAYOUT", "flex FRE data words are CFA pair, then RA pair or one padding word, then FP pair (counts 0, 2, 4, 5, 6)", Versions::V3, Abis::ALL, E, Inv,
        S { file: V3T, section: "3.2", quote: "For each tracked entity (CFA, RA, FP), the SFrame FRE carries a pair of data words ... If RA recovery rule is unspecified ..., a single padding data word is used instead of the pair of Control data word and Offset data word if FP recovery rule is to be specified using the subsequent data words." }),
    FlexCfaRegister => r("FLEX-CFA-REG", "the CFA control word of a flex FRE names a register (reg_p = 1)", Versions::V3, Abis::ALL, E, Inv,
        S { file: V3T, section: "Appendix A", quote: "CFA recovery must always specify a base register. assert (!cfa_p || reg_p);" }),
    FlexFpControl => r("FLEX-FP-CONTROL", "a flex FP control word, when present, is not the padding value 0", Versions::V3, Abis::ALL, E, Inv,
        S { file: V3T, section: "3.2", quote: "A value of 0 (i.e., regnum = 0, deref_p = 0, reg_p = 0) in the Control Data Word is used to indicate that no further data words follow for the tracked entity." }),
    FlexControlUnused => r("FLEX-CONTROL-UNUSED", "bit 2 of a flex control word is zero", Versions::V3, Abis::ALL, W, Inv,
        S { file: V3T, section: "3.2", quote: "2 unused Unused bit." }),
}

/// A rule is written as its stable ID (`"FRE-START-AT-END"`) and read back from it.
#[cfg(feature = "serde")]
mod serde_id {
    use super::Rule;
    use serde::{de::Error, Deserialize, Deserializer, Serialize, Serializer};

    impl Serialize for Rule {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(self.id())
        }
    }

    impl<'de> Deserialize<'de> for Rule {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Rule, D::Error> {
            let id = <std::borrow::Cow<'de, str>>::deserialize(d)?;
            Rule::from_id(&id)
                .ok_or_else(|| D::Error::custom(format_args!("no rule {id} in the catalogue")))
        }
    }
}

impl Rule {
    pub fn id(self) -> &'static str {
        self.info().id
    }
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.iter().copied().find(|r| r.id() == id)
    }
    /// Whether the rule applies to a section of this version and ABI.
    pub fn applies(self, version: Version, abi: Option<Abi>) -> bool {
        let i = self.info();
        i.versions.contains(version) && abi.is_none_or(|a| i.abis.contains(a))
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut seen = HashSet::new();
        for r in Rule::ALL {
            let id = r.id();
            assert!(seen.insert(id), "duplicate id {id}");
            assert!(
                id.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '-'),
                "{id}"
            );
            assert_eq!(Rule::from_id(id), Some(*r));
            assert!(!r.info().basis.text().is_empty());
            assert!(
                r.info().versions.0 != 0 && r.info().abis.0 != 0,
                "{id} applies to nothing"
            );
        }
    }
    // The quotes themselves are checked against the provisioned texts in spec/tests/texts.rs.
}
