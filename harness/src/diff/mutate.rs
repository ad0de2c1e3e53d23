//! Deterministic inputs for `sframe-conform diff --generate`.
//!
//! Three sources, in turn, all driven by one seeded PRNG (SplitMix64):
//! 1. `sframe_gen::generate` under a swarm `Config` (drawn with `Arbitrary`): valid sections
//!    of every version, ABI and feature, where any disagreement is a value disagreement;
//! 2. `sframe_gen::mutate` of such a section: malformed or invalid ones, tagged with the rules
//!    they break;
//! 3. havoc on the given seeds (corpus sections, built-in seeds), below.
//!
//! Havoc mutations are aware of the layout: header fields, FDE fields
//! (v1/v2 FDE or v3 index entry), the FRE sub-section, and model-level changes made through
//! the reference's own decoder and encoder (swapping functions, reordering rows, changing
//! types), so that many outputs still decode and exercise the semantic rules.

use super::Case;
use sframe_gen::rng::SplitMix64;
use sframe_spec::constants::{flags, MAGIC};
use sframe_spec::layout::{
    FdeLayout, Field, RawHeader, HEADER_BYTE_FIELDS, HEADER_WORD_FIELDS, WORD_SIZE,
};
use sframe_spec::{decode, encode, DataWordSize, FdeType, FreType, PcType, Version};

const INTERESTING_U32: [u32; 10] = [
    0,
    1,
    2,
    0x7f,
    0x80,
    0xff,
    0x100,
    0xffff,
    0x7fff_ffff,
    0xffff_ffff,
];

/// One byte-level mutation.
fn mutate_bytes(data: &mut Vec<u8>, rng: &mut SplitMix64) {
    if data.is_empty() {
        // The first byte of the magic of a little-endian section.
        data.push(MAGIC.to_le_bytes()[0]);
        return;
    }
    let h = RawHeader::of(data);
    let endian = h.endian();
    // An unknown version byte is havocked as v2; v1 FDEs have v2's fields mutated (the byte
    // after a v1 FDE's info byte is the next FDE's first).
    let version = h.version().unwrap_or(Version::V2);
    let fde_size = FdeLayout::of(version).size_of;
    let fde = FdeLayout::of(if version == Version::V3 {
        Version::V3
    } else {
        Version::V2
    });
    let num_fdes = h.num_fdes().unwrap_or(0) as usize;
    let fde_base = h.header_size();
    match rng.index(10) {
        0 => {
            let i = rng.index(data.len());
            data[i] ^= 1 << rng.index(8);
        }
        1 => {
            let i = rng.index(data.len());
            data[i] = [0u8, 1, 0x7f, 0x80, 0xff, 0x10, 0x20][rng.index(7)];
        }
        2 => {
            // A header byte field: flags, ABI, fixed offsets, aux length.
            let off = HEADER_BYTE_FIELDS[rng.index(HEADER_BYTE_FIELDS.len())];
            if let Some(b) = data.get_mut(off) {
                *b = match rng.index(4) {
                    0 => b.wrapping_add(1),
                    1 => b.wrapping_sub(1),
                    2 => 1 << rng.index(8),
                    _ => rng.next_u64() as u8,
                };
            }
        }
        3 => {
            // A header word: num_fdes, num_fres, fre_len, fdeoff, freoff.
            let off = HEADER_WORD_FIELDS[rng.index(HEADER_WORD_FIELDS.len())];
            let cur = h.word(off).unwrap_or(0);
            let v = match rng.index(3) {
                0 => cur.wrapping_add(1 + rng.index(4) as u32),
                1 => cur.wrapping_sub(1 + rng.index(4) as u32),
                _ => INTERESTING_U32[rng.index(INTERESTING_U32.len())],
            };
            endian.write_at(data, off, u64::from(v), WORD_SIZE);
        }
        4 | 5 if num_fdes > 0 => {
            // A field of one FDE (or v3 index entry).
            let i = rng.index(num_fdes.min(4096));
            let base = fde_base + i * fde_size;
            let fields: Vec<Field> = [fde.start, fde.size, fde.fre_off]
                .into_iter()
                .chain(fde.num_fres)
                .chain(fde.info)
                .chain(fde.rep_size)
                .collect();
            let field = fields[rng.index(fields.len())];
            let off = base + field.offset;
            if field.width == 1 {
                if let Some(b) = data.get_mut(off) {
                    *b ^= 1 << rng.index(8);
                }
            } else {
                // Havocked as one word (v3's eight-byte start: its first four bytes).
                let cur = RawHeader::of(data).word(off).unwrap_or(0);
                let v = match rng.index(3) {
                    0 => cur.wrapping_add(rng.index(64) as u32),
                    1 => cur.wrapping_sub(rng.index(64) as u32),
                    _ => INTERESTING_U32[rng.index(INTERESTING_U32.len())],
                };
                endian.write_at(data, off, u64::from(v), WORD_SIZE);
            }
        }
        6 => {
            // Somewhere in the FRE sub-section (v3: also the FDE attributes).
            let start = (fde_base + num_fdes * fde_size).min(data.len());
            if start < data.len() {
                let i = start + rng.index(data.len() - start);
                data[i] = match rng.index(3) {
                    0 => data[i] ^ (1 << rng.index(8)),
                    1 => data[i].wrapping_add(1),
                    _ => rng.next_u64() as u8,
                };
            }
        }
        7 => {
            let n = rng.index(data.len());
            data.truncate(n);
        }
        8 => {
            for _ in 0..1 + rng.index(8) {
                data.push(if rng.chance(50, 100) {
                    0
                } else {
                    rng.next_u64() as u8
                });
            }
        }
        _ => {
            let i = rng.index(data.len());
            data[i] = rng.next_u64() as u8;
        }
    }
}

/// One model-level mutation, through the reference decoder and encoder; `None` when the
/// input does not decode or the result does not encode.
fn mutate_model(data: &[u8], rng: &mut SplitMix64) -> Option<Vec<u8>> {
    let mut s = decode(data).ok()?;
    let n = s.functions.len();
    match rng.index(9) {
        0 if n >= 2 => {
            let (a, b) = (rng.index(n), rng.index(n));
            s.functions.swap(a, b);
            s.clear_layout();
        }
        1 if n > 0 => {
            let f = &mut s.functions[rng.index(n)];
            if f.fres.len() >= 2 {
                let a = rng.index(f.fres.len());
                let b = rng.index(f.fres.len());
                f.fres.swap(a, b);
            }
            s.clear_layout();
        }
        2 if n > 0 => {
            let f = &mut s.functions[rng.index(n)];
            f.pc_type = if f.pc_type == PcType::Inc {
                PcType::Mask
            } else {
                PcType::Inc
            };
            if s.version != Version::V1 && rng.chance(70, 100) {
                f.rep_size = [0u8, 1, 8, 16][rng.index(4)];
            }
        }
        3 if n > 0 && s.version == Version::V3 => {
            let f = &mut s.functions[rng.index(n)];
            f.fde_type = if f.fde_type == FdeType::Default {
                FdeType::Flex
            } else {
                FdeType::Default
            };
        }
        4 if n > 0 => {
            let f = &mut s.functions[rng.index(n)];
            if !f.fres.is_empty() {
                let k = rng.index(f.fres.len());
                let fre = &mut f.fres[k];
                match rng.index(4) {
                    0 => {
                        fre.datawords.pop();
                    }
                    1 if fre.datawords.len() < 6 => {
                        fre.datawords.push([-8, -16, 0, 1, 16][rng.index(5)])
                    }
                    2 => fre.mangled_ra = !fre.mangled_ra,
                    _ => {
                        fre.dataword_size = DataWordSize::B4;
                    }
                }
            }
            s.clear_layout();
        }
        5 if n > 0 => {
            let f = &mut s.functions[rng.index(n)];
            f.size = match rng.index(3) {
                0 => f.size / 2,
                1 => f.size.saturating_add(rng.index(100) as u32),
                _ => 0,
            };
        }
        6 if n > 0 => {
            let f = &mut s.functions[rng.index(n)];
            f.start = f.start.wrapping_add(rng.index(64) as i64 - 32);
        }
        7 if n > 0 => {
            let f = &mut s.functions[rng.index(n)];
            f.fre_type = FreType::ALL[rng.index(3)];
            s.clear_layout();
        }
        _ => {
            let defined = [
                flags::FDE_SORTED,
                flags::FRAME_POINTER,
                flags::FDE_FUNC_START_PCREL,
            ];
            s.flags ^= defined[rng.index(defined.len())];
        }
    }
    encode(&s).ok()
}

/// Mutate `data` with 1 to 4 mutations.
pub fn mutate(data: &[u8], rng: &mut SplitMix64) -> Vec<u8> {
    let mut out = data.to_vec();
    if rng.chance(40, 100) {
        if let Some(m) = mutate_model(&out, rng) {
            out = m;
            if rng.chance(50, 100) {
                return out;
            }
        }
    }
    for _ in 0..1 + rng.index(3) {
        mutate_bytes(&mut out, rng);
    }
    out
}

/// A section from the generator crate: valid (`mutated` false) or broken by one of its
/// named mutations, of one of `versions` (any when empty). `None` when the drawn
/// configuration yields nothing.
fn from_generator(
    rng: &mut SplitMix64,
    mutated: bool,
    versions: &[Version],
) -> Option<(String, Vec<u8>)> {
    use arbitrary::{Arbitrary, Unstructured};
    let raw: Vec<u8> = (0..8192).map(|_| rng.next_u64() as u8).collect();
    let mut u = Unstructured::new(&raw);
    let mut cfg = sframe_gen::Config::arbitrary(&mut u).ok()?;
    if !versions.is_empty() {
        cfg.versions = versions.to_vec();
    }
    let g = sframe_gen::generate(&cfg, &mut u).ok()?;
    if !mutated {
        return Some(("sframe-gen".into(), g.bytes));
    }
    let m = sframe_gen::mutate(&g, &mut u).ok()?;
    Some((format!("sframe-gen mutation {:?}", m.kind), m.bytes))
}

/// The inputs of [`inputs`], produced one at a time: a run over 100k sections never holds
/// them all.
pub struct Inputs<'a> {
    seeds: Vec<&'a Case>,
    versions: Vec<Version>,
    rng: SplitMix64,
    seed: u64,
    next: usize,
    n: usize,
}

impl Iterator for Inputs<'_> {
    type Item = Case;

    fn next(&mut self) -> Option<Case> {
        while self.next < self.n {
            let i = self.next;
            self.next += 1;
            let from_gen = match i % 3 {
                0 => from_generator(&mut self.rng, false, &self.versions),
                1 => from_generator(&mut self.rng, true, &self.versions),
                _ => None,
            };
            let (origin, data) = match from_gen {
                Some(x) => x,
                None if self.seeds.is_empty() => continue,
                None => {
                    let base = self.seeds[self.rng.index(self.seeds.len())];
                    (base.name.clone(), mutate(&base.data, &mut self.rng))
                }
            };
            return Some(Case {
                name: format!("generated:{}:{i} (from {origin})", self.seed),
                data,
            });
        }
        None
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.n - self.next))
    }
}

/// `n` inputs, deterministically from `seed`: generated, generated-then-mutated, and havoc
/// on `seeds`, in turn. With `versions` non-empty, the generator draws sections of those
/// versions only and havoc starts from the seeds of those versions (a mutation may still
/// change the version byte: count what comes out, not what was asked for).
pub fn inputs<'a>(seeds: &'a [Case], n: usize, seed: u64, versions: &[Version]) -> Inputs<'a> {
    let seeds = seeds
        .iter()
        .filter(|c| {
            versions.is_empty()
                || RawHeader::of(&c.data)
                    .version_byte()
                    .is_some_and(|b| versions.iter().any(|v| v.number() == b))
        })
        .collect();
    Inputs {
        seeds,
        versions: versions.to_vec(),
        rng: SplitMix64::new(seed),
        seed,
        next: 0,
        n,
    }
}

/// [`inputs`] of every version, collected.
pub fn generate(seeds: &[Case], n: usize, seed: u64) -> Vec<Case> {
    inputs(seeds, n, seed, &[]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use sframe_spec::layout::header;

    #[test]
    fn generation_is_deterministic() {
        let seeds = super::super::seeds::builtin();
        let a = generate(&seeds, 50, 7);
        let b = generate(&seeds, 50, 7);
        assert_eq!(
            a.iter().map(|c| &c.data).collect::<Vec<_>>(),
            b.iter().map(|c| &c.data).collect::<Vec<_>>()
        );
        let c = generate(&seeds, 50, 8);
        assert_ne!(
            a.iter().map(|c| &c.data).collect::<Vec<_>>(),
            c.iter().map(|c| &c.data).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_version_filter_draws_sections_of_that_version() {
        let seeds = super::super::seeds::builtin();
        for v in Version::ALL {
            let cases: Vec<Case> = inputs(&seeds, 90, 11, &[v]).collect();
            assert!(cases.len() >= 60, "{v:?}: only {} inputs", cases.len());
            // The generator's valid sections carry that version in `sfp_version`, the
            // preamble's third byte (spec, "SFrame Preamble").
            let valid: Vec<&Case> = cases
                .iter()
                .filter(|c| c.name.ends_with("(from sframe-gen)"))
                .collect();
            assert!(!valid.is_empty());
            for c in valid {
                assert_eq!(c.data[header::VERSION], v.number(), "{}", c.name);
            }
            let mostly = cases
                .iter()
                .filter(|c| c.data.get(header::VERSION) == Some(&v.number()))
                .count();
            assert!(
                mostly * 10 >= cases.len() * 8,
                "{v:?}: {mostly} of {} inputs",
                cases.len()
            );
        }
    }
}
