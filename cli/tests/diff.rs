//! Differential tests: every available implementation against the reference, on the corpus,
//! on sections assembled here, on generated inputs and on the libsframe encoders' output.
//! Everything must agree or be covered by a finding of the ledger (`corpus/findings/`).
//!
//! These tests need the provisioned toolchains: they fail (not skip) when a libsframe or an
//! objdump is missing, naming `ci/toolchains`, which provisions them.

use sframe_harness::diff::report::Summary;
use sframe_harness::diff::{mutate, producer, seeds, Case, CaseResult, Engine};
use sframe_harness::gate::{self, Corpus};
use sframe_harness::impls::process::{Launch, ProcessImpl};
use sframe_harness::impls::reference::Reference;
use sframe_harness::impls::{begin, end, Decoded, Found, Hosting, Implementation, Outcome};
use sframe_harness::input::{corpus_cases, corpus_dir};
use sframe_harness::ledger::Ledger;
use sframe_harness::signature::{Op, Signal, Signature, Tool, ToolName};
use sframe_impls::registry::{Options, Registry};
use sframe_spec::{Loc, Version};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

const PROVISION: &str = "the provisioned toolchains are missing: run `ci/toolchains` (it installs GNU binutils 2.40, 2.44 and sid with their libsframe into ~/.cache/sframe-conform)";

fn registry(objdump: bool) -> Registry {
    let reg = Registry::discover(&Options {
        objdump,
        ..Options::default()
    });
    let libs = reg.libsframes();
    assert!(
        libs.len() >= 3,
        "{PROVISION}; found {:?}, unavailable: {:?}",
        libs.iter().map(|l| l.name()).collect::<Vec<_>>(),
        reg.unavailable
    );
    assert!(
        reg.available.iter().any(|i| i.tool().is(ToolName::Glibc)),
        "glibc's SFrame reader is missing: run `ci/upstream-sources && ci/glibc-reader` (ci/test does); unavailable: {:?}",
        reg.unavailable
    );
    if objdump {
        assert!(
            reg.available.iter().any(|i| i.tool().is(ToolName::Objdump)),
            "{PROVISION}: no objdump"
        );
        assert!(
            reg.available
                .iter()
                .any(|i| i.tool().is(ToolName::LlvmReadobj)),
            "no llvm-readobj: run `ci/toolchains --llvm` (ci/test does); unavailable: {:?}",
            reg.unavailable
        );
    }
    reg
}

fn ledger() -> Ledger {
    Ledger::load(&Ledger::default_dir()).expect("the findings ledger loads")
}

fn run(engine: &Engine, cases: &[Case], ledger: &Ledger) -> (Summary, Vec<CaseResult>) {
    let mut summary = Summary::default();
    let mut results = Vec::new();
    for c in cases {
        let r = engine.run_case(c);
        summary.add(&r, &c.data, ledger);
        results.push(r);
    }
    (summary, results)
}

fn assert_ledgered(summary: &Summary) {
    assert!(
        !summary.has_new(),
        "discrepancies no finding covers (record them: `sframe-conform diff --record ...`):\n{}",
        summary.render_text()
    );
}

fn agreed(results: &[CaseResult], imp: &str, version: u8) -> usize {
    results
        .iter()
        .filter(|r| r.version == Some(version))
        .filter(|r| {
            r.results
                .iter()
                .any(|i| i.implementation == imp && i.status == sframe_harness::diff::Status::Agree)
        })
        .count()
}

#[test]
fn corpus_and_seeds_agree_or_are_ledgered() {
    let reg = registry(true);
    let mut cases = corpus_cases(&corpus_dir());
    cases.extend(seeds::builtin());
    assert!(cases.len() >= 19, "no corpus and no seeds?");
    let (summary, results) = run(
        &Engine::new(reg.available.clone()).with_ledger(&ledger()),
        &cases,
        &ledger(),
    );
    assert_ledgered(&summary);
    // Agreement is not vacuous: the newest libsframe agrees on v3 sections and 2.40 on v1 ones.
    let newest = reg
        .libsframes()
        .last()
        .map(|l| l.name())
        .unwrap_or_default();
    assert!(
        agreed(&results, &newest, 3) > 0,
        "{newest} agreed on no v3 section\n{}",
        summary.render_text()
    );
    assert!(
        agreed(&results, "libsframe-2.40", 1) > 0,
        "libsframe-2.40 agreed on no v1 section\n{}",
        summary.render_text()
    );
    // ... and glibc's reader on v2 ones.
    for g in reg
        .available
        .iter()
        .filter(|i| i.tool().is(ToolName::Glibc))
    {
        assert!(
            agreed(&results, &g.name(), 2) > 0,
            "{} agreed on no v2 section\n{}",
            g.name(),
            summary.render_text()
        );
    }
}

/// objdump reading many sections per process answers as a run per section does: the same
/// outcome and the same rows, or the same rejection class; a batch is cut where a section
/// makes objdump complain, and such a section is read alone (`text_tool::objdump_many`).
/// The first `corpus` sections of the corpus and the first `reproducers` inputs of the
/// ledger's findings (many of which some implementation rejects or crashes on).
fn corpus_and_reproducers(corpus: usize, reproducers: usize) -> Vec<Case> {
    let mut cases: Vec<Case> = corpus_cases(&corpus_dir())
        .into_iter()
        .take(corpus)
        .collect();
    cases.extend(ledger_sections().take(reproducers));
    cases
}

/// The sections of the findings directory (reproducers and untriaged inputs that load).
fn ledger_sections() -> impl Iterator<Item = Case> {
    use sframe_harness::walk::{Outcome, Walk};
    Walk::new(&[Ledger::default_dir()]).filter_map(|e| match e.outcome {
        Outcome::Section { loaded, .. } => Some(Case {
            name: e.path.display().to_string(),
            data: loaded.bytes,
        }),
        _ => None,
    })
}

#[test]
fn text_tools_reading_many_sections_at_once_answer_as_one_run_per_section() {
    let reg = registry(true);
    // Valid sections, and the ledger's reproducers, many of which objdump and llvm-readobj
    // reject.
    let cases = corpus_and_reproducers(48, 64);
    let inputs: Vec<&[u8]> = cases.iter().map(|c| c.data.as_slice()).collect();
    let (mut rejected, mut compared, mut crashed) = (0, 0, 0);
    let mut rejected_by_readobj = 0;
    for imp in reg
        .available
        .iter()
        .filter(|i| i.hosting() == Hosting::Text)
    {
        let many = imp.decode_many(&inputs);
        assert_eq!(many.len(), inputs.len());
        for ((c, m), data) in cases.iter().zip(many).zip(&inputs) {
            let one = imp.decode(data);
            let same = match (&m, &one) {
                // objdump's memory errors end a section differently from run to run (a
                // crash one time, a listing the next): not comparable, but counted.
                (Outcome::Crashed { .. }, _) | (_, Outcome::Crashed { .. }) => {
                    crashed += 1;
                    continue;
                }
                (Outcome::Ok { value: a }, Outcome::Ok { value: b }) => a == b,
                (Outcome::Rejected { class: a, .. }, Outcome::Rejected { class: b, .. }) => {
                    rejected += 1;
                    if imp.tool().is(ToolName::LlvmReadobj) {
                        rejected_by_readobj += 1;
                    }
                    a == b
                }
                _ => m.status() == one.status(),
            };
            compared += 1;
            assert!(
                same,
                "{} on {}: {m:?} together, {one:?} alone",
                imp.name(),
                c.name
            );
        }
    }
    assert!(
        compared >= 4 * crashed && compared > 0,
        "{compared} outcomes compared, {crashed} crashes"
    );
    assert!(
        rejected > rejected_by_readobj && rejected_by_readobj > 0,
        "{rejected} rejections, {rejected_by_readobj} by llvm-readobj: a batch cut is untested"
    );
}

/// An outcome as compared across runs: a crash's detail (its stderr, which names addresses)
/// left out.
fn comparable<T: serde::Serialize>(o: &Outcome<T>) -> serde_json::Value {
    let mut v = serde_json::to_value(o).expect("outcomes serialize");
    if let Some(m) = v.as_object_mut() {
        m.remove("detail");
    }
    v
}

/// The worker implementations of `reg`: every libsframe release and glibc's reader.
fn workers_of(reg: &Registry) -> Vec<&Arc<dyn Implementation>> {
    let workers: Vec<&Arc<dyn Implementation>> = reg
        .available
        .iter()
        .filter(|i| i.hosting() == Hosting::Worker)
        .collect();
    assert!(workers.len() >= 4, "libsframe x3 and glibc expected");
    workers
}

/// `got`, a worker's answer on `case`, is `alone`, its answer to a lone request (details,
/// for people, aside).
fn assert_answered_as_alone(
    w: &dyn Implementation,
    case: &Case,
    got: &(Outcome<Decoded>, Vec<Outcome<Option<Found>>>),
    alone: &(Outcome<Decoded>, Vec<Outcome<Option<Found>>>),
) {
    assert_eq!(
        comparable(&got.0),
        comparable(&alone.0),
        "{} decode of {}",
        w.name(),
        case.name
    );
    let f: Vec<_> = got.1.iter().map(comparable).collect();
    let f1: Vec<_> = alone.1.iter().map(comparable).collect();
    assert_eq!(f, f1, "{} look-ups in {}", w.name(), case.name);
}

#[test]
fn workers_asked_together_answer_as_asked_one_at_a_time() {
    // The engine sends every worker its request before reading any answer
    // (`impls::begin`/`end`); each answer must be the one a lone request gets, on
    // valid sections and on the ledger's reproducers (which crash some releases), and a
    // request begun and never ended must not shift the next answers.
    let reg = registry(false);
    let workers = workers_of(&reg);
    let cases = corpus_and_reproducers(24, 40);
    let (mut compared, mut crashed) = (0, 0);
    for (k, c) in cases.iter().enumerate() {
        let reference = Reference.decode(&c.data);
        let pcs = sframe_harness::diff::pcs_for(&c.data, reference.value(), 16);
        for w in &workers {
            begin(w.as_ref(), &c.data, &pcs);
        }
        let together: Vec<_> = workers
            .iter()
            .map(|w| end(w.as_ref(), &c.data, &pcs))
            .collect();
        if k % 7 == 0 {
            // Begun, never ended: the next request reads past this answer.
            for w in &workers {
                begin(w.as_ref(), &c.data, &pcs);
            }
        }
        for (w, got) in workers.iter().zip(together) {
            if matches!(got.0, Outcome::Crashed { .. })
                || got.1.iter().any(|o| matches!(o, Outcome::Crashed { .. }))
            {
                crashed += 1;
            }
            let alone = w.decode_and_find(&c.data, &pcs);
            assert_answered_as_alone(w.as_ref(), c, &got, &alone);
            compared += 1;
        }
    }
    assert!(
        compared > 0 && crashed > 0,
        "{compared} compared, {crashed} with a crash: the crash path is untested"
    );
}

#[test]
fn workers_asked_sections_ahead_answer_as_asked_one_at_a_time() {
    // The engine sends each section's requests before reading the answers of the section
    // before (`Engine::run_cases`); a worker may be sent several ahead. Every answer must be
    // the one a lone request gets, across the ledger's reproducers that crash some releases.
    let reg = registry(false);
    let workers = workers_of(&reg);
    let cases = corpus_and_reproducers(8, 40);
    let pcs: Vec<Vec<i64>> = cases
        .iter()
        .map(|c| sframe_harness::diff::pcs_for(&c.data, Reference.decode(&c.data).value(), 16))
        .collect();
    let asks = |w: &Arc<dyn Implementation>, k: usize| {
        sframe_harness::impls::section_version(&cases[k].data).is_none_or(|v| w.supports(v))
    };
    let mut crashed = 0;
    for w in &workers {
        let ahead = 3;
        let mut answers = Vec::new();
        for k in 0..cases.len() + ahead {
            if k < cases.len() && asks(w, k) {
                begin(w.as_ref(), &cases[k].data, &pcs[k]);
            }
            if k >= ahead && asks(w, k - ahead) {
                answers.push((
                    k - ahead,
                    end(w.as_ref(), &cases[k - ahead].data, &pcs[k - ahead]),
                ));
            }
        }
        for (k, got) in answers {
            crashed += usize::from(matches!(got.0, Outcome::Crashed { .. }));
            let alone = w.decode_and_find(&cases[k].data, &pcs[k]);
            assert_answered_as_alone(w.as_ref(), &cases[k], &got, &alone);
        }
    }
    assert!(
        crashed > 0,
        "no crash among the answers: the crash path is untested"
    );
}

/// The pids of `pid`'s children (`/proc`: each process's parent is its stat's fourth field).
fn children_of(pid: u32) -> Vec<u32> {
    let mut kids: Vec<u32> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            // "pid (comm) state ppid ...": the comm may hold spaces, not a ')'.
            let ppid = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?;
            (ppid.parse::<u32>().ok()? == pid).then(|| e.file_name().to_str()?.parse().ok())?
        })
        .collect();
    kids.sort_unstable();
    kids
}

#[test]
fn an_answer_after_a_recovered_crash_is_a_fresh_workers() {
    // A server child of the worker recovers from a clean crash of libsframe (a fault on a
    // guard page, a failed assertion: `sframe_worker::recover`) and goes on serving. Every
    // answer of one worker asked a run of requests, crashing or not, must be what a fresh
    // worker that recovers from nothing (`SFRAME_WORKER_RECOVER=0`: its children die of
    // every crash) answers to that request alone; and some crash must have been recovered
    // from (the same server child serving before and after it).
    let cases: Vec<Case> = corpus_cases(&corpus_dir())
        .into_iter()
        .take(4)
        .chain(
            ledger_sections().filter(|c| c.name.contains("/F0115-") || c.name.contains("/F0112-")),
        )
        .collect();
    let comparable = |line: &str| {
        let mut v: serde_json::Value = serde_json::from_str(line).expect("an answer is JSON");
        if let Some(m) = v.as_object_mut() {
            m.remove("detail");
        }
        v
    };
    let start = |lib: &Path, release: &str, recover: &str| {
        Command::new(env!("CARGO_BIN_EXE_sframe-worker"))
            .env("SFRAME_WORKER_RECOVER", recover)
            .args([
                "--libsframe",
                &lib.display().to_string(),
                "--release",
                release,
            ])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("sframe-worker runs")
    };
    let libs = sframe_impls::toolchains::libsframe_releases();
    assert!(libs.len() >= 3, "{PROVISION}");
    let mut recovered = 0;
    for lib in &libs {
        use std::io::{BufRead, Write};
        let mut worker = start(&lib.path, &lib.release, "1");
        let mut to = worker.stdin.take().unwrap();
        let mut from = std::io::BufReader::new(worker.stdout.take().unwrap());
        let mut server = Vec::new();
        for c in &cases {
            let hex = sframe_gen::hex::encode(&c.data);
            let pcs = sframe_harness::diff::pcs_for(&c.data, Reference.decode(&c.data).value(), 4);
            for line in [
                format!("{{\"op\":\"decode\",\"data\":\"{hex}\"}}"),
                format!("{{\"op\":\"find_fre\",\"data\":\"{hex}\",\"pcs\":{pcs:?}}}"),
            ] {
                writeln!(to, "{line}").unwrap();
                let mut answer = String::new();
                from.read_line(&mut answer).unwrap();
                let now = children_of(worker.id());
                if answer.contains("\"status\":\"crashed\"") && !server.is_empty() && now == server
                {
                    recovered += 1;
                }
                server = now;
                let fresh = start(&lib.path, &lib.release, "0");
                let out = {
                    let mut fresh = fresh;
                    writeln!(fresh.stdin.take().unwrap(), "{line}").unwrap();
                    fresh.wait_with_output().unwrap()
                };
                let alone = String::from_utf8_lossy(&out.stdout);
                assert_eq!(
                    comparable(&answer),
                    comparable(alone.lines().next().unwrap_or_default()),
                    "libsframe-{} on {} ({})",
                    lib.release,
                    c.name,
                    &line[..line.len().min(40)]
                );
            }
        }
        drop(to);
        worker.wait().unwrap();
    }
    assert!(
        recovered > 0,
        "no crash was recovered from: the recovery is untested"
    );
}

/// The provisioned libsframe 2.44, which faults on v1 sections (F0112).
fn libsframe_2_44() -> sframe_impls::toolchains::LibsframeRelease {
    sframe_impls::toolchains::libsframe_releases()
        .into_iter()
        .find(|r| r.release == "2.44")
        .expect(PROVISION)
}

#[test]
fn a_crash_of_the_hosted_library_leaves_no_core_file() {
    // libsframe 2.44 reads v1 with the v2 layout and faults on the corpus's v1 sections
    // (F0112); its children are not dumpable, so even with core files allowed (here
    // `ulimit -c unlimited`, and `core_pattern` writing into the working directory or piping to
    // a handler) a crash costs its fork and no dump.
    let lib = libsframe_2_44();
    let v1 = corpus_cases(&corpus_dir())
        .into_iter()
        .find(|c| sframe_harness::impls::section_version(&c.data) == Some(Version::V1))
        .expect("the corpus has v1 sections");
    let dir = std::env::temp_dir().join(format!("sframe-core-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let request = format!(
        "{{\"op\":\"decode\",\"data\":\"{}\"}}\n",
        sframe_gen::hex::encode(&v1.data)
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -c unlimited && exec '{}' --libsframe '{}' --release 2.44",
            env!("CARGO_BIN_EXE_sframe-worker"),
            lib.path.display()
        ))
        .current_dir(&dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(request.as_bytes())?;
            child.wait_with_output()
        })
        .expect("sframe-worker runs");
    let answer = String::from_utf8_lossy(&out.stdout);
    assert!(answer.contains("\"status\":\"crashed\""), "{answer}");
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name())
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(left.is_empty(), "the crash left {left:?}");
}

/// The answer lines of an `sframe-worker` hosting libsframe `lib` (release 2.44) to `input`,
/// written at once, its stdin then closed, with the environment `env`.
fn worker_answers(lib: &Path, input: &str, env: &[(&str, &str)]) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_sframe-worker"))
        .args([
            "--libsframe",
            &lib.display().to_string(),
            "--release",
            "2.44",
        ])
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(input.as_bytes())?;
            child.wait_with_output()
        })
        .expect("sframe-worker runs");
    assert!(out.status.success(), "{:?}", out.status);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn requests_written_at_once_are_answered_in_order_across_a_crash() {
    // The worker's server child reads its requests itself (`sframe_worker`'s `hop`) and
    // crashes on the v1 section (F0112: libsframe 2.44 reads v1 with the v2 layout): it
    // recovers and hands the request to the worker, or (`SFRAME_WORKER_RECOVER=0`) dies, and
    // the requests it had read past that one are answered by the next child. In order, each
    // as a worker whose server child sits behind it (`SFRAME_WORKER_HOP=0`) answers it alone.
    let lib = libsframe_2_44();
    let cases = corpus_cases(&corpus_dir());
    let of = |v| {
        cases
            .iter()
            .find(|c| sframe_harness::impls::section_version(&c.data) == Some(v))
            .map(|c| sframe_gen::hex::encode(&c.data))
            .expect("the corpus has v1 and v2 sections")
    };
    let (v1, v2) = (of(Version::V1), of(Version::V2));
    let requests = [
        format!("{{\"op\":\"decode_find\",\"data\":\"{v2}\",\"pcs\":[0,16]}}"),
        format!("{{\"op\":\"decode_find\",\"data\":\"{v1}\",\"pcs\":[0,16]}}"),
        String::new(),
        format!("{{\"op\":\"find_fre\",\"data\":\"{v1}\",\"pcs\":[0,4]}}"),
        format!("{{\"op\":\"decode\",\"data\":\"{v2}\"}}\r"),
        r#"{"op":"hello"}"#.to_string(),
    ];
    for recover in ["1", "0"] {
        let alone: Vec<String> = requests
            .iter()
            .filter(|r| !r.is_empty())
            .flat_map(|r| {
                let env = [
                    ("SFRAME_WORKER_RECOVER", recover),
                    ("SFRAME_WORKER_HOP", "0"),
                ];
                worker_answers(&lib.path, &format!("{r}\n"), &env)
            })
            .collect();
        assert_eq!(alone.len(), 5, "{alone:?}");
        assert!(alone[1].contains("\"crashed\""), "{}", alone[1]);
        // Written at once, the last without its newline.
        let env = [("SFRAME_WORKER_RECOVER", recover)];
        let together = worker_answers(&lib.path, &requests.join("\n"), &env);
        assert_eq!(together, alone, "SFRAME_WORKER_RECOVER={recover}");
    }
}

#[test]
fn every_reproducer_of_the_ledger_is_explained_by_it() {
    // The findings' reproducers (and the inputs of the former clusters, `untriaged-inputs/`)
    // are where each quirk must keep giving exactly its implementation's answer.
    let reg = registry(true);
    let cases: Vec<Case> = ledger_sections().collect();
    assert!(cases.len() >= 200, "only {} reproducers?", cases.len());
    let l = ledger();
    let (summary, _) = run(
        &Engine::new(reg.available.clone()).with_ledger(&l),
        &cases,
        &l,
    );
    assert_ledgered(&summary);
}

/// Assemble `src` with the system's `as --gsframe` (binutils 2.40 here) and link it.
fn assemble(dir: &Path, src: &str) -> Vec<PathBuf> {
    let s = dir.join("t.s");
    std::fs::write(&s, src).unwrap();
    let o = dir.join("t.o");
    let so = dir.join("t.so");
    let st = Command::new("as")
        .arg("--gsframe")
        .arg("-o")
        .arg(&o)
        .arg(&s)
        .status()
        .expect("`as` runs (ci/install-deps installs binutils)");
    assert!(st.success(), "as --gsframe failed");
    let st = Command::new("ld")
        .arg("-shared")
        .arg("-o")
        .arg(&so)
        .arg(&o)
        .status()
        .expect("`ld` runs");
    assert!(st.success(), "ld -shared failed");
    vec![o, so]
}

#[test]
fn sections_assembled_here_agree_or_are_ledgered() {
    if !cfg!(target_arch = "x86_64") {
        return;
    }
    let reg = registry(true);
    let dir = std::env::temp_dir().join(format!("sframe-harness-as-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A frame-pointer function, a leaf, a function with a large frame, and an epilogue in
    // the middle: the shapes GNU as turns into FREs.
    let src = r#"
        .text
        .globl f1, f2, f3
        .type f1,@function
f1:     .cfi_startproc
        pushq %rbp
        .cfi_def_cfa_offset 16
        .cfi_offset %rbp, -16
        movq %rsp, %rbp
        .cfi_def_cfa_register %rbp
        call f2
        popq %rbp
        .cfi_def_cfa %rsp, 8
        ret
        .cfi_endproc
        .size f1, .-f1
        .type f2,@function
f2:     .cfi_startproc
        leaq 1(%rdi), %rax
        ret
        .cfi_endproc
        .size f2, .-f2
        .type f3,@function
f3:     .cfi_startproc
        subq $4096, %rsp
        .cfi_def_cfa_offset 4104
        testq %rdi, %rdi
        je 1f
        addq $4096, %rsp
        .cfi_remember_state
        .cfi_def_cfa_offset 8
        ret
        .cfi_restore_state
1:      movq $0, (%rsp)
        addq $4096, %rsp
        .cfi_def_cfa_offset 8
        ret
        .cfi_endproc
        .size f3, .-f3
"#;
    let files = assemble(&dir, src);
    let cases: Vec<Case> = files
        .iter()
        .map(|p| Case {
            name: p.display().to_string(),
            data: sframe_harness::input::read_input(p).unwrap().loaded.bytes,
        })
        .collect();
    let (summary, results) = run(
        &Engine::new(reg.available.clone()).with_ledger(&ledger()),
        &cases,
        &ledger(),
    );
    let _ = std::fs::remove_dir_all(&dir);
    assert_ledgered(&summary);
    // The linked (sorted) section: libsframe 2.40 reads it and agrees.
    assert!(
        agreed(&results, "libsframe-2.40", 1) >= 1,
        "{}",
        summary.render_text()
    );
}

#[test]
fn generated_inputs_agree_or_are_ledgered() {
    let reg = registry(false);
    let mut seeds_in = corpus_cases(&corpus_dir());
    seeds_in.extend(seeds::builtin());
    let cases = mutate::generate(&seeds_in, 240, 20_251_122);
    let (summary, _) = run(
        &Engine::new(reg.available.clone()).with_ledger(&ledger()),
        &cases,
        &ledger(),
    );
    assert_ledgered(&summary);
    assert!(
        summary.valid > 20,
        "too few valid generated sections: {}",
        summary.valid
    );
}

#[test]
fn libsframe_encoders_produce_what_the_reference_reads() {
    let reg = registry(false);
    let l = ledger();
    let mut summary = Summary::default();
    let models: Vec<_> = seeds::builtin()
        .iter()
        .filter_map(|c| sframe_spec::decode(&c.data).ok())
        .collect();
    let mut encoded = 0;
    for imp in reg.libsframes() {
        for m in &models {
            let ds = producer::check(imp.as_ref(), m);
            if !matches!(imp.encode(m), Outcome::Unsupported { .. }) {
                encoded += 1;
            }
            let r = producer::case_result(format!("{} model", imp.name()), imp.name(), m, ds);
            summary.add(&r, &[], &l);
        }
    }
    assert!(encoded >= 3, "no libsframe encoder took any model");
    assert_ledgered(&summary);
}

fn python() -> &'static str {
    "python3"
}

fn data_script(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
        .display()
        .to_string()
}

fn example_adapter() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../harness/examples/external-adapter.py")
        .display()
        .to_string()
}

fn external(script: &str, args: &[&str], timeout: Duration) -> Arc<dyn Implementation> {
    let mut l = Launch::new(python()).arg(script).timeout(timeout);
    for a in args {
        l = l.arg(*a);
    }
    Arc::new(
        ProcessImpl::start(l, Hosting::External)
            .expect("python3 runs the adapter (ci/install-deps installs python3)"),
    )
}

#[test]
fn the_example_external_adapter_agrees_with_the_reference_on_the_seeds() {
    let imp = external(&example_adapter(), &[], Duration::from_secs(20));
    assert_eq!(imp.name(), "python-example");
    let cases = seeds::builtin();
    let (summary, results) = run(&Engine::new(vec![imp]), &cases, &Ledger::default());
    assert!(summary.signatures.is_empty(), "{}", summary.render_text());
    assert!(results
        .iter()
        .all(|r| r.results[0].status == sframe_harness::diff::Status::Agree));
}

#[test]
fn a_crashing_external_implementation_is_reported_and_the_run_completes() {
    let imp = external(
        &data_script("segv-adapter.py"),
        &[],
        Duration::from_secs(20),
    );
    let cases = seeds::builtin();
    let (summary, results) = run(&Engine::new(vec![imp]), &cases, &Ledger::default());
    assert_eq!(results.len(), cases.len(), "the run stopped early");
    for v in ["v1", "v2", "v2-pcrel", "v3", "v3-pcrel"] {
        for op in ["decode", "find_fre"] {
            let sig = format!("crash:segv-example:{v}:{op}:SIGSEGV");
            assert!(
                summary.signatures.contains_key(&sig),
                "{sig} not reported:\n{}",
                summary.render_text()
            );
        }
    }
    // Every other section was answered by a restarted process, and agrees.
    for r in &results {
        let crashed = r.case.contains("aarch64-be");
        assert_eq!(
            r.results[0].status == sframe_harness::diff::Status::Agree,
            !crashed,
            "{}: {:?}",
            r.case,
            r.results[0]
        );
    }
}

#[test]
fn a_hanging_external_implementation_is_reported_as_hung() {
    let imp = external(
        &data_script("segv-adapter.py"),
        &["--hang"],
        Duration::from_millis(1000),
    );
    let cases: Vec<Case> = seeds::builtin()
        .into_iter()
        .filter(|c| c.name.contains("v3-s390x-pcrel") || c.name.contains("v3-amd64-pcrel"))
        .collect();
    assert_eq!(cases.len(), 2);
    let (summary, results) = run(&Engine::new(vec![imp]), &cases, &Ledger::default());
    assert!(
        summary
            .signatures
            .contains_key("hang:segv-example:v3-pcrel:decode"),
        "{}",
        summary.render_text()
    );
    let amd64 = results.iter().find(|r| r.case.contains("amd64")).unwrap();
    assert_eq!(
        amd64.results[0].status,
        sframe_harness::diff::Status::Agree,
        "the process was not restarted after the hang"
    );
}

#[test]
fn a_deadline_missed_once_is_asked_again_and_the_answer_stands() {
    let markers = std::env::temp_dir().join(format!("sframe-hang-once-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&markers);
    std::fs::create_dir_all(&markers).unwrap();
    let imp = external(
        &data_script("segv-adapter.py"),
        &["--hang-once", markers.to_str().unwrap()],
        Duration::from_millis(1500),
    );
    let cases: Vec<Case> = seeds::builtin()
        .into_iter()
        .filter(|c| c.name.contains("v3-s390x-pcrel"))
        .collect();
    assert_eq!(cases.len(), 1);
    let (summary, results) = run(&Engine::new(vec![imp]), &cases, &Ledger::default());
    assert!(
        summary.signatures.is_empty(),
        "a hang that did not repeat was reported:\n{}",
        summary.render_text()
    );
    assert_eq!(
        results[0].results[0].status,
        sframe_harness::diff::Status::Agree,
        "{:?}",
        results[0].results[0]
    );
    // Every request was asked twice: the first time it hung.
    assert!(std::fs::read_dir(&markers).unwrap().count() >= 2);
    let _ = std::fs::remove_dir_all(&markers);
}

/// A parser that gets the CFA offset wrong by 8 everywhere.
struct OffByEight;

fn shift(row: &mut sframe_harness::impls::Row) {
    if let Some(Loc::Expr { offset, .. }) = row.cfa.as_mut() {
        *offset += 8;
    }
}

impl Implementation for OffByEight {
    fn name(&self) -> String {
        "off-by-eight".into()
    }
    fn version(&self) -> String {
        "0".into()
    }
    fn supports(&self, _: Version) -> bool {
        true
    }
    fn decode(&self, data: &[u8]) -> Outcome<Decoded> {
        Reference.decode(data).map(|mut d| {
            d.functions
                .iter_mut()
                .flat_map(|f| f.fres.iter_mut())
                .for_each(|r| shift(&mut r.row));
            d
        })
    }
    fn find_fre(&self, data: &[u8], pc: i64) -> Outcome<Option<Found>> {
        Reference.find_fre(data, pc).map(|f| {
            f.map(|mut f| {
                shift(&mut f.row);
                f
            })
        })
    }
}

#[test]
fn the_gate_passes_the_reference_and_catches_a_broken_parser() {
    let corpus = Corpus::builtin();
    gate::run(&Reference, &corpus).assert_clean();
    let report = gate::run(&OffByEight, &corpus);
    let sigs: Vec<&Signature> = report.discrepancies().map(|(_, d)| &d.signature).collect();
    for expected in [
        "diff:off-by-eight:v3-pcrel:decode:fre.cfa",
        "diff:off-by-eight:v1:find_fre:row.cfa",
    ] {
        let expected: Signature = expected.parse().unwrap();
        assert!(sigs.contains(&&expected), "{}", report.summary());
    }
    // A panicking parser is a crash, not a failed test.
    struct Panics;
    impl Implementation for Panics {
        fn name(&self) -> String {
            "panics".into()
        }
        fn version(&self) -> String {
            "0".into()
        }
        fn supports(&self, _: Version) -> bool {
            true
        }
        fn decode(&self, _: &[u8]) -> Outcome<Decoded> {
            panic!("boom")
        }
        fn find_fre(&self, _: &[u8], _: i64) -> Outcome<Option<Found>> {
            Outcome::ok(None)
        }
    }
    let report = gate::run(&Panics, &corpus);
    assert!(
        report.discrepancies().any(|(_, d)| matches!(&d.signature,
            Signature::Crash { imp, tag, op: Op::Decode, signal: Signal::Panic, .. }
                if *imp == Tool::named("panics") && tag.version == Some(Version::V1))),
        "{}",
        report.summary()
    );
}

#[test]
fn bench_sections_are_found_by_every_implementation() {
    let reg = registry(false);
    let (rows, throughput) =
        sframe_conform::bench::measurements(&reg.available, 2000, Duration::from_millis(20));
    assert!(!throughput.is_empty());
    // The reference, simple-frame-rs and the newest libsframe find every PC (others may not:
    // libsframe 2.44 misreads v1, see the ledger; the bench prints found/asked).
    let newest = reg
        .libsframes()
        .last()
        .map(|l| l.name())
        .unwrap_or_default();
    let checked = ["reference", "simple-frame-rs", newest.as_str()];
    for m in rows.iter().filter(|m| {
        m.section.starts_with("synthetic") && checked.contains(&m.implementation.as_str())
    }) {
        assert_eq!(
            m.found, m.lookups,
            "{} found {} of {} in {}",
            m.implementation, m.found, m.lookups, m.section
        );
    }
    assert!(rows
        .iter()
        .any(|m| Tool::named(&m.implementation).is(ToolName::Libsframe)
            && m.ratio_to_libsframe.is_some()));
}

fn conform() -> Command {
    Command::new(env!("CARGO_BIN_EXE_sframe-conform"))
}

#[test]
fn diff_exit_status_says_whether_something_is_new() {
    registry(false);
    let dir = std::env::temp_dir().join(format!("sframe-harness-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let seed = seeds::builtin()
        .into_iter()
        .find(|c| c.name == "builtin:v2-amd64")
        .unwrap();
    let file = dir.join("v2.sframe");
    std::fs::write(&file, &seed.data).unwrap();
    let empty = dir.join("empty-ledger");
    std::fs::create_dir_all(&empty).unwrap();

    let st = conform().arg("diff").status().unwrap();
    assert_eq!(st.code(), Some(2), "no input is a usage error");
    let st = conform()
        .args(["diff", "--impl", "no-such-impl"])
        .arg(&file)
        .status()
        .unwrap();
    assert_eq!(st.code(), Some(2));
    let ext = format!("{} {}", python(), example_adapter());
    let st = conform()
        .args(["diff", "--impl", "python-example", "--external", &ext])
        .arg(&file)
        .status()
        .unwrap();
    assert_eq!(st.code(), Some(0), "the example adapter agrees");
    // sid's libsframe resolves v2 starts as PC-relative without the flag: new to an empty ledger.
    let newest = Registry::discover(&Options {
        objdump: false,
        ..Options::default()
    })
    .libsframes()
    .last()
    .map(|l| l.name())
    .unwrap();
    let out = conform()
        .args(["diff", "--json", "--impl", &newest, "--ledger"])
        .arg(&empty)
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["summary"]["signatures"]
        .as_object()
        .is_some_and(|m| !m.is_empty()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn impls_lists_every_provisioned_implementation_with_its_version() {
    registry(false);
    let out = conform().args(["impls", "--json"]).output().unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = v["available"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["name"].as_str())
        .collect();
    for n in [
        "reference",
        "simple-frame-rs",
        "libsframe-2.40",
        "libsframe-2.44",
    ] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    let l240 = v["available"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "libsframe-2.40")
        .unwrap();
    assert_eq!(l240["versions"], serde_json::json!([1]));
    assert!(l240["version"].as_str().unwrap().contains("2.40"));
}

#[test]
fn an_external_program_is_never_run_under_a_name_the_suite_keeps() {
    let script = data_script("hello-as.py");
    let ext = |name: &str| format!("{} {script} {name}", python());
    // Names of tools the suite provisions (whether or not they are provisioned here), and the
    // reference: `--impl NAME` would pick the built-in, and that tool's findings would be
    // credited to the program.
    for name in [
        "simple-frame-rs",
        "reference",
        "libsframe-2.47",
        "objdump-2.40",
        "glibc-9.99",
    ] {
        let out = conform()
            .args(["impls", "--external", &ext(name)])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{name}: {err}");
        assert!(
            err.contains(&format!("calls itself `{name}`")) && err.contains("a name of its own"),
            "{name}: {err}"
        );
    }
    // Two programs under one name: the second is refused.
    let out = conform()
        .args([
            "impls",
            "--external",
            &ext("my-reader"),
            "--external",
            &ext("my-reader"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already here"));
    // A name of its own is listed.
    let out = conform()
        .args(["impls", "--external", &ext("my-reader")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("my-reader"));
}
