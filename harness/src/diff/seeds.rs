//! Built-in seed sections: small valid models for every version, ABI and start encoding,
//! encoded by the reference writer.
//!
//! They cover what real toolchains rarely emit together: PC-mask (PLT) functions, outermost
//! frames (no data words), flex FDEs, wide FRE types and data words, AArch64 mangled RAs and
//! the B key, s390x scaled CFA offsets, RA padding and (v2) register-number offsets, and both
//! start encodings (with and without `SFRAME_F_FDE_FUNC_START_PCREL`). Each one breaks no
//! error-severity rule (a test checks it).

use super::Case;
use sframe_spec::constants::{flags, s390x_v2_offset_encode_regnum, S390X_SP_VAL_OFFSET};
use sframe_spec::recovery::Control;
use sframe_spec::{
    encode, Abi, BaseReg, DataWordSize, FdeType, Fre, FreType, Function, PauthKey, PcType, Section,
    Version,
};

fn fre(start: u32, base: BaseReg, size: DataWordSize, words: &[i64]) -> Fre {
    Fre {
        start,
        base_reg: base,
        mangled_ra: false,
        dataword_size: size,
        datawords: words.iter().map(|&w| w as i32).collect(),
    }
}

fn ctl(reg: Option<u32>, deref: bool) -> i64 {
    Control {
        reg_p: reg.is_some(),
        deref_p: deref,
        unused: false,
        regnum: reg.unwrap_or(0),
    }
    .to_word(DataWordSize::B1)
}

use BaseReg::{Fp, Sp};
use DataWordSize::{B1, B2};

/// Rows of an ordinary function for `abi`: prologue, body with FP, epilogue.
fn ordinary(version: Version, abi: Abi) -> Vec<Fre> {
    match abi {
        Abi::Amd64 => vec![
            fre(0, Sp, B1, &[8]),
            fre(1, Sp, B1, &[16, -16]),
            fre(4, Fp, B1, &[16, -16]),
            fre(0x3c, Sp, B1, &[8]),
        ],
        Abi::Aarch64Le | Abi::Aarch64Be => {
            let mut v = vec![
                fre(0, Sp, B1, &[0]),
                fre(4, Sp, B1, &[16, -16, -8]),
                fre(8, Fp, B1, &[16, -16, -8]),
                fre(0x38, Sp, B1, &[0]),
            ];
            v[1].mangled_ra = true;
            v[2].mangled_ra = true;
            v
        }
        Abi::S390x => {
            // Stored CFA offsets are (CFA offset - 160) / 8 (v3 manual §3.1.3).
            let mut v = vec![
                fre(0, Sp, B1, &[0]),
                fre(6, Sp, B1, &[20, -48, -56]),
                fre(0xc, Sp, B1, &[20, 0, -56]),
            ];
            if version == Version::V2 {
                // RA in r14 and FP in r13, as register numbers (v2 Errata 1).
                let regnum = s390x_v2_offset_encode_regnum;
                v.push(fre(0x20, Sp, B1, &[20, regnum(14), regnum(13)]));
            }
            v
        }
    }
}

/// One section for `version`, `abi` and start encoding.
pub fn model(version: Version, abi: Abi, pcrel: bool) -> Section {
    let mut s = Section::new(version, abi);
    s.flags = flags::FDE_SORTED
        | if pcrel {
            flags::FDE_FUNC_START_PCREL
        } else {
            0
        };
    let base: i64 = -0x2000;
    let mut f0 = Function::new(base, 0x40);
    f0.fres = ordinary(version, abi);
    if abi.is_aarch64() {
        f0.pauth_key = PauthKey::B;
    }
    s.functions.push(f0);
    if version != Version::V1 {
        // A PLT: rows repeat every 16 bytes.
        let mut plt = Function::new(base + 0x40, 0x30);
        plt.pc_type = PcType::Mask;
        plt.rep_size = 16;
        plt.fres = match abi {
            Abi::S390x => vec![fre(0, Sp, B1, &[0]), fre(6, Sp, B1, &[1])],
            Abi::Amd64 => vec![fre(0, Sp, B1, &[8]), fre(6, Sp, B1, &[16])],
            _ => vec![fre(0, Sp, B1, &[0]), fre(6, Sp, B1, &[16])],
        };
        s.functions.push(plt);
        // An outermost frame: RA undefined (no data words; v2 Errata 2, v3 §2.4.1).
        let mut start = Function::new(base + 0x70, 0x10);
        start.fres = vec![fre(0, Sp, B1, &[])];
        s.functions.push(start);
    }
    if version == Version::V3 && matches!(abi, Abi::Amd64 | Abi::S390x) {
        let regs = abi.regs();
        let (sp, fp) = (u32::from(regs.sp), u32::from(regs.fp));
        let mut flex = Function::new(base + 0x80, 0x40);
        flex.fde_type = FdeType::Flex;
        // s390x: SP = CFA - 160 (SFRAME_S390X_SP_VAL_OFFSET); AMD64: the return address.
        let cfa_sp_off = if abi == Abi::S390x {
            -S390X_SP_VAL_OFFSET
        } else {
            8
        };
        flex.fres = vec![
            // CFA = SP + 8: only the CFA pair; RA and FP from the header / unchanged.
            fre(
                0,
                Sp,
                if cfa_sp_off > 127 { B2 } else { B1 },
                &[ctl(Some(sp), false), cfa_sp_off],
            ),
            // CFA = r10 (DRAP): RA padding, FP = *(FP + 0).
            fre(
                4,
                Sp,
                B1,
                &[ctl(Some(10), false), 0, 0, ctl(Some(fp), true), 0],
            ),
            // CFA = *(FP - 8), RA = *(CFA - 8), FP = *(FP + 0).
            fre(
                8,
                Sp,
                B1,
                &[
                    ctl(Some(fp), true),
                    -8,
                    ctl(None, true),
                    -8,
                    ctl(Some(fp), true),
                    0,
                ],
            ),
        ];
        s.functions.push(flex);
    }
    // A large function: 2-byte start addresses and data words.
    let mut big = Function::new(base + 0x100, 0x1200);
    big.fre_type = FreType::Addr2;
    big.fres = match abi {
        Abi::Amd64 => vec![
            fre(0, Sp, B1, &[8]),
            fre(0x100, Sp, B2, &[0x1010, -16]),
            fre(0x1100, Sp, B1, &[8]),
        ],
        Abi::S390x => vec![
            fre(0, Sp, B1, &[0]),
            fre(0x100, Sp, B2, &[0x200, -48, -56]),
            fre(0x1100, Sp, B1, &[0]),
        ],
        _ => vec![
            fre(0, Sp, B1, &[0]),
            fre(0x100, Sp, B2, &[0x1010, -16, -8]),
            fre(0x1100, Sp, B1, &[0]),
        ],
    };
    s.functions.push(big);
    s
}

/// Every built-in seed, named `builtin:v<N>-<abi>[-pcrel]`.
pub fn builtin() -> Vec<Case> {
    let mut out = Vec::new();
    for version in Version::ALL {
        for abi in Abi::ALL {
            if !abi.defined_in(version) {
                continue;
            }
            let encodings: &[bool] = if version == Version::V1 {
                &[false]
            } else {
                &[false, true]
            };
            for &pcrel in encodings {
                let m = model(version, abi, pcrel);
                if let Ok(data) = encode(&m) {
                    let name = format!(
                        "builtin:{version}-{}{}",
                        abi.name(),
                        if pcrel { "-pcrel" } else { "" }
                    );
                    out.push(Case { name, data });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_seed_is_valid() {
        let seeds = builtin();
        assert_eq!(seeds.len(), 3 + 4 * 2 + 4 * 2);
        for c in seeds {
            let v = sframe_spec::validate(&c.data);
            assert!(sframe_spec::is_valid(&v), "{}: {:?}", c.name, v);
        }
    }
}
