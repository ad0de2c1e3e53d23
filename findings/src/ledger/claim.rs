//! What a finding's reproducers show, typed so that a test can check it (`claim` in
//! `finding.json`): the specific answer, crash, refusal or producer row the title speaks of,
//! on the named implementation and release, not merely that some discrepancy occurs.
//!
//! A finding lists one or more claims; each names one reproducer and one implementation or
//! producer. `cli/tests/claims.rs` runs them: reader claims through the differential engine
//! (the worker hosting Debian's libsframe of each release and glibc's reader, objdump and
//! readelf of each release, simple-frame-rs, llvm-readobj) against the reference, producer
//! claims by building the reproducer with the named assembler (and linker) and reading the
//! row with `sframe-conform crosscheck` (against the file's own `.eh_frame`) or `oracle`
//! (against the emulator). A spec ambiguity shows its two readings as two claims: one
//! implementation's answer ([`Claim::Value`]) and another that agrees with the reference
//! ([`Claim::Agrees`]). A fixed reference bug claims the row the reference now reads
//! ([`Claim::ReferenceRow`]); a stack-walk finding the frame where a reader's walk stops
//! ([`Claim::Walk`]).

use crate::signature::{CrashSite, Op, Signal, Unwind};
use serde::{Deserialize, Serialize};
use sframe_spec::Loc;

/// One thing a reproducer shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "shows", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Claim {
    /// A reader answers `found` for `field` (a decoded field, the row at `pc`, or a refusal's
    /// error class) where the reference answers otherwise, and this finding's quirks are
    /// needed to reproduce that answer from the reference.
    Value {
        implementation: String,
        input: String,
        op: Op,
        /// The compared field, as in discrepancy signatures (`fre.ra`, `mask.missing`,
        /// `function.count`, the error class of a refusal).
        field: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pc: Option<i64>,
        /// The implementation's answer, as the engine prints it (`none`, `SameValue`, `0`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        found: Option<String>,
    },
    /// A reader dies of `signal` (or `exit N`) at `site`, the function named by the
    /// library's symbol table where the fault landed (not the first bad access, which a
    /// sanitizer build names).
    Crash {
        implementation: String,
        input: String,
        op: Op,
        signal: Signal,
        site: CrashSite,
    },
    /// A reader does not answer in time.
    Hang {
        implementation: String,
        input: String,
        op: Op,
    },
    /// A reader accepts a section that breaks `rule` (a catalogue ID).
    AcceptedInvalid {
        implementation: String,
        input: String,
        rule: String,
    },
    /// A reader agrees with the reference on the whole input (the reading the reference
    /// follows, beside another implementation's [`Claim::Value`]).
    Agrees {
        implementation: String,
        input: String,
    },
    /// A producer writes, for `field` at `offset` bytes into `function`, the rule `written`
    /// where `by` (the file's own `.eh_frame`, or the emulator) says otherwise: `required`
    /// is the `.eh_frame`'s rule (the wrong side where the finding's notes say the
    /// `.eh_frame` is); the emulator's truth is a value per run, so its claims name only what
    /// was written.
    ProducerRow {
        build: Build,
        source: String,
        function: String,
        offset: u64,
        field: RowField,
        /// The column `written` and `required` are of, when not `field` (a `step-error`
        /// names the rule whose application failed).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rule_of: Option<RowField>,
        written: Loc,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        required: Option<Loc>,
        by: Checker,
    },
    /// A producer writes a section that breaks `rule` (`sframe-conform check`).
    ProducerViolation {
        build: Build,
        source: String,
        rule: String,
    },
    /// A producer stops on the reproducer (an assertion, an abort): it fails and its
    /// messages say `message`.
    ProducerFails {
        build: Build,
        source: String,
        message: String,
    },
    /// A producer writes no SFrame FDE for `function`, which has CFI (`sframe-conform
    /// oracle` lists it among the functions without an FDE).
    ProducerOmits {
        build: Build,
        source: String,
        function: String,
    },
    /// The reference reads the producer's row for `field` at `offset` bytes into `function`
    /// as `rule` (`sframe-conform dump`), and the emulator (`sframe-conform oracle`) checks
    /// rows of `function` and finds none wrong: a fixed reference bug, whose reproducer the
    /// reference now reads as the code behaves.
    ReferenceRow {
        build: Build,
        source: String,
        function: String,
        offset: u64,
        field: RowField,
        rule: Loc,
    },
    /// A whole-stack walk, as `cli/tests/stackwalk.rs` walks the emulator's deepest stacks of
    /// the ELF file `elf` (a `corpus/` path), with `implementation`'s rows stops at frame
    /// `frame` in `function` with `what` (the last part of its `unwind:` signature:
    /// `incomplete-row`, `no-row`, `cfa`, ...) where the reference's walk goes on truthfully.
    Walk {
        implementation: String,
        elf: String,
        frame: usize,
        function: String,
        what: Unwind,
    },
}

/// Where a whole-stack walk of a reader parted from the true stack (a [`Claim::Walk`] is
/// checked against these).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkSeen {
    pub frame: usize,
    pub function: String,
    /// The last part of the `unwind:` signature.
    pub what: Unwind,
}

/// How a producer claim's reproducer becomes an ELF file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "with", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Build {
    /// `<target>-as-<release> --gsframe SOURCE` from the provisioned toolchains.
    GnuAs { release: String, target: String },
    /// `llvm-mc-<release> -filetype=obj -triple=<target> --gsframe SOURCE`.
    LlvmMc { release: String, target: String },
    /// `<target>-gcc` (or the native `gcc` for x86_64-linux-gnu) with `flags -c`, through
    /// GNU as `as_release` with `--gsframe`, then, when `ld_release` is given, linked
    /// `-shared` by that release's ld.
    Gcc {
        target: String,
        flags: Vec<String>,
        as_release: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ld_release: Option<String>,
    },
    /// A file of the repository (`corpus/...`; `.xz` is decompressed), built by the script
    /// its README names.
    Corpus { path: String },
}

/// The row column a producer claim is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RowField {
    Cfa,
    Ra,
    Fp,
    /// No row at a PC that has one (`.eh_frame` or the emulator say so).
    NoRow,
    /// The row cannot be applied where the emulator stands (a rule reads memory that is
    /// not there).
    StepError,
}

impl RowField {
    /// Its name in oracle and crosscheck reports (`kind`).
    pub fn name(self) -> &'static str {
        match self {
            RowField::Cfa => "cfa",
            RowField::Ra => "ra",
            RowField::Fp => "fp",
            RowField::NoRow => "no-row",
            RowField::StepError => "step-error",
        }
    }
}

/// What a producer claim's row is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Checker {
    /// `sframe-conform crosscheck`: the same file's `.eh_frame`.
    EhFrame,
    /// `sframe-conform oracle`: the emulator running the code.
    Emulator,
}

/// One wrong row a producer check reported, as the claim compares it: `written` and
/// `required` are the rules of the claim's [`Claim::rule_column`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowSeen {
    pub function: String,
    pub offset: u64,
    /// `cfa`, `ra`, `fp`, `no-row`, ... (the report's kind).
    pub kind: String,
    pub written: Option<Loc>,
    pub required: Option<Loc>,
}

impl Claim {
    /// The reproducer file (relative to the finding's directory) the claim runs.
    pub fn input(&self) -> &str {
        match self {
            Claim::Value { input, .. }
            | Claim::Crash { input, .. }
            | Claim::Hang { input, .. }
            | Claim::AcceptedInvalid { input, .. }
            | Claim::Agrees { input, .. } => input,
            Claim::ProducerRow { source, .. }
            | Claim::ProducerViolation { source, .. }
            | Claim::ProducerFails { source, .. }
            | Claim::ProducerOmits { source, .. }
            | Claim::ReferenceRow { source, .. } => source,
            Claim::Walk { elf, .. } => elf,
        }
    }

    /// The reader the claim is about (`None` for producer claims).
    pub fn implementation(&self) -> Option<&str> {
        match self {
            Claim::Value { implementation, .. }
            | Claim::Crash { implementation, .. }
            | Claim::Hang { implementation, .. }
            | Claim::AcceptedInvalid { implementation, .. }
            | Claim::Agrees { implementation, .. }
            | Claim::Walk { implementation, .. } => Some(implementation),
            _ => None,
        }
    }

    /// Whether this is a producer's claim (built, not read by a reader).
    pub fn is_producer(&self) -> bool {
        self.implementation().is_none()
    }

    /// The row column a producer-row claim's `written` and `required` rules are of (the
    /// column a checker's [`RowSeen`] must be read from).
    pub fn rule_column(&self) -> Option<RowField> {
        match self {
            Claim::ProducerRow { field, rule_of, .. } => Some(rule_of.unwrap_or(*field)),
            _ => None,
        }
    }

    /// Check a producer-row claim against the rows its checker reported wrong.
    pub fn check_rows(&self, rows: &[RowSeen]) -> Result<(), String> {
        let Claim::ProducerRow {
            function,
            offset,
            field,
            written,
            required,
            ..
        } = self
        else {
            return Err("not a producer-row claim".into());
        };
        let hit = rows.iter().any(|r| {
            &r.function == function
                && r.offset == *offset
                && r.kind == field.name()
                && (*field == RowField::NoRow || r.written.as_ref() == Some(written))
                && required.is_none_or(|q| r.required == Some(q))
        });
        if hit {
            return Ok(());
        }
        let mut s = String::new();
        for r in rows.iter().take(8) {
            s.push_str(&format!(
                "\n  {}+{} {}: written {} required {}",
                r.function,
                r.offset,
                r.kind,
                r.written.map_or("-".into(), |l| l.to_string()),
                r.required.map_or("-".into(), |l| l.to_string())
            ));
        }
        Err(format!(
            "no {} row {written} at {function}+{offset}; wrong rows seen ({}):{s}",
            field.name(),
            rows.len()
        ))
    }
}

impl Claim {
    /// Check a reference-row claim: `read` is the reference's rule of the claim's column at
    /// the claimed offset (`None`: no row there), `checked` how many rows of the function the
    /// emulator checked, `wrong` the function's rows it found wrong.
    pub fn check_reference_row(
        &self,
        read: Option<Loc>,
        checked: u64,
        wrong: &[RowSeen],
    ) -> Result<(), String> {
        let Claim::ReferenceRow {
            function,
            offset,
            field,
            rule,
            ..
        } = self
        else {
            return Err("not a reference-row claim".into());
        };
        if read.as_ref() != Some(rule) {
            return Err(format!(
                "the reference reads {} {} at {function}+{offset}, not {rule}",
                field.name(),
                read.map_or("no row".into(), |l| l.to_string())
            ));
        }
        if checked == 0 {
            return Err(format!("the emulator checked no row of {function}"));
        }
        if let Some(r) = wrong.iter().find(|r| &r.function == function) {
            return Err(format!(
                "the emulator finds {function}+{} {} wrong (written {})",
                r.offset,
                r.kind,
                r.written.map_or("-".into(), |l| l.to_string())
            ));
        }
        Ok(())
    }

    /// Check a stack-walk claim against where the reader's walks parted from the true stack.
    pub fn check_walk(&self, seen: &[WalkSeen]) -> Result<(), String> {
        let Claim::Walk {
            implementation,
            frame,
            function,
            what,
            ..
        } = self
        else {
            return Err("not a stack-walk claim".into());
        };
        if seen
            .iter()
            .any(|w| w.frame == *frame && &w.function == function && w.what == *what)
        {
            return Ok(());
        }
        let list: Vec<String> = seen
            .iter()
            .take(8)
            .map(|w| format!("frame {} {}: {}", w.frame, w.function, w.what))
            .collect();
        Err(format!(
            "{implementation}'s walks do not stop at frame {frame} {function} with {what}; they part at: {}",
            if list.is_empty() {
                "nowhere (every walk is true)".into()
            } else {
                list.join(", ")
            }
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_producer_row_claim_needs_the_written_and_the_required_rule() {
        let slot = |offset| Loc::Expr {
            base: sframe_spec::Base::Cfa,
            offset,
            deref: true,
        };
        let c = Claim::ProducerRow {
            build: Build::GnuAs {
                release: "2.47".into(),
                target: "x86_64-linux-gnu".into(),
            },
            source: "repro.s".into(),
            function: "f0".into(),
            offset: 0,
            field: RowField::Ra,
            rule_of: None,
            written: slot(112),
            required: Some(slot(80427120)),
            by: Checker::EhFrame,
        };
        let row = |w, q| RowSeen {
            function: "f0".into(),
            offset: 0,
            kind: "ra".into(),
            written: Some(slot(w)),
            required: Some(slot(q)),
        };
        assert_eq!(c.check_rows(&[row(112, 80427120)]), Ok(()));
        assert!(c.check_rows(&[row(80427120, 80427120)]).is_err());
        assert!(c.check_rows(&[row(112, 112)]).is_err());
        assert!(c.check_rows(&[]).is_err());
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<Claim>(&json).unwrap(), c);
    }

    #[test]
    fn a_reference_row_claim_needs_the_rule_and_an_emulator_that_agrees() {
        let r11 = |offset| Loc::Expr {
            base: sframe_spec::Base::Reg(11),
            offset,
            deref: false,
        };
        let c = Claim::ReferenceRow {
            build: Build::GnuAs {
                release: "2.47".into(),
                target: "s390x-linux-gnu".into(),
            },
            source: "repro.s".into(),
            function: "leaf".into(),
            offset: 8,
            field: RowField::Cfa,
            rule: r11(160),
        };
        assert_eq!(c.check_reference_row(Some(r11(160)), 40, &[]), Ok(()));
        assert!(c.check_reference_row(Some(r11(0)), 40, &[]).is_err());
        assert!(c.check_reference_row(None, 40, &[]).is_err());
        assert!(c.check_reference_row(Some(r11(160)), 0, &[]).is_err());
        let wrong = RowSeen {
            function: "leaf".into(),
            offset: 8,
            kind: "cfa".into(),
            written: Some(r11(0)),
            required: None,
        };
        assert!(c
            .check_reference_row(Some(r11(160)), 40, std::slice::from_ref(&wrong))
            .is_err());
        let elsewhere = RowSeen {
            function: "other".into(),
            ..wrong
        };
        assert_eq!(
            c.check_reference_row(Some(r11(160)), 40, &[elsewhere]),
            Ok(())
        );
        assert!(c.is_producer());
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<Claim>(&json).unwrap(), c);
    }

    #[test]
    fn a_walk_claim_needs_the_frame_the_function_and_the_stop() {
        let c = Claim::Walk {
            implementation: "glibc-2.43".into(),
            elf: "corpus/elf/x".into(),
            frame: 0,
            function: "ext_use".into(),
            what: Unwind::IncompleteRow,
        };
        let seen = |frame, function: &str, what| WalkSeen {
            frame,
            function: function.into(),
            what,
        };
        assert_eq!(
            c.check_walk(&[seen(0, "ext_use", Unwind::IncompleteRow)]),
            Ok(())
        );
        assert!(c
            .check_walk(&[seen(1, "ext_use", Unwind::IncompleteRow)])
            .is_err());
        assert!(c
            .check_walk(&[seen(0, "main", Unwind::IncompleteRow)])
            .is_err());
        assert!(c.check_walk(&[seen(0, "ext_use", Unwind::NoRow)]).is_err());
        assert!(c.check_walk(&[]).is_err());
        assert!(!c.is_producer());
    }
}
