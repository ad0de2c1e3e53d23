//! Disagreements between the texts (manual against manual, manual against `sframe.h`, a
//! manual against itself), kept as data, with the reading the reference implementation takes.
//!
//! `sframe-conform rules --discrepancies` prints them; the corpus tests add the ones found by
//! comparing each release's `sframe.h` with the constants of this crate.

/// One quoted place in a text.
#[derive(Debug, Clone, Copy)]
pub struct Citation {
    pub file: &'static str,
    pub place: &'static str,
    pub quote: &'static str,
}

/// A disagreement between texts.
#[derive(Debug, Clone, Copy)]
pub struct TextDiscrepancy {
    pub id: &'static str,
    pub topic: &'static str,
    pub versions: &'static [u8],
    pub citations: &'static [Citation],
    /// What the reference reader does, and why.
    pub resolution: &'static str,
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
/// `sframe.h` of libsframe as of version 1 in 2022, before binutils 2.40 was released: no
/// Debian suite ships it (2.40's `binutils-dev` has the corrected macros), so the quotes
/// citing it are documented exceptions of `spec/tests/texts.rs`.
const V1H2022: &str = "sframe-v1.h (2022)";
/// The version 2 manual of 2024 (makeinfo 7.0.2; binutils 2.42/2.43), which no Debian suite
/// ships any more (trixie has the 2.44 manual, where the slip is fixed): a documented
/// exception of `spec/tests/texts.rs`.
const V2T2024: &str = "sframe-spec.info (v2, 2024)";
/// The texinfo source of the version 1 manual before binutils 2.40 (2021-2022); the 2.40
/// manual in bookworm's `binutils-doc` already has bit 5 as `pauth_key`: a documented
/// exception of `spec/tests/texts.rs`.
const V1T2022: &str = "sframe-spec.texi (v1, 2022)";
/// The `sframe.h` of binutils 2.47 (Debian sid, `libsframe-dev`), as provisioned by
/// `ci/toolchains`; quotes are checked by `spec/tests/texts.rs`.
const H247: &str = "sframe.h@2.47";

const fn c(file: &'static str, place: &'static str, quote: &'static str) -> Citation {
    Citation { file, place, quote }
}

/// Every known discrepancy.
pub const DISCREPANCIES: &[TextDiscrepancy] = &[
    TextDiscrepancy {
        id: "D-V1-ADDR-LIMIT-MACROS",
        topic: "SFRAME_FRE_TYPE_ADDR*_LIMIT macros evaluate to 8, 16 and 32, not the limits their comments state",
        versions: &[1],
        citations: &[
            c(V1H2022, "SFRAME_FRE_TYPE_ADDR1_LIMIT", "Upper limit of start address in sframe_frame_row_entry_addr1 is 0x100 (not inclusive). */ #define SFRAME_FRE_TYPE_ADDR1_LIMIT ((SFRAME_FRE_TYPE_ADDR1 + 1) * 8)"),
            c(V1H2022, "SFRAME_FRE_TYPE_ADDR2_LIMIT", "is 0x10000 (not inclusive). */ #define SFRAME_FRE_TYPE_ADDR2_LIMIT ((SFRAME_FRE_TYPE_ADDR2 * 2) * 8)"),
            c(V1H2022, "SFRAME_FRE_TYPE_ADDR4_LIMIT", "is 0x100000000 (not inclusive). */ #define SFRAME_FRE_TYPE_ADDR4_LIMIT ((SFRAME_FRE_TYPE_ADDR4 * 2) * 8)"),
        ],
        resolution: "The macros compute the field width in bits (8, 16, 32); the headers of binutils 2.40 and later define them as 1ULL << that width, which agrees with the comments (checked by spec/tests/headers.rs). The reference uses the limits the comments and the manuals' FRE type tables state: 0x100, 0x10000, 0x100000000.",
    },
    TextDiscrepancy {
        id: "D-V1-FUNC-START",
        topic: "what sfde_func_start_address is relative to",
        versions: &[1, 2],
        citations: &[
            c(V1T, "SFrame FDE table", "Signed 32-bit integral field denoting the virtual memory address of the described function."),
            c(V1H, "sframe_func_desc_entry", "Function start address. Encoded as a signed offset, relative to the beginning of the current FDE."),
            c(V2T, "2.3 table", "Signed 32-bit integral field denoting the virtual memory address of the described function."),
            c(V3T, "1.3 [Errata 1]", "if unset, sfde_func_start_offset field contains the offset in bytes to the start PC of the associated function from the start of the SFrame section."),
        ],
        resolution: "Without SFRAME_F_FDE_FUNC_START_PCREL (and always in v1, which has no such flag) the reference reads the field as an offset from the start of the section, as the v3 manual's account of v2 Errata 1 says; an int32 cannot hold a 64-bit virtual address, and 'relative to the current FDE' is what the PCREL flag was introduced to say.",
    },
    TextDiscrepancy {
        id: "D-V1V2-FRE-OFF-BASE",
        topic: "what sfde_func_start_fre_off is relative to",
        versions: &[1, 2],
        citations: &[
            c(V1T, "SFrame FDE", "This offset is relative to the end of the SFrame FDE sub-section"),
            c(V1T, "SFrame FDE table", "Unsigned 32-bit integral field specifying the offset in bytes of the function's first SFrame FRE in the SFrame section."),
            c(V1H, "sframe_func_desc_entry", "Offset of the first SFrame Frame Row Entry of the function, relative to the beginning of the SFrame Frame Row Entry sub-section."),
            c(V3T, "2.3.1", "This offset is relative to the beginning of the SFrame FRE sub-section."),
        ],
        resolution: "Relative to the start of the FRE sub-section (header comment, v3 manual; the same as 'end of the FDE sub-section' when the sub-sections tile, rule HDR-FDE-TILES).",
    },
    TextDiscrepancy {
        id: "D-V1-PCMASK-FORMULA",
        topic: "how a PC-mask FDE's FREs match a PC",
        versions: &[1, 2, 3],
        citations: &[
            c(V1H, "SFRAME_FDE_TYPE_PCMASK", "Unwinders perform a (PC & FRE_START_ADDR_AS_MASK >= FRE_START_ADDR_AS_MASK) to look up a matching FRE."),
            c(V2T, "2.3.2", "(PC % REP_BLOCK_SIZE >= FRE_START_ADDR) to look up a matching FRE."),
            c(V3T, "2.3.3.1", "(PC % REP_BLOCK_SIZE >= FRE_START_ADDR) to look up a matching FRE."),
        ],
        resolution: "Each version as its own text says: v1 masks by bitwise AND with the FRE's start address (v1 has no repetition block size), v2 and v3 by the remainder modulo sfde_func_rep_size. PC is taken relative to the function's start in both.",
    },
    TextDiscrepancy {
        id: "D-V1-PAUTH-BIT",
        topic: "bit 5 of the v1 FDE info byte",
        versions: &[1],
        citations: &[
            c(V1T2022, "The SFrame FDE info word", "@item 7--5 @tab @code{unused} @tab Unused bits."),
            c(V1H, "sframe_func_desc_entry", "1-bit: PAC authorization A/B key (aarch64)."),
        ],
        resolution: "The header (the code producers and libsframe compile against) wins: bit 5 is the PAuth key in v1 too; bits 7-6 are unused.",
    },
    TextDiscrepancy {
        id: "D-V2-CURRENT-VERSION",
        topic: "the v2 manual names version 1 as current",
        versions: &[2],
        citations: &[
            c(V2T2024, "2.1 table", "Current version is ‘SFRAME_VERSION_1’."),
            c(V2T, "2.1.2", "‘SFRAME_VERSION_2’ 2        Current version, under development."),
        ],
        resolution: "Editorial: version 2 is current in that manual.",
    },
    TextDiscrepancy {
        id: "D-V2-ABI-S390X",
        topic: "s390x in version 2",
        versions: &[2],
        citations: &[
            c(V2T, "2.2.1", "There are currently three identifiable ABI/arch values in the format."),
            c(V3T, "1.3 [Errata 1]", "Add a new ABI/arch identifier SFRAME_ABI_S390X_ENDIAN_BIG for the s390 architecture (64-bit) s390x ABI."),
        ],
        resolution: "Version 2 is modelled with its errata: ABI id 4 is defined in v2 and v3, not in v1.",
    },
    TextDiscrepancy {
        id: "D-V2-COUNT-ZERO",
        topic: "data-word (offset) count 0",
        versions: &[1, 2],
        citations: &[
            c(V2T, "3.1", "the first stack offset is always used to locate the CFA"),
            c(V3T, "1.3 [Errata 2]", "An offset count of zero in the SFrame FRE info byte indicates that the return address (RA) is undefined for the range of PCs covered by the SFrame FRE."),
        ],
        resolution: "v2 is modelled with Errata 2 (count 0: RA undefined, outermost frame); v1 has no erratum, so count 0 breaks FRE-COUNT-ZERO-V1.",
    },
    TextDiscrepancy {
        id: "D-COUNT-MAX",
        topic: "largest data-word count",
        versions: &[1, 2, 3],
        citations: &[
            c(V1T, "The SFrame FRE info word", "A value of upto 3 is allowed to track all three of CFA, FP and RA."),
            c(V2T, "2.4.1", "A max value of 15 is allowed. Typically, a value of upto 3 is sufficient for most ABIs to track all three of CFA, FP and RA."),
            c(V3T, "2.4.1", "Being a 4-bit sized field, a max value of 15 is allowed. Typically, a value of up to 3 is sufficient for most ABIs"),
        ],
        resolution: "v1/v2: more than 3 breaks FRE-COUNT-MAX; v3 allows up to 15 in the field, with per-ABI and flex layout rules.",
    },
    TextDiscrepancy {
        id: "D-V3-FLEX-FP-INDEX",
        topic: "Appendix A's flex pseudocode puts the FP control word at the wrong index",
        versions: &[3],
        citations: &[
            c(V3T, "3.2", "The pair of data words appear in the order: CFA, RA, FP."),
            c(V3T, "Appendix A", "if (ra_reg_data != SFRAME_FRE_RA_OFFSET_INVALID) ra_offset = sframe_fre_get_offset (fre, 3); fp_tracking_p = fre.num_offsets > 3; fp_data_index = 3; else fp_tracking_p = fre.num_offsets > 4; fp_data_index = 4;"),
        ],
        resolution: "Section 3.2 wins: with an RA pair (words 2-3) the FP control word is word 4; with an RA padding word (word 2) it is word 3. The appendix has the two indices swapped (and the RA pair's own offset at index 3 collides with its FP index).",
    },
    TextDiscrepancy {
        id: "D-V3-FLEX-CFA-SIGNED",
        topic: "the flex CFA control word read as a signed offset",
        versions: &[3],
        citations: &[
            c(V3T, "3.2", "The first data word of the pair is an unsigned integer of size fre_dataword_size."),
            c(V3T, "Appendix A", "cfa_reg_data = sframe_fre_get_offset (fre, 0);"),
        ],
        resolution: "Control words are unsigned (3.2); the reference reads the data word's bits unsigned.",
    },
    TextDiscrepancy {
        id: "D-V3-SORT-KEY",
        topic: "the sort key of sorted FDEs with PC-relative start offsets",
        versions: &[2, 3],
        citations: &[
            c(V3T, "2.3.1", "If the SFrame header flag SFRAME_F_FDE_SORTED is set, then the entries are sorted by sfdi_func_start_offset"),
            c(V3T, "2.1.3", "Function Descriptor Entries are sorted on PC."),
        ],
        resolution: "With SFRAME_F_FDE_FUNC_START_PCREL the stored field is relative to each entry, so field order is not PC order. The reference requires order by resolved start PC (the flag's meaning).",
    },
    TextDiscrepancy {
        id: "D-V3-NUM-FRES-NAME",
        topic: "per-function FRE count named after the header's total",
        versions: &[3],
        citations: &[c(V3T, "2.2", "For each function, the SFrame FRE sub-section contains the SFrame FDE attribute data and sfh_num_fres number of variable-length array elements.")],
        resolution: "Per function the count is sfda_func_num_fres; sfh_num_fres is the section's total (rule HDR-NUM-FRES).",
    },
    TextDiscrepancy {
        id: "D-V3-INFO-PARTS",
        topic: "the v3 FDE info byte is 'split into four parts' but has five",
        versions: &[3],
        citations: &[c(V3T, "2.3.3", "The first info byte sfda_func_info is a bitfield split into four parts.")],
        resolution: "Five fields: signal_p (7), unused (6), pauth_key (5), fde_pctype (4), fre_type (3-0), as the table lists.",
    },
    TextDiscrepancy {
        id: "D-V3-REP-SIZE-NAME",
        topic: "v3 text refers to the v2 field name for the repetition size and two spellings of PC type names",
        versions: &[3],
        citations: &[
            c(V3T, "2.3.3.1", "REP_BLOCK_SIZE is the size in bytes of the repeating block of program instructions and is encoded via sfde_func_rep_size in the SFrame FDE."),
            c(V3T, "2.3.3", "SFRAME_FDE_PCTYPE_MASK (1), or SFRAME_FDE_PCTYPE_INC (0)."),
            c(V3T, "2.3.3.1", "An FDE of PC type SFRAME_V3_FDE_PCTYPE_INC contains FREs"),
        ],
        resolution: "In v3 the field is sfda_func_rep_size of the FDE attribute; both macro spellings denote values 0 (INC) and 1 (MASK).",
    },
    TextDiscrepancy {
        id: "D-V1H-FP-OFFSET-TYPO",
        topic: "v1 header comment interprets the third offset with offset2",
        versions: &[1],
        citations: &[c(V1H, "sframe_frame_row_entry comment", "offset3 (intrepreted as FP = CFA + offset2)")],
        resolution: "FP = CFA + offset3 when RA is tracked (v1 manual 'SFrame FRE').",
    },
    TextDiscrepancy {
        id: "D-FRAME-POINTER-VERSIONS",
        topic: "versions of SFRAME_F_FRAME_POINTER",
        versions: &[1, 2, 3],
        citations: &[
            c(V2T, "2.1.3", "‘SFRAME_F_FRAME_POINTER’ All 0x2 All functions in the object file preserve frame pointer."),
            c(V3T, "2.1.3", "SFRAME_F_FRAME_POINTER 1-2 0x2 All functions in the object file preserve frame pointer."),
        ],
        resolution: "The v3 table is the later text: the flag is defined in v1 and v2 only; set in v3 it breaks HDR-FLAG-VERSION.",
    },
    TextDiscrepancy {
        id: "D-V3-APPENDIX-RA-UNCHANGED",
        topic: "Appendix A's default-FDE pseudocode always reads the RA from the stack",
        versions: &[2, 3],
        citations: &[
            c(V3T, "3.1.3", "RA remains unchanged, if the offset is not available or has a value of SFRAME_FRE_RA_OFFSET_INVALID."),
            c(V3T, "Appendix A", "ra_stack_loc = cfa + ra_offset; // Get the address stored in the stack location. next_frame->pc = read_value (ra_stack_loc);"),
        ],
        resolution: "The per-ABI text wins: an RA that is not tracked at this row (AArch64 with one data word, s390x padding) stays in its register, which is only valid in the topmost frame.",
    },
    TextDiscrepancy {
        id: "D-H-START-BASE-COMMENTS",
        topic: "sframe.h comments on what the function start field is relative to",
        versions: &[2, 3],
        citations: &[
            c(H247, "SFRAME_F_FDE_FUNC_START_PCREL", "If absent, the function start address in SFrame FDE is encoded as the distance from the start of the SFrame FDE section to the start PC of the function."),
            c(H247, "sframe_func_desc_idx_v3", "Offset to the function start address. Encoded as a signed offset, relative to the beginning of the current FDE."),
            c(V3T, "2.3.1", "Otherwise, it is the offset in bytes from the start of the SFrame section."),
        ],
        resolution: "The manual: with the flag, relative to the field (the start of the FDE); without it, relative to the start of the section (not of the FDE sub-section, 28 + sfh_auxhdr_len + sfh_fdeoff bytes later). The struct comment ignores the flag.",
    },
    TextDiscrepancy {
        id: "D-H-S390X-RA-UNTRACKED",
        topic: "s390x second offset: always RA (manual) or FP when RA is not tracked (header comment)",
        versions: &[2, 3],
        citations: &[
            c(V3T, "3.1.3", "As RA is being tracked in this ABI, the second stack offset is always used to locate the RA stack slot"),
            c(H247, "FRE comment, s390x", "else if FP is being tracked offset2 (intrepreted as FP = CFA + offset2) fi"),
        ],
        resolution: "The manual: on s390x (header fixed RA offset invalid) the second offset is always the RA slot, SFRAME_FRE_RA_OFFSET_INVALID when not saved; the header comment's else-branch cannot be reached with sfh_cfa_fixed_ra_offset = 0.",
    },
    TextDiscrepancy {
        id: "D-V3-S390X-FLEX-CFA-SCALE",
        topic: "whether the s390x CFA offset of a flexible FDE is stored adjusted and scaled",
        versions: &[3],
        citations: &[
            c(V3T, "3.1.3", "On s390x the value of the offset is stored adjusted by the s390x-specific SFRAME_S390X_CFA_OFFSET_ADJUSTMENT and scaled down by the s390x-specific SFRAME_S390X_CFA_OFFSET_ALIGNMENT_FACTOR"),
            c(V3T, "3.2", "Encoding of Data Word 2 (Offset Data) ... The second data word of the pair is a signed integer of width fre_dataword_size."),
        ],
        resolution: "The scaling is stated under 'Default FDE Type Interpretation' and the flex text says nothing of s390x. GNU as 2.47 encodes every s390x CFA offset, flex included, and libsframe 2.47 decodes it; the emulator confirms their reading (finding F0107). The reference follows them.",
    },
    TextDiscrepancy {
        id: "D-APPENDIX-A-CALLER-PC",
        topic: "looking up a caller frame's row by its return address",
        versions: &[1, 2, 3],
        citations: &[c(V3T, "Appendix A", "fre = sframe_find_fre (pc, &fde_type);")],
        resolution: "Appendix A looks every frame's PC up as it is. In a caller frame the PC is a return address, which is the start of the next function when the call was the last instruction (a call to a noreturn function): the wrong row, or none. The reference unwinder looks caller frames up at PC - 1, as DWARF unwinders do (inferred; found by the oracle).",
    },
    TextDiscrepancy {
        id: "D-FRE-START-AT-FUNCTION-END",
        topic: "an FRE starting exactly at its function's end (start offset == function size), describing no instruction",
        versions: &[1, 2, 3],
        citations: &[
            c(V1T, "SFrame FRE", "An SFrame Frame Row Entry is a self-sufficient record containing SFrame unwind info for a range of contiguous addresses, starting at the specified offset from the start of the function."),
            c(V2T, "2.4", "An SFrame frame row entry (FRE) is a self-sufficient record containing SFrame stack trace information for a range of contiguous (instruction) addresses, starting at the specified offset from the start of the function."),
            c(V3T, "2.3.3.1", "An FDE of PC type SFRAME_V3_FDE_PCTYPE_INC contains FREs whose PCs are to be interpreted as the address of a single instruction, measured in bytes and relative to the beginning of the function."),
            c(V3T, "2.3.1", "sfdi_func_size Unsigned 32-bit integral field specifying the size of the function in bytes."),
        ],
        resolution: "The texts give an FRE a range of the function's addresses starting at its offset, and (v3) call that offset the address of an instruction, but none says whether an FRE may start where the function ends: its range is then empty and no look-up selects it. GNU as 2.40, 2.44 and 2.47 (every ABI) and llvm-mc 23 write such an FRE when a CFI directive follows a function's last instruction, GNU ld 2.47 keeps it, and binutils' own ld tests expect it (pr32769-3: 'Num FREs: 3'). libsframe 2.40 and 2.44 assert start < size when reading an FRE (their objdump --sframe and ld abort on such output); libsframe 2.47 asserts only start <= size, with a comment that the stricter check would be more suitable but that code has been seen not to abide by it (PR libsframe/33131). Reading: the texts are silent, so an FRE starting at the end breaks only the warning FRE-START-AT-END (finding F0006); one starting past the end lies outside the function the FDE describes and breaks the error FRE-START-IN-FUNCTION. PC-mask functions are read the same way against their repetition block size.",
    },
    TextDiscrepancy {
        id: "D-EMPTY-SFRAME-SECTION",
        topic: "an ELF .sframe section of 0 bytes",
        versions: &[1, 2, 3],
        citations: &[
            c(V1T, "SFrame Section", "The SFrame section consists of an SFrame header, starting with a preamble, and two other sub-sections"),
            c(V3T, "2", "The SFrame section consists of an SFrame header, starting with a preamble, and two other sub-sections, namely the SFrame function descriptor entry (SFrame FDE) sub-section, and the SFrame frame row entry (SFrame FRE) sub-section."),
        ],
        resolution: "Every SFrame section has a header, so 0 bytes are no SFrame section at all rather than one with a broken preamble. GNU ld 2.47's --discard-sframe (whose manual says it discards the .sframe stack trace info from the output) leaves a .sframe section header of size 0, of which readelf --sframe says it has no data. sframe-elf reads such a file as having no SFrame data (LoadError::EmptySection, like a file without .sframe), not as breaking PRE-MAGIC.",
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_unique_and_every_discrepancy_cites_two_places_or_a_self_contradiction() {
        let mut ids: Vec<_> = DISCREPANCIES.iter().map(|d| d.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), DISCREPANCIES.len());
        for d in DISCREPANCIES {
            assert!(
                !d.citations.is_empty() && !d.resolution.is_empty(),
                "{}",
                d.id
            );
        }
    }

    #[test]
    fn v1_limit_macros_really_evaluate_to_bit_widths() {
        // Evaluate the macro bodies as quoted (SFRAME_FRE_TYPE_ADDR1 = 0, ADDR2 = 1, ADDR4 = 2).
        let (addr1, addr2, addr4) = (0u64, 1u64, 2u64);
        assert_eq!(
            ((addr1 + 1) * 8, (addr2 * 2) * 8, (addr4 * 2) * 8),
            (8, 16, 32)
        );
    }
    // The quotes themselves are checked against the provisioned texts in spec/tests/texts.rs.
}
