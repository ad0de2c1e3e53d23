//! What the generator may produce: one [`Config`] with documented defaults that reach every
//! feature of the format, and an [`Arbitrary`] implementation that draws random feature
//! subsets (swarm testing: a run that never sees, say, PC-mask FDEs explores the others more
//! deeply).

use arbitrary::{Arbitrary, Unstructured};
use core::fmt;
use sframe_spec::{Abi, DataWordSize, Endian, FdeType, FreType, PcType, Version};

/// The knobs of [`generate`](crate::generate()). Every list must be non-empty for the targets
/// it applies to; [`Config::default`] enables everything.
///
/// A *target* is a (version, ABI identifier) pair. The identifier fixes the byte order
/// (AArch64 has a little- and a big-endian identifier; AMD64 is little-endian and s390x
/// big-endian only), and s390x exists only in versions 2 and 3.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Versions to draw from. Default: 1, 2 and 3.
    pub versions: Vec<Version>,
    /// ABI/arch identifiers to draw from. Default: all four.
    pub abis: Vec<Abi>,
    /// Number of functions (FDEs), inclusive bounds. Default: 0 to 200 (small counts are the
    /// most likely; the maximum is an edge value).
    pub min_functions: usize,
    pub max_functions: usize,
    /// FREs per function, inclusive bounds (fewer when the function or repetition block has
    /// fewer addresses). Default: 0 to 12.
    pub min_fres: usize,
    pub max_fres: usize,
    /// FRE types (start-address widths). Default: all three. A function may use a type wider
    /// than its size needs; a narrow type limits the FRE starts.
    pub fre_types: Vec<FreType>,
    /// Data-word sizes. Default: 1, 2 and 4 bytes.
    pub dataword_sizes: Vec<DataWordSize>,
    /// PC types. Default: both.
    pub pc_types: Vec<PcType>,
    /// FDE types; only version 3 has more than the default one. Default: both.
    pub fde_types: Vec<FdeType>,
    /// `SFRAME_F_FDE_SORTED`: `Some` pins it, `None` draws it. Default: `None`.
    pub sorted: Option<bool>,
    /// `SFRAME_F_FDE_FUNC_START_PCREL` (versions 2 and 3). Default: `None`.
    pub pcrel: Option<bool>,
    /// `SFRAME_F_FRAME_POINTER` (versions 1 and 2). Default: `None`.
    pub frame_pointer_flag: Option<bool>,
    /// Without the sorted flag, draw FDE orders other than increasing addresses
    /// (reversed, shuffled). Default: true.
    pub shuffle_unsorted: bool,
    /// Lay function data out in another order than the FDEs' (as linkers do: FDEs sorted,
    /// data in input order), and point v1/v2 FDEs without FREs anywhere in the FRE
    /// sub-section. Default: true.
    pub shuffle_data: bool,
    /// Longest auxiliary header. Default: 255 (the field's maximum).
    pub max_aux_header_len: u8,
    /// Largest function size. Default: `u32::MAX`.
    pub max_function_size: u32,
    /// Function start addresses anywhere in the start field's range, including its extremes
    /// (otherwise near the section). Default: true.
    pub wide_addresses: bool,
    /// A non-zero `sfh_cfa_fixed_fp_offset` (no rule constrains it). Default: true.
    pub fixed_fp_offset: bool,
    /// v3 signal-frame FDEs (`signal_p`; always with at least one FRE). Default: true.
    pub signal_frames: bool,
    /// AArch64 FDEs signed with PAuth key B. Default: true.
    pub pauth_key_b: bool,
    /// AArch64 FREs with the mangled-RA bit. Default: true.
    pub mangled_ra: bool,
    /// FREs with no data word, "RA undefined" (versions 2 and 3). Default: true.
    pub ra_undefined: bool,
    /// v2 s390x RA/FP offsets that encode a DWARF register number (odd values,
    /// `SFRAME_V2_S390X_OFFSET_ENCODE_REGNUM`). Default: true.
    pub s390x_regnum_offsets: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            versions: Version::ALL.to_vec(),
            abis: Abi::ALL.to_vec(),
            min_functions: 0,
            max_functions: 200,
            min_fres: 0,
            max_fres: 12,
            fre_types: FreType::ALL.to_vec(),
            dataword_sizes: DataWordSize::ALL.to_vec(),
            pc_types: vec![PcType::Inc, PcType::Mask],
            fde_types: vec![FdeType::Default, FdeType::Flex],
            sorted: None,
            pcrel: None,
            frame_pointer_flag: None,
            shuffle_unsorted: true,
            shuffle_data: true,
            max_aux_header_len: u8::MAX,
            max_function_size: u32::MAX,
            wide_addresses: true,
            fixed_fp_offset: true,
            signal_frames: true,
            pauth_key_b: true,
            mangled_ra: true,
            ra_undefined: true,
            s390x_regnum_offsets: true,
        }
    }
}

/// Why a version, ABI and byte order cannot be pinned together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PinError {
    /// The ABI has no identifier with this byte order (AMD64 big-endian, s390x little-endian).
    Endian { abi: Abi, endian: Endian },
    /// The ABI identifier does not exist in this version (s390x in version 1).
    AbiNotInVersion { abi: Abi, version: Version },
}

impl fmt::Display for PinError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PinError::Endian { abi, endian } => {
                write!(f, "ABI {abi} has no {} endian identifier", endian.name())
            }
            PinError::AbiNotInVersion { abi, version } => {
                write!(f, "ABI {abi} is not defined in SFrame {version}")
            }
        }
    }
}

impl std::error::Error for PinError {}

/// The ABI identifier for `abi`'s architecture in byte order `endian` (`None`: `abi`
/// itself). AArch64 has both identifiers; AMD64 and s390x have one each.
pub fn abi_with_endian(abi: Abi, endian: Option<Endian>) -> Result<Abi, PinError> {
    let Some(endian) = endian else { return Ok(abi) };
    let resolved = match (abi, endian) {
        (Abi::Aarch64Le | Abi::Aarch64Be, Endian::Little) => Abi::Aarch64Le,
        (Abi::Aarch64Le | Abi::Aarch64Be, Endian::Big) => Abi::Aarch64Be,
        (a, e) if a.endian() == e => a,
        (abi, endian) => return Err(PinError::Endian { abi, endian }),
    };
    Ok(resolved)
}

impl Config {
    /// The default configuration pinned to one target, as the command line asks for it
    /// (`--version V --abi A [--endian E]`): with `endian`, an AArch64 `abi` becomes the
    /// identifier of that byte order.
    pub fn pinned(version: Version, abi: Abi, endian: Option<Endian>) -> Result<Config, PinError> {
        let abi = abi_with_endian(abi, endian)?;
        if !abi.defined_in(version) {
            return Err(PinError::AbiNotInVersion { abi, version });
        }
        Ok(Config {
            versions: vec![version],
            abis: vec![abi],
            ..Config::default()
        })
    }

    /// Every (version, ABI) pair the configuration allows, in a fixed order.
    pub fn targets(&self) -> Vec<(Version, Abi)> {
        let mut out = Vec::new();
        for &v in Version::ALL.iter().filter(|v| self.versions.contains(v)) {
            for &a in Abi::ALL.iter().filter(|a| self.abis.contains(a)) {
                if a.defined_in(v) {
                    out.push((v, a));
                }
            }
        }
        out
    }

    /// Every (version, ABI) pair of the format.
    pub fn all_targets() -> Vec<(Version, Abi)> {
        Config::default().targets()
    }
}

/// A non-empty subset of `all`, in `all`'s order.
fn subset<T: Copy>(u: &mut Unstructured, all: &[T]) -> arbitrary::Result<Vec<T>> {
    let mut out: Vec<T> = Vec::with_capacity(all.len());
    for &x in all {
        if u.arbitrary()? {
            out.push(x);
        }
    }
    if out.is_empty() {
        out.push(*u.choose(all)?);
    }
    Ok(out)
}

/// Swarm testing: each feature switched on or off, each list a random non-empty subset, each
/// bound drawn; the result always has at least one target.
impl<'a> Arbitrary<'a> for Config {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Config> {
        let versions = subset(u, &Version::ALL)?;
        let mut abis = subset(u, &Abi::ALL)?;
        if versions == [Version::V1] && abis == [Abi::S390x] {
            abis.push(Abi::Amd64);
        }
        let min_functions = u.int_in_range(0..=3)?;
        let max_functions = min_functions + *u.choose(&[4, 0, 1, 16, 64, 300])?;
        let min_fres = u.int_in_range(0..=2)?;
        let max_fres = min_fres + *u.choose(&[4, 0, 1, 12, 40])?;
        let opt = |u: &mut Unstructured<'a>| -> arbitrary::Result<Option<bool>> {
            Ok(match u.int_in_range(0..=2u8)? {
                0 => None,
                1 => Some(true),
                _ => Some(false),
            })
        };
        Ok(Config {
            versions,
            abis,
            min_functions,
            max_functions,
            min_fres,
            max_fres,
            fre_types: subset(u, &FreType::ALL)?,
            dataword_sizes: subset(u, &DataWordSize::ALL)?,
            pc_types: subset(u, &[PcType::Inc, PcType::Mask])?,
            fde_types: subset(u, &[FdeType::Default, FdeType::Flex])?,
            sorted: opt(u)?,
            pcrel: opt(u)?,
            frame_pointer_flag: opt(u)?,
            shuffle_unsorted: u.arbitrary()?,
            shuffle_data: u.arbitrary()?,
            max_aux_header_len: *u.choose(&[0, 4, u8::MAX])?,
            max_function_size: *u.choose(&[u32::MAX, 1, 255, 256, 65536, 1 << 20])?,
            wide_addresses: u.arbitrary()?,
            fixed_fp_offset: u.arbitrary()?,
            signal_frames: u.arbitrary()?,
            pauth_key_b: u.arbitrary()?,
            mangled_ra: u.arbitrary()?,
            ra_undefined: u.arbitrary()?,
            s390x_regnum_offsets: u.arbitrary()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_reach_every_target() {
        let t = Config::default().targets();
        assert_eq!(
            t.len(),
            11,
            "3 versions x 4 ABI ids, minus s390x in v1: {t:?}"
        );
        assert!(!t.contains(&(Version::V1, Abi::S390x)));
    }

    #[test]
    fn pinning_resolves_the_byte_order() {
        let c = Config::pinned(Version::V2, Abi::Aarch64Le, Some(Endian::Big)).unwrap();
        assert_eq!(c.targets(), vec![(Version::V2, Abi::Aarch64Be)]);
        assert_eq!(
            Config::pinned(Version::V3, Abi::Amd64, Some(Endian::Big)),
            Err(PinError::Endian {
                abi: Abi::Amd64,
                endian: Endian::Big
            })
        );
        assert_eq!(
            Config::pinned(Version::V1, Abi::S390x, None),
            Err(PinError::AbiNotInVersion {
                abi: Abi::S390x,
                version: Version::V1
            })
        );
        assert!(Config::pinned(Version::V3, Abi::S390x, Some(Endian::Big)).is_ok());
    }

    #[test]
    fn arbitrary_configs_always_have_a_target() {
        for seed in 0..500u32 {
            let data: Vec<u8> = (0..64u32)
                .map(|i| (seed.wrapping_mul(31).wrapping_add(i * 97) >> (i % 5)) as u8)
                .collect();
            let c = Config::arbitrary(&mut Unstructured::new(&data)).unwrap();
            assert!(!c.targets().is_empty(), "{c:?}");
        }
        assert!(!Config::arbitrary(&mut Unstructured::new(&[]))
            .unwrap()
            .targets()
            .is_empty());
    }
}
