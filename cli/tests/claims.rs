//! Every finding's reproducers show its title: each `claim` of `corpus/findings/*/finding.json`
//! ([`sframe_harness::claim::Claim`]) is run on the named implementation and release (the
//! worker hosting Debian's libsframe of each release and glibc's reader, objdump of each
//! release, simple-frame-rs, llvm-readobj) or built with the named assembler and read by
//! `crosscheck` (the file's `.eh_frame`) or `oracle` (the emulator), and the specific answer,
//! crash, refusal or row is checked; a fixed reference bug's row is read by the reference
//! and checked by the emulator; a stack-walk claim walks the emulator's stacks as
//! `cli/tests/stackwalk.rs` does. An implementation or producer that is not provisioned
//! here fails the test, naming it; nothing is skipped.

mod common;

use sframe_conform::stackwalk;
use sframe_harness::cache_dir;
use sframe_harness::claim::{Build, CheckCase, Checker, Claim, RowSeen, WalkSeen};
use sframe_harness::diff::{producer, Case, CaseResult, Engine, Op};
use sframe_harness::impls::reference::Reference;
use sframe_harness::impls::Implementation;
use sframe_harness::ledger::{Finding, FindingKind, Ledger};
use sframe_impls::registry::{Options, Registry};
use sframe_oracle::Oracle;
use sframe_spec::Loc;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

/// Findings whose reproducers no claim checks yet, with the reason; the test fails when one
/// of them gets a claim (take it off this list) or another finding has none.
const UNCLAIMED: &[(&str, &str)] = &[];

fn scratch() -> PathBuf {
    let d = std::env::temp_dir().join(format!("sframe-claims-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Build a producer claim's reproducer; the ELF file, or why it could not be built.
fn build(b: &Build, src: &Path, dir: &Path, n: usize) -> Result<PathBuf, String> {
    let bin = cache_dir().join("bin");
    let out = dir.join(format!("claim-{n}.o"));
    let tool = |name: String| {
        let p = bin.join(&name);
        if p.is_file() {
            Ok(p)
        } else {
            Err(format!(
                "{} is not provisioned (run ci/toolchains --llvm)",
                p.display()
            ))
        }
    };
    let mut cmd = match b {
        Build::GnuAs { release, target } => {
            let mut c = Command::new(tool(format!("{target}-as-{release}"))?);
            c.arg("--gsframe").arg(src).arg("-o").arg(&out);
            c
        }
        Build::LlvmMc { release, target } => {
            let mut c = Command::new(tool(format!("llvm-mc-{release}"))?);
            c.args(["-filetype=obj", &format!("-triple={target}"), "--gsframe"])
                .arg(src)
                .arg("-o")
                .arg(&out);
            c
        }
        Build::Gcc {
            target,
            flags,
            as_release,
            ld_release,
        } => {
            let bdir = dir.join(format!("b{n}"));
            std::fs::create_dir_all(&bdir).unwrap();
            let link = |from: PathBuf, name: &str| {
                let _ = std::fs::remove_file(bdir.join(name));
                std::os::unix::fs::symlink(from, bdir.join(name)).unwrap();
            };
            link(tool(format!("{target}-as-{as_release}"))?, "as");
            let gcc = if target == "x86_64-linux-gnu" {
                "gcc".to_string()
            } else {
                format!("{target}-gcc")
            };
            let obj = dir.join(format!("claim-{n}.c.o"));
            let st = Command::new(&gcc)
                .arg(format!("-B{}/", bdir.display()))
                .args(flags)
                .args(["-Wa,--gsframe", "-c"])
                .arg(src)
                .arg("-o")
                .arg(&obj)
                .status()
                .map_err(|e| format!("{gcc}: {e}"))?;
            if !st.success() {
                return Err(format!("{gcc} failed on {}", src.display()));
            }
            let Some(ld) = ld_release else {
                return Ok(obj);
            };
            let mut c = Command::new(tool(format!("{target}-ld-{ld}"))?);
            c.arg("-shared").arg(&obj).arg("-o").arg(&out);
            c
        }
        Build::Corpus { path } => {
            let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
            if !path.ends_with(".xz") {
                return Ok(p);
            }
            let o = Command::new("xz")
                .arg("-dc")
                .arg(&p)
                .output()
                .map_err(|e| format!("xz: {e}"))?;
            std::fs::write(&out, o.stdout).unwrap();
            return Ok(out);
        }
    };
    let o = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if !o.status.success() {
        return Err(format!(
            "{cmd:?} failed: {}",
            String::from_utf8_lossy(&o.stderr)
        ));
    }
    Ok(out)
}

/// The wrong rows `crosscheck` or `oracle` reports for `file`, with their rules of `column`.
fn rows(file: &Path, by: Checker, column: &str) -> Vec<RowSeen> {
    let sub = match by {
        Checker::EhFrame => "crosscheck",
        Checker::Emulator => "oracle",
    };
    let out = Command::new(env!("CARGO_BIN_EXE_sframe-conform"))
        .args([sub, "--json", "--ledger", "/nonexistent"])
        .arg(file)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{sub} {}: {e}: {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let loc = |x: &serde_json::Value| serde_json::from_value(x.clone()).ok();
    let mut seen = Vec::new();
    for f in v["files"].as_array().into_iter().flatten() {
        if by == Checker::EhFrame {
            for d in f["disagreeing"].as_array().into_iter().flatten() {
                let function = d["name"]["name"].as_str().unwrap_or("").to_string();
                for x in d["outcome"]["disagreements"]
                    .as_array()
                    .into_iter()
                    .flatten()
                {
                    let m = &x["mismatch"];
                    let kind = m["kind"].as_str().unwrap_or("").to_string();
                    seen.push(RowSeen {
                        function: function.clone(),
                        offset: m["pc_offset"].as_u64().unwrap_or(u64::MAX),
                        written: loc(&m["found_rules"][column]),
                        required: loc(&m["expected_rules"][column]),
                        kind,
                    });
                }
            }
        } else {
            for func in f["report"]["functions"].as_array().into_iter().flatten() {
                for m in func["mismatches"].as_array().into_iter().flatten() {
                    let kind = m["kind"].as_str().unwrap_or("").to_string();
                    seen.push(RowSeen {
                        function: m["function"].as_str().unwrap_or("").to_string(),
                        offset: m["offset"].as_u64().unwrap_or(u64::MAX),
                        written: loc(&m["row"]["rules"][column]),
                        required: None,
                        kind,
                    });
                }
            }
        }
    }
    seen
}

/// The functions `oracle --json` finds without an SFrame FDE in `file`.
fn functions_without_fde(file: &Path) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_sframe-conform"))
        .args(["oracle", "--json", "--ledger", "/nonexistent"])
        .arg(file)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    v["files"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|f| {
            f["report"]["summary"]["functions_without_fde"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter_map(|x| x.as_str().map(str::to_string))
        .collect()
}

/// The rules `check --json` reports broken in `file`.
fn broken_rules(file: &Path) -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_sframe-conform"))
        .args(["check", "--json", "--strict"])
        .arg(file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // Every `"rule": "ID"` of the report, wherever the violation is listed.
    text.split("\"rule\":")
        .skip(1)
        .filter_map(|s| s.trim_start().strip_prefix('"'))
        .filter_map(|s| s.split('"').next())
        .map(str::to_string)
        .collect()
}

/// The reference's rule of `column` at `offset` bytes into the function whose FDE is
/// `fde` (`dump --json`: the last FRE starting at or before it).
fn reference_rule(file: &Path, fde: usize, offset: u64, column: &str) -> Option<Loc> {
    let out = Command::new(env!("CARGO_BIN_EXE_sframe-conform"))
        .args(["dump", "--json"])
        .arg(file)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    let fres = v["files"][0]["functions"][fde]["fres"].as_array()?;
    let fre = fres
        .iter()
        .rfind(|r| r["start"].as_u64().is_some_and(|s| s <= offset))?;
    serde_json::from_value(fre["rules"][column].clone()).ok()
}

/// `oracle --json` on `file`: the FDE index of `function` and how many of its rows it checked.
fn oracle_function(file: &Path, function: &str) -> Option<(usize, u64)> {
    let out = Command::new(env!("CARGO_BIN_EXE_sframe-conform"))
        .args(["oracle", "--json", "--ledger", "/nonexistent"])
        .arg(file)
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).ok()?;
    let funcs = v["files"][0]["report"]["functions"].as_array()?;
    let f = funcs.iter().find(|f| f["name"] == function)?;
    Some((f["fde"].as_u64()? as usize, f["rows_checked"].as_u64()?))
}

/// Where `imp`'s whole-stack walks of the corpus file `elf` part from the true stack, the
/// emulator's deepest stacks walked as `cli/tests/stackwalk.rs` walks them.
fn walks(imp: &dyn Implementation, elf: &str) -> Result<Vec<WalkSeen>, String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(elf);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let oracle = Oracle::new(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let opts = common::stack_walk_options();
    let report = oracle
        .check_all(&opts)
        .map_err(|e| format!("oracle: {e}"))?;
    let section = &oracle.image().section;
    let vaddr = oracle.image().section_vaddr;
    Ok(report
        .snapshots
        .iter()
        .filter(|s| s.frames.len() >= 2)
        .filter_map(|snap| stackwalk::check(&Reference, imp, snap, section, vaddr))
        .filter_map(|d| match &d.signature {
            sframe_harness::signature::Signature::Unwind { what, .. } => Some(WalkSeen {
                frame: d.frame,
                function: d.function.clone(),
                what: *what,
            }),
            _ => None,
        })
        .collect())
}

/// An encoder claim: the libsframe encoder named, on the model the reference reads from the
/// input.
fn encode_case(
    imp: &Arc<dyn Implementation>,
    data: &[u8],
    name: &str,
) -> Result<CaseResult, String> {
    let m = sframe_spec::decode(data)
        .map_err(|e| format!("{name}: the reference reads no model: {e:?}"))?;
    let ds = producer::check(imp.as_ref(), &m);
    Ok(producer::case_result(name.to_string(), imp.name(), &m, ds))
}

fn check_finding(
    f: &Finding,
    dir: &Path,
    reg: &Registry,
    engine: &Engine,
    cache: &mut BTreeMap<PathBuf, CaseResult>,
    scratch: &Path,
    n: &mut usize,
) -> Vec<String> {
    let mut bad = Vec::new();
    for c in &f.claim {
        let input = dir.join(c.input());
        let result = match c {
            Claim::ProducerRow { build: b, by, .. } => {
                *n += 1;
                let column = c.rule_column().map_or("", |r| r.name());
                build(b, &input, scratch, *n).and_then(|elf| c.check_rows(&rows(&elf, *by, column)))
            }
            Claim::ProducerViolation { build: b, rule, .. } => {
                *n += 1;
                build(b, &input, scratch, *n).and_then(|elf| {
                    let rules = broken_rules(&elf);
                    if rules.contains(rule) {
                        Ok(())
                    } else {
                        Err(format!("check reports {rules:?}, not {rule}"))
                    }
                })
            }
            Claim::ProducerFails {
                build: b, message, ..
            } => {
                *n += 1;
                match build(b, &input, scratch, *n) {
                    Ok(_) => Err("the producer did not fail".to_string()),
                    Err(e) if e.contains(message.as_str()) && !e.contains("not provisioned") => {
                        Ok(())
                    }
                    Err(e) => Err(format!("failed otherwise: {e}")),
                }
            }
            Claim::ProducerOmits {
                build: b, function, ..
            } => {
                *n += 1;
                build(b, &input, scratch, *n).and_then(|elf| {
                    let without = functions_without_fde(&elf);
                    if without.contains(function) {
                        Ok(())
                    } else {
                        Err(format!("functions without an FDE: {without:?}"))
                    }
                })
            }
            Claim::ReferenceRow {
                build: b,
                function,
                offset,
                field,
                ..
            } => {
                *n += 1;
                build(b, &input, scratch, *n).and_then(|elf| {
                    let (fde, checked) = oracle_function(&elf, function)
                        .ok_or_else(|| format!("oracle lists no function {function}"))?;
                    let read = reference_rule(&elf, fde, *offset, field.name());
                    let wrong = rows(&elf, Checker::Emulator, field.name());
                    c.check_reference_row(read, checked, &wrong)
                })
            }
            Claim::Walk {
                implementation,
                elf,
                ..
            } => match reg.available.iter().find(|i| &i.name() == implementation) {
                None => Err(format!(
                    "{implementation} cannot be provisioned here (unavailable: {:?})",
                    reg.unavailable
                )),
                Some(imp) => walks(imp.as_ref(), elf).and_then(|seen| c.check_walk(&seen)),
            },
            _ => {
                let imp_name = c.implementation().unwrap_or_default();
                let Some(imp) = reg.available.iter().find(|i| i.name() == imp_name) else {
                    bad.push(format!(
                        "{}: {imp_name} cannot be provisioned here (unavailable: {:?})",
                        f.id, reg.unavailable
                    ));
                    continue;
                };
                let Ok(data) = std::fs::read(&input) else {
                    bad.push(format!("{}: {} cannot be read", f.id, input.display()));
                    continue;
                };
                let encode = matches!(c, Claim::Value { op: Op::Encode, .. });
                let at = match c {
                    Claim::Value { pc: Some(pc), .. } => Some(*pc),
                    _ => None,
                };
                let r = if encode {
                    encode_case(imp, &data, &input.display().to_string())
                } else if let Some(pc) = at {
                    // The claimed PC is asked whether or not the engine's own choice of PCs
                    // (function and FRE boundaries) includes it.
                    Ok(engine.run_case_at(
                        &Case {
                            name: input.display().to_string(),
                            data,
                        },
                        &[pc],
                    ))
                } else {
                    Ok(cache
                        .entry(input.clone())
                        .or_insert_with(|| {
                            engine.run_case(&Case {
                                name: input.display().to_string(),
                                data,
                            })
                        })
                        .clone())
                };
                r.and_then(|r| c.check_case(f, &r))
            }
        };
        if let Err(e) = result {
            bad.push(format!("{} ({}): {e}", f.id, c.input()));
        }
    }
    bad
}

/// Findings whose claims take minutes in the test's build (the emulator on a whole library):
/// `every_finding_shows_its_claims` leaves them to `slow_claims`, which is ignored by default
/// and run with `cargo test -p sframe-conform --test claims -- --ignored`.
const SLOW: &[(&str, &str)] = &[(
    "F0251-gcc-s390x-fpr-saved-sp-cfa-restored-early",
    "oracle on all of libsodium.so (s390x): 120 s in the debug build, 14 s in the release build",
)];

#[test]
fn every_finding_shows_its_claims() {
    run_claims(false);
}

#[test]
#[ignore = "the emulator on a whole library: minutes in the debug build (SLOW)"]
fn slow_claims() {
    run_claims(true);
}

fn run_claims(slow: bool) {
    let ledger = Ledger::load(&Ledger::default_dir()).expect("the findings ledger loads");
    let reg = Registry::discover(&Options {
        objdump: true,
        ..Options::default()
    });
    let engine = Engine::new(reg.available.clone()).with_ledger(&ledger);
    let scratch = scratch();
    let mut cache = BTreeMap::new();
    let mut n = 0;
    let mut bad = Vec::new();
    let mut checked = 0;
    for f in &ledger.findings {
        if SLOW.iter().any(|(id, _)| *id == f.id) != slow {
            continue;
        }
        let unclaimed = UNCLAIMED.iter().find(|(id, _)| *id == f.id);
        match (f.claim.is_empty(), unclaimed) {
            (true, None) => bad.push(format!("{}: no claim", f.id)),
            (false, Some(_)) => {
                bad.push(format!("{}: has a claim now; take it off UNCLAIMED", f.id))
            }
            _ => {}
        }
        let dir = ledger.dir.join(&f.id);
        bad.extend(check_finding(
            f, &dir, &reg, &engine, &mut cache, &scratch, &mut n,
        ));
        checked += f.claim.len();
        // A crash finding claims a crash somewhere; a producer finding a producer's row or
        // output.
        let producer = f.claim.iter().any(Claim::is_producer);
        let kind_ok = match f.kind {
            FindingKind::Crash => f
                .claim
                .iter()
                .any(|c| matches!(c, Claim::Crash { .. } | Claim::Hang { .. })),
            FindingKind::OracleMismatch | FindingKind::ProducerViolation => producer,
            _ => !producer,
        };
        if !f.claim.is_empty() && !kind_ok {
            bad.push(format!("{}: no claim of its kind {:?}", f.id, f.kind));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        checked >= if slow { SLOW.len() } else { 100 },
        "only {checked} claims checked"
    );
    assert!(
        bad.is_empty(),
        "{} of {checked} claims not shown:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
