//! Real `.sframe` sections, for conformance tests that run without the sframe-conform
//! repository: every distinct section of its corpora (`corpus/elf`: GNU as 2.40/2.44/2.47,
//! LLVM 23 and ld outputs of small C and assembly sources; `corpus/real`: seven Debian
//! C/C++ projects built with every GNU as that writes SFrame and linked by each ld, and
//! binutils' own SFrame testsuite), as the reference's ELF loader reads them (relocatable
//! objects relocated), named by the file they come from.
//!
//! The blob `data/sections.bin` is written from the repository's corpora by
//! `SFRAME_RECORD_CORPUS_DATA=1 cargo test -p sframe-harness --test corpus_data`, and that
//! test checks that packing them again gives the same bytes. Its format: the magic `SFCD`, a little-endian
//! `u32` count, then per section a `u16` name length, the UTF-8 name, a `u32` length and the
//! bytes.

#![forbid(unsafe_code)]

/// The packed sections.
pub const BLOB: &[u8] = include_bytes!("../data/sections.bin");

/// The magic of the blob.
pub const MAGIC: &[u8; 4] = b"SFCD";

/// One section: where it comes from (`real:amd64/gnu-as-2.44/zlib/libzlib.so`,
/// `elf:gnu-as-2.47/s390x/basic-O2-fp.o`) and its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section<'a> {
    pub name: &'a str,
    pub bytes: &'a [u8],
}

/// The sections of [`BLOB`].
pub fn sections() -> Sections<'static> {
    Sections::new(BLOB)
}

/// The sections of a blob, in order; iteration ends at the first entry that does not fit.
#[derive(Debug, Clone)]
pub struct Sections<'a> {
    rest: &'a [u8],
    left: u32,
}

impl<'a> Sections<'a> {
    /// The sections of `blob` (none when its magic is wrong).
    pub fn new(blob: &'a [u8]) -> Sections<'a> {
        match blob.strip_prefix(MAGIC.as_slice()).and_then(|r| take(r, 4)) {
            Some((count, rest)) => Sections {
                rest,
                left: u32::from_le_bytes([count[0], count[1], count[2], count[3]]),
            },
            None => Sections { rest: &[], left: 0 },
        }
    }
}

fn take(b: &[u8], n: usize) -> Option<(&[u8], &[u8])> {
    (b.len() >= n).then(|| b.split_at(n))
}

impl<'a> Iterator for Sections<'a> {
    type Item = Section<'a>;
    fn next(&mut self) -> Option<Section<'a>> {
        if self.left == 0 {
            return None;
        }
        let entry = (|| {
            let (n, r) = take(self.rest, 2)?;
            let (name, r) = take(r, usize::from(u16::from_le_bytes([n[0], n[1]])))?;
            let (len, r) = take(r, 4)?;
            let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]);
            let (bytes, r) = take(r, usize::try_from(len).ok()?)?;
            Some((std::str::from_utf8(name).ok()?, bytes, r))
        })();
        match entry {
            Some((name, bytes, rest)) => {
                self.rest = rest;
                self.left -= 1;
                Some(Section { name, bytes })
            }
            None => {
                self.left = 0;
                None
            }
        }
    }
}

/// Pack sections into a blob [`Sections::new`] reads (names longer than `u16::MAX` bytes are
/// cut at a character boundary).
pub fn pack<'a>(sections: impl IntoIterator<Item = Section<'a>>) -> Vec<u8> {
    let mut body = Vec::new();
    let mut count = 0u32;
    for s in sections {
        let mut end = s.name.len().min(usize::from(u16::MAX));
        while !s.name.is_char_boundary(end) {
            end -= 1;
        }
        let Ok(len) = u32::try_from(s.bytes.len()) else {
            continue;
        };
        body.extend_from_slice(&(end as u16).to_le_bytes());
        body.extend_from_slice(&s.name.as_bytes()[..end]);
        body.extend_from_slice(&len.to_le_bytes());
        body.extend_from_slice(s.bytes);
        count += 1;
    }
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_sections_read_back_and_a_cut_blob_ends_early() {
        let a = Section {
            name: "a",
            bytes: b"\xe2\xde\x02",
        };
        let b = Section {
            name: "b/c",
            bytes: b"",
        };
        let blob = pack([a, b]);
        assert_eq!(Sections::new(&blob).collect::<Vec<_>>(), vec![a, b]);
        assert_eq!(
            Sections::new(&blob[..blob.len() - 6]).collect::<Vec<_>>(),
            vec![a]
        );
        assert_eq!(Sections::new(b"SFCX\x01\0\0\0").count(), 0);
    }

    #[test]
    fn the_shipped_blob_holds_every_abi_and_version() {
        let all: Vec<Section> = sections().collect();
        assert!(all.len() > 200, "{} sections", all.len());
        // The SFrame preamble: magic 0xdee2 in the section's byte order, then the version.
        let version = |s: &Section| s.bytes.get(2).copied();
        let abi = |s: &Section| s.bytes.get(4).copied();
        for v in 1..=3 {
            assert!(all.iter().any(|s| version(s) == Some(v)), "no v{v}");
        }
        // sframe.h: 1 AArch64 big endian, 2 AArch64 little endian, 3 AMD64, 4 s390x.
        for a in 1..=4 {
            assert!(all.iter().any(|s| abi(s) == Some(a)), "no ABI {a}");
        }
    }
}
