//! The validator's fast path: a function's FRE run read and checked in one pass, for the
//! common case in which every per-FRE rule holds.
//!
//! [`CleanRun::end`] answers only "every FRE of this function keeps every rule
//! [`crate::validate`] checks per FRE, and the run ends here". Whatever it cannot vouch for
//! (a rule that may be broken, an FDE type or ABI whose rows it does not follow, a reader with
//! quirks) makes it answer `None`, and the validator then checks that function in full and
//! reports. So it changes how fast a section validates, never what the validator says: the
//! unit test `clean_runs_agree_with_the_full_check` holds it to the full check on every
//! single-byte change of small sections of each version, ABI, byte order and FRE type.
//!
//! What it checks is asked of the full check's own rules ([`validate::count_faults`],
//! [`validate::start_limit`]), not restated.

use crate::constants::{Abi, FdeType, FreType, PcType};
use crate::read::{FdeRef, SectionRef};
use crate::validate;
use crate::Endian;

/// The per-section facts the fast path needs: which data-word counts and whether a mangled
/// RA keep every rule in this section's version and ABI.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CleanRun {
    /// Bit `c` set: an FRE of `c` data words keeps the count rules (FRE-COUNT-*), and its
    /// recovery rules cannot fail (a default-type FRE with data words, read without quirks:
    /// [`SectionRef::recovery_fault`]).
    counts: u16,
    /// Bit 7 of the FRE info byte (RA mangled) keeps FRE-MANGLED-RA-ABI.
    mangled_ok: bool,
}

impl CleanRun {
    /// The fast path for `s`, or `None` where it does not apply: a reader with quirks, or
    /// s390x (whose data words have rules of their own values).
    pub(crate) fn for_section(s: &SectionRef<'_>) -> Option<CleanRun> {
        if !s.quirks().is_empty() || s.abi() == Abi::S390x {
            return None;
        }
        let counts = (1..16u16)
            .filter(|&c| {
                validate::count_faults(s.version(), s.abi(), usize::from(c))
                    .iter()
                    .all(Option::is_none)
            })
            .fold(0u16, |m, c| m | 1 << c);
        Some(CleanRun {
            counts,
            mangled_ok: s.abi().is_aarch64(),
        })
    }

    /// Where `fde`'s FREs end, when every one of them keeps every per-FRE rule; `None` when
    /// one may not (then [`validate`] checks the function in full).
    #[inline]
    pub(crate) fn end(&self, s: &SectionRef<'_>, fde: &FdeRef) -> Option<usize> {
        if fde.fde_type != FdeType::Default {
            return None;
        }
        let limit = validate::start_limit(s.version(), fde).map_or(u64::MAX, u64::from);
        let run = Run {
            data: s.data(),
            endian: s.endian(),
            end: s.fre_subsection().1,
            limit,
            first_at_zero: fde.pc_type() == PcType::Inc,
            info_mask: self.info_mask(),
            counts: self.counts,
        };
        match fde.fre_type {
            FreType::Addr1 => run.walk::<1>(fde.data_start, fde.num_fres),
            FreType::Addr2 => run.walk::<2>(fde.data_start, fde.num_fres),
            FreType::Addr4 => run.walk::<4>(fde.data_start, fde.num_fres),
        }
    }

    /// The info-byte bits an FRE may not have set: the reserved data-word size (both bits
    /// of 6-5 set is tested apart) and, off AArch64, the mangled-RA bit.
    fn info_mask(&self) -> u8 {
        if self.mangled_ok {
            0
        } else {
            0x80
        }
    }
}

/// One function's FRE run, as [`CleanRun::end`] walks it.
struct Run<'a> {
    data: &'a [u8],
    endian: Endian,
    /// End of the FRE sub-section.
    end: usize,
    /// Starts must be below this (FRE-START-IN-FUNCTION, FRE-START-AT-END).
    limit: u64,
    /// The first FRE must start at 0 (PC-increment functions).
    first_at_zero: bool,
    info_mask: u8,
    counts: u16,
}

impl Run<'_> {
    /// Walk `n` FREs with `ASZ`-byte start addresses from `pos`.
    #[inline]
    fn walk<const ASZ: usize>(&self, mut pos: usize, n: u32) -> Option<usize> {
        // Reads past the FRE sub-section fail as reads past the bytes do.
        let fres = self.data.get(..self.end)?;
        if n > 0 && self.first_at_zero && self.endian.read_uint(fres, pos, ASZ)? != 0 {
            return None;
        }
        // The least start the next FRE may have: starts increase.
        let mut least = 0u64;
        for _ in 0..n {
            // `pos` is at most `self.end`: no overflow.
            let info_at = pos + ASZ;
            let info = *fres.get(info_at)?;
            let start = self.endian.read_uint(fres, pos, ASZ)?;
            let size_bits = crate::layout::fre_info::dataword_size(info);
            let count = crate::layout::fre_info::dataword_count(info);
            if size_bits == 3
                || info & self.info_mask != 0
                || self.counts & (1 << count) == 0
                || start < least
                || start >= self.limit
            {
                return None;
            }
            let words_end = info_at + 1 + (usize::from(count) << size_bits);
            if words_end > self.end {
                return None;
            }
            least = start + 1;
            pos = words_end;
        }
        Some(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::CleanRun;
    use crate::constants::{flags, Abi, BaseReg, DataWordSize, FdeType, PcType, Version};
    use crate::model::{Fre, Function, Section};
    use crate::read::SectionRef;
    use crate::validate::check_fres;

    fn fre(start: u32, size: DataWordSize, mangled_ra: bool, words: &[i32]) -> Fre {
        Fre {
            start,
            base_reg: BaseReg::Sp,
            mangled_ra,
            dataword_size: size,
            datawords: words.to_vec(),
        }
    }

    /// A small valid section of `version` and `abi` whose functions of `size` bytes have
    /// FREs of every data-word size and count the ABI allows, a PC-mask function (v2, v3), a
    /// function without FREs and (v3) a flex one.
    fn section(version: Version, abi: Abi, size: u32) -> Section {
        use DataWordSize::*;
        let mut s = Section::new(version, abi);
        s.flags = flags::FDE_SORTED;
        let aarch64 = abi.is_aarch64();
        // AArch64 v3 rows have 1 or 3 words; AMD64 at most 2.
        let pair: &[i32] = if aarch64 && version == Version::V3 {
            &[16, -8, -16]
        } else {
            &[16, -16]
        };
        let mut f = Function::new(0x1000, size);
        f.fres = vec![
            fre(0, B1, false, &[8]),
            fre(size / 2, B2, aarch64, pair),
            fre(size - 4, B4, false, &[300_000]),
        ];
        s.functions.push(f);
        if version != Version::V1 {
            let mut m = Function::new(0x1000 + i64::from(size), 0x40);
            m.pc_type = PcType::Mask;
            m.rep_size = 16;
            m.fres = vec![fre(0, B1, false, &[8]), fre(8, B1, false, &[16])];
            s.functions.push(m);
        }
        s.functions
            .push(Function::new(0x1000 + 2 * i64::from(size), 0x10));
        if version == Version::V3 {
            let mut x = Function::new(0x1000 + 3 * i64::from(size), 0x10);
            x.fde_type = FdeType::Flex;
            x.fres = vec![fre(0, B1, false, &[(7 << 3) | 1, 8])];
            s.functions.push(x);
        }
        s
    }

    /// Every FDE of `data` that the fast path vouches for is one the full check finds no
    /// fault in, ending where the full check ends it; returns how many it vouched for.
    fn agree(data: &[u8]) -> usize {
        let Ok(s) = SectionRef::parse(data) else {
            return 0;
        };
        let Some(clean) = CleanRun::for_section(&s) else {
            return 0;
        };
        let mut vouched = 0;
        for i in 0..s.num_fdes() {
            let Ok(fde) = s.fde(i) else { continue };
            if let Some(end) = clean.end(&s, &fde) {
                let mut faults = Vec::new();
                let full = check_fres(&s, &fde, &mut faults);
                assert_eq!(
                    (full, faults.as_slice()),
                    (Some(end), &[][..]),
                    "function {i} of {data:02x?}"
                );
                vouched += 1;
            }
        }
        vouched
    }

    #[test]
    fn clean_runs_agree_with_the_full_check() {
        let abis = [Abi::Amd64, Abi::Aarch64Le, Abi::Aarch64Be];
        for version in [Version::V1, Version::V2, Version::V3] {
            for abi in abis {
                // 1-, 2- and 4-byte FRE start addresses.
                for size in [0x80, 0x1000, 0x2_0000] {
                    let model = section(version, abi, size);
                    let data = crate::encode(&model).expect("the model encodes");
                    assert!(crate::validate(&data).is_empty(), "{version:?} {abi:?}");
                    // Every default-type function is vouched for as written.
                    let default = model
                        .functions
                        .iter()
                        .filter(|f| f.fde_type == FdeType::Default)
                        .count();
                    assert_eq!(agree(&data), default, "{version:?} {abi:?} {size:#x}");
                    let mut mutated = data.clone();
                    for at in 0..data.len() {
                        let was = data[at];
                        let values = (0..8).map(|b| was ^ (1 << b)).chain([0, 0xff]);
                        for value in values {
                            mutated[at] = value;
                            agree(&mutated);
                        }
                        mutated[at] = was;
                    }
                }
            }
        }
    }

    #[test]
    fn an_fre_at_the_function_end_takes_the_full_check() {
        // GNU as writes an FRE at offset == size after a trailing CFI directive (F0006):
        // the fast path does not vouch for that function, the full check warns.
        for version in [Version::V1, Version::V2, Version::V3] {
            let mut model = section(version, Abi::Amd64, 0x80);
            model.functions[0].fres[2].start = 0x80;
            let data = crate::encode(&model).expect("the model encodes");
            let default = model
                .functions
                .iter()
                .filter(|f| f.fde_type == FdeType::Default)
                .count();
            assert_eq!(agree(&data), default - 1, "{version:?}");
            let rules: Vec<_> = crate::validate(&data).iter().map(|v| v.rule).collect();
            assert_eq!(rules, [crate::Rule::FreStartAtEnd], "{version:?}");
        }
    }

    #[test]
    fn readers_with_quirks_and_s390x_take_the_full_check() {
        let data = crate::encode(&section(Version::V2, Abi::S390x, 0x80)).expect("encodes");
        let s = SectionRef::parse(&data).expect("parses");
        assert!(CleanRun::for_section(&s).is_none());
        let data = crate::encode(&section(Version::V2, Abi::Amd64, 0x80)).expect("encodes");
        let quirks = crate::Quirks::NONE.with(crate::Quirk::PerFunctionErrors);
        let s = SectionRef::parse_with(&data, quirks).expect("parses");
        assert!(CleanRun::for_section(&s).is_none());
    }
}
