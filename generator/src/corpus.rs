//! Writing generated sections to disk, reproducibly: the same configuration, count and seed
//! give the same files, byte for byte, on every machine.

use crate::config::Config;
use crate::generate::{generate, Generated};
use crate::mutate::{mutate, Mutated};
use arbitrary::Unstructured;
use std::io;
use std::path::{Path, PathBuf};

/// SplitMix64: a tiny deterministic generator of fuzz input bytes.
#[derive(Debug, Clone)]
pub struct SplitMix(u64);

impl SplitMix {
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// `n` pseudo-random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(n + 8);
        while out.len() < n {
            out.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        out.truncate(n);
        out
    }

    /// Input bytes for item `index` of a run seeded with `seed`, stream `stream` (0 for
    /// generation, 1 for mutation): each item and stream has its own sequence, so item `i`
    /// does not depend on how many items come before it, and generation (which may use up
    /// its input) leaves the mutation choices intact.
    pub fn input(seed: u64, index: u64, stream: u64) -> Vec<u8> {
        let mut rng = SplitMix::new(
            seed ^ index.wrapping_mul(0xd1b5_4a32_d192_ed03)
                ^ stream.wrapping_mul(0x8cb9_2ba7_2f3d_8dd7),
        );
        rng.next_u64();
        let len = 256 + (rng.next_u64() % 8192) as usize;
        rng.bytes(len)
    }
}

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
    let data = SplitMix::input(seed, index, 0);
    let g = generate(cfg, &mut Unstructured::new(&data)).map_err(invalid)?;
    let m = if malformed {
        let data = SplitMix::input(seed, index, 1);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_is_the_reference_sequence() {
        // First outputs of SplitMix64 seeded with 0 (Vigna's reference implementation).
        let mut r = SplitMix::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn item_inputs_are_independent_of_the_count() {
        assert_eq!(SplitMix::input(7, 3, 0), SplitMix::input(7, 3, 0));
        assert_ne!(SplitMix::input(7, 3, 0), SplitMix::input(7, 4, 0));
        assert_ne!(SplitMix::input(7, 3, 0), SplitMix::input(8, 3, 0));
        assert_ne!(SplitMix::input(7, 3, 0), SplitMix::input(7, 3, 1));
    }
}
