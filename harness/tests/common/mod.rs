//! What the harness's own tests share: a reader with one deliberate deviation.

use sframe_harness::impls::reference::Reference;
use sframe_harness::prelude::*;
use sframe_harness::signature::Signal;

/// The reference, but refusing every version 1 section it is given (it claims to read them),
/// or crashing on it.
#[allow(dead_code)] // each test builds the deviation it needs
pub enum NoV1 {
    Refuses,
    Crashes,
}

impl NoV1 {
    fn deviation<T>(&self) -> Outcome<T> {
        match self {
            NoV1::Refuses => Outcome::rejected("no-v1", None),
            NoV1::Crashes => Outcome::crashed(Signal::Named("SIGSEGV".into()), None),
        }
    }
}

pub fn is_v1(data: &[u8]) -> bool {
    data.get(2) == Some(&1)
}

impl Implementation for NoV1 {
    fn name(&self) -> String {
        "no-v1-reader".into()
    }
    fn version(&self) -> String {
        "0".into()
    }
    fn supports(&self, _: Version) -> bool {
        true
    }
    fn decode(&self, data: &[u8]) -> Outcome<Decoded> {
        if is_v1(data) {
            return self.deviation();
        }
        Reference.decode(data)
    }
    fn find_fre(&self, data: &[u8], pc: i64) -> Outcome<Option<Found>> {
        if is_v1(data) {
            return self.deviation();
        }
        Reference.find_fre(data, pc)
    }
}
