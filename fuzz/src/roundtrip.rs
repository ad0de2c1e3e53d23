//! The reference writer and reader are exact inverses: a model built from arbitrary bytes
//! and encoded decodes back to itself (with the writer's layout), and re-encodes to the same
//! bytes.

use arbitrary::Unstructured;
use sframe_spec::*;

fn arbitrary_section(u: &mut Unstructured) -> arbitrary::Result<Section> {
    let version = *u.choose(&Version::ALL)?;
    let abi = *u.choose(&Abi::ALL)?;
    let mut s = Section::new(version, abi);
    if !abi.defined_in(version) {
        s.abi = Abi::Amd64;
    }
    s.flags = u.arbitrary()?;
    s.cfa_fixed_fp_offset = u.arbitrary()?;
    s.cfa_fixed_ra_offset = u.arbitrary()?;
    if u.ratio(1, 8)? {
        s.endian = if s.endian == Endian::Little {
            Endian::Big
        } else {
            Endian::Little
        };
    }
    let aux_len = u.int_in_range(0..=3)?;
    s.aux_header = (0..aux_len)
        .map(|_| u.arbitrary())
        .collect::<arbitrary::Result<_>>()?;
    for _ in 0..u.int_in_range(0..=6)? {
        let mut f = Function::new(i64::from(u.arbitrary::<i16>()?) * 16, u.arbitrary()?);
        f.fre_type = *u.choose(&FreType::ALL)?;
        f.pc_type = if u.arbitrary()? {
            PcType::Mask
        } else {
            PcType::Inc
        };
        f.pauth_key = if u.arbitrary()? {
            PauthKey::B
        } else {
            PauthKey::A
        };
        if version == Version::V3 {
            f.fde_type = if u.arbitrary()? {
                FdeType::Flex
            } else {
                FdeType::Default
            };
            f.signal = u.arbitrary()?;
        }
        if version != Version::V1 {
            f.rep_size = u.arbitrary()?;
        }
        for _ in 0..u.int_in_range(0..=5)? {
            let size = *u.choose(&DataWordSize::ALL)?;
            let n = u.int_in_range(0..=15)?;
            let bits = 8 * size.bytes() as u32;
            let words = (0..n)
                .map(|_| {
                    u.arbitrary::<i32>()
                        .map(|w| (w << (32 - bits)) >> (32 - bits))
                })
                .collect::<arbitrary::Result<_>>()?;
            let start = (u.arbitrary::<u32>()? as u64 % f.fre_type.limit()) as u32;
            f.fres.push(Fre {
                start,
                base_reg: if u.arbitrary()? {
                    BaseReg::Sp
                } else {
                    BaseReg::Fp
                },
                mangled_ra: u.arbitrary()?,
                dataword_size: size,
                datawords: words,
            });
        }
        s.functions.push(f);
    }
    Ok(s)
}

pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let s = arbitrary_section(u)?;
    let Ok(bytes) = encode(&s) else { return Ok(()) };
    let d = decode(&bytes).expect("the writer's output decodes");
    let mut with_layout = s.clone();
    for (f, g) in with_layout.functions.iter_mut().zip(&d.functions) {
        f.fre_offset = g.fre_offset;
    }
    assert_eq!(d, with_layout, "decode(encode(m)) != m");
    assert_eq!(encode(&d).unwrap(), bytes, "encode(decode(b)) != b");
    Ok(())
}

crate::seeded_test!(2000, 2048);
