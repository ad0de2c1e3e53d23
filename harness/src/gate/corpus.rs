//! The sections a gate runs on: the built-in seeds, the real sections of
//! `sframe-corpus-data`, generated valid sections of every version, ABI and layout tag, their
//! mutations, or files of your own.

use crate::diff::{mutate, seeds, Case};
use crate::input::{corpus_cases, read_cases};
use crate::signature::LayoutTag;
use sframe_gen::rng::SplitMix64;
use sframe_gen::Config;
use sframe_spec::constants::HEADER_SIZE;
use sframe_spec::layout::{header, RawHeader};
use sframe_spec::{Abi, Version};
use std::path::{Path, PathBuf};

/// A set of input sections.
#[derive(Debug, Clone, Default)]
pub struct Corpus {
    pub cases: Vec<Case>,
}

impl Corpus {
    /// What a parser's author needs, without this repository: the built-in seeds, every
    /// real section of [`sframe_corpus_data`] (696 sections that GNU as 2.40/2.44/2.47, LLVM
    /// 23 and each ld wrote for real C/C++ projects and binutils' own tests), generated valid
    /// sections of every version x ABI x layout tag ([`Corpus::generated`]), and 500
    /// mutations of them all. `scale` multiplies the generated sections and the mutations
    /// (1 runs in seconds).
    pub fn standard(scale: usize) -> Corpus {
        let scale = scale.max(1);
        let mut c = Corpus::builtin();
        c.cases.extend(Corpus::real().cases);
        c.cases.extend(Corpus::generated(scale, 1).cases);
        c.with_mutations(500 * scale, 1)
    }

    /// The real sections of [`sframe_corpus_data`], named `real:<file>` / `elf:<file>`.
    pub fn real() -> Corpus {
        Corpus {
            cases: sframe_corpus_data::sections()
                .map(|s| Case {
                    name: s.name.to_string(),
                    data: s.bytes.to_vec(),
                })
                .collect(),
        }
    }

    /// `per_tag` generated sections of every version, ABI and layout tag (seed `seed`):
    /// valid ones with and without PC-relative starts (v2, v3) and an auxiliary header, each
    /// also with bytes before the FDE sub-section (`-fdeoff`), between the sub-sections
    /// (`-freoff`), and both, which other rules forbid but readers meet.
    pub fn generated(per_tag: usize, seed: u64) -> Corpus {
        let mut rng = SplitMix64::new(seed);
        let mut cases = Vec::new();
        for (version, abi) in Config::all_targets() {
            let pcrels: &[bool] = if version == Version::V1 {
                &[false]
            } else {
                &[false, true]
            };
            for &pcrel in pcrels {
                for aux in [false, true] {
                    for n in 0..per_tag {
                        let Some(bytes) = valid_with(version, abi, pcrel, aux, &mut rng) else {
                            continue;
                        };
                        for (fde_gap, fre_gap) in [(0, 0), (8, 0), (0, 4), (8, 4)] {
                            let data = with_gaps(&bytes, fde_gap, fre_gap);
                            let name =
                                format!("generated:{}-{}-{n}", LayoutTag::of(&data), abi.name());
                            cases.push(Case { name, data });
                        }
                    }
                }
            }
        }
        Corpus { cases }
    }

    /// The built-in valid seeds (every version, ABI and start encoding).
    pub fn builtin() -> Corpus {
        Corpus {
            cases: seeds::builtin(),
        }
    }
    /// Every section under `paths` (ELF files or raw sections; directories are walked).
    pub fn from_paths(paths: &[PathBuf]) -> Result<Corpus, String> {
        Ok(Corpus {
            cases: read_cases(paths)?,
        })
    }
    /// The sections of a directory that load (others are skipped).
    pub fn from_dir(dir: &Path) -> Corpus {
        Corpus {
            cases: corpus_cases(dir),
        }
    }
    /// Add `n` deterministic mutations of the current sections (seed `seed`).
    pub fn with_mutations(mut self, n: usize, seed: u64) -> Corpus {
        let extra = mutate::generate(&self.cases, n, seed);
        self.cases.extend(extra);
        self
    }
    /// Add raw bytes under a name.
    pub fn push(&mut self, name: impl Into<String>, data: Vec<u8>) {
        self.cases.push(Case {
            name: name.into(),
            data,
        });
    }
}

/// A valid section of `version` and `abi`, with PC-relative starts or not and an auxiliary
/// header or not, drawn from `rng` (a few functions and rows: the gate runs in seconds).
fn valid_with(
    version: Version,
    abi: Abi,
    pcrel: bool,
    aux: bool,
    rng: &mut SplitMix64,
) -> Option<Vec<u8>> {
    let mut cfg = Config::pinned(version, abi, None).ok()?;
    cfg.pcrel = Some(pcrel);
    cfg.max_aux_header_len = if aux { 16 } else { 0 };
    cfg.max_functions = 6;
    cfg.max_fres = 6;
    // The generator draws the auxiliary header's length with 0 among its edge values.
    for _ in 0..64 {
        let input: Vec<u8> = (0..512).map(|_| rng.next_u64() as u8).collect();
        let mut u = arbitrary::Unstructured::new(&input);
        let g = sframe_gen::generate(&cfg, &mut u).ok()?;
        if LayoutTag::of(&g.bytes).aux == aux {
            return Some(g.bytes);
        }
    }
    None
}

/// `bytes` with `fde_gap` bytes inserted before the FDE sub-section and `fre_gap` before the
/// FRE sub-section, `sfh_fdeoff` and `sfh_freoff` moved to match.
fn with_gaps(bytes: &[u8], fde_gap: usize, fre_gap: usize) -> Vec<u8> {
    let h = RawHeader::of(bytes);
    let (Some(v), Some(fdeoff), Some(freoff)) = (h.version(), h.fdeoff(), h.freoff()) else {
        return bytes.to_vec();
    };
    let base = HEADER_SIZE + usize::from(h.auxhdr_len().unwrap_or(0));
    let fdes_end = base + fdeoff as usize + h.num_fdes().unwrap_or(0) as usize * v.fde_entry_size();
    let frees_at = base + freoff as usize;
    if fdes_end > bytes.len() || frees_at > bytes.len() || frees_at < fdes_end {
        return bytes.to_vec();
    }
    let mut out = Vec::with_capacity(bytes.len() + fde_gap + fre_gap);
    out.extend_from_slice(&bytes[..base]);
    out.resize(out.len() + fde_gap, 0);
    out.extend_from_slice(&bytes[base..frees_at]);
    out.resize(out.len() + fre_gap, 0);
    out.extend_from_slice(&bytes[frees_at..]);
    let e = h.endian();
    e.write_at(
        &mut out,
        header::FDEOFF,
        u64::from(fdeoff) + fde_gap as u64,
        4,
    );
    e.write_at(
        &mut out,
        header::FREOFF,
        u64::from(freoff) + (fde_gap + fre_gap) as u64,
        4,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_sections_cover_every_version_abi_and_layout_tag() {
        let c = Corpus::generated(1, 7);
        let tags: std::collections::BTreeSet<(String, String)> = c
            .cases
            .iter()
            .map(|k| {
                let h = RawHeader::of(&k.data);
                let abi = h
                    .abi_byte()
                    .and_then(Abi::from_u8)
                    .map(|a| a.name().to_string());
                (LayoutTag::of(&k.data).to_string(), abi.unwrap_or_default())
            })
            .collect();
        for (version, abi) in Config::all_targets() {
            let pcrel: &[&str] = if version == Version::V1 {
                &[""]
            } else {
                &["", "-pcrel"]
            };
            for p in pcrel {
                for aux in ["", "-aux"] {
                    for gaps in ["", "-fdeoff", "-freoff", "-fdeoff-freoff"] {
                        let tag = format!("{version}{p}{aux}{gaps}");
                        assert!(
                            tags.contains(&(tag.clone(), abi.name().to_string())),
                            "no {tag} for {}",
                            abi.name()
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn gaps_keep_the_sub_sections_where_the_header_says() {
        let mut rng = SplitMix64::new(3);
        let bytes = valid_with(Version::V3, Abi::S390x, true, true, &mut rng).unwrap();
        let gapped = with_gaps(&bytes, 8, 4);
        assert_eq!(gapped.len(), bytes.len() + 12);
        // The reference reads the same functions from both (it allows the gaps: their rules
        // are warnings or errors of their own, not reading failures).
        let a = sframe_spec::read::SectionRef::parse(&bytes).unwrap();
        let b = sframe_spec::read::SectionRef::parse(&gapped).unwrap();
        assert_eq!(a.num_fdes(), b.num_fdes());
        for i in 0..a.num_fdes() {
            let (fa, fb) = (a.fde(i).unwrap(), b.fde(i).unwrap());
            assert_eq!((fa.size, fa.num_fres), (fb.size, fb.num_fres));
        }
    }
}
