//! Byte vectors written by hand from the spec's tables, one per version and ABI, in both
//! byte orders where the ABI allows: decoded field by field, and re-encoded to the same bytes.
//!
//! Tables followed: v3 manual §2.2 (header), §2.3.1 (FDE index), §2.3.2 (FDE attribute),
//! §2.4 (FREs), §2.4.1 (FRE info byte); v2 info §2.3 (20-byte FDE); v1 texi "SFrame FDE"
//! (17-byte packed FDE).

mod common;
use common::*;
use rstest::rstest;
use sframe_spec::*;

/// A v1 AMD64 section: two functions, ADDR1 FREs (v1 texi "SFrame FDE" table).
fn v1_amd64(e: Endian) -> Vec<u8> {
    let mut f = header(1, 0x1, 3, 0, -8, 0, 2, 3, 0, 0, 2 * 17);
    let fres = vec![
        // function 0: FRE at 0: CFA = SP + 8; FRE at 1: CFA = SP + 16, FP = CFA - 16
        F::U8(0),
        F::U8(fre_info(false, 0, 1, true)),
        F::I8(8),
        F::U8(1),
        F::U8(fre_info(false, 0, 2, true)),
        F::I8(16),
        F::I8(-16),
        // function 1: FRE at 0: CFA = FP + 16 (2-byte data word)
        F::U8(0),
        F::U8(fre_info(false, 1, 1, false)),
        F::U16(16),
    ];
    let fre_len = bytes(e, &fres).len() as u32;
    f[9] = F::U32(fre_len);
    // FDE 0: start 0x100 (from the section start), size 0x20, fre_off 0, 2 FREs, info
    f.extend([
        F::I32(0x100),
        F::U32(0x20),
        F::U32(0),
        F::U32(2),
        F::U8(fde_info(false, false, false, 0)),
    ]);
    // FDE 1: start 0x120, size 0x10, fre_off 7, 1 FRE
    f.extend([
        F::I32(0x120),
        F::U32(0x10),
        F::U32(7),
        F::U32(1),
        F::U8(fde_info(false, false, false, 0)),
    ]);
    f.extend(fres);
    bytes(e, &f)
}

#[test]
fn v1_amd64_decodes_as_the_table_says() {
    let b = v1_amd64(Endian::Little);
    assert_eq!(b.len(), 28 + 34 + 11);
    assert!(validate(&b).is_empty(), "{:?}", validate(&b));
    let s = decode(&b).unwrap();
    assert_eq!(
        (s.version, s.abi, s.endian, s.flags),
        (Version::V1, Abi::Amd64, Endian::Little, 1)
    );
    assert_eq!(s.functions.len(), 2);
    let f0 = &s.functions[0];
    assert_eq!(
        (f0.start, f0.size, f0.fre_offset, f0.fres.len()),
        (0x100, 0x20, Some(0), 2)
    );
    assert_eq!(f0.fres[1].datawords, vec![16, -16]);
    assert_eq!(s.functions[1].fres[0].dataword_size, DataWordSize::B2);
    assert_eq!(s.functions[1].fres[0].base_reg, BaseReg::Fp);
    assert_eq!(encode(&s).unwrap(), b);
}

/// A v2 section for `abi` (v2 info §2.3: 20-byte FDE with rep_size and padding), including a
/// PC-mask FDE with rep_size 16 and a 4-byte data word.
fn v2(e: Endian, abi: u8, pcrel: bool) -> Vec<u8> {
    let amd64 = abi == 3;
    let fixed_ra = if amd64 { -8 } else { 0 };
    let flags = 0x1 | if pcrel { 0x4 } else { 0 };
    let mut f = header(2, flags, abi, 0, fixed_ra, 0, 2, 2, 0, 0, 40);
    let cnt = if amd64 { 1 } else { 3 };
    let mut fres = vec![
        F::U16(0),
        F::U8(fre_info(false, 2, cnt, true)),
        F::I32(0x12345),
    ];
    if !amd64 {
        fres.extend([F::I32(-8), F::I32(-16)]);
    }
    fres.extend([F::U8(0), F::U8(fre_info(false, 0, 1, true)), F::I8(8)]);
    let fre_len = bytes(e, &fres).len() as u32;
    f[9] = F::U32(fre_len);
    let fre1_off = fre_len - 3;
    // With SFRAME_F_FDE_FUNC_START_PCREL the field holds start - (offset of the field).
    let start = |addr: i32, fde: i32| if pcrel { addr - (28 + 20 * fde) } else { addr };
    // FDE 0: ADDR2 FREs, PC-increment.
    f.extend([
        F::I32(start(0x1000, 0)),
        F::U32(0x300),
        F::U32(0),
        F::U32(1),
        F::U8(fde_info(false, false, false, 1)),
        F::U8(0),
        F::U16(0),
    ]);
    // FDE 1: PLT-like, PC-mask with 16-byte blocks.
    f.extend([
        F::I32(start(0x2000, 1)),
        F::U32(0x40),
        F::U32(fre1_off),
        F::U32(1),
        F::U8(fde_info(false, false, true, 0)),
        F::U8(16),
        F::U16(0),
    ]);
    f.extend(fres);
    bytes(e, &f)
}

#[rstest]
#[case::amd64(Endian::Little, 3)]
#[case::aarch64_le(Endian::Little, 2)]
#[case::aarch64_be(Endian::Big, 1)]
#[case::s390x(Endian::Big, 4)]
fn v2_decodes_as_the_table_says(
    #[case] e: Endian,
    #[case] abi: u8,
    #[values(false, true)] pcrel: bool,
) {
    let b = v2(e, abi, pcrel);
    assert!(validate(&b).is_empty(), "{:?}", validate(&b));
    let s = decode(&b).unwrap();
    assert_eq!((s.version, s.abi.id(), s.endian), (Version::V2, abi, e));
    let (f0, f1) = (&s.functions[0], &s.functions[1]);
    assert_eq!(
        (f0.start, f0.size, f0.fre_type, f0.pc_type),
        (0x1000, 0x300, FreType::Addr2, PcType::Inc)
    );
    assert_eq!(f0.fres[0].datawords[0], 0x12345);
    assert_eq!(
        (f1.start, f1.pc_type, f1.rep_size),
        (0x2000, PcType::Mask, 16)
    );
    assert_eq!(encode(&s).unwrap(), b);
    // Lookup in the mask FDE: PC 0x2000 + 16*3 + 5 is in block 3, offset 5 -> FRE 0 (start 0).
    let r = SectionRef::parse(&b).unwrap();
    let found = r.find(0x2000 + 48 + 5).unwrap().unwrap();
    assert_eq!((found.fde.index, found.fre_index), (1, 0));
    assert!(r.find(0x2040).unwrap().is_none());
}

/// A v3 section (v3 manual §2.3.1 index, §2.3.2 attribute interleaved with FREs) with a
/// default FDE, a flex FDE and an outermost (no-FRE) FDE, PC-relative starts.
fn v3(e: Endian, abi: u8) -> Vec<u8> {
    let amd64 = abi == 3;
    let fixed_ra = if amd64 { -8 } else { 0 };
    let mut f = header(3, 0x1 | 0x4, abi, 0, fixed_ra, 0, 3, 3, 0, 0, 3 * 16);
    let cfa_reg = if amd64 {
        7u8
    } else if abi == 4 {
        15
    } else {
        31
    };
    let mut data = vec![
        // function 0 attribute: 2 FREs, info (ADDR1, INC), info2 (DEFAULT), rep_size 0
        F::U16(2),
        F::U8(fde_info(false, false, false, 0)),
        F::U8(0),
        F::U8(0),
        F::U8(0),
        F::U8(fre_info(false, 0, 1, true)),
        F::I8(if abi == 4 { 0 } else { 8 }),
        // RA undefined row (count 0)
        F::U8(4),
        F::U8(fre_info(false, 0, 0, true)),
        // function 1 attribute: 1 FRE, signal frame, FLEX
        F::U16(1),
        F::U8(fde_info(true, false, false, 0)),
        F::U8(1),
        F::U8(0),
        // FRE: CFA = *(reg + 8) [control (reg << 3) | deref | reg_p], RA = *(CFA - 8), 2-byte words
        F::U8(0),
        F::U8(fre_info(false, 1, 4, true)),
        F::U16(((cfa_reg as u16) << 3) | 3),
        F::U16(8),
        F::U16(2),
        F::U16(-8i16 as u16),
        // function 2 attribute: no FREs (outermost frame, v3 §1.2)
        F::U16(0),
        F::U8(0),
        F::U8(0),
        F::U8(0),
    ];
    let lens: Vec<usize> = [(0, 9), (9, 19), (19, 23)]
        .iter()
        .map(|&(a, b)| bytes(e, &data[a..b]).len())
        .collect();
    let fre_len = lens.iter().sum::<usize>() as u32;
    f[9] = F::U32(fre_len);
    let start = |addr: i64, fde: i64| addr - (28 + 16 * fde);
    f.extend([F::I64(start(0x4000, 0)), F::U32(0x10), F::U32(0)]);
    f.extend([
        F::I64(start(0x4010, 1)),
        F::U32(0x10),
        F::U32(lens[0] as u32),
    ]);
    f.extend([
        F::I64(start(0x4020, 2)),
        F::U32(0x8),
        F::U32((lens[0] + lens[1]) as u32),
    ]);
    f.append(&mut data);
    bytes(e, &f)
}

#[rstest]
#[case::amd64(Endian::Little, 3)]
#[case::aarch64_le(Endian::Little, 2)]
#[case::aarch64_be(Endian::Big, 1)]
#[case::s390x(Endian::Big, 4)]
fn v3_decodes_as_the_table_says(#[case] e: Endian, #[case] abi: u8) {
    let b = v3(e, abi);
    assert!(validate(&b).is_empty(), "{:?}", validate(&b));
    let s = decode(&b).unwrap();
    assert_eq!(
        s.functions.iter().map(|f| f.start).collect::<Vec<_>>(),
        vec![0x4000, 0x4010, 0x4020]
    );
    let f1 = &s.functions[1];
    assert!(f1.signal);
    assert_eq!(f1.fde_type, FdeType::Flex);
    let rules = s.recovery(f1, &f1.fres[0]).unwrap();
    let sp = u32::from(s.abi.regs().sp);
    // s390x stores CFA offsets as (offset - 160) / 8, flex FDEs included (GNU as and
    // libsframe 2.47, discrepancy D-V3-S390X-FLEX-CFA-SCALE): a stored 8 is 8 * 8 + 160.
    let cfa_offset = if abi == 4 { 8 * 8 + 160 } else { 8 };
    assert_eq!(rules.cfa, Loc::at_reg(sp, cfa_offset));
    assert_eq!(rules.ra, Loc::slot(-8));
    let f0 = &s.functions[0];
    assert_eq!(s.recovery(f0, &f0.fres[1]).unwrap().ra, Loc::Undefined);
    assert!(s.functions[2].fres.is_empty());
    assert_eq!(encode(&s).unwrap(), b);
}

#[test]
fn byte_order_is_the_only_difference_between_be_and_le_encodings() {
    // The same model in both orders: every multi-byte field is reversed, single bytes equal.
    let le = v2(Endian::Little, 2, false);
    let be = v2(Endian::Big, 1, false);
    assert_eq!(le.len(), be.len());
    assert_eq!(&le[0..2], &[0xe2, 0xde]);
    assert_eq!(&be[0..2], &[0xde, 0xe2]);
    assert_eq!(&le[8..12], &[2, 0, 0, 0]);
    assert_eq!(&be[8..12], &[0, 0, 0, 2]);
}
