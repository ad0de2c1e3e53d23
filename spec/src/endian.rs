//! Byte order of a section, and bounds-checked reads and writes at explicit offsets.
//!
//! An SFrame section is stored in the byte order of its target; the magic number
//! `0xdee2` read in either order decides which (v3 manual §2.1.1). Every read here
//! is checked and returns `None` past the end of the input: nothing in this crate
//! indexes a slice without a bound check.

/// The byte order of an SFrame section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Endian {
    Little,
    Big,
}

impl Endian {
    /// Decide the byte order from the first two bytes of a section, or `None` when they
    /// are not the SFrame magic in either order.
    pub fn from_magic(bytes: &[u8]) -> Option<Endian> {
        match bytes.get(0..2)? {
            [0xe2, 0xde] => Some(Endian::Little),
            [0xde, 0xe2] => Some(Endian::Big),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Endian::Little => "little",
            Endian::Big => "big",
        }
    }

    #[inline]
    pub fn read_u8(self, b: &[u8], off: usize) -> Option<u8> {
        b.get(off).copied()
    }

    pub fn read_i8(self, b: &[u8], off: usize) -> Option<i8> {
        b.get(off).map(|&v| v as i8)
    }

    #[inline]
    pub fn read_u16(self, b: &[u8], off: usize) -> Option<u16> {
        let a: [u8; 2] = b.get(off..off.checked_add(2)?)?.try_into().ok()?;
        Some(match self {
            Endian::Little => u16::from_le_bytes(a),
            Endian::Big => u16::from_be_bytes(a),
        })
    }

    #[inline]
    pub fn read_u32(self, b: &[u8], off: usize) -> Option<u32> {
        let a: [u8; 4] = b.get(off..off.checked_add(4)?)?.try_into().ok()?;
        Some(match self {
            Endian::Little => u32::from_le_bytes(a),
            Endian::Big => u32::from_be_bytes(a),
        })
    }

    #[inline]
    pub fn read_u64(self, b: &[u8], off: usize) -> Option<u64> {
        let a: [u8; 8] = b.get(off..off.checked_add(8)?)?.try_into().ok()?;
        Some(match self {
            Endian::Little => u64::from_le_bytes(a),
            Endian::Big => u64::from_be_bytes(a),
        })
    }

    /// Read an unsigned integer of `width` bytes (1, 2, 4 or 8).
    #[inline]
    pub fn read_uint(self, b: &[u8], off: usize, width: usize) -> Option<u64> {
        match width {
            1 => self.read_u8(b, off).map(u64::from),
            2 => self.read_u16(b, off).map(u64::from),
            4 => self.read_u32(b, off).map(u64::from),
            8 => self.read_u64(b, off),
            _ => None,
        }
    }

    /// Read a signed integer of `width` bytes (1, 2 or 4), sign-extended.
    #[inline]
    pub fn read_int(self, b: &[u8], off: usize, width: usize) -> Option<i64> {
        match width {
            1 => self.read_u8(b, off).map(|v| i64::from(v as i8)),
            2 => self.read_u16(b, off).map(|v| i64::from(v as i16)),
            4 => self.read_u32(b, off).map(|v| i64::from(v as i32)),
            8 => self.read_u64(b, off).map(|v| v as i64),
            _ => None,
        }
    }

    /// Append the low `width` bytes of `v` (1, 2, 4 or 8) in this byte order.
    pub fn put(self, out: &mut Vec<u8>, v: u64, width: usize) {
        let le = v.to_le_bytes();
        let n = width.min(8);
        match self {
            Endian::Little => out.extend_from_slice(&le[..n]),
            Endian::Big => out.extend(le[..n].iter().rev()),
        }
    }

    /// Overwrite `width` bytes at `off` with `v`; returns `false` when out of bounds.
    pub fn write_at(self, buf: &mut [u8], off: usize, v: u64, width: usize) -> bool {
        let Some(end) = off.checked_add(width) else {
            return false;
        };
        let Some(dst) = buf.get_mut(off..end) else {
            return false;
        };
        let le = v.to_le_bytes();
        for (i, d) in dst.iter_mut().enumerate() {
            *d = match self {
                Endian::Little => le[i],
                Endian::Big => le[width - 1 - i],
            };
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_decides_byte_order() {
        // v3 manual §2.1: sfp_magic is 0xdee2 stored in the target byte order.
        assert_eq!(Endian::from_magic(&[0xe2, 0xde]), Some(Endian::Little));
        assert_eq!(Endian::from_magic(&[0xde, 0xe2]), Some(Endian::Big));
        assert_eq!(Endian::from_magic(&[0xde, 0xde]), None);
        assert_eq!(Endian::from_magic(&[0xe2]), None);
    }

    #[test]
    fn reads_are_bounded_and_ordered() {
        let b = [0x01, 0x02, 0x03, 0x04, 0x05];
        assert_eq!(Endian::Little.read_u32(&b, 0), Some(0x0403_0201));
        assert_eq!(Endian::Big.read_u32(&b, 0), Some(0x0102_0304));
        assert_eq!(Endian::Big.read_u32(&b, 2), None);
        assert_eq!(Endian::Little.read_u16(&b, usize::MAX), None);
        assert_eq!(Endian::Little.read_int(&[0xff], 0, 1), Some(-1));
        assert_eq!(Endian::Big.read_int(&[0xff, 0x7f], 0, 2), Some(-129));
    }

    #[test]
    fn put_and_write_at_are_inverse_of_read() {
        for e in [Endian::Little, Endian::Big] {
            let mut v = Vec::new();
            e.put(&mut v, 0x1122_3344, 4);
            assert_eq!(e.read_u32(&v, 0), Some(0x1122_3344));
            assert!(e.write_at(&mut v, 0, 0xabcd, 2));
            assert_eq!(e.read_u16(&v, 0), Some(0xabcd));
            assert!(!e.write_at(&mut v, 3, 0, 2));
        }
    }
}
