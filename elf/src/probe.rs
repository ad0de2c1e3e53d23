//! Whether an ELF file can hold SFrame, from its header and section headers alone: a walk
//! over a system directory reads a few kilobytes of each ELF file without `.sframe` rather
//! than the whole file.
//!
//! [`probe`] answers only when it is sure, with the error [`crate::load`] would give on the
//! whole file: [`LoadError::UnsupportedMachine`] or [`LoadError::NoSframeSection`] (the
//! section name string table names no `.sframe`, found as goblin finds it). Anything else
//! (a `.sframe` section, headers it cannot read) is `None`: read the file and [`crate::load`]
//! it. One difference with loading the whole file is accepted: an ELF file without
//! `.sframe` whose other tables are malformed is "no `.sframe`" here, `BadElf` there.

use crate::{machine_from, LoadError};
use goblin::container::Ctx;
use goblin::elf::{section_header, Elf, SectionHeader};
use std::io::{Read, Seek, SeekFrom};

/// The verdict on an ELF file read through `r` (from its start): `Some` when it surely
/// holds no SFrame section, `None` when it must be loaded whole.
pub fn probe<R: Read + Seek>(r: &mut R) -> Option<LoadError> {
    let len = r.seek(SeekFrom::End(0)).ok()?;
    let head = read_at(r, 0, 64.min(len), len)?;
    let header = Elf::parse_header(&head).ok()?;
    if let Err(e) = machine_from(header.e_machine) {
        return Some(e);
    }
    let ctx = Ctx::new(header.container().ok()?, header.endianness().ok()?);
    if header.e_shoff == 0 {
        return Some(LoadError::NoSframeSection);
    }
    let entsize = SectionHeader::size(ctx) as u64;
    let first = read_at(r, header.e_shoff, entsize, len)?;
    let null = SectionHeader::parse_from(&first, 0, 1, ctx).ok()?;
    let count = match header.e_shnum {
        0 => null.first()?.sh_size,
        n => u64::from(n),
    };
    let table = read_at(r, header.e_shoff, count.checked_mul(entsize)?, len)?;
    let shdrs = SectionHeader::parse_from(&table, 0, usize::try_from(count).ok()?, ctx).ok()?;
    let mut strndx = usize::from(header.e_shstrndx);
    if strndx == section_header::SHN_XINDEX as usize {
        strndx = shdrs.first()?.sh_link as usize;
    }
    // No name table: goblin finds no `.sframe` either.
    let Some(names) = shdrs.get(strndx) else {
        return Some(LoadError::NoSframeSection);
    };
    let names = read_at(r, names.sh_offset, names.sh_size, len)?;
    let named_sframe = shdrs.iter().any(|s| {
        names
            .get(s.sh_name..)
            .is_some_and(|n| n.starts_with(b".sframe\0"))
    });
    (!named_sframe).then_some(LoadError::NoSframeSection)
}

/// `n` bytes at `offset` of a file of `len` bytes, or `None` past its end.
fn read_at<R: Read + Seek>(r: &mut R, offset: u64, n: u64, len: u64) -> Option<Vec<u8>> {
    if offset.checked_add(n)? > len {
        return None;
    }
    r.seek(SeekFrom::Start(offset)).ok()?;
    let mut buf = vec![0; usize::try_from(n).ok()?];
    r.read_exact(&mut buf).ok()?;
    Some(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(rd) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() && !p.is_symlink() {
                files_under(&p, out);
            } else if p.is_file() {
                out.push(p);
            }
        }
    }

    /// On the corpus (objects and linked files of three machines, with `.sframe`) and on
    /// the system's programs (without), the probe's verdict is `load`'s whenever it gives
    /// one, and it gives one on every system program load says has no `.sframe`.
    #[test]
    fn the_probe_agrees_with_loading_the_whole_file() {
        let mut files = Vec::new();
        files_under(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/elf"),
            &mut files,
        );
        let corpus = files.len();
        assert!(corpus > 20, "the corpus is missing: run ci/build-corpus");
        let mut system = Vec::new();
        files_under(Path::new("/usr/bin"), &mut system);
        files.extend(system.into_iter().take(200));
        let (mut sure, mut no_section) = (0, 0);
        for p in &files {
            let bytes = std::fs::read(p).unwrap();
            if !bytes.starts_with(b"\x7fELF") {
                continue;
            }
            let whole = crate::load(&bytes);
            let verdict = probe(&mut std::io::Cursor::new(&bytes));
            if let Some(v) = &verdict {
                sure += 1;
                assert_eq!(whole.as_ref().err(), Some(v), "{}", p.display());
            }
            if whole.as_ref().err() == Some(&LoadError::NoSframeSection) {
                no_section += 1;
                assert!(verdict.is_some(), "{}: no verdict", p.display());
            }
        }
        assert!(no_section > 0 && sure >= no_section, "{sure} {no_section}");
    }
}
