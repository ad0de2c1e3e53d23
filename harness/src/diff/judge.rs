//! The one judge of an answer: what an implementation's [`Outcome`] is, set against whether
//! the section it answered on is valid. The engine's classification (`classify`) and the
//! suite's scoring ([`crate::suite`]) both start from it; the values of an answer on a
//! valid section are then compared field by field ([`super::compare`]).

use crate::impls::Outcome;
use crate::signature::ErrorClass;

/// What an answer is, on a section the reference holds valid or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judgement<'a, T> {
    /// The implementation crashed or did not answer in time: a finding on any section
    /// ([`super::failure`] gives its discrepancy).
    Failed,
    /// It cannot answer this question: counted as such, never as agreement.
    Unsupported,
    /// It refused a section that breaks an error-severity rule: what a validating reader does.
    RefusedInvalid,
    /// It answered on a section that breaks an error-severity rule.
    AcceptedInvalid,
    /// It refused a valid section.
    RejectedValid {
        class: &'a ErrorClass,
        detail: &'a Option<String>,
    },
    /// It answered on a valid section: its value is to be compared with the expected one.
    Answered(&'a T),
}

/// Judge `answer`, given on a section that is `valid` (breaks no error-severity rule) or not.
pub fn judge<T>(answer: &Outcome<T>, valid: bool) -> Judgement<'_, T> {
    match (answer, valid) {
        (Outcome::Crashed { .. } | Outcome::Hung { .. }, _) => Judgement::Failed,
        (Outcome::Unsupported { .. }, _) => Judgement::Unsupported,
        (Outcome::Rejected { .. }, false) => Judgement::RefusedInvalid,
        (Outcome::Ok { .. }, false) => Judgement::AcceptedInvalid,
        (Outcome::Rejected { class, detail }, true) => Judgement::RejectedValid { class, detail },
        (Outcome::Ok { value }, true) => Judgement::Answered(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every answer on a valid and on an invalid section: the table of the engine's classes
    /// (`diff` module documentation) — a crash or hang is a finding on either, a refusal is
    /// one only on a valid section, an answer only on an invalid one.
    #[test]
    fn each_answer_on_each_kind_of_section() {
        let ok: Outcome<u8> = Outcome::ok(7);
        let refused: Outcome<u8> = Outcome::rejected("SFRAME_ERR_BUF_INVAL", None);
        let crashed: Outcome<u8> = Outcome::Crashed {
            signal: crate::signature::Signal::named("SIGSEGV"),
            site: None,
            repeated: None,
            detail: None,
        };
        let hung: Outcome<u8> = Outcome::Hung { timeout_ms: 10 };
        let unsupported: Outcome<u8> = Outcome::unsupported("v1");
        assert_eq!(judge(&ok, true), Judgement::Answered(&7));
        assert_eq!(judge(&ok, false), Judgement::AcceptedInvalid);
        assert!(matches!(
            judge(&refused, true),
            Judgement::RejectedValid { class, detail: None } if *class == ErrorClass::named("SFRAME_ERR_BUF_INVAL")
        ));
        assert_eq!(judge(&refused, false), Judgement::RefusedInvalid);
        for valid in [true, false] {
            assert_eq!(judge(&crashed, valid), Judgement::Failed);
            assert_eq!(judge(&hung, valid), Judgement::Failed);
            assert_eq!(judge(&unsupported, valid), Judgement::Unsupported);
        }
    }
}
