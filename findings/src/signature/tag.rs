//! The layout tag of a signature: the section's version and what look-ups depend on.

use super::ParseError;
use sframe_spec::layout::RawHeader;
use sframe_spec::section_version;
use sframe_spec::Version;
use std::fmt;
use std::str::FromStr;

/// A section's format version as every output names it: `v1`, `v2`, `v3`, or `v?` when the
/// preamble names no version the format defines. The version part of a [`LayoutTag`], the
/// version column of the diff summary and of the exported suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct VersionTag(pub Option<Version>);

/// How [`VersionTag`] spells a version the preamble does not name.
const UNKNOWN_VERSION: &str = "v?";

impl VersionTag {
    /// The version a section's preamble names.
    pub fn of(data: &[u8]) -> VersionTag {
        VersionTag(section_version(data))
    }

    /// The tag at the start of `s`, and the rest of `s`.
    fn split(s: &str) -> Option<(VersionTag, &str)> {
        if let Some(rest) = s.strip_prefix(UNKNOWN_VERSION) {
            return Some((VersionTag(None), rest));
        }
        let r = s.strip_prefix('v')?;
        let n = r.get(..1)?.parse::<u8>().ok()?;
        Some((VersionTag(Some(Version::from_u8(n)?)), &r[1..]))
    }
}

impl fmt::Display for VersionTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Padded: tables align the version column with `{:<8}`.
        match self.0 {
            Some(v) => f.pad(&v.to_string()),
            None => f.pad(UNKNOWN_VERSION),
        }
    }
}

impl FromStr for VersionTag {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<VersionTag, ParseError> {
        match VersionTag::split(s) {
            Some((tag, "")) => Ok(tag),
            _ => Err(ParseError::BadTag(s.to_string())),
        }
    }
}

impl serde::Serialize for VersionTag {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for VersionTag {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<VersionTag, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A [`VersionTag`] with what look-ups depend
/// on appended (in this order):
/// - `-pcrel` (v2/v3 with `SFRAME_F_FDE_FUNC_START_PCREL`): how function starts are encoded;
/// - `-aux` when the header has an auxiliary header (`sfh_auxhdr_len` is not 0): the
///   sub-section offsets count from its end (v3 §2.2);
/// - `-fdeoff` when the FDE sub-section does not start right after the header (`sfh_fdeoff`
///   is not 0): a PC-relative start is relative to its field, whose offset includes it, and
///   a reader that ignores the field reads FDEs from the wrong place;
/// - `-freoff` when the FRE sub-section does not start right after the FDEs (`sfh_freoff`
///   is not `sfh_fdeoff` plus the FDE sub-section's size): a reader that assumes the
///   packed layout reads FREs from the wrong place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct LayoutTag {
    pub version: Option<Version>,
    pub pcrel: bool,
    pub aux: bool,
    pub fdeoff: bool,
    pub freoff: bool,
}

const FLAGS: [&str; 4] = ["-pcrel", "-aux", "-fdeoff", "-freoff"];

impl LayoutTag {
    /// The tag of a bare version (an encoder's model before it is written).
    pub fn version(v: Version) -> LayoutTag {
        LayoutTag {
            version: Some(v),
            ..LayoutTag::default()
        }
    }

    /// The tag of a section.
    pub fn of(data: &[u8]) -> LayoutTag {
        let Some(v) = section_version(data) else {
            return LayoutTag::default();
        };
        let h = RawHeader::of(data);
        let pcrel = v != Version::V1
            && h.flags()
                .is_some_and(|f| f & sframe_spec::constants::flags::FDE_FUNC_START_PCREL != 0);
        let aux = h.auxhdr_len().is_some_and(|n| n != 0);
        let fdeoff = h.fdeoff().is_some_and(|o| o != 0);
        let freoff = match (h.num_fdes(), h.fdeoff(), h.freoff()) {
            (Some(n), Some(fde), Some(fre)) => {
                u64::from(fre) != u64::from(fde) + u64::from(n) * v.fde_entry_size() as u64
            }
            _ => false,
        };
        LayoutTag {
            version: Some(v),
            pcrel,
            aux,
            fdeoff,
            freoff,
        }
    }

    fn flags(&self) -> [bool; 4] {
        [self.pcrel, self.aux, self.fdeoff, self.freoff]
    }
}

impl fmt::Display for LayoutTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", VersionTag(self.version))?;
        for (on, name) in self.flags().into_iter().zip(FLAGS) {
            if on {
                f.write_str(name)?;
            }
        }
        Ok(())
    }
}

impl FromStr for LayoutTag {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<LayoutTag, ParseError> {
        let bad = || ParseError::BadTag(s.to_string());
        let (VersionTag(version), mut rest) = VersionTag::split(s).ok_or_else(bad)?;
        let mut on = [false; 4];
        for (i, name) in FLAGS.iter().enumerate() {
            if let Some(r) = rest.strip_prefix(name) {
                on[i] = true;
                rest = r;
            }
        }
        if !rest.is_empty() {
            return Err(bad());
        }
        let [pcrel, aux, fdeoff, freoff] = on;
        Ok(LayoutTag {
            version,
            pcrel,
            aux,
            fdeoff,
            freoff,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_tag_has_one_spelling_in_text_json_and_tables() {
        // The grammar of the README's signature table: `v1`, `v2`, `v3` or `v?`.
        for (tag, text) in [
            (VersionTag(Some(Version::V1)), "v1"),
            (VersionTag(Some(Version::V3)), "v3"),
            (VersionTag(None), "v?"),
        ] {
            assert_eq!(tag.to_string(), text);
            assert_eq!(text.parse::<VersionTag>(), Ok(tag));
            let json = serde_json::to_string(&tag).unwrap();
            assert_eq!(json, format!("\"{text}\""));
            assert_eq!(serde_json::from_str::<VersionTag>(&json).unwrap(), tag);
        }
        assert_eq!(format!("[{:<4}]", VersionTag(None)), "[v?  ]");
        assert_eq!(format!("[{:<4}]", VersionTag(Some(Version::V2))), "[v2  ]");
        for other in ["vx", "other", "v4", "v?-pcrel", ""] {
            assert!(other.parse::<VersionTag>().is_err(), "{other}");
        }
        // Section bytes without the magic name no version.
        assert_eq!(VersionTag::of(&[0; 8]), VersionTag(None));
    }
}
