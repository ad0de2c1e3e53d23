//! Test support: write byte vectors field by field, as the spec's tables lay them out, in
//! either byte order, independently of the crate's writer.

#![allow(dead_code)]

use sframe_spec::Endian;

/// The cache of `ci/toolchains`.
#[allow(unused_imports)]
pub use sframe_provision::cache_dir as cache;

/// A field of a hand-written section: width in bytes and value.
#[derive(Clone, Copy, Debug)]
pub enum F {
    U8(u8),
    I8(i8),
    U16(u16),
    U32(u32),
    I32(i32),
    I64(i64),
}

/// Lay out fields in byte order `e`.
pub fn bytes(e: Endian, fields: &[F]) -> Vec<u8> {
    let mut out = Vec::new();
    for f in fields {
        let (v, w): (u64, usize) = match *f {
            F::U8(v) => (v as u64, 1),
            F::I8(v) => (v as u8 as u64, 1),
            F::U16(v) => (v as u64, 2),
            F::U32(v) => (v as u64, 4),
            F::I32(v) => (v as u32 as u64, 4),
            F::I64(v) => (v as u64, 8),
        };
        let le = v.to_le_bytes();
        match e {
            Endian::Little => out.extend_from_slice(&le[..w]),
            Endian::Big => out.extend(le[..w].iter().rev()),
        }
    }
    out
}

/// `sframe_header` (v3 manual §2.2 table), 28 bytes.
#[allow(clippy::too_many_arguments)]
pub fn header(
    version: u8,
    flags: u8,
    abi: u8,
    fixed_fp: i8,
    fixed_ra: i8,
    auxhdr_len: u8,
    num_fdes: u32,
    num_fres: u32,
    fre_len: u32,
    fdeoff: u32,
    freoff: u32,
) -> Vec<F> {
    vec![
        F::U16(0xdee2),    // 0x00 sfp_magic
        F::U8(version),    // 0x02 sfp_version
        F::U8(flags),      // 0x03 sfp_flags
        F::U8(abi),        // 0x04 sfh_abi_arch
        F::I8(fixed_fp),   // 0x05 sfh_cfa_fixed_fp_offset
        F::I8(fixed_ra),   // 0x06 sfh_cfa_fixed_ra_offset
        F::U8(auxhdr_len), // 0x07 sfh_auxhdr_len
        F::U32(num_fdes),  // 0x08 sfh_num_fdes
        F::U32(num_fres),  // 0x0c sfh_num_fres
        F::U32(fre_len),   // 0x10 sfh_fre_len
        F::U32(fdeoff),    // 0x14 sfh_fdeoff
        F::U32(freoff),    // 0x18 sfh_freoff
    ]
}

/// FRE info byte (v3 manual §2.4.1): mangled_ra (7), dataword size (6-5), count (4-1), base reg (0).
pub fn fre_info(mangled: bool, size: u8, count: u8, sp_based: bool) -> u8 {
    ((mangled as u8) << 7) | (size << 5) | (count << 1) | sp_based as u8
}

/// FDE info byte: (v3 §2.3.3) signal (7), pauth key (5), pc type (4), fre type (3-0).
pub fn fde_info(signal: bool, pauth_b: bool, mask: bool, fre_type: u8) -> u8 {
    ((signal as u8) << 7) | ((pauth_b as u8) << 5) | ((mask as u8) << 4) | fre_type
}
