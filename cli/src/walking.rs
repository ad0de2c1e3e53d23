//! The walk of `FILE|DIR...` as every command runs it ([`sframe_harness::walk`]): a progress
//! line on stderr while directories are walked (drawn only when stderr is a terminal), one
//! stderr line for a file named on the command line that gives no section, the summary,
//! and the exit status.
//!
//! Exit status of a command that walks files: 2 when no file gave an SFrame section
//! (nothing could be read as SFrame: every file was unreadable, or held none); else 1 when
//! the command found what it looks for (a broken rule, a new discrepancy) or a file could
//! not be read while others could; else 0. Files without SFrame are counted, not failed.

use indicatif::{ProgressBar, ProgressStyle};
use sframe_harness::walk::{Entry, Outcome, Summary, Walk};
use std::path::PathBuf;
use std::process::ExitCode;

/// The walk of `paths` with its progress line; see the module's documentation.
pub struct Walking {
    walk: Walk,
    bar: ProgressBar,
}

/// Walk `paths`, handing out whole files too when `keep_file`.
pub fn walk(paths: &[PathBuf], keep_file: bool) -> Walking {
    let bar = if paths.iter().any(|p| p.is_dir()) {
        // Hidden by indicatif itself when stderr is not a terminal.
        ProgressBar::new_spinner()
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("{spinner} {pos} files, {elapsed} {wide_msg}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    Walking {
        walk: Walk::new(paths).keep_file(keep_file),
        bar,
    }
}

impl Walking {
    /// The progress line, for commands that print beside it (`bar.suspend`).
    pub fn bar(&self) -> ProgressBar {
        self.bar.clone()
    }
}

impl Iterator for Walking {
    type Item = Entry;
    fn next(&mut self) -> Option<Entry> {
        let e = self.walk.next();
        match &e {
            Some(e) => {
                self.bar.inc(1);
                self.bar.set_message(e.path.display().to_string());
                if e.named {
                    named_problem(e);
                }
            }
            None => self.bar.finish_and_clear(),
        }
        e
    }
}

impl Drop for Walking {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// A file named on the command line that gives no section: one line on stderr.
fn named_problem(e: &Entry) {
    let why = match &e.outcome {
        Outcome::Section { .. } => return,
        Outcome::NoSframe(why) => why.to_string(),
        Outcome::Unreadable(why) => why.to_string(),
        Outcome::Skipped(k) => format!("skipped: a {}", k.describe()),
    };
    eprintln!("sframe-conform: {}: {why}", e.path.display());
}

/// Whether the command line names one file (no directory): its report is the file's own.
pub fn single(paths: &[PathBuf]) -> bool {
    paths.len() == 1 && !paths[0].is_dir()
}

/// The summary's text after a command's report (not for a single named file, whose
/// outcome is already said), the line on stderr when nothing could be read as SFrame, and
/// the exit status (see the module's documentation) given whether the command `found` what
/// it looks for.
pub fn finish_text(paths: &[PathBuf], summary: &Summary, found: bool) -> ExitCode {
    if !single(paths) {
        crate::out!("{}", summary.render_text());
    }
    finish(paths, summary, found)
}

/// The stderr line when nothing could be read as SFrame, and the exit status.
pub fn finish(paths: &[PathBuf], summary: &Summary, found: bool) -> ExitCode {
    let status = summary.exit_status(found);
    if summary.with_sframe == 0 && !single(paths) {
        eprintln!(
            "sframe-conform: no SFrame section in {} file(s) ({} without SFrame, {} unreadable)",
            summary.files,
            summary.no_sframe_total(),
            summary.unreadable.len()
        );
    }
    ExitCode::from(status)
}
