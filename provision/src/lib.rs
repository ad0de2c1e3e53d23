//! Where sframe-conform finds what `ci/` provisions and builds: the toolchain cache
//! ([`cache`]: one variable, `$SFRAME_CONFORM_CACHE`) and the `manifest.json` that the corpus
//! builders (`ci/build-corpus`, `ci/build-realworld`) write beside the files they build
//! ([`manifest`]: one typed reader, one spelling of a producer).

pub mod cache;
pub mod manifest;

pub use cache::{bin_dir, cache_dir};
pub use manifest::{Entry, Manifests, Producer};
