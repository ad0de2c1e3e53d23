//! A type field as a reader reports it: a value the format defines, or the number of one it
//! does not.
//!
//! Readers that pass an undefined FRE, PC or FDE type on must still be comparable with the
//! reference, so the number is kept instead of being lost in a `None`. A [`Stored`] converts
//! to and from its stored number exactly ([`From<u8>`], [`Stored::code`]), and with the
//! `serde` feature it is written as that number.

/// A field type whose values are stored as one number (the format's codes).
pub trait TypeCode: Copy {
    /// The value stored as `v`, if the format defines one.
    fn from_code(v: u8) -> Option<Self>;
    /// The number the value is stored as.
    fn code(self) -> u8;
}

/// A defined value of `T`, or the stored number of an undefined one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stored<T> {
    Defined(T),
    Undefined(u8),
}

impl<T> Stored<T> {
    /// The defined value, if it is one.
    pub fn defined(self) -> Option<T> {
        match self {
            Stored::Defined(t) => Some(t),
            Stored::Undefined(_) => None,
        }
    }
}

impl<T: TypeCode> Stored<T> {
    /// The stored number.
    pub fn code(self) -> u8 {
        match self {
            Stored::Defined(t) => t.code(),
            Stored::Undefined(v) => v,
        }
    }
}

impl<T: TypeCode> From<u8> for Stored<T> {
    fn from(v: u8) -> Stored<T> {
        T::from_code(v).map_or(Stored::Undefined(v), Stored::Defined)
    }
}

impl<T: TypeCode> From<T> for Stored<T> {
    fn from(t: T) -> Stored<T> {
        Stored::Defined(t)
    }
}

#[cfg(feature = "serde")]
impl<T: TypeCode> serde::Serialize for Stored<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(self.code())
    }
}

#[cfg(feature = "serde")]
impl<'de, T: TypeCode> serde::Deserialize<'de> for Stored<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Stored<T>, D::Error> {
        u8::deserialize(d).map(Stored::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FdeType, FreType, PcType};

    #[test]
    fn stored_types_keep_undefined_numbers() {
        assert_eq!(Stored::from(1), Stored::Defined(PcType::Mask));
        assert_eq!(Stored::<PcType>::from(2), Stored::Undefined(2));
        assert_eq!(Stored::from(2).defined(), Some(FreType::Addr4));
        assert_eq!(Stored::<FreType>::from(3).defined(), None);
        assert_eq!(Stored::from(1), Stored::Defined(FdeType::Flex));
    }

    #[test]
    fn numbers_round_trip() {
        for v in 0..=u8::MAX {
            assert_eq!(Stored::<FreType>::from(v).code(), v);
            assert_eq!(Stored::<PcType>::from(v).code(), v);
            assert_eq!(Stored::<FdeType>::from(v).code(), v);
        }
        // The codes are the manual's (v3 §2.3.3.1-3), not the enums' order.
        assert_eq!(Stored::Defined(FreType::Addr4).code(), 2);
        assert_eq!(Stored::Defined(PcType::Mask).code(), 1);
        assert_eq!(Stored::Defined(FdeType::Flex).code(), 1);
    }
}
