//! The look-up index ([`SectionIndex`]) gives exactly the reference's answer
//! ([`SectionRef::find`]), errors included, through both of its look-ups (`find` and the
//! row-only `find_fre`), on generated valid sections, on mutated ones
//! (every mutation kind), and on valid sections with random bytes overwritten, at PCs around
//! every function's and every FRE's bounds, outside all functions, and at random.

use arbitrary::Unstructured;
use proptest::prelude::*;
use sframe_gen::rng::SplitMix64;
use sframe_gen::strategy::{generated_strategy, malformed_strategy, swarm_strategy};
use sframe_gen::Config;
use sframe_spec::{FreHit, SectionIndex, SectionRef};

/// PCs worth asking about in `data`: the bounds of each function (and one past them), each
/// FRE's start in its function and the byte before, a few random ones, and the extremes.
fn pcs(data: &[u8], seed: u64) -> Vec<i64> {
    let mut out = vec![i64::MIN, i64::MIN + 1, -1, 0, 1, i64::MAX - 1, i64::MAX];
    let mut rng = SplitMix64::new(seed);
    let Ok(r) = SectionRef::parse(data) else {
        return out;
    };
    for i in 0..r.num_fdes().min(256) {
        let Some((start, size)) = r.fde_range(i) else {
            continue;
        };
        let size = i64::from(size);
        for d in [-1, 0, 1, size / 2, size - 1, size, size + 1] {
            out.push(start.wrapping_add(d));
        }
        if size > 0 {
            out.push(start.wrapping_add(rng.index(size as usize) as i64));
        }
        if let Ok(fde) = r.fde(i) {
            for fre in r.fres(&fde).take(64).flatten() {
                let at = fde.start.wrapping_add(i64::from(fre.start));
                out.extend([at.wrapping_sub(1), at, at.wrapping_add(1)]);
            }
        }
    }
    for _ in 0..16 {
        out.push(rng.next_u64() as i64);
    }
    out
}

/// Both look-ups agree at every PC of [`pcs`].
fn agree(data: &[u8], seed: u64) -> Result<(), TestCaseError> {
    let (Ok(r), Ok(index)) = (SectionRef::parse(data), SectionIndex::parse(data)) else {
        prop_assert_eq!(
            SectionRef::parse(data).err(),
            SectionIndex::parse(data).err()
        );
        return Ok(());
    };
    for pc in pcs(data, seed) {
        prop_assert_eq!(r.find(pc), index.find(pc), "pc {:#x}", pc);
        prop_assert_eq!(r.find_fde(pc), index.find_fde(pc), "pc {:#x}", pc);
        let row = r.find(pc).map(|found| {
            found.map(|f| FreHit {
                function: f.fde.index,
                fre_index: f.fre_index,
                fre: f.fre,
            })
        });
        prop_assert_eq!(row, index.find_fre(pc), "pc {:#x}", pc);
    }
    Ok(())
}

/// `data` with up to `n` bytes overwritten at random places after the header (28 bytes):
/// starts out of order under the sorted flag, FREs out of order or unreadable, FDEs that
/// share FREs.
fn scrambled(data: &[u8], n: usize, seed: u64) -> Vec<u8> {
    let mut d = data.to_vec();
    let mut rng = SplitMix64::new(seed);
    if d.len() > 28 {
        for _ in 0..n {
            let at = 28 + rng.index(d.len() - 28);
            d[at] = rng.next_u64() as u8;
        }
    }
    d
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn on_valid_sections((_cfg, g) in swarm_strategy(), seed in any::<u64>()) {
        agree(&g.bytes, seed)?;
    }

    #[test]
    fn on_mutated_sections((_g, m) in malformed_strategy(Config::default()), seed in any::<u64>()) {
        agree(&m.bytes, seed)?;
    }

    #[test]
    fn on_scrambled_sections(g in generated_strategy(Config::default()), seed in any::<u64>(), n in 1usize..8) {
        agree(&scrambled(&g.bytes, n, seed), seed)?;
    }
}

/// Every mutation kind that applies, on sections of many functions (where the index's
/// search and FRE copies are used), with a fixed seed.
#[test]
fn on_every_mutation_kind_of_larger_sections() {
    let mut rng = SplitMix64::new(0x16a);
    let cfg = Config {
        min_functions: 20,
        max_functions: 60,
        // Either side of the index's `SCAN_MAX`: rows scanned in place and rows searched
        // in a copy.
        max_fres: 2 * sframe_spec::index::SCAN_MAX as usize,
        ..Config::default()
    };
    for round in 0..60 {
        let bytes: Vec<u8> = (0..4096).map(|_| rng.next_u64() as u8).collect();
        let Ok(g) = sframe_gen::generate(&cfg, &mut Unstructured::new(&bytes)) else {
            continue;
        };
        agree(&g.bytes, round).unwrap();
        for kind in sframe_gen::mutate::applicable(&g) {
            let choice: Vec<u8> = (0..64).map(|_| rng.next_u64() as u8).collect();
            if let Ok(Some(m)) = sframe_gen::mutate_with(kind, &g, &mut Unstructured::new(&choice))
            {
                agree(&m.bytes, round).unwrap();
            }
        }
        agree(&scrambled(&g.bytes, 4, round), round).unwrap();
    }
}
