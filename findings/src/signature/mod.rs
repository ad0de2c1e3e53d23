//! Signatures: the stable names of what disagreed, where, that the findings ledger matches.
//!
//! A [`Signature`] is typed: its class and the parts each class has (implementation and
//! release, [layout tag](LayoutTag), [operation](Op), and the class's detail: a compared
//! [field](Field) with its look-up context, a rule, an error class, a crash's signal and
//! [site](CrashSite), ...). [`Display`](std::fmt::Display) prints the ledger's string syntax
//! and [`FromStr`](std::str::FromStr) reads it back; every signature of the ledger
//! round-trips (see the tests). The classes:
//!
//! | class | string |
//! |---|---|
//! | diff | `diff:<impl>:<tag>:<op>:<field>` |
//! | rejected-valid | `rejected-valid:<impl>:<tag>:<op>:<error class>` |
//! | accepted-invalid | `accepted-invalid:<impl>:<tag>:<malformed\|invalid>:<RULE-ID>` |
//! | crash | `crash:<impl>:<tag>:<op>:<signal>[:<site>]` |
//! | hang | `hang:<impl>:<tag>:<op>` |
//! | unwind | `unwind:<impl>:<tag>:<what>` |
//! | producer | `producer:<impl>:<tag>:<RULE-ID>` |
//! | oracle | `oracle:<producer>:<abi>:<function>:<kind>` |
//! | crosscheck | `crosscheck:<producer>:<abi>:<shape>:<kind>` |
//! | violation | `violation:<RULE-ID>:<corpus path>` |
//!
//! Ledger entries hold [`SignaturePattern`]s: the same parts, matched one by one, where only
//! the layout tag (and an oracle or crosscheck signature's ABI, a violation's corpus path)
//! may be left open.

/// Serde through a type's text: written with its `Display`, read with `$parse` (`&str` to
/// `Result<$t, impl Display>`). Exported for the types of other crates that travel as their
/// text (the harness's `UnsupportedReason`); the caller's crate must depend on `serde`.
#[macro_export]
macro_rules! serde_as_text {
    ($t:ty, $parse:expr) => {
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        impl<'de> serde::Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$t, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                $parse(&s).map_err(serde::de::Error::custom)
            }
        }
    };
}

mod crash;
mod error_class;
pub mod field;
mod pattern;
mod shape;
mod tag;

pub use crash::{CrashSite, Signal, FAULT_LINE};
pub use error_class::ErrorClass;
pub use field::{Field, FieldPath};
pub use pattern::{PatternError, SignaturePattern, TagPattern};
pub use shape::{Shape, Unexpressible};
pub use tag::{LayoutTag, VersionTag};

use sframe_spec::Rule;
use std::fmt;
use std::str::FromStr;

/// What was wrong with a signature's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseError {
    /// The first part names no class.
    UnknownClass(String),
    /// Fewer or more `:`-separated parts than the class has.
    Parts {
        class: Class,
        found: usize,
        expected: &'static str,
    },
    /// Not an implementation (or producer tool) name: empty, or holding characters no
    /// name has.
    UnknownImplementation(String),
    /// A release part that is empty or holds `:` or `+`.
    BadRelease(String),
    /// Not a layout tag (`v1`, `v2-pcrel-aux`, `v?`, ...).
    BadTag(String),
    /// Not `decode`, `find_fre` or `encode`.
    UnknownOp(String),
    /// Not a field the comparison reports, or a look-up context in the wrong place.
    UnknownField(String),
    /// Not a rule ID of the catalogue.
    UnknownRule(String),
    /// Not `malformed` or `invalid`.
    UnknownRuleClass(String),
    /// An empty error class, crash site, function or path.
    Empty(&'static str),
    /// Not a signal, exit or panic as the adapters name them.
    UnknownSignal(String),
    /// Not a function, source location or named site class.
    BadSite(String),
    /// Not a failure an unwinder check names.
    UnknownUnwind(String),
    /// Not an ABI the oracle runs.
    UnknownAbi(String),
    /// Not a mismatch kind the oracle reports.
    UnknownOracleKind(String),
    /// Not a disagreement kind `crosscheck` reports.
    UnknownCrosscheckKind(String),
    /// Not a reason why SFrame cannot express a CFI row.
    UnknownUnexpressible(String),
    /// Not a CFI shape (`[plt-]<rule>[@unexpressible-<why>]...`).
    BadShape(String),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::UnknownClass(c) => write!(f, "unknown class {c:?}"),
            ParseError::Parts {
                class,
                found,
                expected,
            } => write!(
                f,
                "has {found} parts, the class {} needs {expected}",
                class.name()
            ),
            ParseError::UnknownImplementation(s) => write!(f, "unknown implementation {s:?}"),
            ParseError::BadRelease(s) => write!(f, "bad release {s:?}"),
            ParseError::BadTag(s) => write!(f, "bad layout tag {s:?}"),
            ParseError::UnknownOp(s) => write!(f, "unknown operation {s:?}"),
            ParseError::UnknownField(s) => write!(f, "unknown field {s:?}"),
            ParseError::UnknownRule(s) => write!(f, "unknown rule {s:?}"),
            ParseError::UnknownRuleClass(s) => write!(f, "unknown rule class {s:?}"),
            ParseError::Empty(what) => write!(f, "empty {what}"),
            ParseError::UnknownSignal(s) => write!(f, "unknown signal {s:?}"),
            ParseError::BadSite(s) => write!(f, "bad crash site {s:?}"),
            ParseError::UnknownUnwind(s) => write!(f, "unknown unwind failure {s:?}"),
            ParseError::UnknownAbi(s) => write!(f, "unknown ABI {s:?}"),
            ParseError::UnknownOracleKind(s) => write!(f, "unknown oracle kind {s:?}"),
            ParseError::UnknownCrosscheckKind(s) => write!(f, "unknown crosscheck kind {s:?}"),
            ParseError::UnknownUnexpressible(s) => write!(f, "unknown unexpressible reason {s:?}"),
            ParseError::BadShape(s) => write!(f, "bad CFI shape {s:?}"),
        }
    }
}

impl std::error::Error for ParseError {}

/// Closed sets named by fixed strings: one table gives both directions.
macro_rules! named {
    ($(#[$m:meta])* $vis:vis enum $name:ident { $( $(#[$vm:meta])* $v:ident = $s:literal, )* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name { $( $(#[$vm])* $v, )* }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[ $( $name::$v, )* ];

            /// Its name in signatures.
            pub fn name(self) -> &'static str {
                match self { $( $name::$v => $s, )* }
            }

            /// The value named `s`.
            pub fn from_name(s: &str) -> Option<$name> {
                match s { $( $s => Some($name::$v), )* _ => None }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        /// Serialized as its name.
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        /// Read from its name.
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                $name::from_name(&s).ok_or_else(|| {
                    serde::de::Error::custom(format!(concat!("unknown ", stringify!($name), " {:?}"), s))
                })
            }
        }
    };
}
pub(crate) use named;

/// Serde through the type's text: written by `Display`, read by `FromStr`.
macro_rules! text_serde {
    ($($t:ty),*) => {$(
        serde_as_text!($t, str::parse::<$t>);
    )*};
}
pub(crate) use text_serde;

named! {
    /// A signature's class: its first part.
    pub enum Class {
        Diff = "diff",
        RejectedValid = "rejected-valid",
        AcceptedInvalid = "accepted-invalid",
        Crash = "crash",
        Hang = "hang",
        Unwind = "unwind",
        Producer = "producer",
        Oracle = "oracle",
        Crosscheck = "crosscheck",
        Violation = "violation",
    }
}

named! {
    /// The operation a discrepancy was seen in.
    pub enum Op {
        Decode = "decode",
        FindFre = "find_fre",
        Encode = "encode",
    }
}

named! {
    /// Implementations and producer tools the suite knows, longest names first where one
    /// begins another (`llvm-readobj` before `llvm`).
    pub enum ToolName {
        Libsframe = "libsframe",
        Objdump = "objdump",
        LlvmReadobj = "llvm-readobj",
        /// `llvm-mc -filetype=obj --gsframe`, the `produce` check's LLVM producer.
        LlvmMc = "llvm-mc",
        SimpleFrameRs = "simple-frame-rs",
        Reference = "reference",
        GnuAs = "gnu-as",
        Ld = "ld",
        Llvm = "llvm",
        /// glibc's SFrame reader (`sysdeps/generic/sframe-read.c`), hosted by the worker.
        Glibc = "glibc",
    }
}

/// An implementation (or producer tool) and its release: `libsframe-2.47`,
/// `simple-frame-rs` (no release part), `gnu-as-2.44`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tool {
    pub name: ToolKind,
    pub release: Option<String>,
}

/// A known tool, or another one (an external program speaking the JSON-lines protocol, a
/// downstream crate's own implementation), named as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ToolKind {
    Known(ToolName),
    Other(String),
}

impl Tool {
    /// The tool an implementation's name says, e.g. `Implementation::name()`; never fails
    /// (a name the suite does not know is kept as it is).
    pub fn named(s: &str) -> Tool {
        s.parse().unwrap_or_else(|_| Tool {
            name: ToolKind::Other(s.to_string()),
            release: None,
        })
    }
}

impl Tool {
    /// Whether this is a release of the known tool `name`.
    pub fn is(&self, name: ToolName) -> bool {
        self.name == ToolKind::Known(name)
    }
}

impl fmt::Display for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.name {
            ToolKind::Known(n) => f.write_str(n.name())?,
            ToolKind::Other(s) => f.write_str(s)?,
        }
        match &self.release {
            Some(r) => write!(f, "-{r}"),
            None => Ok(()),
        }
    }
}

impl FromStr for Tool {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Tool, ParseError> {
        let bad = || ParseError::UnknownImplementation(s.to_string());
        // The longest known name that is all of `s` or followed by `-<release>`.
        let mut best: Option<(ToolName, Option<&str>)> = None;
        for &n in ToolName::ALL {
            let release = if s == n.name() {
                None
            } else if let Some(r) = s.strip_prefix(n.name()).and_then(|r| r.strip_prefix('-')) {
                Some(r)
            } else {
                continue;
            };
            if best.is_none_or(|(b, _)| b.name().len() < n.name().len()) {
                best = Some((n, release));
            }
        }
        let Some((name, release)) = best else {
            // A downstream crate's own implementation (`tiny-sframe`): kept whole.
            let plain = !s.is_empty()
                && s.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"-_.".contains(&b));
            return if plain {
                Ok(Tool {
                    name: ToolKind::Other(s.to_string()),
                    release: None,
                })
            } else {
                Err(bad())
            };
        };
        if let Some(r) = release {
            if r.is_empty()
                || r.contains([':', '+', '*'])
                || !r.starts_with(|c: char| c.is_ascii_digit())
            {
                return Err(ParseError::BadRelease(r.to_string()));
            }
        }
        Ok(Tool {
            name: ToolKind::Known(name),
            release: release.map(str::to_string),
        })
    }
}

/// The tools that produced an oracle's binary, `+`-joined: `gnu-as-2.44+ld-2.44`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Producer(pub Vec<Tool>);

impl fmt::Display for Producer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("+")?;
            }
            write!(f, "{t}")?;
        }
        Ok(())
    }
}

impl FromStr for Producer {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Producer, ParseError> {
        s.split('+')
            .map(str::parse)
            .collect::<Result<_, _>>()
            .map(Producer)
    }
}

impl Producer {
    /// The producer a name says (never fails: see [`Tool::named`]).
    pub fn named(s: &str) -> Producer {
        s.parse().unwrap_or_else(|_| Producer(vec![Tool::named(s)]))
    }
}

named! {
    /// A rule's class, as accepted-invalid signatures name it.
    pub enum RuleClass {
        /// The bytes cannot be read as the header says.
        Malformed = "malformed",
        Invalid = "invalid",
    }
}

impl RuleClass {
    /// The class of `rule` in the catalogue.
    pub fn of(rule: Rule) -> RuleClass {
        match rule.info().class {
            sframe_spec::rules::Class::Malformed => RuleClass::Malformed,
            _ => RuleClass::Invalid,
        }
    }
}

named! {
    /// Where an unwinder's walk departs from the true frames (`cli`'s stack walk check).
    pub enum Unwind {
        Cfa = "cfa",
        Ra = "ra",
        Fp = "fp",
        NoRow = "no-row",
        IncompleteRow = "incomplete-row",
        Rejected = "rejected",
        Crashed = "crashed",
        Hung = "hung",
        Unsupported = "unsupported",
        Step = "step",
    }
}

named! {
    /// The ABIs the oracle runs, as its signatures name them.
    pub enum OracleAbi {
        Amd64 = "amd64",
        Aarch64 = "aarch64",
        Aarch64Be = "aarch64-be",
        S390x = "s390x",
    }
}

impl From<sframe_spec::Abi> for OracleAbi {
    fn from(abi: sframe_spec::Abi) -> OracleAbi {
        match abi {
            sframe_spec::Abi::Amd64 => OracleAbi::Amd64,
            sframe_spec::Abi::Aarch64Le => OracleAbi::Aarch64,
            sframe_spec::Abi::Aarch64Be => OracleAbi::Aarch64Be,
            sframe_spec::Abi::S390x => OracleAbi::S390x,
        }
    }
}

named! {
    /// What an oracle mismatch is about.
    pub enum OracleKind {
        Cfa = "cfa",
        Ra = "ra",
        Fp = "fp",
        RaDeadSlot = "ra-dead-slot",
        FpDeadSlot = "fp-dead-slot",
        NoRow = "no-row",
        StepError = "step-error",
        /// A producer's FDE `signal_p` differs from the CFI's `S` augmentation.
        Signal = "signal",
        /// A producer's FDE `pauth_key` differs from the CFI's `B` augmentation.
        PauthKey = "pauth-key",
        /// The producer gave up on its own internal check (an assertion).
        AssemblerFailed = "assembler-failed",
    }
}

named! {
    /// What a `crosscheck` disagreement (a file's SFrame rows against its own `.eh_frame`)
    /// is about.
    pub enum CrosscheckKind {
        Cfa = "cfa",
        Ra = "ra",
        Fp = "fp",
        /// The RA's mangled (signed) state.
        RaMangled = "ra-mangled",
        /// No SFrame row at a PC of a function SFrame describes.
        NoRow = "no-row",
        /// The SFrame section cannot be read at a PC.
        StepError = "step-error",
        /// The FDE's signal-frame bit differs from the CFI's `S` augmentation.
        Signal = "signal",
        /// The FDE's `pauth_key` differs from the CFI's `B` augmentation.
        PauthKey = "pauth-key",
    }
}

/// What `produce` names a producer's disagreement with its CFI in an oracle signature: the
/// crosscheck's kind, a mangled RA's state counted as `ra`.
impl From<CrosscheckKind> for OracleKind {
    fn from(k: CrosscheckKind) -> OracleKind {
        match k {
            CrosscheckKind::Cfa => OracleKind::Cfa,
            CrosscheckKind::Ra | CrosscheckKind::RaMangled => OracleKind::Ra,
            CrosscheckKind::Fp => OracleKind::Fp,
            CrosscheckKind::NoRow => OracleKind::NoRow,
            CrosscheckKind::StepError => OracleKind::StepError,
            CrosscheckKind::Signal => OracleKind::Signal,
            CrosscheckKind::PauthKey => OracleKind::PauthKey,
        }
    }
}

/// An oracle mismatch's kind part: `stack-` before it when a caller's frame (not the
/// innermost one) is wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OracleMismatch {
    pub stack: bool,
    pub kind: OracleKind,
}

impl fmt::Display for OracleMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.stack {
            f.write_str("stack-")?;
        }
        f.write_str(self.kind.name())
    }
}

/// A mismatch of the executing frame (not a caller's).
impl From<OracleKind> for OracleMismatch {
    fn from(kind: OracleKind) -> OracleMismatch {
        OracleMismatch { stack: false, kind }
    }
}

impl FromStr for OracleMismatch {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Self, ParseError> {
        let (stack, k) = match s.strip_prefix("stack-") {
            Some(k) => (true, k),
            None => (false, s),
        };
        let kind =
            OracleKind::from_name(k).ok_or_else(|| ParseError::UnknownOracleKind(s.into()))?;
        Ok(OracleMismatch { stack, kind })
    }
}

/// A typed signature: the class and the parts it has.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Signature {
    /// A value that differs from the reference's (or from the model, for an encoder).
    Diff {
        imp: Tool,
        tag: LayoutTag,
        op: Op,
        field: Field,
    },
    /// A refusal of a valid section (or model), with the implementation's error class.
    RejectedValid {
        imp: Tool,
        tag: LayoutTag,
        op: Op,
        error: ErrorClass,
    },
    /// A section that breaks `rule` decoded without complaint.
    AcceptedInvalid {
        imp: Tool,
        tag: LayoutTag,
        class: RuleClass,
        rule: Rule,
    },
    /// The implementation died.
    Crash {
        imp: Tool,
        tag: LayoutTag,
        op: Op,
        signal: Signal,
        site: Option<CrashSite>,
    },
    /// The implementation did not answer in time.
    Hang { imp: Tool, tag: LayoutTag, op: Op },
    /// A stack walk with the implementation's rows departs from the true frames.
    Unwind {
        imp: Tool,
        tag: LayoutTag,
        what: Unwind,
    },
    /// An encoder wrote a section breaking `rule`.
    Producer {
        imp: Tool,
        tag: LayoutTag,
        rule: Rule,
    },
    /// The SFrame rows of a function do not recover the emulator's truth.
    Oracle {
        producer: Producer,
        abi: OracleAbi,
        function: String,
        kind: OracleMismatch,
    },
    /// A file's SFrame rows disagree with its own `.eh_frame` (`sframe-conform
    /// crosscheck`): `shape` names the CFI's rule and the SFrame row's where they differ
    /// (`cfi-cfa-sp-offset`, `plt-` before it in a PLT section, `@unexpressible-<why>` after
    /// it where no SFrame row can say what the CFI says: [`Shape`]).
    Crosscheck {
        producer: Producer,
        abi: OracleAbi,
        shape: Shape,
        kind: CrosscheckKind,
    },
    /// A file of the producer corpus breaks `rule`.
    Violation { rule: Rule, path: String },
}

impl Signature {
    /// An oracle signature: `function`'s rows (or a shape standing for it) written by
    /// `producer` do not recover the truth, as `kind` says.
    pub fn oracle(
        producer: &Producer,
        abi: OracleAbi,
        function: impl Into<String>,
        kind: impl Into<OracleMismatch>,
    ) -> Signature {
        Signature::Oracle {
            producer: producer.clone(),
            abi,
            function: function.into(),
            kind: kind.into(),
        }
    }

    pub fn class(&self) -> Class {
        match self {
            Signature::Diff { .. } => Class::Diff,
            Signature::RejectedValid { .. } => Class::RejectedValid,
            Signature::AcceptedInvalid { .. } => Class::AcceptedInvalid,
            Signature::Crash { .. } => Class::Crash,
            Signature::Hang { .. } => Class::Hang,
            Signature::Unwind { .. } => Class::Unwind,
            Signature::Producer { .. } => Class::Producer,
            Signature::Oracle { .. } => Class::Oracle,
            Signature::Crosscheck { .. } => Class::Crosscheck,
            Signature::Violation { .. } => Class::Violation,
        }
    }

    /// The implementation or encoder, for the classes that name one (not the oracle's,
    /// crosscheck's or corpus's, which name a producer or nothing).
    pub fn imp(&self) -> Option<&Tool> {
        self.reader().map(|(imp, _)| imp)
    }

    /// The layout tag, for the classes that name one (a reader's or an encoder's).
    pub fn tag(&self) -> Option<LayoutTag> {
        self.reader().map(|(_, tag)| *tag)
    }

    /// The implementation and layout tag of a reader's or an encoder's signature.
    fn reader(&self) -> Option<(&Tool, &LayoutTag)> {
        match self {
            Signature::Diff { imp, tag, .. }
            | Signature::RejectedValid { imp, tag, .. }
            | Signature::AcceptedInvalid { imp, tag, .. }
            | Signature::Crash { imp, tag, .. }
            | Signature::Hang { imp, tag, .. }
            | Signature::Unwind { imp, tag, .. }
            | Signature::Producer { imp, tag, .. } => Some((imp, tag)),
            Signature::Oracle { .. }
            | Signature::Crosscheck { .. }
            | Signature::Violation { .. } => None,
        }
    }

    /// The operation, for the classes that name one.
    pub fn op(&self) -> Option<Op> {
        match self {
            Signature::Diff { op, .. }
            | Signature::RejectedValid { op, .. }
            | Signature::Crash { op, .. }
            | Signature::Hang { op, .. } => Some(*op),
            _ => None,
        }
    }

    /// A reader's answer on a valid section: a value disagreement (`diff:`) or a refusal
    /// (`rejected-valid:`) of `decode` or `find_fre`. Only quirks explain it (the quirky
    /// reference gives that answer on that input), never a ledger pattern.
    pub fn is_reader_value(&self) -> bool {
        matches!(self, Signature::Diff { op, .. } | Signature::RejectedValid { op, .. } if *op != Op::Encode)
    }
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self.class();
        match self {
            Signature::Diff {
                imp,
                tag,
                op,
                field,
            } => write!(f, "{c}:{imp}:{tag}:{op}:{field}"),
            Signature::RejectedValid {
                imp,
                tag,
                op,
                error,
            } => {
                write!(f, "{c}:{imp}:{tag}:{op}:{error}")
            }
            Signature::AcceptedInvalid {
                imp,
                tag,
                class,
                rule,
            } => write!(f, "{c}:{imp}:{tag}:{class}:{}", rule.id()),
            Signature::Crash {
                imp,
                tag,
                op,
                signal,
                site,
            } => {
                write!(f, "{c}:{imp}:{tag}:{op}:{signal}")?;
                match site {
                    Some(s) => write!(f, ":{s}"),
                    None => Ok(()),
                }
            }
            Signature::Hang { imp, tag, op } => write!(f, "{c}:{imp}:{tag}:{op}"),
            Signature::Unwind { imp, tag, what } => write!(f, "{c}:{imp}:{tag}:{what}"),
            Signature::Producer { imp, tag, rule } => write!(f, "{c}:{imp}:{tag}:{}", rule.id()),
            Signature::Oracle {
                producer,
                abi,
                function,
                kind,
            } => write!(f, "{c}:{producer}:{abi}:{function}:{kind}"),
            Signature::Crosscheck {
                producer,
                abi,
                shape,
                kind,
            } => write!(f, "{c}:{producer}:{abi}:{shape}:{kind}"),
            Signature::Violation { rule, path } => write!(f, "{c}:{}:{path}", rule.id()),
        }
    }
}

text_serde!(Signature);

pub(crate) fn rule(s: &str) -> Result<Rule, ParseError> {
    Rule::from_id(s).ok_or_else(|| ParseError::UnknownRule(s.to_string()))
}

pub(crate) fn op(s: &str) -> Result<Op, ParseError> {
    Op::from_name(s).ok_or_else(|| ParseError::UnknownOp(s.to_string()))
}

pub(crate) fn nonempty(s: &str, what: &'static str) -> Result<String, ParseError> {
    if s.is_empty() {
        Err(ParseError::Empty(what))
    } else {
        Ok(s.to_string())
    }
}

/// The number of `:`-separated parts each class has, as (least, most); `None` = no bound
/// (a crash site, a violation's path may hold `:`).
pub(crate) fn parts_of(class: Class) -> (usize, Option<usize>, &'static str) {
    match class {
        Class::Diff
        | Class::RejectedValid
        | Class::AcceptedInvalid
        | Class::Oracle
        | Class::Crosscheck => (5, Some(5), "5"),
        Class::Crash => (5, None, "5 or more"),
        Class::Hang | Class::Unwind | Class::Producer => (4, Some(4), "4"),
        Class::Violation => (3, None, "3 or more"),
    }
}

/// Split `s` into its class and parts, checking the count.
pub(crate) fn split(s: &str) -> Result<(Class, Vec<&str>), ParseError> {
    let parts: Vec<&str> = s.split(':').collect();
    let class =
        Class::from_name(parts[0]).ok_or_else(|| ParseError::UnknownClass(parts[0].into()))?;
    let (least, most, expected) = parts_of(class);
    if parts.len() < least || most.is_some_and(|m| parts.len() > m) {
        return Err(ParseError::Parts {
            class,
            found: parts.len(),
            expected,
        });
    }
    Ok((class, parts))
}

impl FromStr for Signature {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Signature, ParseError> {
        let (class, p) = split(s)?;
        let imp = || p[1].parse::<Tool>();
        let tag = || p[2].parse::<LayoutTag>();
        Ok(match class {
            Class::Diff => Signature::Diff {
                imp: imp()?,
                tag: tag()?,
                op: op(p[3])?,
                field: p[4].parse()?,
            },
            Class::RejectedValid => Signature::RejectedValid {
                imp: imp()?,
                tag: tag()?,
                op: op(p[3])?,
                error: p[4].parse()?,
            },
            Class::AcceptedInvalid => Signature::AcceptedInvalid {
                imp: imp()?,
                tag: tag()?,
                class: RuleClass::from_name(p[3])
                    .ok_or_else(|| ParseError::UnknownRuleClass(p[3].into()))?,
                rule: rule(p[4])?,
            },
            Class::Crash => Signature::Crash {
                imp: imp()?,
                tag: tag()?,
                op: op(p[3])?,
                signal: p[4].parse()?,
                site: if p.len() > 5 {
                    Some(p[5..].join(":").parse()?)
                } else {
                    None
                },
            },
            Class::Hang => Signature::Hang {
                imp: imp()?,
                tag: tag()?,
                op: op(p[3])?,
            },
            Class::Unwind => Signature::Unwind {
                imp: imp()?,
                tag: tag()?,
                what: Unwind::from_name(p[3])
                    .ok_or_else(|| ParseError::UnknownUnwind(p[3].into()))?,
            },
            Class::Producer => Signature::Producer {
                imp: imp()?,
                tag: tag()?,
                rule: rule(p[3])?,
            },
            Class::Oracle => Signature::Oracle {
                producer: p[1].parse()?,
                abi: OracleAbi::from_name(p[2])
                    .ok_or_else(|| ParseError::UnknownAbi(p[2].into()))?,
                function: nonempty(p[3], "function")?,
                kind: p[4].parse()?,
            },
            Class::Crosscheck => Signature::Crosscheck {
                producer: p[1].parse()?,
                abi: OracleAbi::from_name(p[2])
                    .ok_or_else(|| ParseError::UnknownAbi(p[2].into()))?,
                shape: p[3].parse()?,
                kind: CrosscheckKind::from_name(p[4])
                    .ok_or_else(|| ParseError::UnknownCrosscheckKind(p[4].into()))?,
            },
            Class::Violation => Signature::Violation {
                rule: rule(p[1])?,
                path: nonempty(&p[2..].join(":"), "corpus path")?,
            },
        })
    }
}

#[cfg(test)]
mod tests;
