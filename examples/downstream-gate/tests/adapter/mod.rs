//! `tiny-sframe` behind the harness's `Implementation`: its answers in the row model. What
//! it does not report (the rows' recovery rules) stays `None` and is not compared.

use sframe_harness::prelude::*;

pub struct TinySframe;

impl Implementation for TinySframe {
    fn name(&self) -> String {
        "tiny-sframe".into()
    }
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").into()
    }
    fn supports(&self, v: Version) -> bool {
        v != Version::V1
    }
    fn decode(&self, data: &[u8]) -> Outcome<Decoded> {
        let s = match tiny_sframe::parse(data) {
            Ok(s) => s,
            Err(e) => return Outcome::rejected(e.class(), None),
        };
        let h = &s.header;
        let header = HeaderFacts::new(h.version, h.abi)
            .flags(h.flags)
            .fixed_offsets(h.cfa_fixed_fp_offset, h.cfa_fixed_ra_offset)
            .counts(h.num_fdes, h.num_fres);
        let functions = s.functions.iter().map(|f| {
            FunctionFacts::new(f.start, f.size)
                .fre_type(f.fre_type)
                .pc_type(f.pc_type)
                .rep_size(f.rep_size)
                .fre_starts(f.fre_starts.iter().copied())
        });
        Outcome::ok(Decoded::new(header, functions))
    }
    fn find_fre(&self, data: &[u8], pc: i64) -> Outcome<Option<Found>> {
        match tiny_sframe::parse(data) {
            Ok(s) => Outcome::ok(s.find(pc).map(|hit| {
                let f = &s.functions[hit.function];
                Found::at(f.start, f.fre_starts[hit.fre])
            })),
            Err(e) => Outcome::rejected(e.class(), None),
        }
    }
}
