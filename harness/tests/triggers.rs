//! Crashes and hangs are explained by the ledger's triggers, wherever they land: a new crash
//! site of a known bug is known, a known site reached by an input that triggers no known bug
//! is new.

use sframe_harness::diff::triggers::TriggerTable;
use sframe_harness::diff::{Discrepancy, TriggerCheck};
use sframe_harness::ledger::Ledger;
use sframe_spec::Trigger;

fn crash(signature: &str) -> Discrepancy {
    Discrepancy::new(signature.parse().unwrap())
}

fn reproducer(finding: &str, file: &str) -> Vec<u8> {
    let l = Ledger::default_dir();
    let d = std::fs::read_dir(&l)
        .unwrap()
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().starts_with(finding))
        .unwrap();
    std::fs::read(d.path().join(file)).unwrap()
}

#[test]
fn a_known_bug_is_known_wherever_it_lands_and_a_known_site_is_not_enough() {
    let ledger = Ledger::load(&Ledger::default_dir()).unwrap();
    let table = TriggerTable::from_ledger(&ledger);
    // F0145's reproducer overflows 2.40's frame-row entry (the ASan build: a
    // stack-buffer-overflow in sframe_decode_fre). A site no pattern lists is still F0145.
    let data = reproducer("F0145", "v1-aux-freoff-saved-rbp-2.40.sframe");
    let mut ds = vec![
        crash("crash:libsframe-2.40:v1:decode:SIGILL:somewhere_new"),
        crash("hang:libsframe-2.40:v1-aux:decode"),
    ];
    assert!(
        ledger.finding_for(&ds[0]).is_none(),
        "no pattern lists that site"
    );
    table.explain(&data, &mut ds);
    for d in &ds {
        assert_eq!(
            d.trigger,
            Some(TriggerCheck::Holds {
                trigger: Trigger::LibsframeFreDataWordsOverflow,
                finding: "F0145-libsframe-decode-fre-stack-buffer-overflow".into()
            })
        );
        assert_eq!(
            ledger.finding_for(d).map(|f| f.id.as_str()),
            Some("F0145-libsframe-decode-fre-stack-buffer-overflow")
        );
    }
    // A valid v1 section from GNU as 2.40 (decoded cleanly by 2.40's ASan build): a crash
    // there, at a site F0145 lists, is new.
    let valid = reproducer("F0112", "input-1.sframe");
    let mut ds = vec![crash(
        "crash:libsframe-2.40:v1:decode:SIGSEGV:outside-libsframe",
    )];
    assert!(
        ledger.finding_for(&ds[0]).is_some(),
        "a pattern lists the site"
    );
    table.explain(&valid, &mut ds);
    assert_eq!(ds[0].trigger, Some(TriggerCheck::NoneHolds));
    assert!(ledger.finding_for(&ds[0]).is_none());
    // An implementation without triggers keeps its site patterns (the ledger without
    // libsframe 2.40's triggers, here).
    let mut bare = ledger.clone();
    for f in &mut bare.findings {
        f.triggers.remove("libsframe-2.40");
    }
    let mut ds = vec![crash(
        "crash:libsframe-2.40:v1:decode:SIGSEGV:outside-libsframe",
    )];
    TriggerTable::from_ledger(&bare).explain(&valid, &mut ds);
    assert_eq!(ds[0].trigger, None);
    assert!(bare.finding_for(&ds[0]).is_some());
}

/// (finding, reproducer, crash or hang signature, the trigger and finding that explain it).
type Case<'a> = (&'a str, &'a str, &'a str, Option<(Trigger, &'a str)>);

#[test]
fn an_objdump_crash_is_explained_by_the_trigger_its_release_reaches() {
    let ledger = Ledger::load(&Ledger::default_dir()).unwrap();
    let table = TriggerTable::from_ledger(&ledger);
    let f0112 = "F0112-libsframe-2.44-reads-v1-with-v2-layout";
    let f0115 = "F0115-libsframe-crashes-on-malformed-input";
    let f0145 = "F0145-libsframe-decode-fre-stack-buffer-overflow";
    // (finding, reproducer, a crash or hang of objdump on it, the trigger and finding that
    // explain it, or none: new). The triggers are what the ASan-backed objdump of each
    // release reported first on these (ci/check-triggers).
    let cases: &[Case] = &[
        // GNU as 2.40's v1 section, read by 2.44's sframe_decode with v2's layout, past
        // the buffer; landing anywhere.
        (
            "F0112",
            "input-1.sframe",
            "crash:objdump-2.44:v1:decode:SIGBUS:somewhere_new",
            Some((Trigger::Libsframe244V1LayoutCopiesPastBuffer, f0112)),
        ),
        // objdump 2.47's own assertions: sframe-dump.c:387 and :77.
        (
            "F0115",
            "objdump-flex-one-word.sframe",
            "crash:objdump-2.47:v3:decode:SIGABRT:dump_sframe_func_fres_flex",
            Some((Trigger::Objdump247FlexFreWithoutCfaOffset, f0115)),
        ),
        (
            "F0115",
            "objdump-flex-unknown-abi.sframe",
            "crash:objdump-2.47:v3:decode:SIGABRT:sframe_get_reg_name",
            Some((Trigger::Objdump247RegisterNameOfUnknownAbi, f0115)),
        ),
        // F0145's stack overflow, as a hang of objdump 2.47 (the overwritten frame).
        (
            "F0145",
            "nb01-v2-2.47.sframe",
            "hang:objdump-2.47:v2:decode",
            Some((Trigger::LibsframeFreDataWordsOverflow, f0145)),
        ),
        // objdump 2.44 lists no function of a v1 section: F0112's input-13 (whose FREs the
        // worker's 2.44 walk reads past) triggers nothing in its objdump; a crash there is
        // new, at any site.
        (
            "F0112",
            "input-13.sframe",
            "crash:objdump-2.44:v1:decode:SIGABRT:sframe_fre_start_addr_size",
            None,
        ),
        // mask-rep-size-zero crashes look-ups only; objdump never looks up.
        (
            "F0115",
            "mask-rep-size-zero.sframe",
            "crash:objdump-2.47:v2:decode:SIGSEGV:nondeterministic",
            None,
        ),
    ];
    for (finding, file, signature, want) in cases {
        let mut ds = vec![crash(signature)];
        table.explain(&reproducer(finding, file), &mut ds);
        let check = want.map_or(TriggerCheck::NoneHolds, |(trigger, f)| {
            TriggerCheck::Holds {
                trigger,
                finding: f.into(),
            }
        });
        assert_eq!(ds[0].trigger, Some(check), "{file} {signature}");
        let by = ledger.finding_for(&ds[0]).map(|f| f.id.as_str());
        assert_eq!(by, want.map(|(_, f)| f), "{file} {signature}");
    }
}

#[test]
fn a_glibc_look_up_crash_is_explained_by_the_trigger_at_its_pc() {
    let ledger = Ledger::load(&Ledger::default_dir()).unwrap();
    let table = TriggerTable::from_ledger(&ledger);
    let at = |signature: &str, pc: i64| {
        let mut d = crash(signature);
        d.pc = Some(pc);
        d
    };
    // F0163's reproducer: the ASan build of glibc 2.43's reader divides by the repetition
    // size 0 at PC -145131 (UBSan: division by zero, then SIGFPE), and reads nothing
    // outside the section at -145132. F0162's input-9: the binary search reads a function
    // descriptor past the section's end at PC 0 (heap-buffer-overflow, sframe-read.c:244).
    let fpe = "crash:glibc-2.43:v2:find_fre:SIGFPE:__sframe_find_fre";
    let mut ds = vec![at(fpe, -145131), at(fpe, -145132)];
    table.explain(&reproducer("F0163", "input-1.sframe"), &mut ds);
    assert_eq!(
        ds[0].trigger,
        Some(TriggerCheck::Holds {
            trigger: Trigger::GlibcMaskRepSizeZero,
            finding: "F0163-glibc-reader-divides-by-zero-rep-size".into()
        })
    );
    // The same site at a PC whose look-up reaches no known bug: new.
    assert_eq!(ds[1].trigger, Some(TriggerCheck::NoneHolds));
    assert!(ledger.finding_for(&ds[1]).is_none());
    let mut ds = vec![at("crash:glibc-2.43:v2:find_fre:SIGSEGV:somewhere_new", 0)];
    table.explain(&reproducer("F0162", "input-9.sframe"), &mut ds);
    assert_eq!(
        ledger.finding_for(&ds[0]).map(|f| f.id.as_str()),
        Some("F0162-glibc-reader-reads-past-the-section")
    );
}

#[test]
fn a_simple_frame_panic_is_explained_by_the_trigger_its_input_holds() {
    let ledger = Ledger::load(&Ledger::default_dir()).unwrap();
    let table = TriggerTable::from_ledger(&ledger);
    // F0117's input-1: simple-frame-rs 0.3.0 slices the v3 function attribute past the
    // section's end (it panics at src/v3.rs:271, impls/tests/simple_frame_triggers.rs).
    // A landing place no pattern lists is still F0117.
    let mut ds = vec![crash("crash:simple-frame-rs:v3:decode:panic:src/v3.rs:1")];
    assert!(ledger.finding_for(&ds[0]).is_none());
    table.explain(&reproducer("F0117", "input-1.sframe"), &mut ds);
    assert_eq!(
        ds[0].trigger,
        Some(TriggerCheck::Holds {
            trigger: Trigger::SimpleFrameRsFdeAttributePastEnd,
            finding: "F0117-simple-frame-rs-panics-on-malformed-input".into()
        })
    );
    // A valid v2 section (the crate decodes it): a panic at a site F0117 lists is new.
    let mut ds = vec![crash("crash:simple-frame-rs:v2:decode:panic:src/v2.rs:49")];
    assert!(ledger.finding_for(&ds[0]).is_some());
    table.explain(&reproducer("F0145", "nb01-v2-2.44.sframe"), &mut ds);
    assert_eq!(ds[0].trigger, Some(TriggerCheck::NoneHolds));
    assert!(ledger.finding_for(&ds[0]).is_none());
}

#[test]
fn libsframe_2_44_crashing_on_a_v1_section_it_reads_with_v2_layout_is_f0112() {
    let ledger = Ledger::load(&Ledger::default_dir()).unwrap();
    let table = TriggerTable::from_ledger(&ledger);
    // F0112's input-1, GNU as 2.40's v1 section: the ASan build of 2.44 reports its copy in
    // sframe_decode running past the buffer (ci/check-triggers); 2.40 reads it cleanly.
    let mut ds = vec![crash("crash:libsframe-2.44:v1:decode:SIGBUS:somewhere_new")];
    table.explain(&reproducer("F0112", "input-1.sframe"), &mut ds);
    assert_eq!(
        ds[0].trigger,
        Some(TriggerCheck::Holds {
            trigger: Trigger::Libsframe244V1LayoutCopiesPastBuffer,
            finding: "F0112-libsframe-2.44-reads-v1-with-v2-layout".into()
        })
    );
}
