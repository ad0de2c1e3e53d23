//! The layout tag of a signature: the section's version and what look-ups depend on.

use super::ParseError;
use sframe_spec::layout::RawHeader;
use sframe_spec::section_version;
use sframe_spec::Version;
use std::fmt;
use std::str::FromStr;

/// `v1`, `v2`, `v3`, or `v?` when the preamble names no version, with what look-ups depend
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
        match self.version {
            Some(v) => write!(f, "{v}")?,
            None => f.write_str("v?")?,
        }
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
        let (version, mut rest) = if let Some(r) = s.strip_prefix("v?") {
            (None, r)
        } else {
            let r = s.strip_prefix('v').ok_or_else(bad)?;
            let n = r
                .get(..1)
                .and_then(|d| d.parse::<u8>().ok())
                .ok_or_else(bad)?;
            (Some(Version::from_u8(n).ok_or_else(bad)?), &r[1..])
        };
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
