//! The differential engine: every implementation against the reference, on every input.
//!
//! For each section the engine asks the reference (`sframe-spec`) and each foreign
//! implementation to decode it and to find the row for a set of PCs, validates it against
//! the rule catalogue, and classifies what it sees:
//!
//! | class | when | signature |
//! |---|---|---|
//! | crash | the implementation died (signal, abort, panic) | `crash:<impl>:<ver>:<op>:<signal>[:<site>]` |
//! | hang | it did not answer in time | `hang:<impl>:<ver>:<op>` |
//! | accepted-invalid | it decoded a section that breaks an error-severity rule (the first malformed-class one, else the first one, in section order) | `accepted-invalid:<impl>:<ver>:<class>:<RULE-ID>` |
//! | rejected-valid | it refused a section that breaks no error-severity rule | `rejected-valid:<impl>:<ver>:<op>:<error class>` |
//! | diff | on a valid section, a field it reports differs from the reference's | `diff:<impl>:<ver>:<op>:<field>` |
//!
//! `<ver>` is the section's format version (`v1`, `v2`, `v3`, or `v?` when the preamble
//! names none), with `-pcrel` when a v2/v3 header has `SFRAME_F_FDE_FUNC_START_PCREL` (the
//! start encoding: see [`version_tag`]): most behaviours are version-specific, and a ledger
//! entry can cover all of one version with a trailing `*`. `<op>` is `decode`, `find_fre` or `encode`. A crash's
//! `<site>` is the failed C assertion's function or the panic's source location, when the
//! process says. `<class>` is the rule's class: `malformed` (the bytes cannot be read as the
//! header says: an implementation that reads on reads what is not there) or `invalid`. Look-up
//! fields in a PC-mask function are prefixed `mask.`, at a PC that does not fit 32 bits (v3
//! starts are 64-bit, or one a 32-bit distance would put inside a function it is not in:
//! [`aliased_32`]) `far.` before that (after `wide.` for a function with AArch64 FREs of
//! more than three data words), at a PC inside overlapping functions (see
//! [`overlap_zones`]) `overlap.` before everything. A look-up that finds no row where the reference
//! finds one is field `missing` (`missing.unsorted` when the header lacks
//! `SFRAME_F_FDE_SORTED`), one that finds a row where the reference finds none `extra`. Values are compared only on valid sections: on
//! a section that breaks a rule, what each implementation makes of it is the rule's business
//! (accepted-invalid), not a value disagreement. "Unsupported" answers are counted as such and
//! never as agreement. Each signature is looked up in the findings ledger; new ones make the
//! run fail and can be minimized ([`minimize`]) and recorded ([`record`]).
//!
//! The parts: `case` (the records of a run: [`Case`], [`CaseResult`], [`ImplResult`] with its
//! [`Status`], [`Discrepancy`]), `reference_view` (the reference's [`ReferenceView`] of a section
//! and the look-up context: [`version_tag`], [`overlap_zones`], [`aliased_32`]), `judge` (what an
//! answer is on a valid or invalid section: [`judge`], shared with the suite's scoring),
//! `classify` (answers against that view, each with its typed
//! [`Signature`](crate::signature::Signature)), `engine`
//! ([`Engine`], [`pcs_for`]), [`campaign`] (a whole run: batches through the engine into one
//! summary, encoder checks, recording and saving what is new); the signature syntax itself
//! is [`crate::signature`].

mod answer;
pub mod campaign;
mod case;
mod classify;
pub mod cmd;
pub mod compare;
mod engine;
pub mod explain;
mod judge;
pub mod minimize;
pub mod mutate;
pub mod producer;
pub mod record;
mod reference_view;
pub mod report;
pub mod seeds;
pub mod triggers;
mod value;

pub use crate::signature::Op;
pub use answer::Answer;
pub use case::{Case, CaseResult, Discrepancy, ImplResult, Status, TriggerCheck};
pub use classify::{
    classify_decode, classify_decode_explained, classify_finds, classify_finds_explained, failure,
};
pub use engine::{pcs_for, Engine, Settings};
pub use judge::{judge, Judgement};
pub use reference_view::{
    aliased_32, overlap_zones, reference_view, reference_view_of, version_tag, ReferenceView,
};
pub use value::{Value, ValueError};

#[cfg(test)]
mod tests {
    use super::version_tag;

    /// A header as the spec's "SFrame Header" lays it out (28 bytes): preamble (magic 0xdee2,
    /// version, flags), ABI, fixed FP and RA offsets, aux length, then sfh_num_fdes,
    /// sfh_num_fres, sfh_fre_len, sfh_fdeoff, sfh_freoff as 32-bit words. Literal on purpose:
    /// the bytes are the text's layout, the input `version_tag` is tested against.
    fn header(
        big: bool,
        version: u8,
        flags: u8,
        num_fdes: u32,
        fdeoff: u32,
        freoff: u32,
    ) -> Vec<u8> {
        let w = |x: u32| {
            if big {
                x.to_be_bytes()
            } else {
                x.to_le_bytes()
            }
        };
        let mut h = if big {
            vec![0xde, 0xe2]
        } else {
            vec![0xe2, 0xde]
        };
        h.extend([version, flags, if big { 4 } else { 3 }, 0, 0xf8, 0]);
        for x in [num_fdes, 0, 0, fdeoff, freoff] {
            h.extend(w(x));
        }
        h
    }

    #[test]
    fn the_tag_names_version_start_encoding_and_sub_section_placement() {
        // FDE entry sizes from the texts: 17 bytes in v1 (sframe.h v1's packed
        // sframe_func_desc_entry), 20 in v2 ("SFrame FDE": 4+4+4+4+1+1+2), 16 in v3
        // (sframe_func_desc_idx: 8+4+4).
        for big in [false, true] {
            assert_eq!(version_tag(&header(big, 1, 0, 3, 0, 51)), "v1");
            assert_eq!(version_tag(&header(big, 2, 4, 3, 0, 60)), "v2-pcrel");
            assert_eq!(version_tag(&header(big, 2, 0, 3, 8, 68)), "v2-fdeoff");
            assert_eq!(version_tag(&header(big, 2, 4, 3, 0, 64)), "v2-pcrel-freoff");
            assert_eq!(version_tag(&header(big, 1, 4, 3, 4, 0)), "v1-fdeoff-freoff");
            assert_eq!(version_tag(&header(big, 7, 0, 0, 0, 0)), "v?");
            let mut aux = header(big, 3, 4, 3, 0, 48);
            aux[sframe_spec::layout::header::AUXHDR_LEN] = 2;
            assert_eq!(version_tag(&aux), "v3-pcrel-aux");
        }
    }

    #[test]
    fn overlap_zones_are_where_binary_and_linear_search_can_disagree() {
        use super::overlap_zones;
        assert!(
            overlap_zones(&[(0, 16), (16, 16), (40, 1)]).is_empty(),
            "adjacent is not overlapping"
        );
        // 0..100 contains 10..20 and 50..150: PCs 10..100 have a later start at or before them
        // while still inside 0..100 (10..20 twice, and 20..50 after 10..20 ended but 0..100
        // goes on), then 100..150 belong to 50..150 alone.
        assert_eq!(
            overlap_zones(&[(50, 100), (0, 100), (10, 10)]),
            vec![(10, 100), (50, 100)]
        );
        assert_eq!(overlap_zones(&[(5, 0), (5, 8)]), vec![(5, 13)]);
        assert_eq!(overlap_zones(&[(5, 8), (5, 0)]), vec![(5, 13)]);
    }

    #[test]
    fn a_fault_names_the_exported_symbol_or_says_unsymbolized() {
        // The worker's crash reporter: "sframe-worker: fault in <library> <symbol or +0x..>".
        use crate::signature::{CrashSite, Signal};
        let at = |s: &str| {
            CrashSite::from_report(
                &Signal::Named("SIGSEGV".into()),
                &format!("sframe-worker: fault in libsframe.so.1 {s}"),
            )
            .map(|s| s.to_string())
        };
        assert_eq!(at("sframe_decode").as_deref(), Some("sframe_decode"));
        assert_eq!(at("+0x2a33").as_deref(), Some("unsymbolized"));
        assert_eq!(
            at("outside-libsframe").as_deref(),
            Some("outside-libsframe")
        );
        assert_eq!(
            at("+0x2b0f"),
            at("+0x2a33"),
            "one site whatever the instruction"
        );
    }

    #[test]
    fn a_pc_aliases_a_function_only_at_a_distance_of_2_to_the_32() {
        use super::aliased_32;
        let f = [(0x1000_i64, 64_u32)];
        assert!(!aliased_32(&f, 0x1000), "inside is not aliased");
        assert!(!aliased_32(&f, 0x1040), "just past the end");
        assert!(aliased_32(&f, 0x1000 + (1 << 32) + 63));
        assert!(!aliased_32(&f, 0x1000 + (1 << 32) + 64));
        assert!(aliased_32(&f, 0x1000 - (1 << 32)));
        // The case fuzzing found: a function at 0xff000000ffffe000 and a PC at -8149.
        assert!(aliased_32(&[(0xff00_0000_ffff_e000_u64 as i64, 64)], -8149));
        assert!(
            !aliased_32(&[(i64::MIN, u32::MAX)], i64::MAX),
            "no overflow at the extremes"
        );
    }
}
