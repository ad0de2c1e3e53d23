//! SFrame implementations behind one trait, and the normalized results they are compared on.
//!
//! Every implementation (the reference `sframe-spec`, each provisioned GNU libsframe release,
//! `simple-frame-rs`, the text of each `objdump --sframe`, any external program) answers the
//! same questions about a section's bytes:
//!
//! - [`Implementation::decode`]: the header facts, and per function its resolved start
//!   (an offset from the start of the section), size, FRE/PC/FDE types, repetition size and
//!   its rows, each row with its FRE start offset and its recovery rules as
//!   [`sframe_spec::Loc`];
//! - [`Implementation::find_fre`]: the row for a PC (a section-relative offset).
//!
//! Answers are [`Outcome`]s: a value, a rejection (with an error *class*, never compared as
//! text), "unsupported" (reported, never counted as agreement), a crash (signal) or a hang.
//! Fields an implementation does not expose are `None` and are not compared.
//!
//! Implementations are built by name from what is provisioned here by the registry of the
//! `sframe-conform` crate; this crate has the reference ([`reference`](mod@reference)) and external
//! programs ([`process`]).

mod build;
pub mod compact;
pub mod guard;
pub mod norm;
pub mod process;
pub mod protocol;
pub mod reference;
mod unsupported;
mod wire;

pub use unsupported::UnsupportedReason;

use crate::signature::{CrashSite, ErrorClass, Signal, Tool, ToolKind};
use serde::{Deserialize, Serialize};
use sframe_spec::{FdeType, FreType, PcType, Section, Stored, Version};

/// The answer of an implementation to one question.
///
/// Written by the derived `Serialize`; read by a one-pass reader of the same form (`wire`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome<T> {
    /// The implementation answered.
    Ok { value: T },
    /// The implementation refused the input; `class` is its error kind (a rule of the
    /// catalogue for the reference, a named class such as `SFRAME_ERR_BUF_INVAL` for
    /// libsframe; its name on the wire), `detail` free text for people.
    Rejected {
        class: ErrorClass,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// The implementation cannot answer this question (version, operation, input kind), or
    /// was not asked it ([`UnsupportedReason`]).
    Unsupported { reason: UnsupportedReason },
    /// The implementation died: how (`SIGSEGV`, `exit N`, `panic`; its name on the wire),
    /// where when the process said ([`CrashSite`], filled where the crash is observed),
    /// whether a fresh process died the same way (`None`: not tried again), and what it
    /// said last, for people.
    Crashed {
        signal: Signal,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        site: Option<CrashSite>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        repeated: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// The implementation did not answer within the time limit.
    Hung { timeout_ms: u64 },
}

impl<T> Outcome<T> {
    pub fn ok(value: T) -> Self {
        Outcome::Ok { value }
    }
    pub fn rejected(class: impl Into<ErrorClass>, detail: Option<String>) -> Self {
        Outcome::Rejected {
            class: class.into(),
            detail,
        }
    }
    pub fn unsupported(reason: impl Into<UnsupportedReason>) -> Self {
        Outcome::Unsupported {
            reason: reason.into(),
        }
    }
    /// A crash on `signal` with no site, not tried again.
    pub fn crashed(signal: Signal, detail: Option<String>) -> Self {
        Outcome::Crashed {
            signal,
            site: None,
            repeated: None,
            detail,
        }
    }
    /// A crash of a process that gives only text: its site read from that text once, here
    /// where it is observed ([`CrashSite::from_report`]).
    pub fn crashed_with_report(
        signal: Signal,
        repeated: Option<bool>,
        detail: Option<String>,
    ) -> Self {
        let site = detail
            .as_deref()
            .and_then(|d| CrashSite::from_report(&signal, d));
        Outcome::Crashed {
            signal,
            site,
            repeated,
            detail,
        }
    }
    /// The answer of a process that broke the protocol (`detail` says how).
    pub fn protocol_error(detail: impl Into<String>) -> Self {
        Outcome::crashed(Signal::ProtocolError, Some(detail.into()))
    }
    /// Short name of the variant, as in the JSON `status` field.
    pub fn status(&self) -> &'static str {
        match self {
            Outcome::Ok { .. } => "ok",
            Outcome::Rejected { .. } => "rejected",
            Outcome::Unsupported { .. } => "unsupported",
            Outcome::Crashed { .. } => "crashed",
            Outcome::Hung { .. } => "hung",
        }
    }
    pub fn value(&self) -> Option<&T> {
        match self {
            Outcome::Ok { value } => Some(value),
            _ => None,
        }
    }
    /// The same outcome with another value type, for the non-`Ok` variants.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Outcome<U> {
        match self {
            Outcome::Ok { value } => Outcome::Ok { value: f(value) },
            Outcome::Rejected { class, detail } => Outcome::Rejected { class, detail },
            Outcome::Unsupported { reason } => Outcome::Unsupported { reason },
            Outcome::Crashed {
                signal,
                site,
                repeated,
                detail,
            } => Outcome::Crashed {
                signal,
                site,
                repeated,
                detail,
            },
            Outcome::Hung { timeout_ms } => Outcome::Hung { timeout_ms },
        }
    }
    /// Whether this is a crash or a hang (a finding whatever the other implementations say).
    pub fn is_failure(&self) -> bool {
        matches!(self, Outcome::Crashed { .. } | Outcome::Hung { .. })
    }
}

/// Header facts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeaderFacts {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abi: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cfa_fixed_fp_offset: Option<i8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cfa_fixed_ra_offset: Option<i8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_fdes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_fres: Option<u32>,
}

/// What a row says: where the caller's CFA, return address and frame pointer are (a rule
/// the reader could not interpret or does not report is `None`).
pub type Row = sframe_spec::PartialRecovery;

/// One frame row entry of a function.
///
/// Written by the derived `Serialize`; read by a one-pass reader of the same form (`wire`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FreFacts {
    /// `sfre_start_address`: offset from the function start (PC-increment) or within the
    /// repeated block (PC-mask).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<u32>,
    #[serde(flatten)]
    pub row: Row,
}

/// One function descriptor and its rows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionFacts {
    /// Start address as an offset from the start of the section (resolved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u32>,
    /// Written as its number (`0` ADDR1, `1` ADDR2, `2` ADDR4), an undefined one kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fre_type: Option<Stored<FreType>>,
    /// Written as its number: 0 = PC-increment, 1 = PC-mask.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pc_type: Option<Stored<PcType>>,
    /// Written as its number: 0 = default, 1 = flex (v3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fde_type: Option<Stored<FdeType>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rep_size: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub num_fres: Option<u32>,
    /// The rows the implementation gave (may be fewer than `num_fres` when `error` is set).
    #[serde(default)]
    pub fres: Vec<FreFacts>,
    /// The implementation accepted the section but failed reading this function: its
    /// error class (a rule for the reference, the reader's own class otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorClass>,
}

impl FunctionFacts {
    /// The implementation reported a PC-mask function.
    pub fn is_pc_mask(&self) -> bool {
        self.pc_type == Some(Stored::Defined(PcType::Mask))
    }
}

/// A section as an implementation understands it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decoded {
    pub header: HeaderFacts,
    pub functions: Vec<FunctionFacts>,
}

/// The row found for a PC.
///
/// Written by the derived `Serialize`; read by a one-pass reader of the same form (`wire`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Found {
    /// Start of the function the row belongs to (section-relative), when the API says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function_start: Option<i64>,
    /// The row's FRE start offset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fre_start: Option<u32>,
    #[serde(flatten)]
    pub row: Row,
}

/// How an implementation is run, for reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Hosting {
    /// In this process (Rust; panics are caught).
    InProcess,
    /// In a worker process (`sframe-worker`), restarted after a crash.
    Worker,
    /// A program speaking the JSON-lines protocol.
    External,
    /// A tool whose printed text is parsed.
    Text,
}

/// Timing of a look-up loop run by the implementation itself (see [`Implementation::bench_find`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct BenchTiming {
    /// Look-ups performed.
    pub lookups: u64,
    /// Look-ups that found a row.
    pub found: u64,
    /// Wall time of the loop, in nanoseconds.
    pub nanos: u64,
}

impl BenchTiming {
    /// Time `rounds` passes of `find` over every PC of `pcs` (each PC through
    /// [`std::hint::black_box`]); `find` answers whether it found a row.
    pub fn measure(pcs: &[i64], rounds: u32, mut find: impl FnMut(i64) -> bool) -> BenchTiming {
        let mut found = 0u64;
        let t = std::time::Instant::now();
        for _ in 0..rounds {
            for &pc in pcs {
                if find(std::hint::black_box(pc)) {
                    found += 1;
                }
            }
        }
        BenchTiming {
            lookups: u64::from(rounds) * pcs.len() as u64,
            found,
            nanos: t.elapsed().as_nanos() as u64,
        }
    }
}

/// One SFrame implementation.
///
/// Methods take `&self`; implementations that keep state (a worker process) lock inside.
pub trait Implementation: Send + Sync {
    /// Stable name, e.g. `reference`, `libsframe-2.44`, `simple-frame-rs`, `objdump-2.47`.
    fn name(&self) -> String;
    /// Which implementation this is, typed: what [`name`](Self::name) says for the adapters
    /// of this suite; an external program is always a tool of its own, whatever it calls
    /// itself ([`ToolKind::Other`]).
    fn tool(&self) -> Tool {
        if self.hosting() == Hosting::External {
            Tool {
                name: ToolKind::Other(self.name()),
                release: None,
            }
        } else {
            Tool::named(&self.name())
        }
    }
    /// Exact version of the code under test (package version, crate version, ...).
    fn version(&self) -> String;
    /// Whether the implementation claims to read sections of this format version.
    fn supports(&self, version: Version) -> bool;
    fn hosting(&self) -> Hosting {
        Hosting::InProcess
    }
    /// Decode a whole section.
    fn decode(&self, data: &[u8]) -> Outcome<Decoded>;
    /// [`Implementation::decode`] of each of many sections (text tools read many files per
    /// process), answered as each alone would be.
    fn decode_many(&self, inputs: &[&[u8]]) -> Vec<Outcome<Decoded>> {
        inputs.iter().map(|d| self.decode(d)).collect()
    }
    /// The row for `pc` (section-relative), `None` when there is none.
    fn find_fre(&self, data: &[u8], pc: i64) -> Outcome<Option<Found>>;
    /// [`Implementation::find_fre`] for many PCs of one section (one round trip for workers).
    fn find_fres(&self, data: &[u8], pcs: &[i64]) -> Vec<Outcome<Option<Found>>> {
        pcs.iter().map(|&pc| self.find_fre(data, pc)).collect()
    }
    /// [`Implementation::decode`] then [`Implementation::find_fres`] on one section, as the
    /// differential engine asks them: one round trip for workers.
    fn decode_and_find(
        &self,
        data: &[u8],
        pcs: &[i64],
    ) -> (Outcome<Decoded>, Vec<Outcome<Option<Found>>>) {
        (self.decode(data), self.find_fres(data, pcs))
    }
    /// The implementation's way of being asked ahead of its answers ([`Pipelined`]), when
    /// it has one (an implementation in another process); `None` for every other.
    fn pipelined(&self) -> Option<&dyn Pipelined> {
        None
    }
    /// Produce a section from a model (implementations with an encoder).
    fn encode(&self, _model: &Section) -> Outcome<Vec<u8>> {
        Outcome::unsupported("no encoder")
    }
    /// Run `rounds` passes of look-ups of every PC in `pcs` and time them (benchmarks).
    fn bench_find(&self, _data: &[u8], _pcs: &[i64], _rounds: u32) -> Outcome<BenchTiming> {
        Outcome::unsupported("no benchmark loop")
    }
}

/// An implementation asked ahead of its answers, so that implementations in other processes
/// work at the same time as this one: a worker's request is sent in
/// [`Pipelined::decode_and_find_begin`] and its answer read in
/// [`Pipelined::decode_and_find_end`]. Opt-in ([`Implementation::pipelined`]); callers ask
/// through [`begin`] and [`end`], which ask any implementation.
pub trait Pipelined: Implementation {
    /// Start [`Implementation::decode_and_find`] without waiting for its answer. Several
    /// sections may be begun ahead of their ends (the engine runs one section ahead), ended
    /// in the order they were begun; a worker writes as many of them as its pipes hold
    /// without either side waiting on the other.
    fn decode_and_find_begin(&self, data: &[u8], pcs: &[i64]);
    /// The answer of [`Implementation::decode_and_find`] on the section and PCs of the
    /// oldest [`Pipelined::decode_and_find_begin`] not yet ended (or, without one, asked
    /// now): the same answer either way.
    fn decode_and_find_end(
        &self,
        data: &[u8],
        pcs: &[i64],
    ) -> (Outcome<Decoded>, Vec<Outcome<Option<Found>>>);
}

/// Begin `imp`'s [`Implementation::decode_and_find`] of `data` at `pcs` when it is
/// [`Pipelined`]; nothing for any other.
pub fn begin(imp: &dyn Implementation, data: &[u8], pcs: &[i64]) {
    if let Some(p) = imp.pipelined() {
        p.decode_and_find_begin(data, pcs);
    }
}

/// The answer of `imp`'s [`Implementation::decode_and_find`] of `data` at `pcs`: the one
/// [`begin`] started for a [`Pipelined`] implementation, asked now for any other.
pub fn end(
    imp: &dyn Implementation,
    data: &[u8],
    pcs: &[i64],
) -> (Outcome<Decoded>, Vec<Outcome<Option<Found>>>) {
    match imp.pipelined() {
        Some(p) => p.decode_and_find_end(data, pcs),
        None => imp.decode_and_find(data, pcs),
    }
}

pub use sframe_spec::section_version;
