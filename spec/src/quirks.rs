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
    /// v1 PC-mask FREs never match: the test `pc % start >= start` cannot hold; every FRE
    /// is still read, an unreadable one refusing the look-up (simple-frame-rs 0.3.0
    /// `src/v1.rs`; F0138).
    #[cfg_attr(feature = "serde", serde(rename = "mask-v1-never-matches"))]
    MaskV1NeverMatches,
    /// v2/v3 PC-mask look-up on the absolute PC (the section loaded at 2^48, as the harness
    /// loads it for simple-frame-rs): the first FRE whose start is at most
    /// `(2^48 + pc) % rep_size`, FREs read one at a time up to it (an unreadable FRE after
    /// the match is never seen); none when `rep_size` is 0, after reading every FRE (an
    /// unreadable one refuses the look-up) (simple-frame-rs 0.3.0; F0138).
    MaskAbsolutePcFirstMatch,
    /// PC-mask look-up on the section-relative PC: `masked = (i32)pc % rep_size` (C
    /// remainder), the first FRE `k` with `start_k <= masked <= end_k`, where `end_k` is the
    /// next FRE's start less 1 (the function's size less 1 for the last), both taken as
    /// `int32_t`; the function's end is not checked (libsframe 2.44 `sframe_fre_check_range_p`; F0139).
    MaskSectionPcModulo,
    /// PC-mask look-up on the low bytes of section-relative addresses: FRE `k` is taken when
    /// `(start + start_k) & 0xff <= pc & 0xff < (start + end_k) & 0xff` in order, where
    /// `end_k` is the next FRE's start (the function's size for the last); the look-up
    /// stops with no row at the first FRE failing the first test; the function's end is
    /// not checked (libsframe 2.40 `sframe_find_fre`; F0140).
    MaskLowByte,
    /// v2 FREs without data words (v2 erratum 2: the outermost frame, RA undefined) are
    /// read as ordinary rows that lack a CFA offset: the CFA unknown (the getters say "no
    /// offset"), RA and FP as the header's fixed offsets say or not saved (libsframe 2.44, simple-frame-rs 0.3.0 `src/v2.rs`,
    /// llvm-readobj; F0113, F0138, F0141).
    #[cfg_attr(feature = "serde", serde(rename = "ra-undefined-unknown-v2"))]
    RaUndefinedUnknownV2,
    /// The s390x CFA encoding of the v2 errata is unknown: v2 CFA offsets are used as stored,
    /// unscaled (libsframe 2.44, llvm-readobj; F0113, F0144). The RA and FP numbers these
    /// readers return are the stored ones, which the harness reads as the texts say (a v2
    /// odd offset names a register), so this quirk leaves them alone.
    #[cfg_attr(feature = "serde", serde(rename = "s390x-v2-unknown"))]
    S390xV2Unknown,
    /// Which data word holds the RA or the FP follows the ABI, not the header's fixed
    /// offsets: on AMD64 the RA is the header's fixed RA and the FP word 1; elsewhere the RA
    /// is word 1 and the FP word 2, in v2 and v3 sections (simple-frame-rs 0.3.0 `src/v2.rs`,
    /// `src/v3.rs`, whose `src/v1.rs` follows the header; llvm-readobj; F0138, F0141).
    RaFpByAbi,
    /// Flag bits other than `SFRAME_F_FDE_SORTED` and `SFRAME_F_FRAME_POINTER` refuse the
    /// section, `SFRAME_F_FDE_FUNC_START_PCREL` included (libsframe 2.40 and 2.44
    /// `sframe_header_sanity_check_p`: `all_flags = SFRAME_F_FDE_SORTED |
    /// SFRAME_F_FRAME_POINTER`).
    FlagsBeyondSortedFpRefused,
    /// Flag bits the section's version does not define refuse the section (libsframe 2.47
    /// `sframe_header_sanity_check_p`: `SFRAME_V2_F_ALL_FLAGS`, `SFRAME_V3_F_ALL_FLAGS`;
    /// the texts make unknown v1/v2 bits a warning, HDR-FLAGS-UNKNOWN).
    UndefinedFlagsRefused,
    /// A foreign-endian (big-endian, on the little-endian hosts the harness runs) section
    /// with an auxiliary header is refused (libsframe 2.47 `flip_header`: "Auxiliary
    /// header, if present, needs to flipped based on per abi/arch semantics").
    ForeignEndianAuxRefused,
    /// A foreign-endian section is refused unless its FDEs and the FREs walked from each
    /// FDE's FRE offset make up exactly the bytes after the header, and the FREs walked
    /// are the header's count (libsframe 2.40 and 2.44 `flip_sframe`: `j !=
    /// ihp->sfh_num_fres || bytes_flipped != (buf_size - hdrsz)`).
    ForeignEndianExactSize,
    /// A foreign-endian section is refused unless the FREs walked from each FDE are the
    /// header's count, fit in `sfh_fre_len`, and every byte after them is zero (libsframe
    /// 2.47 `flip_sframe_fdes_with_fres_v2`/`_v3`: "Optional trailing section padding").
    ForeignEndianTrailingZero,
    /// PC-increment look-up on the low 32 bits of section-relative addresses, unsigned: FRE
    /// `k` is taken when `u32(start + start_k) <= u32(pc) < u32(start + end_k)` in order,
    /// where `end_k` is the next FRE's start (the function's size for the last); the scan
    /// stops with no row at the first FRE failing the first test, and the function's end is
    /// checked only through its FREs (libsframe 2.40 `sframe_find_fre`: `uint64_t bitmask =
    /// 0xffffffff` applied to `int32_t` sums, so a function that crosses address 0 in 32
    /// bits never matches past it).
    #[cfg_attr(feature = "serde", serde(rename = "pcinc-low-32-unsigned"))]
    PcIncLow32Unsigned,
    /// The FP is reported from the FRE's data words only: where the header's fixed FP
    /// offset applies, the FP shows as not saved (objdump 2.40 `--sframe`:
    /// `sframe_fre_get_fp_offset` fails with `SFRAME_ERR_FREOFFSET_NOPRESENT` when
    /// `sfh_cfa_fixed_fp_offset` is set and the dumper prints `u`; F0121).
    FixedFpUnreported,
    /// In a flexible FDE's row without FP data words, the FP shows as not saved even where
    /// the header gives a fixed FP offset (objdump 2.47 `dump_sframe_func_fres_flex` prints
    /// `u` when the FP control word is absent, whatever `sframe_fre_get_fp_offset` returns;
    /// F0151).
    FlexFixedFpUnreported,
    /// The header's flags are reported without `SFRAME_F_FDE_SORTED` when
    /// `SFRAME_F_FRAME_POINTER` is set (objdump 2.40 and 2.44 `dump_sframe_header` build the
    /// flag names with `strcpy`, so the second name overwrites the first; F0150).
    FlagsSortedHiddenByFramePointer,
    /// A version 1 section is read with the 20-byte v2 FDE layout: FDE `i` at
    /// `header + 20*i` (with `rep_size` and padding), FREs after `20*num_fdes` bytes of FDEs
    /// (libsframe 2.44 `sframe_decode`, which knows one `sframe_func_desc_entry`; F0112).
    #[cfg_attr(feature = "serde", serde(rename = "v1-read-as-v2"))]
    V1ReadAsV2,
    /// No function of a version 1 section is listed: the header only (objdump 2.44
    /// `dump_sframe` dumps functions only when the version is `SFRAME_VERSION`, i.e. 2;
    /// F0112).
    #[cfg_attr(feature = "serde", serde(rename = "v1-functions-unlisted"))]
    V1FunctionsUnlisted,
    /// As [`Quirk::RaUndefinedUnknownV2`], but the CFA offset of a v2 FRE without data words
    /// is the getters' error value `SFRAME_ERR` (-1): objdump 2.44 prints the value
    /// `sframe_fre_get_cfa_offset` returns on `SFRAME_ERR_FREOFFSET_NOPRESENT` (`sp+-1`;
    /// F0113).
    #[cfg_attr(feature = "serde", serde(rename = "ra-undefined-cfa-error-v2"))]
    RaUndefinedCfaErrorV2,
    /// The s390x RA/FP encoding of the v2 errata is unknown: every RA or FP offset is shown
    /// as a stack slot, an odd one (a register number in v2) included, and an RA offset of 0
    /// as the slot at the CFA (objdump 2.44 `--sframe` prints the numbers as `c+N`; F0113).
    #[cfg_attr(feature = "serde", serde(rename = "s390x-v2-regs-as-slots"))]
    S390xV2RegsAsSlots,
    /// PC-increment look-up in 32-bit signed arithmetic: FRE `k` is taken, in order, when
    /// `i32(start + start_k) <= i32(pc) <= i32(start + end_k)` (`end_k` the next FRE's start
    /// less 1, the function's size less 1 for the last), so a function whose end wraps past
    /// 2^31 has no row there; the function's end is checked only through its FREs (libsframe
    /// 2.44 `sframe_fre_check_range_p`, `int32_t start_ip, end_ip`, and its binary search,
    /// which takes the last FDE starting at or before the PC).
    #[cfg_attr(feature = "serde", serde(rename = "pcinc-int32-range"))]
    PcIncInt32Range,
    /// Every foreign-endian section (big-endian, on the little-endian hosts the harness
    /// runs) is refused: the magic is compared in host byte order and nothing is swapped
    /// (glibc 2.43 `__sframe_decode`: "Check for foreign endianness", `sfp_magic !=
    /// SFRAME_MAGIC` returns `_URC_END_OF_STACK`; the reader only reads the loaded
    /// process's own sections; F0160; also the `tiny-sframe` example's deliberate limit).
    ForeignEndianRefused,
    /// `sfh_fre_len` is not read: FREs (and v3 FDE attributes) are read up to the end of the
    /// section's bytes, wherever the FRE sub-section ends (simple-frame-rs 0.3.0, whose FRE
    /// iterators check `offset + entry_size > self.section.data.len()`; F0152).
    FresReadToSectionEnd,
    /// A function whose FREs cannot be read does not fail the decode: it is reported with an
    /// error after the FREs read before it, with its FDE's fields as stored (an invalid FRE
    /// type is an error only when the function has FREs to read; an unknown v3 FDE type
    /// reads as the default type), and the other functions are read on (simple-frame-rs
    /// 0.3.0: errors come from each FDE's own FRE iterator, which never looks at the FDE
    /// type; F0152). Used by [`crate::decode::decode_per_function_with`] and the look-up.
    PerFunctionErrors,
    /// The FDE search compares absolute `u64` PCs (the section loaded at 2^48, as the harness
    /// loads it): `pc(i) = 2^48 + start_i` (wrapping). A sorted section is searched with Rust's
    /// `binary_search_by` scheme: `size = n, base = 0; while size > 1 { mid = base + size / 2;
    /// if pc(mid) <= pc { base = mid }; size -= size / 2 }`, then FDE `base` when `pc(base) <=
    /// pc < pc(base) + size` (wrapping); it probes other FDEs than the reference's search when
    /// the starts are not in order as `u64`. An unsorted one is scanned for the first FDE
    /// with `pc(i) <= pc && pc - pc(i) < size` (simple-frame-rs 0.3.0
    /// `SFrameSection::find_fde`; F0154).
    SearchAbsoluteU64,
    /// The FDE search of a sorted section is a binary search over `[0, n]` that returns an
    /// FDE starting exactly at the PC as soon as one is probed (among functions sharing a
    /// start, whichever the probe order meets first), else the FDE whose successor starts
    /// after the PC (libsframe 2.40 `sframe_get_funcdesc_with_addr`, 2.44
    /// `sframe_get_funcdesc_with_addr_internal`; F0127).
    SearchEqualStartFirstProbed,
    /// An FRE with more data words than libsframe 2.47 holds (`MAX_NUM_DATAWORDS`, 6) is
    /// printed from a frame-row entry `sframe_decoder_get_fre` refused to fill, whose
    /// contents are whatever the stack held: its start and rules are unknown, the rows
    /// after it are printed as usual (objdump 2.47 `dump_sframe_func_fres_*` does not check
    /// the getter's result; F0134).
    UnfilledFrePrinted,
    /// A PC-relative start is resolved in 32 bits: `int32_t` field plus its offset in the
    /// section, wrapping (glibc 2.43 `sframe_decoder_get_secrel_func_start_addr`: `int32_t
    /// func_start_addr; ... return func_start_addr + offsetof_fde_in_sec;`; F0126).
    #[cfg_attr(feature = "serde", serde(rename = "pcrel-start-int32"))]
    PcrelStartInt32,
    /// An FRE of more than [`Quirk::LIBSFRAME_2_47_MAX_DATAWORDS`] (6) data words fails the
    /// FRE sanity check: reading it ends its function's FREs with an error, and a look-up
    /// that finds it gets the getters' error value `SFRAME_ERR` (-1) as `true` from
    /// `sframe_fre_get_ra_undefined_p` and `sframe_fre_get_ra_mangled_p`: the outermost
    /// frame, RA mangled (libsframe 2.47 `sframe_fre_sanity_check_p`: `if (dataword_cnt >
    /// MAX_NUM_DATAWORDS) return false;`; F0134).
    #[cfg_attr(feature = "serde", serde(rename = "data-words-above-6-unreadable"))]
    DataWordsAbove6Unreadable,
    /// As [`Quirk::DataWordsAbove6Unreadable`] with libsframe 2.40's and 2.44's limit,
    /// `MAX_NUM_STACK_OFFSETS` (3): reading an FRE of more data words ends its function's
    /// FREs with an error; a look-up that finds one gets no CFA, RA or FP from the getters
    /// (`SFRAME_ERR_FRE_INVAL`) and `true` from `sframe_fre_get_ra_mangled_p`; 2.40's scan
    /// also sanity-checks the FRE after the one that matches and finds no row when it fails
    /// (`sframe_find_fre`: "Sanity check the next FRE").
    #[cfg_attr(feature = "serde", serde(rename = "data-words-above-3-unreadable"))]
    DataWordsAbove3Unreadable,
    /// A look-up that lands in a function whose FRE type is not one of the three defined
    /// finds no row, instead of refusing the section (glibc 2.43 `__sframe_find_fre`:
    /// `addr_size = sframe_fre_start_addr_size (fre_type); if (addr_size == 0) return
    /// _URC_END_OF_STACK;`; F0191).
    #[cfg_attr(feature = "serde", serde(rename = "invalid-fre-type-no-row"))]
    InvalidFreTypeNoRow,
    /// The FRE of a function is found by ranges, in order, on 32-bit offsets: with `off =
    /// (uint32_t)(pc - start)`, FRE `k` ends at the next FRE's start less 1 (wrapping; the
    /// function's size less 1 for the last); the scan stops with no row at the first FRE
    /// starting after `off`, and takes the first FRE with `start_k <= off' <= end_k`, where
    /// `off'` is `off` (PC-increment) or `off % rep_size` (PC-mask). FREs after it are not
    /// read (glibc 2.43 `__sframe_find_fre` and `sframe_fre_check_range_p`; F0192).
    #[cfg_attr(feature = "serde", serde(rename = "fre-range-scan"))]
    FreRangeScan,
    /// Every function is listed with `num_fres` rows whatever its FREs: rows from the first
    /// FRE that does not lie inside the FRE sub-section (as the reader places it) on are read
    /// from the memory after the reader's copy of it, so their start and rules are unknown
    /// (reported as such, never compared); the rows before it, and the FDE's fields, are
    /// as stored. Any other unreadable FRE still refuses the section (objdump 2.44
    /// `dump_sframe_func_with_fres` prints `num_fres` rows and ignores the result of
    /// `sframe_decoder_get_fre`, which walks FREs from `ctx->sfd_fres +
    /// fdep->sfde_func_start_fre_off` with no bound against `sfd_fre_nbytes`; F0155).
    FresPastEndPrinted,
    /// In a flexible FDE, an RA or FP rule on the CFA (control word with `reg_p` 0) is
    /// reported as the slot at CFA+offset whatever its `deref_p` says: the value rule `CFA +
    /// offset` shows as `*(CFA + offset)` (objdump 2.47 `dump_sframe_func_fres_flex` reads
    /// `deref_p` only when `reg_p` is set, so both rules print `c±N`, the notation of the
    /// slot; F0156).
    FlexCfaBaseDerefIgnored,
    /// A function without FREs is listed with its FDE's fields as stored whatever the FRE
    /// type its info byte names: the FRE type is read only to read FREs. An invalid FRE type
    /// of a function with FREs still refuses the section (objdump 2.44
    /// `dump_sframe_func_with_fres` reads the FDE through `sframe_decoder_get_funcdesc`, which
    /// copies `sfde_func_info` unchecked, and reads the FRE type only in
    /// `sframe_decoder_get_fre`, called `num_fres` times; with FREs,
    /// `sframe_fre_start_addr_size` asserts; F0157).
    FreTypeUnreadWithoutFres,
    /// A foreign-endian section is read from the reader's copy swapped in place by its
    /// byte-swapping pass, which lays the section out otherwise than the reading does: it
    /// steps through FDEs from `sfh_fdeoff` and walks each FDE's FREs from `sfh_freoff` plus
    /// its FRE offset, swapping the header, each FDE's four 32-bit fields and each walked
    /// FRE's start and data words; the reading then takes the FDEs and FREs, in host order,
    /// from where it places them (with [`Quirk::V1ReadAsV2`], a v1 section's FREs 3 bytes per
    /// FDE later than the pass walked them, so their bytes are swapped at other boundaries
    /// than they are read at; with [`Quirk::SubsectionOffsetsIgnored`], from after the header
    /// and the FDEs). Bytes the pass did not swap are read as stored, in host order
    /// (libsframe 2.44 `sframe_decode`: `flip_sframe (tempbuf, sf_size, 0)`, then `memcpy
    /// (dctx->sfd_funcdesc, frame_buf, fidx_size)` and `memcpy (dctx->sfd_fres, frame_buf,
    /// sfheaderp->sfh_fre_len)` from `tempbuf`; F0158).
    ForeignEndianReadAfterSwap,
}

impl Quirk {
    /// Every quirk, in declaration order.
    pub const ALL: [Quirk; 49] = [
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
        Quirk::FlagsBeyondSortedFpRefused,
        Quirk::UndefinedFlagsRefused,
        Quirk::ForeignEndianAuxRefused,
        Quirk::ForeignEndianExactSize,
        Quirk::ForeignEndianTrailingZero,
        Quirk::PcIncLow32Unsigned,
        Quirk::FixedFpUnreported,
        Quirk::FlexFixedFpUnreported,
        Quirk::FlagsSortedHiddenByFramePointer,
        Quirk::V1ReadAsV2,
        Quirk::V1FunctionsUnlisted,
        Quirk::RaUndefinedCfaErrorV2,
        Quirk::S390xV2RegsAsSlots,
        Quirk::PcIncInt32Range,
        Quirk::ForeignEndianRefused,
        Quirk::FresReadToSectionEnd,
        Quirk::PerFunctionErrors,
        Quirk::SearchAbsoluteU64,
        Quirk::SearchEqualStartFirstProbed,
        Quirk::UnfilledFrePrinted,
        Quirk::PcrelStartInt32,
        Quirk::DataWordsAbove6Unreadable,
        Quirk::DataWordsAbove3Unreadable,
        Quirk::InvalidFreTypeNoRow,
        Quirk::FreRangeScan,
        Quirk::FresPastEndPrinted,
        Quirk::FlexCfaBaseDerefIgnored,
        Quirk::FreTypeUnreadWithoutFres,
        Quirk::ForeignEndianReadAfterSwap,
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
            Quirk::FlagsBeyondSortedFpRefused => "flags-beyond-sorted-fp-refused",
            Quirk::UndefinedFlagsRefused => "undefined-flags-refused",
            Quirk::ForeignEndianAuxRefused => "foreign-endian-aux-refused",
            Quirk::ForeignEndianExactSize => "foreign-endian-exact-size",
            Quirk::ForeignEndianTrailingZero => "foreign-endian-trailing-zero",
            Quirk::PcIncLow32Unsigned => "pcinc-low-32-unsigned",
            Quirk::FixedFpUnreported => "fixed-fp-unreported",
            Quirk::FlexFixedFpUnreported => "flex-fixed-fp-unreported",
            Quirk::FlagsSortedHiddenByFramePointer => "flags-sorted-hidden-by-frame-pointer",
            Quirk::V1ReadAsV2 => "v1-read-as-v2",
            Quirk::V1FunctionsUnlisted => "v1-functions-unlisted",
            Quirk::RaUndefinedCfaErrorV2 => "ra-undefined-cfa-error-v2",
            Quirk::S390xV2RegsAsSlots => "s390x-v2-regs-as-slots",
            Quirk::PcIncInt32Range => "pcinc-int32-range",
            Quirk::ForeignEndianRefused => "foreign-endian-refused",
            Quirk::SearchEqualStartFirstProbed => "search-equal-start-first-probed",
            Quirk::UnfilledFrePrinted => "unfilled-fre-printed",
            Quirk::PcrelStartInt32 => "pcrel-start-int32",
            Quirk::FresReadToSectionEnd => "fres-read-to-section-end",
            Quirk::PerFunctionErrors => "per-function-errors",
            Quirk::SearchAbsoluteU64 => "search-absolute-u64",
            Quirk::DataWordsAbove6Unreadable => "data-words-above-6-unreadable",
            Quirk::DataWordsAbove3Unreadable => "data-words-above-3-unreadable",
            Quirk::InvalidFreTypeNoRow => "invalid-fre-type-no-row",
            Quirk::FreRangeScan => "fre-range-scan",
            Quirk::FresPastEndPrinted => "fres-past-end-printed",
            Quirk::FlexCfaBaseDerefIgnored => "flex-cfa-base-deref-ignored",
            Quirk::FreTypeUnreadWithoutFres => "fre-type-unread-without-fres",
            Quirk::ForeignEndianReadAfterSwap => "foreign-endian-read-after-swap",
        }
    }

    /// libsframe 2.47's `MAX_NUM_DATAWORDS`: the data words a frame-row entry holds
    /// ([`Quirk::UnfilledFrePrinted`]).
    pub const LIBSFRAME_2_47_MAX_DATAWORDS: usize = 6;

    /// libsframe's FRE sanity check (`sframe_fre_sanity_check_p`), with a quirk that names
    /// its limit ([`Quirk::DataWordsAbove3Unreadable`], [`Quirk::DataWordsAbove6Unreadable`]):
    /// the most data words an FRE may have. An FRE with more, or with the reserved data-word
    /// size (read as 1-byte words when walking FREs), fails it: `sframe_decoder_get_fre`
    /// refuses it and every getter fails on it. `None`: no such check.
    pub fn libsframe_sanity_limit(quirks: Quirks) -> Option<usize> {
        if quirks.has(Quirk::DataWordsAbove3Unreadable) {
            Some(3)
        } else if quirks.has(Quirk::DataWordsAbove6Unreadable) {
            Some(Quirk::LIBSFRAME_2_47_MAX_DATAWORDS)
        } else {
            None
        }
    }

    /// The quirk of a ledger name.
    pub fn from_name(name: &str) -> Option<Quirk> {
        Quirk::ALL.into_iter().find(|q| q.name() == name)
    }

    /// The header flags as a reader with `quirks` reports them
    /// ([`Quirk::FlagsSortedHiddenByFramePointer`]).
    pub fn reported_flags(flags: u8, quirks: Quirks) -> u8 {
        if quirks.has(Quirk::FlagsSortedHiddenByFramePointer)
            && flags & crate::constants::flags::FRAME_POINTER != 0
        {
            flags & !crate::constants::flags::FDE_SORTED
        } else {
            flags
        }
    }

    const fn bit(self) -> u64 {
        1 << (self as u64)
    }
}

impl core::fmt::Display for Quirk {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of quirks (the empty set is the reference).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Quirks(u64);

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
    /// The quirks that refuse whole sections (see `refusals`).
    pub const REFUSALS: Quirks = Quirks(
        Quirk::FlagsBeyondSortedFpRefused.bit()
            | Quirk::UndefinedFlagsRefused.bit()
            | Quirk::ForeignEndianAuxRefused.bit()
            | Quirk::ForeignEndianExactSize.bit()
            | Quirk::ForeignEndianTrailingZero.bit()
            | Quirk::ForeignEndianRefused.bit(),
    );

    /// Whether a quirk of the set refuses whole sections (see `refusals`).
    pub fn refuses_sections(self) -> bool {
        self.0 & Quirks::REFUSALS.0 != 0
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
        // objdump 2.40/2.44: strcpy (flags_str, ","); strcpy (flags_str, flag_names[1]).
        let fp = Quirks::NONE.with(Quirk::FlagsSortedHiddenByFramePointer);
        assert_eq!(Quirk::reported_flags(3, fp), 2);
        assert_eq!(Quirk::reported_flags(1, fp), 1);
        assert_eq!(Quirk::reported_flags(2, fp), 2);
        assert_eq!(Quirk::reported_flags(3, Quirks::NONE), 3);
        assert!(s
            .without(Quirk::PcDistance32)
            .without(Quirk::AuxHeaderIgnored)
            .is_empty());
    }
}
