//! Ledger patterns: a signature whose layout tag (and an oracle signature's ABI, a
//! violation's corpus path) may be left open, matched part by part.

use super::{split, Class, LayoutTag, OracleAbi, ParseError, Signature, Tool};
use std::fmt;
use std::str::FromStr;

/// What was wrong with a ledger pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternError {
    /// Its text is not a signature (with the open parts filled in).
    Parse(ParseError),
    /// A part that must be named is left open (`*`): the 1-based part number and its text.
    Open { part: usize, text: String },
    /// A reader's value disagreement: explained by quirks, never by patterns.
    ReaderValue,
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PatternError::Parse(e) => write!(f, "{e}"),
            PatternError::Open { part, text } => {
                write!(f, "part {part} ({text:?}) must be named, not left open")
            }
            PatternError::ReaderValue => f.write_str(
                "a reader's value disagreements and refusals of valid sections are explained by quirks, not by patterns",
            ),
        }
    }
}

impl std::error::Error for PatternError {}

impl From<ParseError> for PatternError {
    fn from(e: ParseError) -> Self {
        PatternError::Parse(e)
    }
}

/// A layout tag or a glob over tags (`*`, `v1*`, `v2-pcrel*`, `v*-aux*`: `*` is any run of
/// characters of the tag).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TagPattern {
    Exact(LayoutTag),
    Glob(String),
}

impl TagPattern {
    pub fn matches(&self, tag: &LayoutTag) -> bool {
        match self {
            TagPattern::Exact(t) => t == tag,
            TagPattern::Glob(g) => glob_matches(g, &tag.to_string()),
        }
    }
}

impl fmt::Display for TagPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TagPattern::Exact(t) => write!(f, "{t}"),
            TagPattern::Glob(g) => f.write_str(g),
        }
    }
}

impl FromStr for TagPattern {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<TagPattern, ParseError> {
        if !s.contains('*') {
            return s.parse().map(TagPattern::Exact);
        }
        // Only what a tag holds, and `*`.
        let ok = s.starts_with(['v', '*'])
            && s.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-?*".contains(&b));
        if ok {
            Ok(TagPattern::Glob(s.to_string()))
        } else {
            Err(ParseError::BadTag(s.to_string()))
        }
    }
}

/// A ledger pattern: a [`Signature`] whose open parts are the layout tag ([`TagPattern`]),
/// an oracle signature's ABI (`*`) and a violation's corpus path (a glob). Every other
/// part (class, implementation and release, operation, field, rule, error class, signal,
/// site, function) is named and must be equal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignaturePattern {
    /// The named parts; the open ones hold placeholders.
    named: Signature,
    tag: Option<TagPattern>,
    /// An oracle pattern's ABI is `*`.
    any_abi: bool,
    /// A violation pattern's corpus path (a glob).
    path: Option<String>,
}

/// Placeholder texts for the open parts while the rest is parsed as a signature.
const TAG: &str = "v?";
const ABI: &str = "amd64";
const PATH: &str = "-";

impl SignaturePattern {
    pub fn class(&self) -> Class {
        self.named.class()
    }

    /// The implementation or encoder the pattern names ([`Signature::imp`]).
    pub fn imp(&self) -> Option<&Tool> {
        self.named.imp()
    }

    /// The pattern that names `sig` and nothing else (a reader's value disagreement has
    /// none: quirks explain it).
    pub fn exact(sig: &Signature) -> Result<SignaturePattern, PatternError> {
        if sig.is_reader_value() {
            return Err(PatternError::ReaderValue);
        }
        let mut named = sig.clone();
        let tag = tag_mut(&mut named).map(|t| TagPattern::Exact(std::mem::take(t)));
        let path = match &mut named {
            Signature::Violation { path, .. } => Some(std::mem::replace(path, PATH.to_string())),
            _ => None,
        };
        Ok(SignaturePattern {
            named,
            tag,
            any_abi: false,
            path,
        })
    }

    /// Whether `sig` is one this pattern names.
    pub fn matches(&self, sig: &Signature) -> bool {
        if sig.class() != self.named.class() {
            return false;
        }
        let mut s = sig.clone();
        if let Some(t) = &self.tag {
            match tag_mut(&mut s) {
                Some(tag) if t.matches(tag) => *tag = LayoutTag::default(),
                _ => return false,
            }
        }
        match &mut s {
            Signature::Oracle { abi, .. } | Signature::Crosscheck { abi, .. } if self.any_abi => {
                *abi = OracleAbi::Amd64
            }
            Signature::Violation { path, .. } => match &self.path {
                Some(g) if glob_matches(g, path) => *path = PATH.to_string(),
                _ => return false,
            },
            _ => {}
        }
        s == self.named
    }
}

fn tag_mut(s: &mut Signature) -> Option<&mut LayoutTag> {
    match s {
        Signature::Diff { tag, .. }
        | Signature::RejectedValid { tag, .. }
        | Signature::AcceptedInvalid { tag, .. }
        | Signature::Crash { tag, .. }
        | Signature::Hang { tag, .. }
        | Signature::Unwind { tag, .. }
        | Signature::Producer { tag, .. } => Some(tag),
        Signature::Oracle { .. } | Signature::Crosscheck { .. } | Signature::Violation { .. } => {
            None
        }
    }
}

impl FromStr for SignaturePattern {
    type Err = PatternError;
    fn from_str(s: &str) -> Result<SignaturePattern, PatternError> {
        let (class, parts) = split(s)?;
        let mut text: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
        let mut tag = None;
        let mut any_abi = false;
        let mut path = None;
        // The positions that may be open, per class.
        match class {
            Class::Oracle | Class::Crosscheck => {
                if text[2] == "*" {
                    any_abi = true;
                    text[2] = ABI.into();
                }
            }
            Class::Violation => {
                path = Some(text[2..].join(":"));
                text.truncate(2);
                text.push(PATH.into());
            }
            _ => {
                tag = Some(text[2].parse::<TagPattern>()?);
                text[2] = TAG.into();
            }
        }
        if let Some(i) = text.iter().position(|t| t.contains('*')) {
            return Err(PatternError::Open {
                part: i + 1,
                text: parts[i..].join(":"),
            });
        }
        let named: Signature = text.join(":").parse()?;
        if named.is_reader_value() {
            return Err(PatternError::ReaderValue);
        }
        Ok(SignaturePattern {
            named,
            tag,
            any_abi,
            path,
        })
    }
}

/// Whether `text` matches `pattern`, where `*` stands for any run of characters. Greedy
/// with backtracking to the last `*`: linear in practice, never worse than quadratic.
pub(crate) fn glob_matches(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None; // (pattern index after '*', text index)
    while j < t.len() {
        if i < p.len() && p[i] == b'*' {
            star = Some((i + 1, j));
            i += 1;
        } else if i < p.len() && p[i] == t[j] {
            i += 1;
            j += 1;
        } else if let Some((pi, tj)) = star {
            i = pi;
            j = tj + 1;
            star = Some((pi, tj + 1));
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == b'*')
}

// In finding.json as its text; one that does not parse is an error quoting it.
serde_as_text!(SignaturePattern, |s: &str| s
    .parse::<SignaturePattern>()
    .map_err(|e| format!("signature pattern {s:?}: {e}")));

impl fmt::Display for SignaturePattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let named = self.named.to_string();
        // class:first:second:rest; the open part is the second (tag, ABI) or, for a
        // violation, the rest after the rule.
        let p: Vec<&str> = named.splitn(4, ':').collect();
        match (&self.tag, self.any_abi, &self.path) {
            (Some(t), _, _) => write!(f, "{}:{}:{t}:{}", p[0], p[1], p[3]),
            (None, true, _) => write!(f, "{}:{}:*:{}", p[0], p[1], p[3]),
            (None, false, Some(path)) => write!(f, "{}:{}:{path}", p[0], p[1]),
            (None, false, None) => f.write_str(&named),
        }
    }
}
