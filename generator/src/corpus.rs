//! Writing generated sections to disk, reproducibly: the same configuration, count and seed
//! give the same files, byte for byte, on every machine.

use crate::config::Config;
use crate::generate::{generate, Generated};
use crate::mutate::{mutate, Mutated};
use crate::rng::SplitMix64;
use arbitrary::Unstructured;
use std::io;
use std::path::{Path, PathBuf};

/// Item `index`: a valid section, and with `malformed` a mutation of it.
fn item(
    cfg: &Config,
    seed: u64,
    index: u64,
    malformed: bool,
) -> io::Result<(Generated, Option<Mutated>)> {
    let invalid = |e: arbitrary::Error| {
        io::Error::new(io::ErrorKind::InvalidInput, format!("configuration: {e}"))
    };
    let data = SplitMix64::input(seed, index, 0);
    let g = generate(cfg, &mut Unstructured::new(&data)).map_err(invalid)?;
    let m = if malformed {
        let data = SplitMix64::input(seed, index, 1);
        Some(mutate(&g, &mut Unstructured::new(&data)).map_err(invalid)?)
    } else {
        None
    };
    Ok((g, m))
}

/// Write `count` sections generated under `cfg` from `seed` into `out_dir` (created if
/// missing) and return the paths of the `.sframe` files.
///
/// Valid sections are named `valid-NNNNN-vV-ABI.sframe`. With `malformed`, each valid section
/// is broken by [`mutate`] and written as `malformed-NNNNN-vV-ABI.sframe` beside
/// `malformed-NNNNN-vV-ABI.json`:
///
/// ```json
/// {"violates": ["FDE-SORTED"], "mutation": "Unsorted", "description": "FDEs 0 and 1 swapped under the sorted flag"}
/// ```
///
/// `violates` lists the catalogue IDs that `sframe_spec::validate` reports for the bytes.
/// Fails with `InvalidInput` when `cfg` allows no target.
pub fn write_corpus(
    cfg: &Config,
    count: usize,
    seed: u64,
    out_dir: &Path,
    malformed: bool,
) -> io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(out_dir)?;
    let mut paths = Vec::with_capacity(count);
    for i in 0..count {
        let (g, m) = item(cfg, seed, i as u64, malformed)?;
        let tag = format!(
            "{i:05}-v{}-{}",
            g.section.version.number(),
            g.section.abi.name()
        );
        let path = match m {
            None => {
                let path = out_dir.join(format!("valid-{tag}.sframe"));
                std::fs::write(&path, &g.bytes)?;
                path
            }
            Some(m) => {
                let path = out_dir.join(format!("malformed-{tag}.sframe"));
                std::fs::write(&path, &m.bytes)?;
                let json = serde_json::json!({
                    "violates": m.violates.iter().map(|r| r.id()).collect::<Vec<_>>(),
                    "mutation": m.kind.name(),
                    "description": m.description,
                });
                let text = serde_json::to_string_pretty(&json).map_err(io::Error::other)?;
                std::fs::write(path.with_extension("json"), text + "\n")?;
                path
            }
        };
        paths.push(path);
    }
    Ok(paths)
}
