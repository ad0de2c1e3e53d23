//! Whose fault an oracle mismatch is: the SFrame producer's, or the CFI's author's.
//!
//! An assembler writes `.sframe` from the CFI directives it is given, and writes `.eh_frame`
//! from the same directives. Where the file's `.eh_frame` (read with gimli, compared by
//! [`sframe_producers::crosscheck`]) says at a PC exactly what SFrame's row says, the
//! section translated its input faithfully: a wrong row there is wrong in the CFI too, and
//! the fault is the CFI's author's, never the SFrame producer's. That author is a compiler
//! (named from `.comment`, `gcc-12.2.0`: its CFI is code generation, a compiler bug the
//! ledger records like any other), or a person writing CFI directives by hand to test how
//! an assembler encodes them (binutils' `cfi-sframe` tests, which the corpus manifest marks
//! `"cfi_author": "hand-written"`): CFI that does not describe its code on purpose, counted
//! and not a finding. Where SFrame's row differs from `.eh_frame`, or no CFI covers the PC,
//! the mismatch stays the SFrame producer's.

use serde::Serialize;
use sframe_oracle::{Mismatch, Report};
use sframe_producers::crosscheck::{self, RowAgreement};

/// Who wrote a file's CFI directives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CfiAuthor {
    /// A compiler, as its `.comment` names it (`gcc-12.2.0`, `clang-23.1.1`).
    Compiler(String),
    /// Written by hand in assembly (the manifest says so).
    HandWritten,
    /// Neither said: signatures name it `unknown-cfi-author`.
    Unknown,
}

impl CfiAuthor {
    /// From the manifest's `cfi_author` (`hand-written`), else the compiler of `comment`.
    pub fn of(manifest: Option<&str>, comment: Option<&str>) -> CfiAuthor {
        if manifest == Some("hand-written") {
            return CfiAuthor::HandWritten;
        }
        comment
            .and_then(compiler_of)
            .map_or(CfiAuthor::Unknown, CfiAuthor::Compiler)
    }
}

/// `gcc-12.2.0` for `GCC: (Debian 12.2.0-14) 12.2.0`, `clang-23.1.1` for
/// `Debian clang version 23.1.1 (...)`.
pub fn compiler_of(comment: &str) -> Option<String> {
    if let Some(rest) = comment.strip_prefix("GCC: ") {
        let v = rest.split_whitespace().last()?;
        return Some(format!("gcc-{v}"));
    }
    let i = comment.find("clang version ")?;
    let v = comment[i + "clang version ".len()..]
        .split_whitespace()
        .next()?;
    Some(format!("clang-{v}"))
}

/// Whose fault one mismatch is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Blame {
    /// SFrame's row differs from the file's `.eh_frame` at the PC, or no CFI row was
    /// compared there: the SFrame producer's (assembler's or linker's).
    SframeProducer,
    /// SFrame says what `.eh_frame` says: the CFI is wrong about the code, and its author
    /// is a compiler (or not known): a finding of that author.
    Cfi,
    /// The same, in CFI written by hand to test an assembler: the CFI does not describe
    /// the code on purpose. Counted, no signature.
    CfiDoesNotDescribeCode,
}

impl Blame {
    pub fn name(self) -> &'static str {
        match self {
            Blame::SframeProducer => "sframe-producer",
            Blame::Cfi => "cfi",
            Blame::CfiDoesNotDescribeCode => "cfi-does-not-describe-code",
        }
    }
}

/// The PC whose row a mismatch used: its own, or the one before when a caller frame's
/// return address is its function's end (looked up at `pc - 1`).
fn lookup_pc(report: &Report, m: &Mismatch) -> u64 {
    let at_end = report
        .function(&m.function)
        .is_some_and(|f| f.function.end == m.pc);
    if at_end {
        m.pc.saturating_sub(1)
    } else {
        m.pc
    }
}

/// The blame of every mismatch of `report` (in [`Report::mismatches`] order), from the
/// file's bytes `elf` and its CFI's author. The crosscheck runs only when there is a
/// mismatch.
pub fn blame(elf: &[u8], report: &Report, author: &CfiAuthor) -> Vec<Blame> {
    if report.mismatches().next().is_none() {
        return Vec::new();
    }
    let cross = crosscheck::crosscheck(elf).ok();
    report
        .mismatches()
        .map(|m| {
            let agrees = cross.as_ref().map(|c| c.agreement_at(lookup_pc(report, m)))
                == Some(RowAgreement::Agrees);
            match (agrees, author) {
                (false, _) => Blame::SframeProducer,
                (true, CfiAuthor::HandWritten) => Blame::CfiDoesNotDescribeCode,
                (true, _) => Blame::Cfi,
            }
        })
        .collect()
}

/// The producer part of a CFI-blamed mismatch's signature.
pub fn cfi_producer(author: &CfiAuthor) -> String {
    match author {
        CfiAuthor::Compiler(c) => c.clone(),
        CfiAuthor::HandWritten | CfiAuthor::Unknown => "unknown-cfi-author".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compilers_are_named_from_their_comment() {
        assert_eq!(
            compiler_of("GCC: (Debian 12.2.0-14) 12.2.0").as_deref(),
            Some("gcc-12.2.0")
        );
        assert_eq!(
            compiler_of("Debian clang version 23.1.1 (++20250101)").as_deref(),
            Some("clang-23.1.1")
        );
        assert_eq!(compiler_of("Linker: LLD 17"), None);
        assert_eq!(
            CfiAuthor::of(Some("hand-written"), Some("GCC: (x) 1")),
            CfiAuthor::HandWritten
        );
        assert_eq!(CfiAuthor::of(None, None), CfiAuthor::Unknown);
    }
}
