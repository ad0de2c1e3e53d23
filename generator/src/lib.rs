//! # sframe-gen
//!
//! The wasm-smith of SFrame: valid `.sframe` sections of every version (1, 2, 3), ABI
//! (AMD64, AArch64 little and big endian, s390x) and feature, built as a typed
//! [`sframe_spec::Section`] under one [`Config`] and encoded by the reference writer; and
//! malformed ones, made from valid ones by named [`mutations`](MutationKind), each tagged with
//! the catalogue rules it breaks.
//!
//! - [`config`]: what may be generated, with defaults that reach every feature, and
//!   `Arbitrary` for swarm testing;
//! - [`generate()`]: valid sections (no violation, warnings included) from
//!   `arbitrary::Unstructured` bytes;
//! - [`mutate()`]: broken sections with the rules they break;
//! - [`strategy`]: proptest strategies driving the same generator (feature `proptest`, on
//!   by default);
//! - [`corpus`]: reproducible files on disk for `sframe-conform gen`;
//! - [`hex`], [`rng`]: the workspace's hex codec and seeded generator (SplitMix64),
//!   re-exported from `sframe-spec`;
//! - [`check`]: the properties (valid: validates clean and round-trips; mutated: reports
//!   its tags, and decodes exactly when not malformed);
//! - [`drivers`]: `run(&mut Unstructured)` fuzz drivers, each also a seeded test;
//! - [`reach`]: which catalogue rules the mutator reaches per version and ABI;
//! - [`layout`], [`rows`], [`edge`]: byte offsets, valid FRE data words, edge-biased values.
//!
//! ```
//! use arbitrary::Unstructured;
//! use sframe_gen::{generate, mutate, Config};
//! use sframe_spec::{validate, Abi, Version};
//!
//! let cfg = Config::pinned(Version::V3, Abi::S390x, None).unwrap();
//! let data = [7u8; 512];
//! let mut u = Unstructured::new(&data);
//! let g = generate(&cfg, &mut u).unwrap();
//! assert!(validate(&g.bytes).is_empty());
//! let m = mutate(&g, &mut u).unwrap();
//! let reported: Vec<_> = validate(&m.bytes).into_iter().map(|v| v.rule).collect();
//! assert!(m.violates.iter().all(|r| reported.contains(r)));
//! ```
#![forbid(unsafe_code)]

/// The workspace's hex codec and seeded generator, at home in `sframe-spec` (the oracle
/// uses them without the generator).
pub use sframe_spec::{hex, rng};
pub mod check;
pub mod config;
pub mod corpus;
pub mod drivers;
pub mod edge;
pub mod generate;
pub mod layout;
pub mod mutate;
pub mod reach;
pub mod rows;
#[cfg(feature = "proptest")]
pub mod strategy;

pub use config::{abi_with_endian, Config, PinError};
pub use corpus::write_corpus;
pub use generate::{generate, Generated};
pub use layout::Layout;
pub use mutate::{mutate, mutate_with, Mutated, MutationKind};
