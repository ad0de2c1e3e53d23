//! `sframe-conform check`: validate sections against the rule catalogue, and report per
//! file and per producer, format version and ABI.

use serde::Serialize;
use serde_json::{json, Value};
use sframe_harness::hexdump::excerpt;
use sframe_harness::input::{expand_paths, read_input, InputSection};
use sframe_spec::layout::RawHeader;
use sframe_spec::{rules::Severity, validate, Violation};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The outcome for one file.
pub struct CheckResult {
    pub violations: Vec<Violation>,
}

impl CheckResult {
    pub fn errors(&self) -> usize {
        self.violations
            .iter()
            .filter(|v| v.rule.info().severity == Severity::Error)
            .count()
    }
    pub fn warnings(&self) -> usize {
        self.violations.len() - self.errors()
    }
    /// Whether the file fails: any error, or with `strict` any warning.
    pub fn fails(&self, strict: bool) -> bool {
        self.errors() > 0 || (strict && !self.violations.is_empty())
    }
}

pub fn check(input: &InputSection) -> CheckResult {
    CheckResult {
        violations: validate(&input.loaded.bytes),
    }
}

fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// Human-readable report.
pub fn render_text(input: &InputSection, r: &CheckResult) -> String {
    let b = &input.loaded.bytes;
    let mut out = String::new();
    let summary = match sframe_spec::SectionRef::parse(b) {
        Ok(s) => format!(
            "SFrame {} {} {}-endian, {} functions",
            s.version(),
            s.abi(),
            s.endian().name(),
            s.num_fdes()
        ),
        Err(_) => "unreadable SFrame header".to_string(),
    };
    out.push_str(&format!(
        "{}: {} ({}), {} bytes: {} errors, {} warnings\n",
        input.path.display(),
        summary,
        input.origin(),
        b.len(),
        r.errors(),
        r.warnings()
    ));
    for v in &r.violations {
        out.push_str(&format!(
            "  {:7} {v}\n",
            severity_name(v.rule.info().severity)
        ));
        for line in excerpt(b, v.offset) {
            out.push_str(&format!("          {line}\n"));
        }
    }
    out
}

/// Machine-readable report.
pub fn render_json(input: &InputSection, r: &CheckResult) -> Value {
    json!({
        "file": input.path.display().to_string(),
        "section_vaddr": input.loaded.vaddr,
        "valid": r.errors() == 0,
        "errors": r.errors(),
        "warnings": r.warnings(),
        "violations": r.violations.iter().map(|v| json!({
            "rule": v.rule.id(),
            "severity": severity_name(v.rule.info().severity),
            "offset": v.offset,
            "function": v.function,
            "fre": v.fre,
            "found": v.found,
            "expected": v.expected,
            "message": v.to_string(),
        })).collect::<Vec<_>>(),
    })
}

/// Where a checked file belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// A section of the corpus (or any file named or found by walking): it counts.
    Corpus,
    /// A reproducer of a findings ledger (a file in a directory holding `finding.json`),
    /// reached by walking a directory: expected to break rules, it does not count.
    Reproducer,
}

/// One checked file, for the report.
pub struct Checked {
    pub input: InputSection,
    pub result: CheckResult,
    pub group: Group,
    /// The producer, from a `manifest.json` above the file that lists it (`gnu-as 2.44`, or
    /// the linker, `gnu-ld 2.44`, for linked files), else `-`.
    pub producer: String,
}

impl Checked {
    /// `v2` or `?`.
    pub fn version(&self) -> String {
        RawHeader::of(&self.input.loaded.bytes)
            .version()
            .map_or("?".to_string(), |v| format!("v{}", v.number()))
    }
    /// The ABI's name (`amd64`, `aarch64-be`...), or `?`.
    pub fn abi(&self) -> String {
        RawHeader::of(&self.input.loaded.bytes)
            .abi_byte()
            .and_then(sframe_spec::Abi::from_u8)
            .map_or("?".to_string(), |a| a.name().to_string())
    }
}

/// Arguments of `sframe-conform check`.
#[derive(Debug, Clone, Default)]
pub struct Args {
    pub files: Vec<std::path::PathBuf>,
    pub json: bool,
    pub strict: bool,
    pub verbose: bool,
}

/// The manifests met so far: directory → its entries, by path relative to it.
#[derive(Default)]
struct Manifests {
    by_dir: BTreeMap<PathBuf, Option<BTreeMap<PathBuf, String>>>,
}

impl Manifests {
    fn load(dir: &Path) -> Option<BTreeMap<PathBuf, String>> {
        let text = std::fs::read_to_string(dir.join("manifest.json")).ok()?;
        let entries: Vec<Value> = serde_json::from_str(&text).ok()?;
        // `GNU ld (GNU Binutils for Debian) 2.47.50.20261021` -> `2.47`.
        let release_of = |v: &str| {
            let full = v.split_whitespace().last().unwrap_or("?");
            full.split('.').take(2).collect::<Vec<_>>().join(".")
        };
        Some(
            entries
                .iter()
                .filter_map(|e| {
                    let file = e["file"].as_str()?;
                    let producer = match e["linker_version"].as_str() {
                        // Linked files: the linker wrote the section.
                        Some(ld) => format!("gnu-ld {}", release_of(ld)),
                        None => format!(
                            "{} {}",
                            e["producer"].as_str()?,
                            e["release"].as_str().unwrap_or("?")
                        ),
                    };
                    Some((PathBuf::from(file), producer))
                })
                .collect(),
        )
    }

    /// The producer the nearest manifest above `file` gives it.
    fn producer(&mut self, file: &Path) -> Option<String> {
        let file = std::fs::canonicalize(file).ok()?;
        let mut dir = file.parent();
        while let Some(d) = dir {
            let m = self
                .by_dir
                .entry(d.to_path_buf())
                .or_insert_with(|| Manifests::load(d));
            if let Some(m) = m {
                if let Ok(rel) = file.strip_prefix(d) {
                    if let Some(p) = m.get(rel) {
                        return Some(p.clone());
                    }
                }
            }
            dir = d.parent();
        }
        None
    }
}

/// Whether `dir` is a findings ledger (a subdirectory holds a `finding.json`, as in
/// `corpus/findings/`) or one of its entries (it holds one itself).
fn is_ledger(dir: &Path, cache: &mut BTreeMap<PathBuf, bool>) -> bool {
    *cache.entry(dir.to_path_buf()).or_insert_with(|| {
        dir.join("finding.json").is_file()
            || std::fs::read_dir(dir).is_ok_and(|rd| {
                rd.filter_map(Result::ok)
                    .any(|e| e.path().join("finding.json").is_file())
            })
    })
}

/// Whether `file`, reached by walking `root`, lies in a findings ledger: a directory between
/// `root` (included) and the file is one (see [`is_ledger`]). Its entries' reproducers and its
/// other inputs (untriaged ones) are made to break rules.
fn in_ledger(root: &Path, file: &Path, cache: &mut BTreeMap<PathBuf, bool>) -> bool {
    let mut dir = file.parent();
    while let Some(d) = dir {
        if is_ledger(d, cache) {
            return true;
        }
        if d == root {
            break;
        }
        dir = d.parent();
    }
    false
}

/// Read and check every file of `args.files` (directories walked).
pub fn check_all(args: &Args) -> Result<Vec<Checked>, String> {
    let mut manifests = Manifests::default();
    let mut ledgers = BTreeMap::new();
    let mut out = Vec::new();
    for root in &args.files {
        let walked = root.is_dir();
        for f in expand_paths(std::slice::from_ref(root)).map_err(|e| e.to_string())? {
            let group = if walked && in_ledger(root, &f, &mut ledgers) {
                Group::Reproducer
            } else {
                Group::Corpus
            };
            let input = match (read_input(&f), group) {
                (Ok(i), _) => i,
                (Err(e), Group::Corpus) => return Err(e.to_string()),
                // A reproducer need not even load (that may be the finding).
                (Err(_), Group::Reproducer) => continue,
            };
            let result = check(&input);
            let producer = manifests.producer(&f).unwrap_or_else(|| "-".to_string());
            out.push(Checked {
                input,
                result,
                group,
                producer,
            });
        }
    }
    Ok(out)
}

/// One row of the summary: the files of one producer, format version and ABI.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SummaryRow {
    pub producer: String,
    pub version: String,
    pub abi: String,
    pub files: usize,
    pub clean: usize,
    pub with_errors: usize,
    pub with_warnings: usize,
    /// The rules broken most often (in how many files), most frequent first.
    pub top_rules: Vec<(String, usize)>,
}

/// How many files broke each rule.
type RuleCounts = BTreeMap<String, usize>;

/// The summary of checked files, per (producer, version, ABI), and the total.
pub fn summarize<'a>(checked: impl Iterator<Item = &'a Checked>) -> (Vec<SummaryRow>, SummaryRow) {
    let mut rows: BTreeMap<(String, String, String), (SummaryRow, RuleCounts)> = BTreeMap::new();
    let mut total = (
        SummaryRow {
            producer: "all".into(),
            version: "*".into(),
            abi: "*".into(),
            ..SummaryRow::default()
        },
        BTreeMap::new(),
    );
    for c in checked {
        let key = (c.producer.clone(), c.version(), c.abi());
        let row = rows.entry(key.clone()).or_insert_with(|| {
            (
                SummaryRow {
                    producer: key.0,
                    version: key.1,
                    abi: key.2,
                    ..SummaryRow::default()
                },
                BTreeMap::new(),
            )
        });
        for (r, rules) in [row, &mut total] {
            r.files += 1;
            let (e, w) = (c.result.errors(), c.result.warnings());
            r.clean += usize::from(e == 0 && w == 0);
            r.with_errors += usize::from(e > 0);
            r.with_warnings += usize::from(w > 0);
            let ids: BTreeSet<&str> = c.result.violations.iter().map(|v| v.rule.id()).collect();
            for id in ids {
                *rules.entry(id.to_string()).or_default() += 1;
            }
        }
    }
    let finish = |(mut row, rules): (SummaryRow, BTreeMap<String, usize>)| {
        let mut top: Vec<(String, usize)> = rules.into_iter().collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        top.truncate(3);
        row.top_rules = top;
        row
    };
    (rows.into_values().map(finish).collect(), finish(total))
}

/// One line for a file with problems: `path: N errors, M warnings: RULE (xK), ...`.
pub fn render_line(c: &Checked) -> String {
    let mut by_rule: Vec<(&str, usize)> = Vec::new();
    for v in &c.result.violations {
        match by_rule.iter_mut().find(|(id, _)| *id == v.rule.id()) {
            Some((_, n)) => *n += 1,
            None => by_rule.push((v.rule.id(), 1)),
        }
    }
    let rules: Vec<String> = by_rule
        .iter()
        .map(|(id, n)| {
            if *n > 1 {
                format!("{id} (x{n})")
            } else {
                id.to_string()
            }
        })
        .collect();
    format!(
        "{}: {} errors, {} warnings: {}",
        c.input.path.display(),
        c.result.errors(),
        c.result.warnings(),
        rules.join(", ")
    )
}

fn render_table(rows: &[SummaryRow], total: &SummaryRow) -> String {
    let mut out = format!(
        "{:<16} {:<4} {:<10} {:>6} {:>6} {:>7} {:>9}  most frequent rules (files)\n",
        "producer", "ver", "abi", "files", "clean", "errors", "warnings"
    );
    for r in rows.iter().chain(std::iter::once(total)) {
        let top: Vec<String> = r
            .top_rules
            .iter()
            .map(|(id, n)| format!("{id} ({n})"))
            .collect();
        out.push_str(&format!(
            "{:<16} {:<4} {:<10} {:>6} {:>6} {:>7} {:>9}  {}\n",
            r.producer,
            r.version,
            r.abi,
            r.files,
            r.clean,
            r.with_errors,
            r.with_warnings,
            top.join(", ")
        ));
    }
    out
}

/// `sframe-conform check`: per file a line when it has problems (everything with
/// `--verbose` or for a single file), then a summary per producer, version and ABI; the
/// reproducers of a findings ledger met while walking a directory apart, as expected to
/// break rules. Exit status 1 when a file that counts fails (errors, or warnings with
/// `--strict`).
pub fn run(args: &Args) -> Result<std::process::ExitCode, String> {
    let checked = check_all(args)?;
    let single = checked.len() == 1 && args.files.len() == 1 && !args.files[0].is_dir();
    let corpus: Vec<&Checked> = checked
        .iter()
        .filter(|c| c.group == Group::Corpus)
        .collect();
    let repro: Vec<&Checked> = checked
        .iter()
        .filter(|c| c.group == Group::Reproducer)
        .collect();
    let failed = corpus.iter().any(|c| c.result.fails(args.strict));
    let (rows, total) = summarize(corpus.iter().copied());
    let (_, repro_total) = summarize(repro.iter().copied());
    if args.json {
        let file_json = |c: &&Checked| {
            let mut v = render_json(&c.input, &c.result);
            v["producer"] = json!(c.producer);
            v
        };
        let v = json!({
            "files": corpus.iter().map(file_json).collect::<Vec<_>>(),
            "summary": rows,
            "total": total,
            "failed": failed,
            "reproducers": {
                "note": "reproducers of the findings ledger: expected to break rules, not counted in the exit status",
                "files": repro.iter().map(file_json).collect::<Vec<_>>(),
                "total": repro_total,
            },
        });
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else {
        let detail = args.verbose || single;
        for c in &corpus {
            if detail {
                print!("{}", render_text(&c.input, &c.result));
            } else if !c.result.violations.is_empty() {
                println!("{}", render_line(c));
            }
        }
        if !single {
            println!();
            print!("{}", render_table(&rows, &total));
        }
        if !repro.is_empty() {
            println!(
                "\nfindings ledger reproducers (expected to break rules, not counted in the exit status): {} files, {} with errors, {} with warnings",
                repro_total.files, repro_total.with_errors, repro_total.with_warnings
            );
            if args.verbose {
                for c in &repro {
                    println!("  {}", render_line(c));
                }
            }
        }
    }
    Ok(if failed {
        std::process::ExitCode::from(1)
    } else {
        std::process::ExitCode::SUCCESS
    })
}
