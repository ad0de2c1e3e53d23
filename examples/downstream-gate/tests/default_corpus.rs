//! The corpus `Gate::new` runs on (`Corpus::standard`), as this crate gets it from the
//! packaged `sframe-harness` and `sframe-corpus-data`: it holds a valid section of every
//! version x ABI x layout, and real sections of every producer release and ABI. What each
//! section is comes from its header bytes as the SFrame texts lay them out, not from the
//! harness's own tags.

use sframe_harness::prelude::*;
use std::collections::BTreeSet;

/// Version, ABI, PC-relative starts, an auxiliary header, bytes before the FDE sub-section,
/// bytes between the sub-sections.
type Layout = (u8, u8, bool, bool, bool, bool);

/// The layout of a section, from its header (`sframe_header`, all three texts: the preamble
/// `u16 magic, u8 version, u8 flags`, then `u8 abi_arch, i8, i8, u8 auxhdr_len`,
/// `u32 num_fdes, num_fres, fre_len, fdeoff, freoff`), in the byte order its ABI names
/// (1 AArch64 big endian and 4 s390x big endian; 2 AArch64 and 3 AMD64 little endian).
fn layout(data: &[u8]) -> Option<Layout> {
    let (version, flags, abi, aux) = (*data.get(2)?, *data.get(3)?, *data.get(4)?, *data.get(7)?);
    let word = |at: usize| -> Option<u32> {
        let b: [u8; 4] = data.get(at..at + 4)?.try_into().ok()?;
        Some(match abi {
            1 | 4 => u32::from_be_bytes(b),
            _ => u32::from_le_bytes(b),
        })
    };
    let (num_fdes, fdeoff, freoff) = (word(8)?, word(20)?, word(24)?);
    // The FDE (index) entry: v1 17 bytes (sframe-v1.h), v2 20 (v2 manual, 2.3), v3 16
    // (`sframe_func_desc_idx`, v3 manual, 2.3.1).
    let entry = match version {
        1 => 17,
        2 => 20,
        3 => 16,
        _ => return None,
    };
    // SFRAME_F_FDE_FUNC_START_PCREL, 0x4: v2 (Errata 1) and v3.
    let pcrel = version >= 2 && flags & 0x4 != 0;
    let packed = u64::from(fdeoff) + u64::from(num_fdes) * entry;
    Some((
        version,
        abi,
        pcrel,
        aux != 0,
        fdeoff != 0,
        u64::from(freoff) != packed,
    ))
}

#[test]
fn the_default_corpus_holds_every_layout_and_the_real_sections() {
    let corpus = Corpus::standard(1);
    let seen: BTreeSet<Layout> = corpus
        .cases
        .iter()
        .filter_map(|c| layout(&c.data))
        .collect();
    // ABIs 1..=3 in every version; s390x (4) from v2 on (v3 manual, changes from v2: Errata 1).
    for version in 1..=3u8 {
        let abis: &[u8] = if version == 1 {
            &[1, 2, 3]
        } else {
            &[1, 2, 3, 4]
        };
        for &abi in abis {
            for pcrel in [false, version >= 2] {
                for aux in [false, true] {
                    for fdeoff in [false, true] {
                        for freoff in [false, true] {
                            let l = (version, abi, pcrel, aux, fdeoff, freoff);
                            assert!(seen.contains(&l), "no section of layout {l:?}");
                        }
                    }
                }
            }
        }
    }
    // The real sections: what GNU as 2.40, 2.44 and 2.47 wrote for real projects (AArch64
    // and AMD64; s390x from 2.47), and binutils' own SFrame tests of each release.
    let names: BTreeSet<&str> = corpus.cases.iter().map(|c| c.name.as_str()).collect();
    let mut want: Vec<String> = Vec::new();
    for abi in ["aarch64", "amd64"] {
        for release in ["2.40", "2.44", "2.47"] {
            want.push(format!("real:{abi}/gnu-as-{release}/"));
        }
    }
    want.push("real:s390x/gnu-as-2.47/".into());
    for release in ["2.40", "2.44", "2.47"] {
        want.push(format!("real:binutils-testsuite/{release}"));
    }
    for w in &want {
        assert!(
            names.iter().filter(|n| n.starts_with(w.as_str())).count() >= 10,
            "fewer than 10 real sections named {w}*"
        );
    }
}
