//! decode(encode(m)) == m for models the writer accepts, in every version, ABI and byte
//! order, and the writer refuses exactly what the fields cannot hold.

use proptest::prelude::*;
use sframe_spec::*;

fn fre_strategy() -> impl Strategy<Value = Fre> {
    (
        any::<u16>(),
        any::<bool>(),
        any::<bool>(),
        0usize..3,
        proptest::collection::vec(any::<i32>(), 0..6),
    )
        .prop_map(|(start, sp, mangled, size, words)| {
            let size = DataWordSize::ALL[size];
            let bits = 8 * size.bytes() as u32;
            let words = words
                .into_iter()
                .map(|w| (w << (32 - bits)) >> (32 - bits))
                .collect();
            Fre {
                start: u32::from(start),
                base_reg: if sp { BaseReg::Sp } else { BaseReg::Fp },
                mangled_ra: mangled,
                dataword_size: size,
                datawords: words,
            }
        })
}

fn section_strategy() -> impl Strategy<Value = Section> {
    let function = (
        any::<i32>(),
        any::<u32>(),
        0usize..3,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<u8>(),
        proptest::collection::vec(fre_strategy(), 0..5),
    );
    (
        0usize..3,
        0usize..4,
        any::<bool>(),
        any::<u8>(),
        any::<i8>(),
        any::<i8>(),
        proptest::collection::vec(any::<u8>(), 0..4),
        proptest::collection::vec(function, 0..5),
    )
        .prop_map(|(v, a, flip, flags, fp, ra, aux, fns)| {
            let version = Version::ALL[v];
            let abi = Abi::ALL[a];
            let mut s = Section::new(version, abi);
            if flip {
                s.endian = if s.endian == Endian::Little {
                    Endian::Big
                } else {
                    Endian::Little
                };
            }
            s.flags = flags;
            s.cfa_fixed_fp_offset = fp;
            s.cfa_fixed_ra_offset = ra;
            s.aux_header = aux;
            for (start, size, fre_type, mask, flex, signal, rep, fres) in fns {
                let mut f = Function::new(i64::from(start), size);
                f.fre_type = FreType::ALL[fre_type];
                f.pc_type = if mask { PcType::Mask } else { PcType::Inc };
                if version == Version::V3 {
                    f.fde_type = if flex {
                        FdeType::Flex
                    } else {
                        FdeType::Default
                    };
                    f.signal = signal;
                }
                if version != Version::V1 {
                    f.rep_size = rep;
                }
                f.fres = fres
                    .into_iter()
                    .map(|mut r| {
                        r.start %= f.fre_type.limit().min(1 << 16) as u32;
                        r
                    })
                    .collect();
                s.functions.push(f);
            }
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn decode_inverts_encode(s in section_strategy()) {
        // The writer writes an s390x id into a v1 header when asked (malformed inputs are
        // made that way); the reader cannot decode it (HDR-ABI).
        prop_assume!(s.abi.defined_in(s.version));
        let bytes = match encode(&s) {
            Ok(b) => b,
            // PC-relative starts that leave the int32 field are the only refusal possible here.
            Err(EncodeError::StartOutOfRange { .. }) => return Ok(()),
            Err(e) => panic!("unexpected refusal {e:?}"),
        };
        let d = decode(&bytes).expect("the writer's output decodes");
        let mut expected = s.clone();
        // The writer lays functions out densely, in order.
        let mut off = 0u32;
        for f in &mut expected.functions {
            f.fre_offset = Some(off);
            let block: usize = f.fres.iter().map(|r| f.fre_type.addr_size() + 1 + r.datawords.len() * r.dataword_size.bytes()).sum();
            off += (block + if s.version == Version::V3 { 5 } else { 0 }) as u32;
        }
        prop_assert_eq!(&d, &expected);
        prop_assert_eq!(encode(&d).unwrap(), bytes);
    }
}

#[test]
fn the_writer_refuses_what_fields_cannot_hold() {
    let mut s = Section::new(Version::V2, Abi::Amd64);
    let mut f = Function::new(0, 16);
    f.fres.push(Fre {
        start: 300,
        base_reg: BaseReg::Sp,
        mangled_ra: false,
        dataword_size: DataWordSize::B1,
        datawords: vec![8],
    });
    s.functions.push(f);
    assert!(matches!(
        encode(&s),
        Err(EncodeError::FreStartTooWide { .. })
    ));
    s.functions[0].fre_type = FreType::Addr2;
    s.functions[0].fres[0].datawords = vec![200];
    assert!(matches!(
        encode(&s),
        Err(EncodeError::DataWordTooWide { .. })
    ));
    s.functions[0].fres[0].datawords = vec![8; 16];
    assert!(matches!(
        encode(&s),
        Err(EncodeError::TooManyDataWords { .. })
    ));
    s.functions[0].fres[0].datawords = vec![8];
    s.functions[0].fde_type = FdeType::Flex;
    assert!(matches!(encode(&s), Err(EncodeError::NotInVersion { .. })));
    s.functions[0].fde_type = FdeType::Default;
    s.functions[0].start = i64::from(i32::MAX) + 1;
    assert!(matches!(
        encode(&s),
        Err(EncodeError::StartOutOfRange { .. })
    ));
}
