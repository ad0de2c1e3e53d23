//! # sframe-spec
//!
//! The SFrame stack-trace format of GNU binutils (versions 1, 2 and 3; ABIs AMD64, AArch64
//! little and big endian, s390x) as executable rules.
//!
//! - [`layout`]: where each field and info bit lies, per version (the one statement of
//!   the byte layout that other crates use);
//! - [`read`]: zero-copy typed views over `&[u8]` with an explicit [`Endian`];
//! - [`decode()`] / [`encode`]: the owned [`Section`] model and its exact inverse writer;
//! - [`lookup`](SectionRef::find), [`recovery`], [`unwind`]: what a row means, and one
//!   unwind step per Appendix A of the v3 manual;
//! - [`rules`]: the catalogue, each rule with an ID and the text it comes from;
//!   [`validate()`] reports every violation with its byte offset;
//! - [`discrepancies`]: where the texts disagree, and which reading is taken;
//! - [`quirks`]: known deviations of real implementations, as switches of the reader;
//!   [`swap`]: the bytes a reader with them reads a foreign-endian section from;
//! - [`hex`], [`rng`]: the workspace's one hex codec (section bytes in protocols, snapshots
//!   and messages) and one seeded generator (SplitMix64), here at the bottom so that the
//!   generator, the oracle and the harness share them.
//!
//! No `unsafe`, no panics and no allocation that the input's length does not back, on any
//! input.
#![forbid(unsafe_code)]

mod clean_run;
pub mod constants;
pub mod decode;
pub mod discrepancies;
pub mod endian;
pub mod error;
pub mod hex;
pub mod index;
pub mod layout;
pub mod lookup;
pub mod model;
pub mod quirks;
pub mod read;
pub mod recovery;
mod refusals;
pub mod rng;
pub mod rules;
mod search;
pub mod stored;
pub mod swap;
pub mod triggers;
pub mod unwind;
pub mod validate;
pub mod write;

pub use constants::{Abi, BaseReg, DataWordSize, FdeType, FreType, PauthKey, PcType, Version};
pub use decode::decode;
pub use endian::Endian;
pub use error::{Error, Violation};
pub use index::{FreHit, SectionIndex};
pub use model::{Fre, Function, ReservedBits, Section};
pub use quirks::{Quirk, Quirks};
pub use read::{section_version, FdeFields, FdeRef, FreRef, Header, SectionRef};
pub use recovery::{Base, Control, Loc, PartialRecovery, Recovery};
pub use rules::{Rule, RuleInfo, Severity};
pub use stored::{Stored, TypeCode};
pub use triggers::Trigger;
pub use validate::{is_malformed, is_valid, validate};
pub use write::{encode, EncodeError};
