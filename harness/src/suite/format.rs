//! The files of a suite: the class of a case, the case file (`NAME.json`) beside each raw
//! section, how a case is named, and reading a suite's `index.json` back.

use crate::impls::{Decoded, Found};
use crate::signature::VersionTag;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;
use std::path::{Path, PathBuf};

/// At most this many PCs are looked up per valid section.
pub const MAX_PCS: usize = 64;

/// The class of a case, and the directory it is written to. Declared (and ordered) by name,
/// the order of `index.json`'s `counts`; [`Class::ALL`] is the order cases are reported in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// It decodes but breaks an error-severity rule: refusing or accepting is not a failure.
    Invalid,
    /// It cannot be decoded (the bytes are not what the header says).
    Malformed,
    /// It breaks no error-severity rule (warnings allowed).
    Valid,
}

impl Class {
    /// The classes in the order they are reported.
    pub const ALL: [Class; 3] = [Class::Valid, Class::Malformed, Class::Invalid];

    /// Its name: the directory, and the `class` of a case file.
    pub fn name(self) -> &'static str {
        match self {
            Class::Valid => "valid",
            Class::Malformed => "malformed",
            Class::Invalid => "invalid",
        }
    }

    /// Its place in [`Class::ALL`].
    pub fn rank(self) -> usize {
        match self {
            Class::Valid => 0,
            Class::Malformed => 1,
            Class::Invalid => 2,
        }
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Padded: tables align the class column with `{:<10}`.
        f.pad(self.name())
    }
}

/// One rule broken, as a case file lists it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Broken {
    pub rule: String,
    /// Byte offset into the section of the field or record at fault.
    pub offset: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub function: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fre: Option<u32>,
    pub message: String,
}

/// One expected look-up.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Lookup {
    /// Offset from the start of the section.
    pub pc: i64,
    /// The row, or `null` when no function covers the PC.
    pub row: Option<Found>,
}

/// A case file (`NAME.json`).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CaseFile {
    pub name: String,
    pub class: Class,
    pub version: VersionTag,
    /// The `sfp_version` byte, when the magic is right.
    #[serde(default)]
    pub version_byte: Option<u8>,
    /// The raw section, beside this file.
    pub file: String,
    pub size: usize,
    /// Where the section comes from (the first source, when several gave the same bytes).
    pub source: String,
    /// The reference's decode (valid and invalid cases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_decode: Option<Decoded>,
    /// The reference's row at each PC (valid cases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_rows: Option<Vec<Lookup>>,
    /// The error-severity rules the validator reports (malformed and invalid cases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules_broken: Option<Vec<Broken>>,
    /// The rule the reference's decoder stopped at (malformed cases).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decode_error: Option<String>,
    /// Warning-severity rules (any class): allowed, listed for information.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Broken>,
}

/// 64-bit FNV-1a of `data`.
pub fn fnv1a(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The name of a case: `<class>-<version>-<16 hex digits of the FNV-1a of the bytes>`, in
/// the characters a file name keeps.
pub fn case_name(class: Class, version: VersionTag, data: &[u8]) -> String {
    crate::diff::campaign::file_name_of(&format!("{class}-{version}-{:016x}", fnv1a(data)))
}

/// Read the suite's index: the case files, in index order, each with its section's path.
pub fn read_suite(dir: &Path) -> Result<Vec<(CaseFile, PathBuf)>, String> {
    let ip = dir.join("index.json");
    let text = std::fs::read_to_string(&ip).map_err(|e| {
        format!(
            "{}: cannot read the suite ({e}); export one with `sframe-conform suite export DIR`",
            ip.display()
        )
    })?;
    let idx: Value =
        serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", ip.display()))?;
    let Some(cases) = idx["cases"].as_array() else {
        return Err(format!("{}: no \"cases\" list", ip.display()));
    };
    let mut out = Vec::new();
    for c in cases {
        let (Some(j), Some(s)) = (c["json"].as_str(), c["sframe"].as_str()) else {
            return Err(format!(
                "{}: a case without \"json\" and \"sframe\"",
                ip.display()
            ));
        };
        let jp = dir.join(j);
        let text = std::fs::read_to_string(&jp).map_err(|e| format!("{}: {e}", jp.display()))?;
        let case: CaseFile =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", jp.display()))?;
        out.push((case, dir.join(s)));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a's published test vectors (the offset basis for no bytes; "a" and "foobar"
    /// from the reference implementation's test suite by Fowler, Noll and Vo).
    #[test]
    fn fnv1a_gives_the_published_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    /// The class names of the README's layout, in both directions, and in the order the
    /// README's tables and the score table list them.
    #[test]
    fn classes_read_back_as_written() {
        for (c, name) in Class::ALL.iter().zip(["valid", "malformed", "invalid"]) {
            assert_eq!(c.to_string(), name);
            let back: Class = serde_json::from_value(Value::from(name)).unwrap();
            assert_eq!(back, *c);
            assert_eq!(Class::ALL[c.rank()], *c);
        }
        assert!(serde_json::from_value::<Class>(Value::from("v2")).is_err());
    }
}
