//! Walking the files and directories a command is given, one file at a time, reporting
//! every file.
//!
//! [`Walk`] is an iterator of [`Entry`]: per file its path and an [`Outcome`], a loaded
//! SFrame section, a file without one ([`Outcome::NoSframe`], with the
//! [`sframe_elf::LoadError`] saying why), a file that could not be read
//! ([`Outcome::Unreadable`]), or a special file left alone ([`Outcome::Skipped`]). Nothing
//! stops the walk: an unreadable directory is an entry like an unreadable file. [`Summary`]
//! counts entries by kind and renders as text and JSON; every command that takes
//! `FILE|DIR...` prints it.
//!
//! The walk is lazy and deterministic: named paths in the order given, each directory's
//! entries sorted by name, depth first; one directory listing and one file's bytes at a
//! time. Found by walking, symbolic links to files are read and symbolic links to
//! directories are not followed (so there are no loops); FIFOs, sockets and devices are
//! skipped without being opened. A path named on the command line is followed whatever it
//! links to, and a named FIFO is read (`<(...)` in a shell); named devices and sockets are
//! skipped. Files that start with neither the ELF nor the SFrame magic are not read past
//! their first bytes, nor ELF files whose headers say they hold no SFrame
//! ([`sframe_elf::probe`]).
//!
//! ```no_run
//! use sframe_harness::walk::{Outcome, Summary, Walk};
//! let mut summary = Summary::default();
//! for entry in Walk::new(&["/usr/lib".into()]) {
//!     summary.add(&entry);
//!     if let Outcome::Section { loaded, .. } = &entry.outcome {
//!         println!("{}: {} bytes of SFrame", entry.path.display(), loaded.bytes.len());
//!     }
//! }
//! print!("{}", summary.render_text());
//! ```

use serde::Serialize;
use sframe_elf::{load, LoadError, Loaded};
use std::collections::BTreeMap;
use std::fmt;
use std::fs::{File, FileType};
use std::io::{Read, Seek};
use std::path::{Path, PathBuf};

/// What reading one file gave.
#[derive(Debug)]
pub enum Outcome {
    /// An SFrame section: of an ELF file or a raw section. `file` holds the whole file's
    /// bytes when [`Walk::keep_file`] asked for them.
    Section {
        loaded: Loaded,
        file: Option<Vec<u8>>,
    },
    /// Read, but holds no SFrame section: the reason is one of [`NoSframeKind`]'s.
    NoSframe(LoadError),
    /// Could not be read (or its section could not be taken out of it).
    Unreadable(Unreadable),
    /// Not a regular file, left alone.
    Skipped(SkipKind),
}

/// One file (or an unreadable directory) of the walk.
#[derive(Debug)]
pub struct Entry {
    pub path: PathBuf,
    /// The path of the command line this entry was reached from.
    pub root: PathBuf,
    /// Named on the command line rather than found by walking a directory.
    pub named: bool,
    pub outcome: Outcome,
}

/// Why a file holds no SFrame section: the kinds of [`LoadError`] that say so.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoSframeKind {
    /// Neither ELF nor an SFrame section.
    NotElfOrSframe,
    /// An ELF file without a `.sframe` section.
    NoSframeSection,
    /// An ELF file for a machine SFrame does not describe.
    OtherMachine,
    /// An ELF file whose `.sframe` section is empty (what `ld --discard-sframe` leaves:
    /// no SFrame data, discrepancy D-EMPTY-SFRAME-SECTION).
    EmptySection,
}

impl NoSframeKind {
    /// The kind of a load error that means "no SFrame here", or `None` when the error means
    /// the file could not be read as what it claims to be (see [`Unreadable::Load`]).
    pub fn of(e: &LoadError) -> Option<NoSframeKind> {
        match e {
            LoadError::NotSframe => Some(NoSframeKind::NotElfOrSframe),
            LoadError::NoSframeSection => Some(NoSframeKind::NoSframeSection),
            LoadError::UnsupportedMachine(_) => Some(NoSframeKind::OtherMachine),
            LoadError::EmptySection => Some(NoSframeKind::EmptySection),
            LoadError::BadElf(_)
            | LoadError::UnsupportedRelocation { .. }
            | LoadError::OutOfBounds(_) => None,
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            NoSframeKind::NotElfOrSframe => "not ELF or SFrame",
            NoSframeKind::NoSframeSection => "ELF without .sframe",
            NoSframeKind::OtherMachine => "ELF of a machine SFrame does not describe",
            NoSframeKind::EmptySection => "ELF with an empty .sframe",
        }
    }
}

/// Why a file (or directory) could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// The operating system refused (permissions, a dangling link, an I/O error).
    Io {
        kind: std::io::ErrorKind,
        message: String,
    },
    /// An ELF file whose `.sframe` could not be taken out: malformed ELF, a relocation
    /// this project does not apply, a section outside the file.
    Load(LoadError),
    /// A command could not go on with a section it was given (the command says why).
    Command(String),
}

impl Unreadable {
    fn io(e: &std::io::Error) -> Unreadable {
        Unreadable::Io {
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unreadable::Io { message, .. } => f.write_str(message),
            Unreadable::Load(e) => write!(f, "{e}"),
            Unreadable::Command(m) => f.write_str(m),
        }
    }
}

/// A special file the walk does not open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SkipKind {
    /// A FIFO met while walking a directory (named ones are read).
    Fifo,
    Socket,
    Device,
    /// A symbolic link to a directory met while walking (not followed).
    LinkToDirectory,
}

impl SkipKind {
    pub fn describe(self) -> &'static str {
        match self {
            SkipKind::Fifo => "FIFO",
            SkipKind::Socket => "socket",
            SkipKind::Device => "device",
            SkipKind::LinkToDirectory => "link to a directory",
        }
    }

    fn of(t: &FileType, named: bool) -> Option<SkipKind> {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() && !named {
            Some(SkipKind::Fifo)
        } else if t.is_socket() {
            Some(SkipKind::Socket)
        } else if t.is_block_device() || t.is_char_device() {
            Some(SkipKind::Device)
        } else {
            None
        }
    }
}

/// The walk over the paths of a command line: an iterator of [`Entry`].
pub struct Walk {
    /// Named paths not started yet, in order.
    named: std::vec::IntoIter<PathBuf>,
    /// The directories being walked: the root, then per level the sorted entries left.
    stack: Vec<std::vec::IntoIter<PathBuf>>,
    root: PathBuf,
    keep_file: bool,
}

impl Walk {
    pub fn new(paths: &[PathBuf]) -> Walk {
        Walk {
            named: Vec::from(paths).into_iter(),
            stack: Vec::new(),
            root: PathBuf::new(),
            keep_file: false,
        }
    }

    /// Also hand out each section's whole file ([`Outcome::Section`]'s `file`), for the
    /// commands that need the code beside the section.
    pub fn keep_file(mut self, keep: bool) -> Walk {
        self.keep_file = keep;
        self
    }

    fn entry(&self, path: PathBuf, named: bool, outcome: Outcome) -> Entry {
        Entry {
            path,
            root: self.root.clone(),
            named,
            outcome,
        }
    }

    /// Start walking directory `dir`: its sorted listing is pushed, or an entry saying why
    /// it cannot be listed is returned.
    fn enter(&mut self, dir: PathBuf, named: bool) -> Option<Entry> {
        let listing = std::fs::read_dir(&dir).and_then(|rd| {
            rd.map(|e| e.map(|e| e.path()))
                .collect::<Result<Vec<_>, _>>()
        });
        match listing {
            Ok(mut paths) => {
                paths.sort();
                self.stack.push(paths.into_iter());
                None
            }
            Err(e) => Some(self.entry(dir, named, Outcome::Unreadable(Unreadable::io(&e)))),
        }
    }

    /// One path: a file read, a directory entered (`None`), or a special file skipped.
    fn visit(&mut self, path: PathBuf, named: bool) -> Option<Entry> {
        // Named paths are followed; found ones are looked at as they are.
        let meta = if named {
            std::fs::metadata(&path)
        } else {
            std::fs::symlink_metadata(&path)
        };
        let meta = match meta {
            Ok(m) => m,
            Err(e) => {
                return Some(self.entry(path, named, Outcome::Unreadable(Unreadable::io(&e))))
            }
        };
        let mut t = meta.file_type();
        if t.is_symlink() {
            match std::fs::metadata(&path) {
                Ok(m) if m.is_dir() => {
                    let o = Outcome::Skipped(SkipKind::LinkToDirectory);
                    return Some(self.entry(path, named, o));
                }
                Ok(m) => t = m.file_type(),
                Err(e) => {
                    let o = Outcome::Unreadable(Unreadable::io(&e));
                    return Some(self.entry(path, named, o));
                }
            }
        }
        if t.is_dir() {
            return self.enter(path, named);
        }
        if let Some(k) = SkipKind::of(&t, named) {
            return Some(self.entry(path, named, Outcome::Skipped(k)));
        }
        let outcome = read_file(&path, self.keep_file);
        Some(self.entry(path, named, outcome))
    }
}

impl Iterator for Walk {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        loop {
            while let Some(level) = self.stack.last_mut() {
                match level.next() {
                    Some(p) => {
                        if let Some(e) = self.visit(p, false) {
                            return Some(e);
                        }
                    }
                    None => {
                        self.stack.pop();
                    }
                }
            }
            let p = self.named.next()?;
            self.root = p.clone();
            if let Some(e) = self.visit(p, true) {
                return Some(e);
            }
        }
    }
}

/// Read one file: its first bytes, and the rest only when they are the ELF or SFrame magic.
pub fn read_file(path: &Path, keep_file: bool) -> Outcome {
    let io = |e: std::io::Error| Outcome::Unreadable(Unreadable::io(&e));
    let mut f = match File::open(path) {
        Ok(f) => f,
        Err(e) => return io(e),
    };
    let mut bytes = Vec::new();
    let mut head = [0u8; 4];
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return io(e),
        }
    }
    let head = &head[..n];
    let elf = head == b"\x7fELF";
    if !elf && sframe_spec::Endian::from_magic(head).is_none() {
        return Outcome::NoSframe(LoadError::NotSframe);
    }
    match f.metadata() {
        Ok(m) if m.is_file() => {
            // An ELF file's headers may say it holds no SFrame: then it is not read whole.
            if elf {
                if let Some(why) = sframe_elf::probe::probe(&mut f) {
                    return Outcome::NoSframe(why);
                }
            }
            if let Err(e) = f.seek(std::io::SeekFrom::Start(0)) {
                return io(e);
            }
            bytes.reserve_exact(usize::try_from(m.len()).unwrap_or(0));
        }
        // A FIFO: what was read is gone.
        _ => bytes.extend_from_slice(head),
    }
    if let Err(e) = f.read_to_end(&mut bytes) {
        return io(e);
    }
    match load(&bytes) {
        Ok(loaded) => Outcome::Section {
            loaded,
            file: keep_file.then_some(bytes),
        },
        Err(e) if NoSframeKind::of(&e).is_some() => Outcome::NoSframe(e),
        Err(e) => Outcome::Unreadable(Unreadable::Load(e)),
    }
}

/// An unreadable file of a [`Summary`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnreadableFile {
    pub path: PathBuf,
    pub reason: String,
}

/// When a [`Summary`] was started: made with it, so that its JSON says how long the
/// command worked on the files (`seconds`, the wall time from the summary's creation to its
/// serialization). Every `Started` equals every other: a summary's counts are compared, not
/// its clock.
#[derive(Debug, Clone, Copy)]
pub struct Started(pub std::time::Instant);

impl Default for Started {
    fn default() -> Started {
        Started(std::time::Instant::now())
    }
}

impl PartialEq for Started {
    fn eq(&self, _: &Started) -> bool {
        true
    }
}

impl Eq for Started {}

impl Serialize for Started {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(self.0.elapsed().as_secs_f64())
    }
}

/// What a walk met, by kind. Serializes as the JSON `walk` object of every command.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Entries of the walk that are not skipped: files, and directories that could not be
    /// listed.
    pub files: usize,
    /// Files holding an SFrame section.
    pub with_sframe: usize,
    /// Files without one, by why.
    pub no_sframe: BTreeMap<NoSframeKind, usize>,
    /// Files (and directories) that could not be read, with the reason, in walk order.
    pub unreadable: Vec<UnreadableFile>,
    /// Special files not opened, by kind.
    pub skipped: BTreeMap<SkipKind, usize>,
    /// Functions (FDEs, as the headers of the sections read count them).
    pub functions: u64,
    /// Seconds since the summary was made (see [`Started`]).
    #[serde(rename = "seconds")]
    pub started: Started,
}

impl Summary {
    /// Count one entry.
    pub fn add(&mut self, e: &Entry) {
        self.add_outcome(&e.path, &e.outcome);
    }

    /// Count one file's outcome.
    pub fn add_outcome(&mut self, path: &Path, o: &Outcome) {
        match o {
            Outcome::Section { loaded, .. } => {
                self.files += 1;
                self.with_sframe += 1;
                let fdes = sframe_spec::layout::RawHeader::of(&loaded.bytes).num_fdes();
                self.functions += u64::from(fdes.unwrap_or(0));
            }
            Outcome::NoSframe(e) => {
                self.files += 1;
                // A load error that is no NoSframeKind is counted as unreadable.
                match NoSframeKind::of(e) {
                    Some(k) => *self.no_sframe.entry(k).or_default() += 1,
                    None => self.unreadable.push(UnreadableFile {
                        path: path.to_path_buf(),
                        reason: e.to_string(),
                    }),
                }
            }
            Outcome::Unreadable(u) => {
                self.files += 1;
                self.unreadable.push(UnreadableFile {
                    path: path.to_path_buf(),
                    reason: u.to_string(),
                });
            }
            Outcome::Skipped(k) => *self.skipped.entry(*k).or_default() += 1,
        }
    }

    /// Files without SFrame, all kinds.
    pub fn no_sframe_total(&self) -> usize {
        self.no_sframe.values().sum()
    }

    /// The exit status of a command that walked these files, `found` being whether it found
    /// what its status reports (a broken rule, a new discrepancy): 2 when no file gave a
    /// section (nothing could be read as SFrame), else 1 when `found` or a file could not
    /// be read, else 0.
    pub fn exit_status(&self, found: bool) -> u8 {
        if self.with_sframe == 0 {
            2
        } else if found || !self.unreadable.is_empty() {
            1
        } else {
            0
        }
    }

    /// One line of counts, then a line per unreadable file.
    pub fn render_text(&self) -> String {
        let mut o = format!(
            "files: {} read, {} with SFrame, {} without",
            self.files,
            self.with_sframe,
            self.no_sframe_total()
        );
        /// `2 FIFO, 1 socket`.
        fn counts<K>(m: &BTreeMap<K, usize>, describe: impl Fn(&K) -> &'static str) -> String {
            let kinds: Vec<String> = m
                .iter()
                .map(|(k, n)| format!("{n} {}", describe(k)))
                .collect();
            kinds.join(", ")
        }
        if !self.no_sframe.is_empty() {
            o.push_str(&format!(" ({})", counts(&self.no_sframe, |k| k.describe())));
        }
        o.push_str(&format!(", {} unreadable", self.unreadable.len()));
        if !self.skipped.is_empty() {
            o.push_str(&format!(
                "; skipped: {}",
                counts(&self.skipped, |k| k.describe())
            ));
        }
        o.push('\n');
        for u in &self.unreadable {
            o.push_str(&format!(
                "  unreadable: {}: {}\n",
                u.path.display(),
                u.reason
            ));
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("sframe-walk-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn walks_sorted_depth_first_and_reads_only_magic_files() {
        let d = scratch("order");
        std::fs::create_dir_all(d.join("b")).unwrap();
        std::fs::write(d.join("c.txt"), b"text").unwrap();
        std::fs::write(d.join("b/x"), b"\x7fELF garbage").unwrap();
        std::fs::write(d.join("a"), b"").unwrap();
        let got: Vec<(String, String)> = Walk::new(std::slice::from_ref(&d))
            .map(|e| {
                let rel = e.path.strip_prefix(&d).unwrap().display().to_string();
                let what = match e.outcome {
                    Outcome::NoSframe(k) => format!("{:?}", NoSframeKind::of(&k).unwrap()),
                    Outcome::Unreadable(Unreadable::Load(LoadError::BadElf(_))) => "bad".into(),
                    o => format!("{o:?}"),
                };
                (rel, what)
            })
            .collect();
        assert_eq!(
            got,
            [
                ("a".to_string(), "NotElfOrSframe".to_string()),
                ("b/x".into(), "bad".into()),
                ("c.txt".into(), "NotElfOrSframe".into()),
            ]
        );
    }

    #[test]
    fn links_to_directories_are_not_followed_and_dangling_ones_are_unreadable() {
        let d = scratch("links");
        std::fs::create_dir_all(d.join("sub")).unwrap();
        std::os::unix::fs::symlink(&d, d.join("sub/loop")).unwrap();
        std::os::unix::fs::symlink(d.join("nowhere"), d.join("dangling")).unwrap();
        let mut s = Summary::default();
        for e in Walk::new(std::slice::from_ref(&d)) {
            s.add(&e);
        }
        assert_eq!(s.skipped.get(&SkipKind::LinkToDirectory), Some(&1));
        assert_eq!(s.files, 1);
        assert_eq!(s.unreadable.len(), 1);
        assert_eq!(s.unreadable[0].path, d.join("dangling"));
        // Nothing could be read as SFrame.
        assert_eq!(s.exit_status(false), 2);
    }

    /// `functions` is the FDE count of the sections' headers (the spec's NUM_FDES word).
    #[test]
    fn summary_counts_the_functions_of_the_sections_read() {
        use sframe_spec::layout::header;
        let mut bytes = vec![0u8; 28];
        bytes[..2].copy_from_slice(&0xdee2u16.to_le_bytes());
        bytes[header::NUM_FDES..header::NUM_FDES + 4].copy_from_slice(&7u32.to_le_bytes());
        let loaded = Loaded {
            bytes,
            vaddr: 0,
            elf: None,
        };
        let mut s = Summary::default();
        let o = Outcome::Section { loaded, file: None };
        s.add_outcome(Path::new("a"), &o);
        s.add_outcome(Path::new("b"), &o);
        assert_eq!(s.functions, 14);
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["functions"], 14);
        assert!(v["seconds"].as_f64().is_some_and(|t| t >= 0.0), "{v}");
    }

    #[test]
    fn exit_status_rule() {
        let mut s = Summary {
            with_sframe: 1,
            files: 1,
            ..Summary::default()
        };
        assert_eq!(s.exit_status(false), 0);
        assert_eq!(s.exit_status(true), 1);
        s.unreadable.push(UnreadableFile {
            path: "x".into(),
            reason: "r".into(),
        });
        assert_eq!(s.exit_status(false), 1);
    }
}
