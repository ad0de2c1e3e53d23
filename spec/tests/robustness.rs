//! No panic, no unbounded allocation, and the malformed/decodable correspondence, on any
//! bytes: random ones, and valid sections with bytes flipped, truncated or extended.

mod common;

use proptest::prelude::*;
use sframe_spec::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts this thread's live and peak heap bytes, so a test can bound what decoding
/// allocates (tests run on several threads; each counts its own).
struct Counting;
thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    let _ = LIVE.try_with(|l| {
        let now = l.get() + delta;
        l.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

// SAFETY: forwards to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        count(l.size() as isize);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        count(-(l.size() as isize));
        unsafe { System.dealloc(p, l) }
    }
}
#[global_allocator]
static A: Counting = Counting;

/// Sections to start from: every version and ABI, a few shapes.
fn seeds() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for version in Version::ALL {
        for abi in Abi::ALL.into_iter().filter(|a| a.defined_in(version)) {
            let mut s = Section::new(version, abi);
            s.flags = 1;
            for i in 0..4u32 {
                let mut f = Function::new(0x100 * i64::from(i), 0x90);
                for k in 0..(i + 1) {
                    let words = if abi == Abi::Amd64 {
                        vec![8 + 8 * k as i32]
                    } else {
                        vec![16 * k as i32, -8, -16]
                    };
                    f.fres.push(Fre {
                        start: 4 * k,
                        base_reg: BaseReg::Sp,
                        mangled_ra: false,
                        dataword_size: DataWordSize::B1,
                        datawords: words,
                    });
                }
                s.functions.push(f);
            }
            out.push(encode(&s).unwrap());
        }
    }
    out
}

fn check_properties(b: &[u8]) {
    let base = LIVE.with(|l| l.get());
    PEAK.with(|p| p.set(base));
    let decoded = decode(b);
    let violations = validate(b);
    let peak = (PEAK.with(|p| p.get()) - base) as usize;
    // Generous bound: decoded model and violation list are linear in the input.
    assert!(
        peak <= 256 * b.len() + 64 * 1024,
        "allocated {peak} bytes for {} input bytes",
        b.len()
    );
    assert_eq!(
        decoded.is_err(),
        is_malformed(&violations),
        "{violations:?}"
    );
    if let Ok(s) = decoded {
        if violations.is_empty() {
            assert_eq!(
                encode(&s).as_deref(),
                Ok(b),
                "no violation but not an exact round trip"
            );
        }
        // Lookups never panic either.
        let r = SectionRef::parse(b).unwrap();
        for pc in [-1i64, 0, 0x10, 0x105, 0x1000, i64::MAX] {
            let _ = r.find(pc);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(b in proptest::collection::vec(any::<u8>(), 0..200)) {
        check_properties(&b);
    }

    #[test]
    fn random_bytes_behind_a_real_header(seed in 0usize..11, tail in proptest::collection::vec(any::<u8>(), 0..300)) {
        let s = &seeds()[seed];
        let mut b = s[..28].to_vec();
        b.extend(tail);
        check_properties(&b);
    }

    #[test]
    fn mutated_valid_sections(seed in 0usize..11, edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6), cut in any::<prop::sample::Index>(), truncate in any::<bool>()) {
        let mut b = seeds()[seed].clone();
        for (at, v) in edits {
            let i = at.index(b.len());
            b[i] = v;
        }
        if truncate {
            let n = cut.index(b.len() + 1);
            b.truncate(n);
        }
        check_properties(&b);
    }
}

#[test]
fn seeds_are_valid() {
    for b in seeds() {
        assert_eq!(validate(&b), vec![]);
        check_properties(&b);
    }
}

#[test]
fn huge_counts_do_not_allocate() {
    // A header claiming 2^32-1 FDEs and FREs in a 40-byte section.
    let mut b = common::bytes(
        Endian::Little,
        &common::header(3, 0, 3, 0, -8, 0, u32::MAX, u32::MAX, 12, 0, 0),
    );
    b.extend([0u8; 12]);
    check_properties(&b);
    // An FDE claiming 2^32-1 FREs (v2) with a 2-byte FRE sub-section.
    let mut f = common::header(2, 0, 3, 0, -8, 0, 1, u32::MAX, 2, 0, 20);
    f.extend([
        common::F::I32(0),
        common::F::U32(16),
        common::F::U32(0),
        common::F::U32(u32::MAX),
        common::F::U8(0),
        common::F::U8(0),
        common::F::U16(0),
    ]);
    f.extend([
        common::F::U8(0),
        common::F::U8(common::fre_info(false, 0, 0, true)),
    ]);
    let b = common::bytes(Endian::Little, &f);
    check_properties(&b);
    assert!(validate(&b).iter().any(|v| v.rule == Rule::FreFits));
}
