//! The hosted library's function names, read once at start-up, for the crash reporter.
//!
//! `dladdr` names only exported symbols: in a stripped library (trixie's and sid's libsframe),
//! a fault in a static function (`sframe_decode_fre`, `flip_sframe`, ...) is reported under
//! whichever exported function precedes it in the text, or as an offset. The full symbol
//! table of the library's debug file (`ci/toolchains` puts Debian's `libsframeN-dbg` file
//! beside the library as `<library>.debug`) or of the library itself, when it is not stripped
//! (bookworm's), names the function that holds the faulting address. The table is built
//! before any request, so that the signal handler only searches it: no allocation, no lock.

use std::ffi::{CStr, CString};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Functions of the hosted library: `(start, end, name)` by start, addresses relative to its
/// load base.
static FUNCTIONS: OnceLock<Vec<(u64, u64, CString)>> = OnceLock::new();

/// Where the library's full symbol table is: its debug file beside it, else itself.
fn symbol_file(library: &Path) -> PathBuf {
    let mut debug = library.as_os_str().to_owned();
    debug.push(".debug");
    let debug = PathBuf::from(debug);
    if debug.is_file() {
        debug
    } else {
        library.to_path_buf()
    }
}

/// The functions of an ELF file's `.symtab` (and `.dynsym`), with a size.
fn functions(bytes: &[u8]) -> Vec<(u64, u64, CString)> {
    let Ok(elf) = goblin::elf::Elf::parse(bytes) else {
        return Vec::new();
    };
    let tables = [(&elf.syms, &elf.strtab), (&elf.dynsyms, &elf.dynstrtab)];
    let mut out: Vec<(u64, u64, CString)> = tables
        .into_iter()
        .flat_map(|(syms, names)| {
            syms.iter()
                .filter(|s| s.is_function() && s.st_size > 0 && s.st_value > 0)
                .filter_map(|s| {
                    let name = CString::new(names.get_at(s.st_name)?).ok()?;
                    Some((s.st_value, s.st_value.saturating_add(s.st_size), name))
                })
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.2.cmp(&b.2)));
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// Read the function names of `library` (see the module docs); a library whose symbols
/// cannot be read leaves the crash reporter with `dladdr` alone.
pub fn load(library: &Path) {
    let table = std::fs::read(symbol_file(library))
        .map(|b| functions(&b))
        .unwrap_or_default();
    let _ = FUNCTIONS.set(table);
}

/// The function holding `offset` (from the library's load base). Safe in a signal handler:
/// it reads the table [`load`] built, nothing else.
pub fn function_at(offset: u64) -> Option<&'static CStr> {
    let table = FUNCTIONS.get()?;
    let i = table.partition_point(|f| f.0 <= offset).checked_sub(1)?;
    let (start, end, name) = table.get(i)?;
    (*start <= offset && offset < *end).then_some(name.as_c_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worker_names_its_own_functions() {
        // This test binary is an ELF file with a symbol table: `functions` reads it.
        let exe = std::env::current_exe().unwrap();
        let table = functions(&std::fs::read(exe).unwrap());
        assert!(table.len() > 100);
        assert!(table.windows(2).all(|w| w[0].0 < w[1].0));
        let (start, _, name) = &table[table.len() / 2];
        FUNCTIONS.set(table.clone()).unwrap();
        assert_eq!(function_at(*start), Some(name.as_c_str()));
        assert_eq!(function_at(0), None);
    }
}
