//! `sframe-conform suite`: a conformance suite for SFrame readers in any language, written
//! as plain files (raw `.sframe` sections beside JSON expectations), and the scoring of an
//! implementation against such a suite.
//!
//! `suite export DIR` takes the bundled corpus (`corpus/elf`), the built-in seeds and N
//! mutations of them, classifies each distinct section with the reference and the rule
//! catalogue (valid, malformed, invalid), and writes `DIR/{valid,malformed,invalid}/NAME.sframe`
//! with `NAME.json` (source, version, expected decode, expected rows at a set of PCs, rules
//! broken), `DIR/index.json` and `DIR/README.md`. `suite score DIR --impl NAME` runs an
//! implementation of the registry (or `--external CMD`) on every case and prints a table per
//! class and version.

use clap::Subcommand;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sframe_harness::diff::{compare, mutate, pcs_for, seeds, Case};
use sframe_harness::impls::reference::Reference;
use sframe_harness::impls::{section_version, Decoded, Found, Implementation, Outcome};
use sframe_harness::input::{corpus_cases, corpus_dir};
use sframe_harness::signature::VersionTag;
use sframe_impls::registry::{Options, Registry};
use sframe_spec::rules::Severity;
use sframe_spec::validate::validate;
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// At most this many PCs are looked up per valid section.
pub const MAX_PCS: usize = 64;

/// The three classes of cases, in the order they are reported.
pub const CLASSES: [&str; 3] = ["valid", "malformed", "invalid"];

/// `sframe-conform suite ...`.
#[derive(Subcommand, Debug)]
pub enum SuiteCmd {
    /// Write the suite: DIR/valid, DIR/malformed, DIR/invalid (NAME.sframe beside NAME.json),
    /// DIR/index.json and DIR/README.md, from the corpus, the built-in seeds and mutations.
    Export {
        dir: PathBuf,
        /// Mutated sections beside the corpus and the seeds.
        #[arg(long, default_value_t = 1000)]
        mutations: usize,
        /// Seed of the mutations.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Run an implementation on every case of a suite and print a table per class and
    /// version (passed / failed / unsupported / crashed). Exit 0: scoring is a report.
    Score {
        dir: PathBuf,
        /// The implementation (a name `sframe-conform impls` lists).
        #[arg(long = "impl")]
        implementation: Option<String>,
        /// An external implementation: a command speaking the JSON-lines protocol.
        #[arg(long)]
        external: Option<String>,
        #[arg(long)]
        json: bool,
        /// Time limit per request to a worker or external program, in milliseconds.
        #[arg(long, default_value_t = 10_000)]
        timeout_ms: u64,
    },
}

/// Run a `suite` subcommand.
pub fn run(cmd: SuiteCmd) -> Result<ExitCode, String> {
    match cmd {
        SuiteCmd::Export {
            dir,
            mutations,
            seed,
        } => {
            let s = export(&dir, mutations, seed)?;
            crate::outln!(
                "wrote {} case(s) to {} ({} inputs, {} duplicates dropped)",
                s.cases,
                dir.display(),
                s.inputs,
                s.inputs - s.cases
            );
            crate::out!("{}", render_counts(&s.counts));
            Ok(ExitCode::SUCCESS)
        }
        SuiteCmd::Score {
            dir,
            implementation,
            external,
            json,
            timeout_ms,
        } => {
            let timeout = Duration::from_millis(timeout_ms);
            let imp = select(implementation.as_deref(), external.as_deref(), timeout)?;
            let report = score(&dir, imp.as_ref())?;
            if json {
                crate::outln!(
                    "{}",
                    serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
                );
            } else {
                crate::out!("{}", report.render_text());
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn select(
    name: Option<&str>,
    external: Option<&str>,
    timeout: Duration,
) -> Result<Arc<dyn Implementation>, String> {
    let text = name.is_some_and(crate::diff_cmd::is_text_tool);
    let mut reg = Registry::discover(&Options {
        timeout,
        objdump: text,
    });
    match (name, external) {
        (Some(_), Some(_)) => Err("give --impl NAME or --external CMD, not both".into()),
        (None, None) => Err("which implementation? --impl NAME or --external CMD".into()),
        (None, Some(cmd)) => reg.add_external(cmd, timeout),
        (Some(n), None) => reg.get(n).ok_or_else(|| {
            let names: Vec<String> = reg.available.iter().map(|i| i.name()).collect();
            let why = reg
                .unavailable
                .iter()
                .find(|u| {
                    u.name == n
                        || (u.name.ends_with('*') && n.starts_with(u.name.trim_end_matches('*')))
                })
                .map(|u| format!(" ({})", u.reason))
                .unwrap_or_default();
            format!(
                "no implementation {n:?}{why}; available: {}",
                names.join(", ")
            )
        }),
    }
}

/// 64-bit FNV-1a of `data`.
pub fn fnv1a(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// One rule broken, as a case file lists it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Broken {
    pub rule: String,
    /// Byte offset into the section of the field or record at fault.
    pub offset: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fre: Option<u32>,
    pub message: String,
}

/// One expected look-up.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Lookup {
    /// Offset from the start of the section.
    pub pc: i64,
    /// The row, or `null` when no function covers the PC.
    pub row: Option<Found>,
}

/// A case file (`NAME.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CaseFile {
    pub name: String,
    pub class: String,
    pub version: VersionTag,
    /// The `sfp_version` byte, when the magic is right.
    #[serde(default)]
    pub version_byte: Option<u8>,
    /// The raw section, beside this file.
    pub file: String,
    pub size: usize,
    /// Where the section comes from (the first source, when several gave the same bytes).
    pub source: String,
    /// The reference's decode (valid and invalid cases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_decode: Option<Decoded>,
    /// The reference's row at each PC (valid cases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_rows: Option<Vec<Lookup>>,
    /// The error-severity rules the validator reports (malformed and invalid cases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules_broken: Option<Vec<Broken>>,
    /// The rule the reference's decoder stopped at (malformed cases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_error: Option<String>,
    /// Warning-severity rules (any class): allowed, listed for information.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Broken>,
}

/// What an export wrote.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ExportSummary {
    pub inputs: usize,
    pub cases: usize,
    /// class -> version -> count.
    pub counts: BTreeMap<String, BTreeMap<VersionTag, usize>>,
}

/// Classify one section with the reference and the validator.
pub fn classify(name: &str, source: &str, data: &[u8]) -> CaseFile {
    let violations = validate(data);
    let broken = |sev: Severity| -> Vec<Broken> {
        violations
            .iter()
            .filter(|v| v.rule.info().severity == sev)
            .map(|v| Broken {
                rule: v.rule.id().to_string(),
                offset: v.offset,
                function: v.function,
                fre: v.fre,
                message: v.to_string(),
            })
            .collect()
    };
    let errors = broken(Severity::Error);
    let warnings = broken(Severity::Warning);
    let decoded = Reference.decode(data);
    let version = VersionTag::of(data);
    let mut case = CaseFile {
        name: name.to_string(),
        class: String::new(),
        version,
        version_byte: section_version(data).map(|v| v.number()),
        file: format!("{name}.sframe"),
        size: data.len(),
        source: source.to_string(),
        expected_decode: None,
        expected_rows: None,
        rules_broken: None,
        decode_error: None,
        warnings,
    };
    match decoded {
        Outcome::Ok { value } => {
            if errors.is_empty() {
                case.class = "valid".into();
                let pcs = pcs_for(data, Some(&value), MAX_PCS);
                let rows = Reference
                    .find_fres(data, &pcs)
                    .into_iter()
                    .zip(pcs)
                    .filter_map(|(o, pc)| match o {
                        Outcome::Ok { value } => Some(Lookup { pc, row: value }),
                        _ => None,
                    })
                    .collect();
                case.expected_rows = Some(rows);
            } else {
                case.class = "invalid".into();
                case.rules_broken = Some(errors);
            }
            case.expected_decode = Some(value);
        }
        other => {
            case.class = "malformed".into();
            if let Outcome::Rejected { class, .. } = &other {
                case.decode_error = Some(class.to_string());
            }
            case.rules_broken = Some(errors);
        }
    }
    case
}

/// The sources of the suite: the corpus, the built-in seeds, `mutations` mutations.
pub fn sources(mutations: usize, seed: u64) -> Vec<(String, Vec<u8>)> {
    let root = corpus_dir();
    let mut cases = corpus_cases(&root.join("elf"));
    let mut out: Vec<(String, Vec<u8>)> = cases
        .iter()
        .map(|c| {
            // The path in the repository: `corpus/...`.
            let p = Path::new(&c.name);
            let rel = p
                .strip_prefix(&root)
                .map(|r| Path::new("corpus").join(r).display().to_string())
                .unwrap_or_else(|_| c.name.clone());
            (rel, c.data.clone())
        })
        .collect();
    let builtin = seeds::builtin();
    out.extend(
        builtin
            .iter()
            .map(|c| (format!("seed:{}", c.name), c.data.clone())),
    );
    cases.extend(builtin);
    let generated: Vec<Case> = mutate::generate(&cases, mutations, seed);
    out.extend(
        generated
            .into_iter()
            .enumerate()
            .map(|(i, c)| (format!("mutation:{seed}:{i}"), c.data)),
    );
    out
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Write the suite into `dir`. A directory that exists must be empty or hold a suite
/// (an `index.json`), whose class directories are replaced.
pub fn export(dir: &Path, mutations: usize, seed: u64) -> Result<ExportSummary, String> {
    let err = |e: std::io::Error| format!("{}: {e}", dir.display());
    if dir.exists() {
        let empty = std::fs::read_dir(dir).map_err(err)?.next().is_none();
        if !empty && !dir.join("index.json").is_file() {
            return Err(format!(
                "{}: exists and is not a suite (no index.json); give a new or empty directory",
                dir.display()
            ));
        }
        for c in CLASSES {
            let d = dir.join(c);
            if d.exists() {
                std::fs::remove_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
            }
        }
    }
    for c in CLASSES {
        let d = dir.join(c);
        std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    let inputs = sources(mutations, seed);
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut names: BTreeMap<String, ()> = BTreeMap::new();
    let mut summary = ExportSummary {
        inputs: inputs.len(),
        ..ExportSummary::default()
    };
    let mut index = Vec::new();
    for (source, data) in inputs {
        if !seen.insert(data.clone()) {
            continue;
        }
        let probe = classify("", &source, &data);
        let mut name = sframe_harness::diff::campaign::file_name_of(&format!(
            "{}-{}-{:016x}",
            probe.class,
            probe.version,
            fnv1a(&data)
        ));
        // Distinct bytes with the same 64-bit hash: extremely unlikely, still named apart.
        let base = name.clone();
        let mut k = 1;
        while names.contains_key(&name) {
            name = format!("{base}-{k}");
            k += 1;
        }
        names.insert(name.clone(), ());
        let mut case = probe;
        case.name = name.clone();
        case.file = format!("{name}.sframe");
        let sub = dir.join(&case.class);
        write(&sub.join(&case.file), &data)?;
        let text = serde_json::to_string_pretty(&case).map_err(|e| e.to_string())?;
        write(&sub.join(format!("{name}.json")), text.as_bytes())?;
        *summary
            .counts
            .entry(case.class.clone())
            .or_default()
            .entry(case.version)
            .or_default() += 1;
        index.push(json!({
            "name": name,
            "class": case.class,
            "version": case.version,
            "sframe": format!("{}/{}", case.class, case.file),
            "json": format!("{}/{name}.json", case.class),
            "source": case.source,
        }));
    }
    summary.cases = index.len();
    index.sort_by(|a, b| {
        let k = |v: &Value| {
            (
                CLASSES
                    .iter()
                    .position(|c| v["class"] == *c)
                    .unwrap_or(CLASSES.len()),
                v["name"].as_str().unwrap_or("").to_string(),
            )
        };
        k(a).cmp(&k(b))
    });
    let generator = json!({
        "name": "sframe-conform",
        "version": env!("CARGO_PKG_VERSION"),
        "reference": Reference.version(),
        "mutations": mutations,
        "seed": seed,
        "max_pcs": MAX_PCS,
    });
    let idx = json!({
        "generator": generator,
        "inputs": summary.inputs,
        "counts": summary.counts,
        "cases": index,
    });
    write(
        &dir.join("index.json"),
        serde_json::to_string_pretty(&idx)
            .map_err(|e| e.to_string())?
            .as_bytes(),
    )?;
    write(
        &dir.join("README.md"),
        readme(mutations, seed, &summary).as_bytes(),
    )?;
    Ok(summary)
}

fn render_counts(counts: &BTreeMap<String, BTreeMap<VersionTag, usize>>) -> String {
    let mut s = String::new();
    for c in CLASSES {
        let Some(by_v) = counts.get(c) else {
            s.push_str(&format!("  {c:<10} 0\n"));
            continue;
        };
        let total: usize = by_v.values().sum();
        let parts: Vec<String> = by_v.iter().map(|(v, n)| format!("{v} {n}")).collect();
        s.push_str(&format!("  {c:<10} {total:>5}  ({})\n", parts.join(", ")));
    }
    s
}

fn readme(mutations: usize, seed: u64, s: &ExportSummary) -> String {
    format!(
        r#"# SFrame conformance suite

Test cases for readers of SFrame, the `.sframe` stack-trace format of GNU binutils
(versions 1, 2 and 3), usable from any language: every case is a raw section in a file
beside a JSON file that says what a conforming reader makes of it.

Generated by `sframe-conform suite export` (sframe-conform {version}, reference reader
{reference}) from the bundled corpus of real sections (`corpus/elf`), the
built-in seed sections and {mutations} mutations of them (seed {seed}): {inputs} inputs,
{cases} distinct sections after dropping duplicates.

{counts}
## Layout

```text
README.md          this file
index.json         every case: name, class, version, the two file names, the source
valid/NAME.sframe      a section that breaks no error-severity rule (warnings allowed)
valid/NAME.json        its expectations
malformed/NAME.sframe  a section that cannot be decoded (the bytes are not what the header says)
malformed/NAME.json
invalid/NAME.sframe    a section that decodes but breaks an error-severity rule
invalid/NAME.json
```

`NAME` is `<class>-<version>-<16 hex digits of the 64-bit FNV-1a of the bytes>`;
`<version>` is `v1`, `v2`, `v3`, or `v?` when the preamble names no version the
format defines. A `.sframe` file is the section's bytes, nothing else (no ELF wrapper).

## Case files (`NAME.json`)

| field | in | what |
|---|---|---|
| `name`, `class`, `version` | all | as in the file name; `version_byte` is the `sfp_version` byte when the magic is right |
| `file`, `size` | all | the `.sframe` file beside it and its length in bytes |
| `source` | all | where the bytes come from: a corpus file (path in the sframe-conform repository), `seed:builtin:...`, or `mutation:<seed>:<n>` |
| `expected_decode` | valid, invalid | the decoded section (below) |
| `expected_rows` | valid | `[{{"pc": N, "row": ROW or null}}]`, at most {max_pcs} look-ups |
| `rules_broken` | malformed, invalid | `[{{"rule": ID, "offset": N, "function": i, "fre": k, "message": ...}}]`: the error-severity rules broken, with the byte offset of the field at fault |
| `decode_error` | malformed | the rule the reference decoder stopped at |
| `warnings` | any | warning-severity rules broken (allowed) |

Rule IDs are those of `sframe-conform rules` (the rule catalogue of sframe-conform).

**PCs and function starts are offsets from the start of the section**, whatever the
section's start encoding (`SFRAME_F_FDE_FUNC_START_PCREL` or not): a PC-relative start
field is resolved to a section-relative one.

`expected_decode` is `{{"header": {{...}}, "functions": [...]}}`:

- `header`: `version`, `flags`, `abi`, `cfa_fixed_fp_offset`, `cfa_fixed_ra_offset`,
  `num_fdes`, `num_fres`;
- each function: `start` (section-relative), `size`, `fre_type`, `pc_type` (0 PC-increment,
  1 PC-mask), `fde_type` (0 default, 1 flex, v3), `rep_size`, `num_fres`, and `fres`: its
  rows, each with `start` (`sfre_start_address`) and the recovery rules `cfa`, `ra`, `fp`,
  and `ra_mangled`.

A row found for a PC (`expected_rows[].row`) has `function_start`, `fre_start`, `cfa`,
`ra`, `fp`, `ra_mangled`. A recovery rule is one of:

- `{{"rule":"expr","base":"cfa" | {{"reg":N}},"offset":N,"deref":bool}}`: the value is base +
  offset, or (with `deref`) the word stored at that address;
- `{{"rule":"same_value"}}`: not saved, unchanged in the caller;
- `{{"rule":"undefined"}}`: the outermost frame.

A field that is absent was not determined (e.g. the recovery rules of a row whose data words
break a rule) and is not to be compared.

## Using the suite without Rust

For each case in `index.json`, read the `.sframe` file and:

- **valid**: decode it and compare what your reader reports with `expected_decode`, field
  by field (compare only the fields your reader exposes); then, for each entry of
  `expected_rows`, look up `pc` and compare the row (or the absence of one, `null`) with
  `row`. A conforming reader decodes every valid case and agrees on every field.
- **malformed**: a conforming reader refuses the section (an error, not a crash, not a
  hang, and not a decode of bytes that are not there).
- **invalid**: a validating reader refuses the section, naming (at least one of) the rules
  in `rules_broken`; a lenient reader may accept it (and should then read it as
  `expected_decode` says). Neither is a failure.

With the sframe-conform tools, `sframe-conform suite score DIR --impl NAME` (or
`--external CMD`, a program speaking its JSON-lines protocol) scores an implementation on
this directory.
"#,
        version = env!("CARGO_PKG_VERSION"),
        reference = Reference.version(),
        inputs = s.inputs,
        cases = s.cases,
        counts = {
            let mut t = String::from("| class | cases | per version |\n|---|---|---|\n");
            for c in CLASSES {
                let by_v = s.counts.get(c);
                let total: usize = by_v.map(|m| m.values().sum()).unwrap_or(0);
                let parts: Vec<String> = by_v
                    .map(|m| m.iter().map(|(v, n)| format!("{v} {n}")).collect())
                    .unwrap_or_default();
                t.push_str(&format!("| {c} | {total} | {} |\n", parts.join(", ")));
            }
            t
        },
        max_pcs = MAX_PCS,
    )
}

/// Counts for one (class, version).
#[derive(Debug, Clone, Default, Serialize)]
pub struct Tally {
    pub class: String,
    pub version: VersionTag,
    pub cases: usize,
    /// valid/malformed: passed; invalid: refused.
    pub passed: usize,
    /// valid/malformed: failed; invalid: accepted.
    pub failed: usize,
    pub unsupported: usize,
    /// Crashes and hangs.
    pub crashed: usize,
    /// Invalid cases only: refused (= `passed`) and accepted (= `failed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<usize>,
}

/// A case that did not pass (valid/malformed), with why.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    pub case: String,
    pub class: String,
    pub result: String,
    pub why: String,
}

/// The score of one implementation on a suite.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub implementation: String,
    pub implementation_version: String,
    pub suite: String,
    pub cases: usize,
    /// Per class and version; for `invalid`, `passed` counts refusals and `failed`
    /// acceptances (neither is a failure).
    pub tallies: Vec<Tally>,
    /// Valid and malformed cases that failed, crashed or hung.
    pub failures: Vec<Failure>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Res {
    Passed,
    Unsupported,
    Failed,
    Crashed,
}

impl Res {
    fn name(self) -> &'static str {
        match self {
            Res::Passed => "passed",
            Res::Unsupported => "unsupported",
            Res::Failed => "failed",
            Res::Crashed => "crashed",
        }
    }
}

fn describe<T>(o: &Outcome<T>) -> String {
    match o {
        Outcome::Ok { .. } => "accepted".into(),
        Outcome::Rejected { class, .. } => format!("refused ({class})"),
        Outcome::Unsupported { reason } => format!("unsupported ({reason})"),
        Outcome::Crashed { signal, .. } => format!("crashed ({signal})"),
        Outcome::Hung { timeout_ms } => format!("hung ({timeout_ms} ms)"),
    }
}

fn bad<T>(o: &Outcome<T>) -> Option<Res> {
    match o {
        Outcome::Ok { .. } => None,
        Outcome::Rejected { .. } => Some(Res::Failed),
        Outcome::Unsupported { .. } => Some(Res::Unsupported),
        Outcome::Crashed { .. } | Outcome::Hung { .. } => Some(Res::Crashed),
    }
}

/// Score a valid case: the decode matches and every expected row matches.
fn score_valid(imp: &dyn Implementation, data: &[u8], case: &CaseFile) -> (Res, String) {
    let mut worst = Res::Passed;
    let mut why = String::new();
    let mut note = |r: Res, w: String, worst: &mut Res| {
        if r > *worst {
            *worst = r;
            why = w;
        }
    };
    let d = imp.decode(data);
    match (&d, &case.expected_decode) {
        (Outcome::Ok { value }, Some(exp)) => {
            let diffs = compare::decoded(exp, value);
            if let Some(f) = diffs.first() {
                let at = match (f.function, f.fre) {
                    (Some(i), Some(k)) => format!(" (function {i}, row {k})"),
                    (Some(i), None) => format!(" (function {i})"),
                    _ => String::new(),
                };
                note(
                    Res::Failed,
                    format!(
                        "decode: {}{at}: expected {}, found {} ({} field(s) differ)",
                        f.field,
                        f.expected,
                        f.found,
                        diffs.len()
                    ),
                    &mut worst,
                );
            }
        }
        (Outcome::Ok { .. }, None) => {}
        (o, _) => {
            if let Some(r) = bad(o) {
                note(r, format!("decode {}", describe(o)), &mut worst);
            }
        }
    }
    if worst == Res::Crashed {
        return (worst, why);
    }
    let rows = case.expected_rows.as_deref().unwrap_or(&[]);
    let pcs: Vec<i64> = rows.iter().map(|l| l.pc).collect();
    if !pcs.is_empty() {
        let found = imp.find_fres(data, &pcs);
        for (l, o) in rows.iter().zip(&found) {
            match o {
                Outcome::Ok { value } => {
                    if let Some(f) = compare::found(&l.row, value).first() {
                        note(
                            Res::Failed,
                            format!(
                                "find_fre at pc {}: {}: expected {}, found {}",
                                l.pc, f.field, f.expected, f.found
                            ),
                            &mut worst,
                        );
                    }
                }
                o => {
                    if let Some(r) = bad(o) {
                        note(
                            r,
                            format!("find_fre at pc {} {}", l.pc, describe(o)),
                            &mut worst,
                        );
                    }
                }
            }
        }
        if found.len() < pcs.len() {
            note(
                Res::Failed,
                format!("find_fre: {} answers for {} PCs", found.len(), pcs.len()),
                &mut worst,
            );
        }
    }
    (worst, why)
}

/// Read the suite's index: the case files, in index order.
pub fn read_suite(dir: &Path) -> Result<Vec<(CaseFile, PathBuf)>, String> {
    let ip = dir.join("index.json");
    let text = std::fs::read_to_string(&ip).map_err(|e| {
        format!(
            "{}: cannot read the suite ({e}); export one with `sframe-conform suite export DIR`",
            ip.display()
        )
    })?;
    let idx: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", ip.display()))?;
    let Some(cases) = idx["cases"].as_array() else {
        return Err(format!("{}: no \"cases\" list", ip.display()));
    };
    let mut out = Vec::new();
    for c in cases {
        let (Some(j), Some(s)) = (c["json"].as_str(), c["sframe"].as_str()) else {
            return Err(format!(
                "{}: a case without \"json\" and \"sframe\"",
                ip.display()
            ));
        };
        let jp = dir.join(j);
        let text = std::fs::read_to_string(&jp).map_err(|e| format!("{}: {e}", jp.display()))?;
        let case: CaseFile =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", jp.display()))?;
        out.push((case, dir.join(s)));
    }
    Ok(out)
}

/// Score `imp` on the suite in `dir`.
pub fn score(dir: &Path, imp: &dyn Implementation) -> Result<Report, String> {
    let cases = read_suite(dir)?;
    let mut tallies: BTreeMap<(usize, VersionTag), Tally> = BTreeMap::new();
    let mut failures = Vec::new();
    for (case, path) in &cases {
        let data = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let ci = CLASSES
            .iter()
            .position(|c| *c == case.class)
            .ok_or_else(|| format!("{}: unknown class {:?}", case.name, case.class))?;
        let t = tallies.entry((ci, case.version)).or_insert_with(|| Tally {
            class: case.class.clone(),
            version: case.version,
            ..Tally::default()
        });
        t.cases += 1;
        let supported = section_version(&data).is_none_or(|v| imp.supports(v));
        let (res, why) = if !supported {
            (Res::Unsupported, "format version not supported".to_string())
        } else {
            match case.class.as_str() {
                "valid" => score_valid(imp, &data, case),
                _ => {
                    let o = imp.decode(&data);
                    let r = match (&o, ci) {
                        (Outcome::Rejected { .. }, _) => Res::Passed,
                        (Outcome::Ok { .. }, _) => Res::Failed,
                        (o, _) => bad(o).unwrap_or(Res::Failed),
                    };
                    (r, format!("decode {}", describe(&o)))
                }
            }
        };
        match res {
            Res::Passed => t.passed += 1,
            Res::Failed => t.failed += 1,
            Res::Unsupported => t.unsupported += 1,
            Res::Crashed => t.crashed += 1,
        }
        if case.class != "invalid" && matches!(res, Res::Failed | Res::Crashed) {
            failures.push(Failure {
                case: format!("{}/{}", case.class, case.name),
                class: case.class.clone(),
                result: res.name().to_string(),
                why,
            });
        }
    }
    for t in tallies.values_mut().filter(|t| t.class == "invalid") {
        t.refused = Some(t.passed);
        t.accepted = Some(t.failed);
    }
    Ok(Report {
        implementation: imp.name(),
        implementation_version: imp.version(),
        suite: dir.display().to_string(),
        cases: cases.len(),
        tallies: tallies.into_values().collect(),
        failures,
    })
}

impl Report {
    /// Failed cases of the valid and malformed classes.
    pub fn failed(&self) -> usize {
        self.tallies
            .iter()
            .filter(|t| t.class != "invalid")
            .map(|t| t.failed)
            .sum()
    }

    /// The tables, and the first failures.
    pub fn render_text(&self) -> String {
        let mut s = format!(
            "{} {} on the suite {} ({} cases)\n\n",
            self.implementation, self.implementation_version, self.suite, self.cases
        );
        s.push_str(&format!(
            "{:<10} {:<7} {:>6} {:>7} {:>7} {:>12} {:>8}\n",
            "class", "version", "cases", "passed", "failed", "unsupported", "crashed"
        ));
        let mut totals = Tally::default();
        for t in self.tallies.iter().filter(|t| t.class != "invalid") {
            s.push_str(&format!(
                "{:<10} {:<7} {:>6} {:>7} {:>7} {:>12} {:>8}\n",
                t.class, t.version, t.cases, t.passed, t.failed, t.unsupported, t.crashed
            ));
            totals.cases += t.cases;
            totals.passed += t.passed;
            totals.failed += t.failed;
            totals.unsupported += t.unsupported;
            totals.crashed += t.crashed;
        }
        s.push_str(&format!(
            "{:<10} {:<7} {:>6} {:>7} {:>7} {:>12} {:>8}\n",
            "total",
            "",
            totals.cases,
            totals.passed,
            totals.failed,
            totals.unsupported,
            totals.crashed
        ));
        s.push_str(
            "\ninvalid cases (decode but break a rule: refusing or accepting is not a failure)\n",
        );
        s.push_str(&format!(
            "{:<10} {:<7} {:>6} {:>7} {:>9} {:>12} {:>8}\n",
            "class", "version", "cases", "refused", "accepted", "unsupported", "crashed"
        ));
        for t in self.tallies.iter().filter(|t| t.class == "invalid") {
            s.push_str(&format!(
                "{:<10} {:<7} {:>6} {:>7} {:>9} {:>12} {:>8}\n",
                t.class, t.version, t.cases, t.passed, t.failed, t.unsupported, t.crashed
            ));
        }
        if !self.failures.is_empty() {
            const SHOWN: usize = 20;
            s.push_str(&format!(
                "\n{} valid/malformed case(s) failed or crashed:\n",
                self.failures.len()
            ));
            for f in self.failures.iter().take(SHOWN) {
                s.push_str(&format!("  {} {}: {}\n", f.result, f.case, f.why));
            }
            if self.failures.len() > SHOWN {
                s.push_str(&format!(
                    "  ... and {} more (--json lists them all)\n",
                    self.failures.len() - SHOWN
                ));
            }
        }
        s
    }
}
