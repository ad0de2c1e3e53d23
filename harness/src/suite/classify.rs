//! The class and expectations of one section: the reference's view of it (the engine's,
//! [`crate::diff::reference_view_of`]) and the rule catalogue make its [`CaseFile`].

use super::format::{Broken, CaseFile, Class, Lookup, MAX_PCS};
use crate::diff::{pcs_for, reference_view_of};
use crate::impls::reference::Reference;
use crate::impls::{section_version, Implementation, Outcome};
use crate::signature::VersionTag;
use sframe_spec::rules::Severity;
use sframe_spec::validate;

impl Class {
    /// The class of a section the reference decodes as `decoded` (an answer or not), `valid`
    /// when it breaks no error-severity rule.
    pub fn of<T>(decoded: &Outcome<T>, valid: bool) -> Class {
        match (decoded.value(), valid) {
            (None, _) => Class::Malformed,
            (Some(_), true) => Class::Valid,
            (Some(_), false) => Class::Invalid,
        }
    }
}

/// Classify one section with the reference and the validator: its case file, named `name`.
pub fn classify(name: &str, source: &str, data: &[u8]) -> CaseFile {
    let violations = validate(data);
    let broken = |sev: Severity| -> Vec<Broken> {
        violations
            .iter()
            .filter(|v| v.rule.info().severity == sev)
            .map(|v| Broken {
                rule: v.rule.id().to_string(),
                offset: v.offset,
                function: v.function,
                fre: v.fre,
                message: v.to_string(),
            })
            .collect()
    };
    let view = reference_view_of(data, &violations);
    let class = Class::of(&view.decoded, view.valid);
    let mut case = CaseFile {
        name: name.to_string(),
        class,
        version: VersionTag::of(data),
        version_byte: section_version(data).map(|v| v.number()),
        file: format!("{name}.sframe"),
        size: data.len(),
        source: source.to_string(),
        expected_decode: None,
        expected_rows: None,
        rules_broken: None,
        decode_error: None,
        warnings: broken(Severity::Warning),
    };
    match view.decoded {
        Outcome::Ok { value } => {
            if class == Class::Valid {
                let pcs = pcs_for(data, Some(&value), MAX_PCS);
                let rows = Reference
                    .find_fres(data, &pcs)
                    .into_iter()
                    .zip(pcs)
                    .filter_map(|(o, pc)| match o {
                        Outcome::Ok { value } => Some(Lookup { pc, row: value }),
                        _ => None,
                    })
                    .collect();
                case.expected_rows = Some(rows);
            } else {
                case.rules_broken = Some(broken(Severity::Error));
            }
            case.expected_decode = Some(value);
        }
        other => {
            if let Outcome::Rejected { class, .. } = &other {
                case.decode_error = Some(class.to_string());
            }
            case.rules_broken = Some(broken(Severity::Error));
        }
    }
    case
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The README's classes: a section the reference decodes is valid when it breaks no
    /// error-severity rule and invalid when it breaks one; one it cannot decode is
    /// malformed, whatever the rules say.
    #[test]
    fn a_section_s_class_is_the_reference_s_answer_and_the_rules() {
        let decoded: Outcome<()> = Outcome::ok(());
        let refused: Outcome<()> = Outcome::rejected("HDR-MAGIC", None);
        assert_eq!(Class::of(&decoded, true), Class::Valid);
        assert_eq!(Class::of(&decoded, false), Class::Invalid);
        assert_eq!(Class::of(&refused, false), Class::Malformed);
        assert_eq!(Class::of(&refused, true), Class::Malformed);
    }

    /// Four bytes are no section (the SFrame header alone is 28): malformed, with the rules
    /// broken listed and no expectations of a decode.
    #[test]
    fn a_truncated_section_is_malformed() {
        let case = classify("x", "test", &[0xe2, 0xde, 2, 0]);
        assert_eq!(case.class, Class::Malformed);
        assert!(case.rules_broken.as_ref().is_some_and(|r| !r.is_empty()));
        assert!(case.expected_decode.is_none() && case.expected_rows.is_none());
        assert!(case.decode_error.is_some());
    }
}
