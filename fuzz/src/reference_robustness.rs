//! The reference reader and validator never panic, never loop, and never allocate beyond a
//! small multiple of the input, on any bytes; `decode` fails exactly when a malformed-class
//! rule is broken; a section with no violation re-encodes to the same bytes; the look-up
//! index answers exactly as the reader.

use arbitrary::Unstructured;
use sframe_spec::{decode, encode, is_malformed, validate, SectionIndex, SectionRef};

/// Check the properties on `bytes`; panics (a finding) when one fails.
pub fn check(bytes: &[u8]) {
    let decoded = decode(bytes);
    let violations = validate(bytes);
    assert_eq!(
        decoded.is_err(),
        is_malformed(&violations),
        "decode/validate disagree: {violations:?}"
    );
    if let Ok(s) = &decoded {
        if violations.is_empty() {
            assert_eq!(
                encode(s).as_deref(),
                Ok(bytes),
                "valid section does not re-encode exactly"
            );
        }
    }
    if let Ok(r) = SectionRef::parse(bytes) {
        // Look-ups at the edges of every function, where the index answers as the reader.
        let index = SectionIndex::new(r);
        for i in 0..r.num_fdes().min(64) {
            if let Some((start, size)) = r.fde_range(i) {
                let size = i64::from(size);
                for pc in [
                    start.wrapping_sub(1),
                    start,
                    start.wrapping_add(size / 2),
                    start.wrapping_add(size),
                ] {
                    assert_eq!(r.find(pc), index.find(pc), "index differs at pc {pc:#x}");
                }
            }
        }
    }
}

pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let bytes: &[u8] = u.arbitrary()?;
    check(bytes);
    Ok(())
}

crate::seeded_test!(2000, 512);
