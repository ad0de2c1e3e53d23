//! [`SectionRef::recovery_fault`] (the validator's shortcut) fails exactly where
//! [`SectionRef::recovery`] does, with the same rule, on every FRE of generated valid and
//! mutated sections, read as the reference and as every implementation with known deviations
//! reads them.

use proptest::prelude::*;
use sframe_gen::strategy::{malformed_strategy, swarm_strategy};
use sframe_gen::Config;
use sframe_spec::{Quirks, SectionRef};

fn agree(data: &[u8], quirks: Quirks) -> Result<(), TestCaseError> {
    let Ok(s) = SectionRef::parse_with(data, quirks) else {
        return Ok(());
    };
    // At most 64 rows of 64 functions: mutated sections may have every function claim the
    // same long run of FREs.
    for i in 0..s.num_fdes().min(64) {
        let Ok(fde) = s.fde(i) else { continue };
        for fre in s.fres(&fde).map_while(Result::ok).take(64) {
            prop_assert_eq!(
                s.recovery(&fde, &fre).map(|_| ()),
                s.recovery_fault(&fde, &fre),
                "function {} FRE at {:#x}",
                i,
                fre.offset
            );
        }
    }
    Ok(())
}

fn every_reader(data: &[u8]) -> Result<(), TestCaseError> {
    agree(data, Quirks::NONE)?;
    for q in sframe_spec::quirks::Quirk::ALL {
        agree(data, Quirks::NONE.with(q))?;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    #[test]
    fn on_valid_sections((_cfg, g) in swarm_strategy()) {
        every_reader(&g.bytes)?;
    }

    #[test]
    fn on_mutated_sections((_g, m) in malformed_strategy(Config::default())) {
        every_reader(&m.bytes)?;
    }
}
