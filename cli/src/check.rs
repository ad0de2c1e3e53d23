//! `sframe-conform check`: validate sections against the rule catalogue, and report per
//! file and per producer, format version and ABI.

use serde::Serialize;
use serde_json::{json, Value};
use sframe_harness::hexdump::excerpt;
use sframe_harness::input::InputSection;
use sframe_harness::walk::{Outcome, Summary};
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
        "violations": r.violations,
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
    /// The producer, from a `manifest.json` above the file that lists it (`gnu-as-2.44`, or
    /// `gnu-as-2.44+ld-2.44` for linked files), else `-`.
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

/// The summary of checked files, per (producer, version, ABI), and the total, counted one
/// file at a time.
#[derive(Default)]
pub struct Tally {
    rows: BTreeMap<(String, String, String), (SummaryRow, RuleCounts)>,
    total: (SummaryRow, RuleCounts),
}

impl Tally {
    /// Count one checked file.
    pub fn add(&mut self, c: &Checked) {
        let key = (c.producer.clone(), c.version(), c.abi());
        let row = self.rows.entry(key.clone()).or_insert_with(|| {
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
        for (r, rules) in [row, &mut self.total] {
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

    /// The rows, and the total.
    pub fn finish(self) -> (Vec<SummaryRow>, SummaryRow) {
        let finish = |(mut row, rules): (SummaryRow, RuleCounts)| {
            let mut top: Vec<(String, usize)> = rules.into_iter().collect();
            top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            top.truncate(3);
            row.top_rules = top;
            row
        };
        let mut total = self.total;
        total.0.producer = "all".into();
        total.0.version = "*".into();
        total.0.abi = "*".into();
        (self.rows.into_values().map(finish).collect(), finish(total))
    }
}

/// The summary of checked files, per (producer, version, ABI), and the total.
pub fn summarize<'a>(checked: impl Iterator<Item = &'a Checked>) -> (Vec<SummaryRow>, SummaryRow) {
    let mut t = Tally::default();
    checked.for_each(|c| t.add(c));
    t.finish()
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
/// `--verbose` or for a single file; with `--verbose` also a line per file without SFrame),
/// then a summary per producer, version and ABI, and the walk's summary; the reproducers of
/// a findings ledger met while walking a directory apart, as expected to break rules. Each
/// file is reported as it is read, and only its counts are kept. Exit status (see
/// [`crate::walking`]): 1 when a file that counts fails (errors, or warnings with
/// `--strict`) or cannot be read.
pub fn run(args: &Args) -> Result<std::process::ExitCode, String> {
    let single = crate::walking::single(&args.files);
    let detail = args.verbose || single;
    let mut manifests = sframe_provision::Manifests::default();
    let mut ledgers = BTreeMap::new();
    let (mut walked, mut repro_walked) = (Summary::default(), Summary::default());
    let (mut tally, mut repro_tally) = (Tally::default(), Tally::default());
    // Reproducers are few (a ledger's): their lines are kept for the end.
    let mut repro_out: Vec<Value> = Vec::new();
    let mut repro_lines: Vec<String> = Vec::new();
    let mut failed = false;
    let mut stream = args.json.then(|| crate::out::JsonStream::begin("files"));
    for e in crate::walking::walk(&args.files, false) {
        let group = if !e.named && in_ledger(&e.root, &e.path, &mut ledgers) {
            Group::Reproducer
        } else {
            Group::Corpus
        };
        match group {
            Group::Corpus => walked.add(&e),
            Group::Reproducer => repro_walked.add(&e),
        }
        let loaded = match e.outcome {
            Outcome::Section { loaded, .. } => loaded,
            Outcome::NoSframe(why) if args.verbose && !args.json && group == Group::Corpus => {
                crate::outln!("{}: {why}", e.path.display());
                continue;
            }
            _ => continue,
        };
        let input = InputSection {
            path: e.path,
            loaded,
        };
        let result = check(&input);
        let producer = manifests
            .producer(&input.path)
            .map_or_else(|| "-".to_string(), |p| p.to_string());
        let c = Checked {
            input,
            result,
            group,
            producer,
        };
        let file_json = |c: &Checked| {
            let mut v = render_json(&c.input, &c.result);
            v["producer"] = json!(c.producer);
            v
        };
        match (group, &mut stream) {
            (Group::Reproducer, _) => {
                repro_tally.add(&c);
                if args.json {
                    repro_out.push(file_json(&c));
                } else if args.verbose {
                    repro_lines.push(render_line(&c));
                }
            }
            (Group::Corpus, Some(stream)) => {
                failed |= c.result.fails(args.strict);
                tally.add(&c);
                stream.item(&file_json(&c));
            }
            (Group::Corpus, None) => {
                failed |= c.result.fails(args.strict);
                tally.add(&c);
                if detail {
                    crate::out!("{}", render_text(&c.input, &c.result));
                } else if !c.result.violations.is_empty() {
                    crate::outln!("{}", render_line(&c));
                }
            }
        }
    }
    let (rows, total) = tally.finish();
    let (_, repro_total) = repro_tally.finish();
    if let Some(stream) = stream {
        stream.end(&[
            ("summary", json!(rows)),
            ("total", json!(total)),
            ("failed", json!(failed)),
            (
                "reproducers",
                json!({
                    "note": "reproducers of the findings ledger: expected to break rules, not counted in the exit status",
                    "files": repro_out,
                    "total": repro_total,
                    "walk": repro_walked,
                }),
            ),
            ("walk", json!(walked)),
        ]);
        return Ok(crate::walking::finish(&args.files, &walked, failed));
    }
    if !single {
        crate::outln!();
        crate::out!("{}", render_table(&rows, &total));
    }
    if repro_total.files > 0 {
        crate::outln!(
            "\nfindings ledger reproducers (expected to break rules, not counted in the exit status): {} files, {} with errors, {} with warnings",
            repro_total.files, repro_total.with_errors, repro_total.with_warnings
        );
        for l in &repro_lines {
            crate::outln!("  {l}");
        }
    }
    Ok(crate::walking::finish_text(&args.files, &walked, failed))
}
