//! Every rule of the catalogue has a case that makes it fire, on every version and ABI it
//! applies to, starting from a section that breaks no rule at all (so each rule also has a
//! case where it does not fire).

use sframe_spec::constants::flags;
use sframe_spec::layout::header as ho;
use sframe_spec::*;

/// A section that breaks no rule: three functions (the second a PC-mask block from v2 on),
/// FREs typical of the ABI (v3 manual §3.1 tables).
fn base(version: Version, abi: Abi) -> Section {
    let mut s = Section::new(version, abi);
    s.flags = flags::FDE_SORTED
        | if version == Version::V3 {
            flags::FDE_FUNC_START_PCREL
        } else {
            0
        };
    let fre = |start, words: &[i32]| Fre {
        start,
        base_reg: BaseReg::Sp,
        mangled_ra: false,
        dataword_size: DataWordSize::for_values(words),
        datawords: words.to_vec(),
    };
    let rows: Vec<Fre> = match abi {
        Abi::Amd64 => vec![fre(0, &[8]), fre(4, &[16, -16])],
        Abi::Aarch64Le | Abi::Aarch64Be => vec![fre(0, &[0]), fre(4, &[16, -8, -16])],
        Abi::S390x => vec![fre(0, &[0]), fre(6, &[20, -48, -56])],
    };
    let mut f0 = Function::new(0x1000, 0x40);
    f0.fres = rows.clone();
    let mut f1 = Function::new(0x1040, 0x20);
    f1.fres = vec![rows[0].clone()];
    if version != Version::V1 {
        f1.pc_type = PcType::Mask;
        f1.rep_size = 16;
    }
    let mut f2 = Function::new(0x1060, 0x10);
    f2.fres = rows;
    s.functions = vec![f0, f1, f2];
    s
}

fn enc(s: &Section) -> Vec<u8> {
    encode(s).expect("test model encodes")
}

fn put(b: &mut [u8], s: &Section, off: usize, v: u64, w: usize) {
    assert!(s.endian.write_at(b, off, v, w));
}

fn with(s: &Section, f: impl FnOnce(&mut Section)) -> Vec<u8> {
    let mut s = s.clone();
    f(&mut s);
    enc(&s)
}

/// Absolute offset of function `i`'s FDE info byte, and of its first FRE.
fn info_and_first_fre(b: &[u8], i: usize) -> (usize, usize) {
    let r = SectionRef::parse(b).unwrap();
    let fde = r.fde(i).unwrap();
    (
        fde.attr_offset.map_or(fde.offset + 16, |a| a + 2),
        fde.data_start,
    )
}

type Mutation = fn(&Section) -> Option<Vec<u8>>;

fn flex_fn(s: &Section, words: Vec<i32>) -> Option<Vec<u8>> {
    (s.version == Version::V3).then(|| {
        with(s, |s| {
            let f = &mut s.functions[0];
            f.fde_type = FdeType::Flex;
            f.fres = vec![Fre {
                start: 0,
                base_reg: BaseReg::Sp,
                mangled_ra: false,
                dataword_size: DataWordSize::B1,
                datawords: words,
            }];
        })
    })
}

fn ctl(reg_p: bool, deref_p: bool, unused: bool, regnum: u32) -> i32 {
    Control {
        reg_p,
        deref_p,
        unused,
        regnum,
    }
    .to_word(DataWordSize::B1) as i32
}

fn cases() -> Vec<(Rule, Mutation)> {
    vec![
        (Rule::PreambleMagic, |s| {
            let mut b = enc(s);
            b[0] = 0;
            Some(b)
        }),
        (Rule::PreambleVersion, |s| {
            let mut b = enc(s);
            b[ho::VERSION] = 9;
            Some(b)
        }),
        (Rule::HeaderFits, |s| {
            let mut b = enc(s);
            b.truncate(20);
            Some(b)
        }),
        (Rule::HeaderFlagsReserved, |s| {
            Some(with(s, |s| s.flags |= 0x80))
        }),
        (Rule::HeaderFlagsUnknownLegacy, |s| {
            Some(with(s, |s| s.flags |= 0x40))
        }),
        (Rule::HeaderFlagVersion, |s| match s.version {
            Version::V1 => Some(with(s, |s| s.flags |= flags::FDE_FUNC_START_PCREL)),
            Version::V3 => Some(with(s, |s| s.flags |= flags::FRAME_POINTER)),
            Version::V2 => None,
        }),
        (Rule::HeaderAbiKnown, |s| {
            let mut b = enc(s);
            b[ho::ABI_ARCH] = if s.version == Version::V1 { 4 } else { 9 };
            Some(b)
        }),
        (Rule::HeaderAbiEndian, |s| {
            Some(with(s, |s| {
                s.endian = if s.endian == Endian::Little {
                    Endian::Big
                } else {
                    Endian::Little
                }
            }))
        }),
        (Rule::HeaderAuxFits, |s| {
            let mut b = enc(s);
            b[ho::AUXHDR_LEN] = 255;
            b.truncate(100);
            Some(b)
        }),
        (Rule::HeaderFixedRaAmd64, |s| {
            Some(with(s, |s| s.cfa_fixed_ra_offset = -16))
        }),
        (Rule::HeaderFixedRaTracked, |s| {
            Some(with(s, |s| s.cfa_fixed_ra_offset = -8))
        }),
        (Rule::HeaderFdeOffsetZero, |s| {
            // One spare byte between header and FDE sub-section; both offsets move with it.
            let mut b = enc(s);
            let freoff = s.endian.read_u32(&b, ho::FREOFF).unwrap();
            put(&mut b, s, ho::FDEOFF, 1, 4);
            put(&mut b, s, ho::FREOFF, u64::from(freoff) + 1, 4);
            b.insert(28, 0);
            Some(b)
        }),
        (Rule::HeaderFdeSubsectionFits, |s| {
            let mut b = enc(s);
            put(&mut b, s, ho::NUM_FDES, 1000, 4);
            Some(b)
        }),
        (Rule::HeaderFdeSubsectionTiles, |s| {
            let mut b = enc(s);
            let freoff = s.endian.read_u32(&b, ho::FREOFF).unwrap();
            put(&mut b, s, ho::FREOFF, u64::from(freoff) + 1, 4);
            b.insert(28 + freoff as usize, 0);
            Some(b)
        }),
        (Rule::HeaderFreSubsectionFits, |s| {
            let mut b = enc(s);
            let l = s.endian.read_u32(&b, ho::FRE_LEN).unwrap();
            put(&mut b, s, ho::FRE_LEN, u64::from(l) + 1000, 4);
            Some(b)
        }),
        (Rule::HeaderSectionEnd, |s| {
            let mut b = enc(s);
            b.push(0);
            Some(b)
        }),
        (Rule::HeaderNumFres, |s| {
            let mut b = enc(s);
            put(&mut b, s, ho::NUM_FRES, 7, 4);
            Some(b)
        }),
        (Rule::FdeSorted, |s| {
            Some(with(s, |s| s.functions.swap(0, 2)))
        }),
        (Rule::FdeOverlap, |s| {
            Some(with(s, |s| s.functions[1].start = 0x1030))
        }),
        (Rule::FdeDataFits, |s| {
            let mut b = enc(s);
            let r = SectionRef::parse(&b).unwrap();
            let fre_len = r.header().fre_len;
            let field = r.fde_offset(0) + if s.version == Version::V3 { 12 } else { 8 };
            put(&mut b, s, field, u64::from(fre_len) + 5, 4);
            Some(b)
        }),
        (Rule::FdeFreType, |s| {
            let mut b = enc(s);
            let (i, _) = info_and_first_fre(&b, 0);
            b[i] |= 0x3;
            Some(b)
        }),
        (Rule::FdeType, |s| {
            (s.version == Version::V3).then(|| {
                let mut b = enc(s);
                let (i, _) = info_and_first_fre(&b, 0);
                b[i + 1] = 5;
                b
            })
        }),
        (Rule::FdeInfoUnused, |s| {
            Some(with(s, |s| s.functions[0].reserved.info = 0x40))
        }),
        (Rule::FdePauthKeyAbi, |s| {
            Some(with(s, |s| s.functions[0].pauth_key = PauthKey::B))
        }),
        (Rule::FdeRepSizeMask, |s| {
            Some(with(s, |s| s.functions[1].rep_size = 0))
        }),
        (Rule::FdeRepSizeInc, |s| {
            Some(with(s, |s| s.functions[0].rep_size = 4))
        }),
        (Rule::FdePadding, |s| {
            Some(with(s, |s| s.functions[0].reserved.padding = 1))
        }),
        (Rule::FdeSignalV3, |s| {
            Some(with(s, |s| {
                s.functions[2].signal = true;
                s.functions[2].fres.clear()
            }))
        }),
        (Rule::FdeSizeZero, |s| {
            Some(with(s, |s| s.functions[2].size = 0))
        }),
        (Rule::FdeBlocksDisjoint, |s| {
            let mut b = enc(s);
            let r = SectionRef::parse(&b).unwrap();
            let field = r.fde_offset(2) + if s.version == Version::V3 { 12 } else { 8 };
            put(&mut b, s, field, 0, 4);
            Some(b)
        }),
        (Rule::FreSubsectionDense, |s| {
            Some(with(s, |s| {
                let mut off = 3;
                for f in &mut s.functions {
                    f.fre_offset = Some(off);
                    off += 64;
                }
            }))
        }),
        (Rule::FreFits, |s| {
            let mut b = enc(s);
            let l = s.endian.read_u32(&b, ho::FRE_LEN).unwrap();
            put(&mut b, s, ho::FRE_LEN, u64::from(l) - 1, 4);
            b.pop();
            Some(b)
        }),
        (Rule::FreDataWordSize, |s| {
            let mut b = enc(s);
            let (_, f) = info_and_first_fre(&b, 0);
            b[f + 1] |= 0x60;
            Some(b)
        }),
        (Rule::FreStartIncreasing, |s| {
            Some(with(s, |s| s.functions[0].fres[1].start = 0))
        }),
        (Rule::FreStartInFunction, |s| {
            Some(with(s, |s| s.functions[2].fres[1].start = 0x20))
        }),
        // Function 2 is 0x10 bytes long: an FRE starting at 0x10 describes no instruction.
        (Rule::FreStartAtEnd, |s| {
            Some(with(s, |s| s.functions[2].fres[1].start = 0x10))
        }),
        (Rule::FreFirstAtZero, |s| {
            Some(with(s, |s| s.functions[0].fres[0].start = 1))
        }),
        (Rule::FreCountZeroV1, |s| {
            Some(with(s, |s| s.functions[0].fres[0].datawords.clear()))
        }),
        (Rule::FreCountMax, |s| {
            Some(with(s, |s| {
                s.functions[0].fres[0].datawords = vec![8, -8, -16, -24]
            }))
        }),
        (Rule::FreCountAmd64, |s| {
            Some(with(s, |s| {
                s.functions[0].fres[0].datawords = vec![8, -8, -16]
            }))
        }),
        (Rule::FreCountAarch64, |s| {
            Some(with(s, |s| s.functions[0].fres[0].datawords = vec![16, -8]))
        }),
        (Rule::FreCountS390x, |s| {
            Some(with(s, |s| {
                s.functions[0].fres[0].datawords = vec![20, -48, -56, -64]
            }))
        }),
        (Rule::FreMangledRaAbi, |s| {
            Some(with(s, |s| s.functions[0].fres[0].mangled_ra = true))
        }),
        (Rule::FreS390xV3NoRegnum, |s| {
            Some(with(s, |s| s.functions[0].fres[1].datawords[1] = -47))
        }),
        (Rule::FreS390xRaPadding, |s| {
            Some(with(s, |s| s.functions[0].fres[1].datawords = vec![20, 0]))
        }),
        (Rule::FlexLayout, |s| {
            flex_fn(
                s,
                vec![ctl(true, false, false, u32::from(s.abi.regs().sp)), 8, 0],
            )
        }),
        (Rule::FlexCfaRegister, |s| {
            flex_fn(s, vec![ctl(false, true, false, 0), 8])
        }),
        (Rule::FlexFpControl, |s| {
            flex_fn(
                s,
                vec![
                    ctl(true, false, false, u32::from(s.abi.regs().sp)),
                    8,
                    ctl(false, true, false, 0),
                    -8,
                    0,
                    0,
                ],
            )
        }),
        (Rule::FlexControlUnused, |s| {
            flex_fn(
                s,
                vec![ctl(true, false, true, u32::from(s.abi.regs().sp)), 8],
            )
        }),
    ]
}

fn combinations() -> Vec<(Version, Abi)> {
    let mut v = Vec::new();
    for version in Version::ALL {
        for abi in Abi::ALL {
            if abi.defined_in(version) {
                v.push((version, abi));
            }
        }
    }
    v
}

#[test]
fn base_sections_break_no_rule_and_round_trip() {
    for (version, abi) in combinations() {
        let b = enc(&base(version, abi));
        assert_eq!(validate(&b), vec![], "{version} {abi}");
        let d = decode(&b).unwrap();
        assert_eq!(encode(&d).unwrap(), b, "{version} {abi}");
    }
}

#[test]
fn every_rule_fires_on_its_case_wherever_it_applies() {
    let cases = cases();
    let mut failures = Vec::new();
    for rule in Rule::ALL {
        let Some((_, mutate)) = cases.iter().find(|(r, _)| r == rule) else {
            failures.push(format!("{}: no case", rule.id()));
            continue;
        };
        let mut fired_somewhere = false;
        for (version, abi) in combinations() {
            if !rule.applies(version, Some(abi)) {
                continue;
            }
            let Some(bytes) = mutate(&base(version, abi)) else {
                continue;
            };
            let got = validate(&bytes);
            if got.iter().any(|v| v.rule == *rule) {
                fired_somewhere = true;
                // Malformed-class rules are exactly what stops decoding.
                assert_eq!(
                    decode(&bytes).is_err(),
                    is_malformed(&got),
                    "{} {version} {abi}: {got:?}",
                    rule.id()
                );
            } else {
                failures.push(format!(
                    "{} {version} {abi}: did not fire; got {:?}",
                    rule.id(),
                    got.iter().map(|v| v.rule.id()).collect::<Vec<_>>()
                ));
            }
        }
        if !fired_somewhere {
            failures.push(format!("{}: no applicable combination", rule.id()));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
