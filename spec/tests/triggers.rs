//! The crash triggers on the ledger's reproducers: per input and libsframe release, the first
//! known bug the release's decode walk reaches. The expected triggers are what AddressSanitizer
//! builds of each release (Debian source, `ci/check-triggers`, gcc 12.2.0 -fsanitize=address)
//! reported first on the same input, walked as sframe-worker walks it: the kind of report and
//! the libsframe function it names (a heap over-read in `sframe_decode` is
//! `libsframe-decode-copies-past-buffer`, a stack-buffer-overflow in `sframe_decode_fre` or its
//! size assertion `libsframe-fre-data-words-overflow`, ...); `clean` where the build decoded or
//! refused the input without a report.

use sframe_spec::triggers::{first_trigger, Caller, Evaluation, Release};
use sframe_spec::Trigger;
use std::path::Path;

fn input(finding: &str, file: &str) -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/findings");
    let d = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().starts_with(finding))
        .unwrap_or_else(|| panic!("no finding {finding}"));
    std::fs::read(d.path().join(file)).unwrap()
}

const RELEASES: [Release; 3] = [
    Release::Libsframe240,
    Release::Libsframe244,
    Release::Libsframe247,
];

fn name(e: Evaluation) -> &'static str {
    match e {
        Evaluation::Triggered(t) => t.name(),
        Evaluation::Clean => "clean",
    }
}

#[test]
fn each_reproducer_reaches_the_bug_the_asan_build_reports_first() {
    use Trigger::*;
    let copies = LibsframeDecodeCopiesPastBuffer.name();
    let words = LibsframeFreDataWordsOverflow.name();
    let walk = LibsframeFreWalkPastFreBytes.name();
    let ftype = LibsframeInvalidFreType.name();
    let start = LibsframeFreStartPastFunction.name();
    // 2.44's copy in sframe_decode (ASan: libsframe-decode-copies-past-buffer) on a v1
    // section whose 17-byte descriptors and FRE bytes fit: past the buffer only by the v2
    // layout (F0112). input-4 does not fit even as v1: F0115's own.
    let v1copies = Libsframe244V1LayoutCopiesPastBuffer.name();
    // (finding, input, [2.40, 2.44, 2.47]) as the ASan builds reported them.
    let cases: &[(&str, &str, [&str; 3])] = &[
        ("F0145", "nb01-v1-2.40.sframe", [words, v1copies, "clean"]),
        ("F0145", "nb01-v2-2.44.sframe", ["clean", words, words]),
        ("F0145", "nb01-v2-2.47.sframe", ["clean", words, words]),
        (
            "F0145",
            "v1-aux-freoff-saved-rbp-2.40.sframe",
            [words, v1copies, "clean"],
        ),
        ("F0115", "input-1.sframe", [words, v1copies, "clean"]),
        ("F0115", "input-2.sframe", [walk, v1copies, "clean"]),
        ("F0115", "input-3.sframe", [ftype, v1copies, "clean"]),
        ("F0115", "input-4.sframe", [copies, copies, "clean"]),
        ("F0115", "input-7.sframe", ["clean", walk, walk]),
        ("F0115", "input-9.sframe", ["clean", ftype, copies]),
        // 2.47 reads a v2 FDE's fields, not its padding: the last two bytes may lie past.
        ("F0116", "input-13.sframe", ["clean", "clean", "clean"]),
        ("F0112", "input-10.sframe", [start, v1copies, "clean"]),
        ("F0112", "input-5.sframe", [start, v1copies, "clean"]),
        ("F0112", "input-12.sframe", ["clean", "clean", "clean"]),
    ];
    agree(cases, Caller::Worker);
}

/// Every (finding, input, [2.40, 2.44, 2.47]) case's model verdict, as `caller` drives each
/// release, is the one given.
fn agree(cases: &[(&str, &str, [&str; 3])], caller: Caller) {
    let mut wrong = Vec::new();
    for (finding, file, want) in cases {
        let data = input(finding, file);
        for (rel, want) in RELEASES.iter().zip(want) {
            let got = name(first_trigger(&data, *rel, caller));
            if got != *want {
                wrong.push(format!(
                    "{finding} {file} {caller:?} {rel:?}: ASan {want}, model {got}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A big-endian s390x v2 section (one function, FRE offset `fre_off`, one FRE: ADDR2 start
/// 0x0010, two 4-byte words) or v3 (one function, its attribute at `fre_off`: 1 FRE, ADDR1;
/// the FRE: start 0, one 1-byte word).
fn big_endian(version: u8, fre_off: u32) -> Vec<u8> {
    let (fdes, fres): (Vec<u8>, Vec<u8>) = if version == 2 {
        let mut f = 0x100i32.to_be_bytes().to_vec();
        for v in [0x40u32, fre_off, 1] {
            f.extend(v.to_be_bytes());
        }
        f.extend([0x01, 0, 0, 0]);
        let mut r = vec![0, 0x10, 0x44];
        r.extend(160i32.to_be_bytes());
        r.extend((-8i32).to_be_bytes());
        (f, r)
    } else {
        let mut f = 0x100i64.to_be_bytes().to_vec();
        f.extend(0x40u32.to_be_bytes());
        f.extend(fre_off.to_be_bytes());
        (f, vec![0, 1, 0, 0, 0, 0, 0x02, 8])
    };
    let mut d = vec![0xde, 0xe2, version, 1, 4, 0, 0, 0];
    for v in [1u32, 1, fres.len() as u32, 0, fdes.len() as u32] {
        d.extend(v.to_be_bytes());
    }
    d.extend(fdes);
    d.extend(fres);
    d
}

fn cut(mut d: Vec<u8>, n: usize) -> Vec<u8> {
    d.truncate(d.len() - n);
    d
}

#[test]
fn a_foreign_endian_section_is_swapped_first_and_the_swap_can_run_past_it() {
    use Trigger::*;
    let flip = LibsframeFlipPastBuffer.name();
    // As the ASan builds reported them (ci/check-triggers): a heap-buffer-overflow in flip_fre
    // (2.44 v2; 2.47 v2, the room `buf_end - fp` wrapped) or flip_fde_attr_v3 (2.47 v3) when
    // the FRE offset points 5000 / 1000 bytes past the copy; nothing at offset 0. 2.40
    // refuses v2 and v3, 2.44 v3.
    let cases: &[(&str, Vec<u8>, [&str; 3])] = &[
        ("v2, FREs past the end", big_endian(2, 5000), ["clean", flip, flip]),
        ("v2", big_endian(2, 0), ["clean", "clean", "clean"]),
        // The FRE's second word wholly past the end: 2.44's flip_fre_stack_offsets swaps it
        // (2.47 checks the room; ASan misses a word that starts inside a heap block's last
        // full 8-byte granule and ends past it, so a cut of 1 to 3 bytes is not shown).
        ("v2, its last word past the end", cut(big_endian(2, 0), 4), ["clean", flip, "clean"]),
        ("v3, attribute past the end", big_endian(3, 1000), ["clean", "clean", flip]),
        ("v3", big_endian(3, 0), ["clean", "clean", "clean"]),
        // sframe-conform gen --version 1 --endian big --malformed --seed 29, #14: the last 6
        // bytes of function 0's FREs cut off. 2.40's and 2.44's flip_fre swaps them past
        // the copy; 2.47 refuses v1.
        (
            "v1, FREs cut off",
            hex("dee2010301f700010000000100000001000000000000000000000011e07ffffffe00000100000000000000000100"),
            [flip, flip, "clean"],
        ),
        // #33 of --version 2: the last 14 bytes of the FREs cut off (2.40 refuses v2; 2.47
        // checks the room left, the FREs inside the copy).
        (
            "v2, FREs cut off",
            hex("dee202010400000c0000000100000001000000000000000000000014dddc59f9a1e726daecdd789400001000a6f64198000000000000000110010000"),
            ["clean", flip, "clean"],
        ),
    ];
    let mut wrong = Vec::new();
    for (what, data, want) in cases {
        for (rel, want) in RELEASES.iter().zip(want) {
            let got = name(first_trigger(data, *rel, Caller::Worker));
            if got != *want {
                wrong.push(format!("{what} {rel:?}: ASan {want}, model {got}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_input_makes_the_walk_panic() {
    // Every prefix and every single-byte change of the reproducers.
    for (finding, file) in [
        ("F0145", "nb01-v2-2.47.sframe"),
        ("F0115", "input-7.sframe"),
    ] {
        let data = input(finding, file);
        for n in 0..=data.len() {
            for rel in RELEASES {
                for caller in [Caller::Worker, Caller::Objdump, Caller::Lookup] {
                    let _ = first_trigger(&data[..n], rel, caller);
                }
            }
        }
        for i in 0..data.len().min(64) {
            for v in [0u8, 0x7f, 0xff] {
                let mut d = data.clone();
                d[i] = v;
                for rel in RELEASES {
                    let _ = first_trigger(&d, rel, Caller::Lookup);
                }
            }
        }
    }
}

#[test]
fn a_function_table_whose_int_size_wraps_is_read_past() {
    // 2.44's `int fidx_size`: 0x0ccccccd FDEs of 20 bytes are 2^32 + 4 bytes, a table of 4.
    // The ASan build of 2.44 (ci/check-triggers) reports a heap-buffer-overflow in
    // sframe_decoder_get_funcdesc_v2 on such a section (found by ci/fuzz-long).
    let mut data = vec![0u8; 64];
    data[..8].copy_from_slice(&[0xe2, 0xde, 2, 0, 3, 0, 0xf8, 0]);
    data[8..12].copy_from_slice(&0x0ccc_cccdu32.to_le_bytes());
    assert_eq!(
        first_trigger(&data, Release::Libsframe244, Caller::Worker),
        Evaluation::Triggered(Trigger::LibsframeFdeTableTruncated)
    );
    // 2.47 sizes it in `size_t`: the copy runs past the 64 bytes.
    assert_eq!(
        first_trigger(&data, Release::Libsframe247, Caller::Worker),
        Evaluation::Triggered(Trigger::LibsframeDecodeCopiesPastBuffer)
    );
}

#[test]
fn glibc_reproducers_reach_the_bug_its_asan_build_reports_first() {
    use sframe_spec::triggers::glibc::{first_trigger, Call};
    let outside = Evaluation::Triggered(Trigger::GlibcReadsOutsideSection);
    let fpe = Evaluation::Triggered(Trigger::GlibcMaskRepSizeZero);
    // As the ASan+UBSan build of glibc 2.43-6's sframe-read.c (ci/instrumented-libs, gcc
    // 12.2.0), hosted in sframe-worker, reported them: a heap-buffer-overflow read in
    // __sframe_decode (line 544), sframe_decode_fre_start_address (lines 342, 347) or
    // sframe_decoder_get_secrel_func_start_addr (line 244); SIGFPE after UBSan's "division
    // by zero" (line 282); an answer without a report at the other PCs.
    let cases: &[(&str, &str, Call, Evaluation)] = &[
        ("F0162", "input-1.sframe", Call::Decode, outside),
        ("F0162", "input-7.sframe", Call::Decode, outside),
        ("F0162", "input-2.sframe", Call::Decode, Evaluation::Clean),
        ("F0162", "input-2.sframe", Call::Lookup(2147418111), outside),
        (
            "F0162",
            "input-8.sframe",
            Call::Lookup(-156548),
            Evaluation::Clean,
        ),
        ("F0162", "input-8.sframe", Call::Lookup(-156058), outside),
        ("F0162", "input-9.sframe", Call::Lookup(0), outside),
        (
            "F0163",
            "input-1.sframe",
            Call::Lookup(-145132),
            Evaluation::Clean,
        ),
        ("F0163", "input-1.sframe", Call::Lookup(-145131), fpe),
        (
            "F0163",
            "input-1.sframe",
            Call::Lookup(-145130),
            Evaluation::Clean,
        ),
    ];
    let mut wrong = Vec::new();
    for (finding, file, call, want) in cases {
        let got = first_trigger(&input(finding, file), *call);
        if got != *want {
            wrong.push(format!(
                "{finding} {file} {call:?}: ASan {want:?}, model {got:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_input_makes_the_glibc_walk_panic() {
    use sframe_spec::triggers::glibc::{first_trigger, Call};
    for (finding, file) in [("F0163", "input-1.sframe"), ("F0162", "input-8.sframe")] {
        let data = input(finding, file);
        for n in 0..=data.len() {
            for pc in [i64::MIN, -145131, 0, i64::from(i32::MAX)] {
                let _ = first_trigger(&data[..n], Call::Lookup(pc));
            }
        }
        for i in 0..data.len() {
            for v in [0u8, 0x7f, 0x80, 0xff] {
                let mut d = data.clone();
                d[i] = v;
                let _ = first_trigger(&d, Call::Decode);
                let _ = first_trigger(&d, Call::Lookup(-145131));
            }
        }
    }
}

#[test]
fn libsframe_2_44_reading_v1_with_its_v2_layout_is_f0112s_trigger() {
    // F0112's reproducers that crash 2.44's decode: GNU as 2.40's v1 sections (and a fuzzed
    // one), which 2.40 reads inside the buffer; ci/check-triggers: the ASan build of 2.44
    // reports a heap-buffer-overflow READ in sframe_decode on each.
    let v1 = Evaluation::Triggered(Trigger::Libsframe244V1LayoutCopiesPastBuffer);
    for n in [1, 2, 3, 4, 5, 6, 8, 9, 10, 11] {
        let data = input("F0112", &format!("input-{n}.sframe"));
        for caller in [Caller::Worker, Caller::Lookup] {
            assert_eq!(
                first_trigger(&data, Release::Libsframe244, caller),
                v1,
                "input-{n} {caller:?}"
            );
        }
    }
    let mut data = input("F0112", "from-F0110-input-1.sframe");
    assert_eq!(
        first_trigger(&data, Release::Libsframe244, Caller::Worker),
        v1
    );
    // sfh_fre_len one byte longer than v1's layout leaves: past the buffer as v1 too.
    let fre_len = u32::from_le_bytes(data[16..20].try_into().unwrap());
    let room = data.len() as u32
        - 28
        - u32::from(data[7])
        - 17 * u32::from_le_bytes(data[8..12].try_into().unwrap());
    assert!(fre_len <= room);
    data[16..20].copy_from_slice(&(room + 1).to_le_bytes());
    assert_eq!(
        first_trigger(&data, Release::Libsframe244, Caller::Worker),
        Evaluation::Triggered(Trigger::LibsframeDecodeCopiesPastBuffer)
    );
}

#[test]
fn no_foreign_endian_input_makes_the_swap_panic() {
    for data in [big_endian(2, 0), big_endian(3, 0)] {
        for n in 0..=data.len() {
            for rel in RELEASES {
                let _ = first_trigger(&data[..n], rel, Caller::Lookup);
            }
        }
        for i in 0..data.len() {
            for v in [0u8, 0x7f, 0x80, 0xff] {
                let mut d = data.clone();
                d[i] = v;
                for rel in RELEASES {
                    let _ = first_trigger(&d, rel, Caller::Worker);
                }
            }
        }
    }
}

/// objdump --sframe of each release on the three findings' reproducers. The expected
/// triggers are what each release's objdump reported first when `ci/check-triggers` ran it
/// (2026-11-27) with the ASan build of its own libsframe first on its library path
/// (gcc 12.2.0 -fsanitize=address,undefined; objdump 2.40-2 from bookworm, 2.44-3 from
/// trixie, 2.47.50.20261021-1 from sid), read as `ci/check-triggers.py classify-objdump`
/// reads a report: 2.44's bad access in `sframe_decode` on a v1 section whose v1 layout
/// fits is F0112's; objdump 2.47's own assertions by their sframe-dump.c line. Where objdump
/// differs from the worker's walk: 2.44 lists no function of a v1 section (F0112's input-13:
/// its worker walk reads past the FRE bytes, its objdump only decodes), and objdump reads
/// every FRE of a function past an invalid one.
#[test]
fn each_reproducer_reaches_the_bug_asan_backed_objdump_reports_first() {
    use Trigger::*;
    let copies = LibsframeDecodeCopiesPastBuffer.name();
    let words = LibsframeFreDataWordsOverflow.name();
    let walk = LibsframeFreWalkPastFreBytes.name();
    let ftype = LibsframeInvalidFreType.name();
    let start = LibsframeFreStartPastFunction.name();
    let table = LibsframeFdeTableTruncated.name();
    let v1copies = Libsframe244V1LayoutCopiesPastBuffer.name();
    let cfa = Objdump247FlexFreWithoutCfaOffset.name();
    let abi = Objdump247RegisterNameOfUnknownAbi.name();
    // (finding, input, [objdump 2.40, 2.44, 2.47]).
    let cases: &[(&str, &str, [&str; 3])] = &[
        (
            "F0112",
            "from-F0110-input-1.sframe",
            ["clean", v1copies, "clean"],
        ),
        ("F0112", "input-1.sframe", ["clean", v1copies, "clean"]),
        ("F0112", "input-10.sframe", [start, v1copies, "clean"]),
        ("F0112", "input-11.sframe", [walk, v1copies, "clean"]),
        ("F0112", "input-12.sframe", ["clean", "clean", "clean"]),
        ("F0112", "input-13.sframe", [walk, "clean", "clean"]),
        ("F0112", "input-2.sframe", [words, v1copies, "clean"]),
        ("F0112", "input-7.sframe", ["clean", "clean", "clean"]),
        ("F0112", "input-9.sframe", [walk, v1copies, "clean"]),
        (
            "F0115",
            "fde-count-wraps-v1.sframe",
            [table, copies, "clean"],
        ),
        (
            "F0115",
            "fde-count-wraps-v2.sframe",
            ["clean", table, copies],
        ),
        (
            "F0115",
            "fre-len-past-section.sframe",
            ["clean", copies, copies],
        ),
        (
            "F0115",
            "fre-offset-past-fre-bytes.sframe",
            ["clean", walk, walk],
        ),
        ("F0115", "fre-type-3.sframe", ["clean", ftype, ftype]),
        ("F0115", "input-1.sframe", [words, v1copies, "clean"]),
        ("F0115", "input-3.sframe", [ftype, v1copies, "clean"]),
        ("F0115", "input-4.sframe", [copies, copies, "clean"]),
        ("F0115", "input-7.sframe", ["clean", walk, walk]),
        ("F0115", "input-9.sframe", ["clean", ftype, copies]),
        (
            "F0115",
            "mask-rep-size-zero.sframe",
            ["clean", "clean", "clean"],
        ),
        (
            "F0115",
            "objdump-flex-one-word.sframe",
            ["clean", "clean", cfa],
        ),
        (
            "F0115",
            "objdump-flex-unknown-abi.sframe",
            ["clean", "clean", abi],
        ),
        (
            "F0115",
            "start-past-function-v1.sframe",
            [start, v1copies, "clean"],
        ),
        (
            "F0115",
            "start-past-function-v2.sframe",
            ["clean", start, start],
        ),
        ("F0145", "nb01-v1-2.40.sframe", [words, v1copies, "clean"]),
        ("F0145", "nb01-v2-2.44.sframe", ["clean", words, words]),
        ("F0145", "nb01-v2-2.47.sframe", ["clean", words, words]),
    ];
    agree(cases, Caller::Objdump);
}
