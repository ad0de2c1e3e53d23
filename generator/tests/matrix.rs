//! Every version x ABI x byte order the format allows: generated sections are valid, their
//! mutations exact; the combinations it does not allow are refused when pinned.

use arbitrary::Unstructured;
use rstest::rstest;
use sframe_gen::check::{check_mutated, check_valid};
use sframe_gen::rng::SplitMix64;
use sframe_gen::{generate, mutate, Config, PinError};
use sframe_spec::{Abi, Endian, Version};

#[rstest]
fn every_target(
    #[values(Version::V1, Version::V2, Version::V3)] version: Version,
    #[values(Abi::Amd64, Abi::Aarch64Le, Abi::Aarch64Be, Abi::S390x)] abi: Abi,
    #[values(None, Some(Endian::Little), Some(Endian::Big))] endian: Option<Endian>,
) {
    let cfg = match Config::pinned(version, abi, endian) {
        Ok(c) => c,
        Err(PinError::AbiNotInVersion { .. }) => {
            assert_eq!((version, abi), (Version::V1, Abi::S390x));
            return;
        }
        Err(PinError::Endian { .. }) => {
            assert!(!abi.is_aarch64() && Some(abi.endian()) != endian);
            return;
        }
    };
    let want_abi = sframe_gen::abi_with_endian(abi, endian).unwrap();
    for seed in 0..60 {
        let data = SplitMix64::input(seed, u64::from(version.number()), 0);
        let g = generate(&cfg, &mut Unstructured::new(&data)).unwrap();
        assert_eq!((g.section.version, g.section.abi), (version, want_abi));
        assert_eq!(g.section.endian, endian.unwrap_or(abi.endian()));
        check_valid(&g).unwrap();
        let data = SplitMix64::input(seed, u64::from(version.number()), 1);
        let m = mutate(&g, &mut Unstructured::new(&data)).unwrap();
        check_mutated(&m, true).unwrap();
    }
}
