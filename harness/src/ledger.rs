//! The findings ledger (its home: `sframe_findings::ledger`), and how the differential
//! engine's [`Discrepancy`] tells it what explains one: the finding whose quirks or trigger
//! the engine credited, or that the ledger's triggers read the input and none holds.

use crate::diff::Discrepancy;
use crate::signature::Signature;
pub use sframe_findings::ledger::*;

impl Observed for Discrepancy {
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn explained_by(&self) -> Option<&str> {
        self.explained_by.first().map(String::as_str)
    }
    fn triggers_say_new(&self) -> bool {
        // A trigger that holds has named its finding in `explained_by`.
        self.trigger.is_some()
    }
}
