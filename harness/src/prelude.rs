//! What a downstream crate's conformance test needs, in one `use`:
//! `use sframe_harness::prelude::*;`.

pub use crate::gate::{Corpus, Gate, Report};
pub use crate::impls::{
    Decoded, Found, FreFacts, FunctionFacts, HeaderFacts, Implementation, Outcome, Row,
};
pub use crate::ledger::Ledger;
pub use sframe_spec::{Loc, Version};
