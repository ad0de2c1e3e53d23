//! Valid sections: every generated section validates with no violation (warnings included)
//! and round-trips through the reference reader and writer; the default configuration
//! reaches every feature.

use arbitrary::Unstructured;
use proptest::prelude::*;
use sframe_gen::check::{check_lookups, check_valid};
use sframe_gen::rng::SplitMix64;
use sframe_gen::strategy::{generated_strategy, section_strategy, swarm_strategy};
use sframe_gen::{generate, Config};
use sframe_spec::recovery::Control;
use sframe_spec::{decode, encode, Abi, DataWordSize, FdeType, FreType, PauthKey, PcType, Version};
use std::collections::BTreeSet;

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn default_sections_are_valid_and_round_trip(g in generated_strategy(Config::default())) {
        if let Err(e) = check_valid(&g) {
            return Err(TestCaseError::fail(e));
        }
    }

    #[test]
    fn swarm_sections_are_valid_and_round_trip((_cfg, g) in swarm_strategy()) {
        if let Err(e) = check_valid(&g) {
            return Err(TestCaseError::fail(e));
        }
    }

    /// The reference look-up finds each function and each row where the model puts it.
    #[test]
    fn lookups_find_every_generated_row(g in generated_strategy(Config::default())) {
        if let Err(e) = check_lookups(&g) {
            return Err(TestCaseError::fail(e));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// The model strategy, compared through the writer: decode(encode(m)) == m.
    #[test]
    fn section_models_round_trip(s in section_strategy(Config::default())) {
        let bytes = encode(&s).expect("generated models encode");
        prop_assert_eq!(decode(&bytes).expect("and decode"), s);
    }
}

/// Shrinking works towards small sections: a failing property over sections with at least
/// three functions shrinks to exactly three, with no FREs left (they play no part in the
/// failure), whatever the runner's seed.
#[test]
fn shrinking_reaches_a_minimal_section() {
    use proptest::test_runner::{
        Config as RunnerConfig, RngAlgorithm, TestError, TestRng, TestRunner,
    };
    for seed in 0..8u8 {
        let config = RunnerConfig {
            cases: 1000,
            failure_persistence: None,
            ..RunnerConfig::default()
        };
        let mut runner = TestRunner::new_with_rng(
            config,
            TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
        );
        let result = runner.run(&generated_strategy(Config::default()), |g| {
            prop_assert!(g.section.functions.len() < 3);
            Ok(())
        });
        match result {
            Err(TestError::Fail(_, g)) => {
                assert_eq!(
                    g.section.functions.len(),
                    3,
                    "seed {seed}: shrunk to {:?}",
                    g.section
                );
                assert_eq!(
                    g.section.num_fres(),
                    0,
                    "seed {seed}: shrunk to {:?}",
                    g.section
                );
            }
            other => panic!("expected a failure, got {other:?}"),
        }
    }
}

/// What a section shows of the features the configuration can switch on.
fn features(g: &sframe_gen::Generated, out: &mut BTreeSet<String>) {
    let s = &g.section;
    let v = s.version;
    let mut add = |f: String| {
        out.insert(f);
    };
    add(format!("target {v} {}", s.abi));
    add(format!("flags {v} {:#x}", s.flags));
    add(format!(
        "aux {}",
        match s.aux_header.len() {
            0 => "0",
            255 => "255",
            _ => "other",
        }
    ));
    if s.cfa_fixed_fp_offset != 0 {
        add("fixed fp offset".into());
    }
    let n = s.functions.len();
    add(format!(
        "functions {}",
        match n {
            0 => "0",
            1 => "1",
            2..=99 => "some",
            _ => "100+",
        }
    ));
    if !s.is_sorted_flag() && s.functions.windows(2).any(|w| w[0].start > w[1].start) {
        add("unsorted order".into());
    }
    let layout = g.layout();
    let blocks: Vec<(usize, usize)> = layout
        .functions
        .iter()
        .map(|f| f.block)
        .filter(|b| b.1 > b.0)
        .collect();
    if blocks.windows(2).any(|w| w[1].0 < w[0].0) {
        add("data out of FDE order".into());
    }
    for f in layout.functions.iter().filter(|f| f.block.0 == f.block.1) {
        if blocks.iter().any(|b| b.0 < f.block.0 && f.block.0 < b.1) {
            add("empty data inside another block".into());
        }
    }
    for f in &s.functions {
        add(format!("pc {:?} {v}", f.pc_type));
        add(format!("fde {:?}", f.fde_type));
        add(format!("fre type {:?}", f.fre_type));
        add(format!(
            "fres {}",
            match f.fres.len() {
                0 => "0",
                1 => "1",
                _ => "many",
            }
        ));
        for size in [255, 256, 65535, 65536, u32::MAX] {
            if f.size == size {
                add(format!("size {size}"));
            }
        }
        if f.start == i64::from(i32::MIN) || f.start == i64::from(i32::MAX) {
            add("start at int32 limit".into());
        }
        if f.start < i64::from(i32::MIN) || f.start > i64::from(i32::MAX) {
            add("start beyond int32".into());
        }
        if f.pc_type == PcType::Mask && f.rep_size == 255 {
            add("rep size 255".into());
        }
        if f.signal {
            add("signal".into());
        }
        if f.pauth_key == PauthKey::B {
            add(format!("pauth B {}", s.abi));
        }
        if f.fres.len() > 1
            && u64::from(f.fres.last().unwrap().start) + 1
                == u64::from(f.size).min(f.fre_type.limit())
        {
            add("last FRE at the limit".into());
        }
        for r in &f.fres {
            add(format!("dataword size {:?}", r.dataword_size));
            add(format!(
                "count {:?} {} {v} {}",
                f.fde_type,
                r.datawords.len(),
                if f.fde_type == FdeType::Flex {
                    "any"
                } else {
                    s.abi.name()
                }
            ));
            if r.mangled_ra {
                add(format!("mangled {}", s.abi));
            }
            let (lo, hi) = match r.dataword_size {
                DataWordSize::B1 => (i32::from(i8::MIN), i32::from(i8::MAX)),
                DataWordSize::B2 => (i32::from(i16::MIN), i32::from(i16::MAX)),
                DataWordSize::B4 => (i32::MIN, i32::MAX),
            };
            if r.datawords.iter().any(|&w| w == lo || w == hi) && f.fde_type == FdeType::Default {
                add(format!("word at limit {:?}", r.dataword_size));
            }
            if s.abi == Abi::S390x && f.fde_type == FdeType::Default && r.datawords.len() >= 2 {
                if v == Version::V2 && r.datawords[1..].iter().any(|&w| w & 1 == 1) {
                    add("s390x v2 regnum".into());
                }
                if r.datawords.len() == 3 && r.datawords[1] == 0 {
                    add("s390x RA padding".into());
                }
                if r.datawords[0] == 20 {
                    add("s390x CFA 320 encoded".into());
                }
            }
            if f.fde_type == FdeType::Flex && r.datawords.len() >= 4 {
                let ra = Control::from_word(i64::from(r.datawords[2]), r.dataword_size);
                add(format!("flex ra reg_p {}", ra.reg_p));
            }
        }
    }
}

/// The defaults reach every feature of the format (seeded, so failures reproduce).
#[test]
fn defaults_reach_every_feature() {
    let mut seen = BTreeSet::new();
    for seed in 0..3000 {
        let data = SplitMix64::input(seed, 0, 0);
        let g = generate(&Config::default(), &mut Unstructured::new(&data)).unwrap();
        features(&g, &mut seen);
    }
    let mut want: Vec<String> = vec![
        "aux 0",
        "aux 255",
        "aux other",
        "fixed fp offset",
        "functions 0",
        "functions 1",
        "functions some",
        "functions 100+",
        "unsorted order",
        "fde Default",
        "fde Flex",
        "fres 0",
        "fres 1",
        "fres many",
        "size 255",
        "size 256",
        "size 65535",
        "size 65536",
        "size 4294967295",
        "start at int32 limit",
        "start beyond int32",
        "rep size 255",
        "signal",
        "last FRE at the limit",
        "s390x v2 regnum",
        "s390x RA padding",
        "s390x CFA 320 encoded",
        "flex ra reg_p true",
        "flex ra reg_p false",
        "data out of FDE order",
        "empty data inside another block",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    for (v, a) in Config::all_targets() {
        want.push(format!("target {v} {a}"));
        want.push(format!("pc Inc {v}"));
        want.push(format!("pc Mask {v}"));
        // Every flag combination the version defines.
        for flags in 0..8u8 {
            if flags & !v.defined_flags() == 0 {
                want.push(format!("flags {v} {flags:#x}"));
            }
        }
        for count in sframe_gen::rows::default_counts(v, a, true) {
            want.push(format!("count Default {count} {v} {a}"));
        }
        if v == Version::V3 {
            for count in sframe_gen::rows::flex_counts(true) {
                want.push(format!("count Flex {count} {v} any"));
            }
        }
    }
    for a in [Abi::Aarch64Le, Abi::Aarch64Be] {
        want.push(format!("pauth B {a}"));
        want.push(format!("mangled {a}"));
    }
    for t in FreType::ALL {
        want.push(format!("fre type {t:?}"));
    }
    for s in DataWordSize::ALL {
        want.push(format!("dataword size {s:?}"));
        want.push(format!("word at limit {s:?}"));
    }
    if std::env::var_os("SHOW_FEATURES").is_some() {
        eprintln!("{} features seen: {seen:#?}", seen.len());
    }
    let missing: Vec<&String> = want.iter().filter(|f| !seen.contains(*f)).collect();
    assert!(
        missing.is_empty(),
        "features the defaults never produced: {missing:#?}"
    );
    // And nothing that must not be there.
    let forbidden: Vec<&String> = seen
        .iter()
        .filter(|f| f.starts_with("pauth B") || f.starts_with("mangled"))
        .filter(|f| !f.contains("aarch64"))
        .collect();
    assert!(forbidden.is_empty(), "{forbidden:?}");
}
