//! Writing a suite: its sources (the bundled corpus, the built-in seeds, mutations of
//! them), one case per distinct section in its class's directory, `index.json` and the
//! `README.md` that documents the format for readers in any language.

use super::classify::classify;
use super::format::{case_name, Class, MAX_PCS};
use crate::impls::reference::Reference;
use crate::impls::Implementation;
use crate::input::{corpus_dir, Bundled};
use crate::signature::VersionTag;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// What to write a suite from, and who writes it.
#[derive(Debug, Clone)]
pub struct ExportSettings<'a> {
    /// Mutated sections beside the corpus and the seeds.
    pub mutations: usize,
    /// Seed of the mutations.
    pub seed: u64,
    /// The version of `sframe-conform` writing the suite, as `index.json` and `README.md`
    /// name it.
    pub version: &'a str,
}

/// What an export wrote.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ExportSummary {
    pub inputs: usize,
    pub cases: usize,
    /// class -> version -> count.
    pub counts: BTreeMap<Class, BTreeMap<VersionTag, usize>>,
}

/// The sources of the suite: the corpus, the built-in seeds, `mutations` mutations.
pub fn sources(mutations: usize, seed: u64) -> Vec<(String, Vec<u8>)> {
    let root = corpus_dir();
    let bundled = Bundled::load(mutations, seed);
    let corpus = bundled.corpus().iter().map(|c| {
        // The path in the repository: `corpus/...`.
        let rel = Path::new(&c.name)
            .strip_prefix(&root)
            .map(|r| Path::new("corpus").join(r).display().to_string())
            .unwrap_or_else(|_| c.name.clone());
        (rel, c.data.clone())
    });
    let seeds = bundled
        .seeds()
        .iter()
        .map(|c| (format!("seed:{}", c.name), c.data.clone()));
    let mutated = bundled
        .mutations
        .iter()
        .enumerate()
        .map(|(i, c)| (format!("mutation:{seed}:{i}"), c.data.clone()));
    corpus.chain(seeds).chain(mutated).collect()
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Write the suite into `dir`. A directory that exists must be empty or hold a suite
/// (an `index.json`), whose class directories are replaced.
pub fn export(dir: &Path, settings: &ExportSettings) -> Result<ExportSummary, String> {
    let err = |e: std::io::Error| format!("{}: {e}", dir.display());
    if dir.exists() {
        let empty = std::fs::read_dir(dir).map_err(err)?.next().is_none();
        if !empty && !dir.join("index.json").is_file() {
            return Err(format!(
                "{}: exists and is not a suite (no index.json); give a new or empty directory",
                dir.display()
            ));
        }
        for c in Class::ALL {
            let d = dir.join(c.name());
            if d.exists() {
                std::fs::remove_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
            }
        }
    }
    for c in Class::ALL {
        let d = dir.join(c.name());
        std::fs::create_dir_all(&d).map_err(|e| format!("{}: {e}", d.display()))?;
    }
    let (mutations, seed) = (settings.mutations, settings.seed);
    let inputs = sources(mutations, seed);
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut names: HashSet<String> = HashSet::new();
    let mut summary = ExportSummary {
        inputs: inputs.len(),
        ..ExportSummary::default()
    };
    let mut index = Vec::new();
    for (source, data) in inputs {
        if !seen.insert(data.clone()) {
            continue;
        }
        let mut case = classify("", &source, &data);
        let base = case_name(case.class, case.version, &data);
        // Distinct bytes with the same 64-bit hash: extremely unlikely, still named apart.
        let mut name = base.clone();
        let mut k = 1;
        while names.contains(&name) {
            name = format!("{base}-{k}");
            k += 1;
        }
        names.insert(name.clone());
        case.name = name.clone();
        case.file = format!("{name}.sframe");
        let sub = dir.join(case.class.name());
        write(&sub.join(&case.file), &data)?;
        let text = serde_json::to_string_pretty(&case).map_err(|e| e.to_string())?;
        write(&sub.join(format!("{name}.json")), text.as_bytes())?;
        *summary
            .counts
            .entry(case.class)
            .or_default()
            .entry(case.version)
            .or_default() += 1;
        index.push((
            case.class,
            json!({
                "name": name,
                "class": case.class,
                "version": case.version,
                "sframe": format!("{}/{}", case.class, case.file),
                "json": format!("{}/{name}.json", case.class),
                "source": case.source,
            }),
        ));
    }
    summary.cases = index.len();
    index.sort_by(|(ca, a), (cb, b)| {
        let name = |v: &Value| v["name"].as_str().unwrap_or("").to_string();
        (ca.rank(), name(a)).cmp(&(cb.rank(), name(b)))
    });
    let index: Vec<Value> = index.into_iter().map(|(_, v)| v).collect();
    let generator = json!({
        "name": "sframe-conform",
        "version": settings.version,
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
        readme(settings, &summary).as_bytes(),
    )?;
    Ok(summary)
}

impl ExportSummary {
    /// Cases per class, with their versions: a line a class.
    pub fn render_counts(&self) -> String {
        let mut s = String::new();
        for c in Class::ALL {
            let Some(by_v) = self.counts.get(&c) else {
                s.push_str(&format!("  {c:<10} 0\n"));
                continue;
            };
            let total: usize = by_v.values().sum();
            let parts: Vec<String> = by_v.iter().map(|(v, n)| format!("{v} {n}")).collect();
            s.push_str(&format!("  {c:<10} {total:>5}  ({})\n", parts.join(", ")));
        }
        s
    }
}

fn readme(settings: &ExportSettings, s: &ExportSummary) -> String {
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
        version = settings.version,
        mutations = settings.mutations,
        seed = settings.seed,
        reference = Reference.version(),
        inputs = s.inputs,
        cases = s.cases,
        counts = {
            let mut t = String::from("| class | cases | per version |\n|---|---|---|\n");
            for c in Class::ALL {
                let by_v = s.counts.get(&c);
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
