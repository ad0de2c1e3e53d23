//! Known crash and hang causes of real readers, as predicates over the input.
//!
//! A [`Trigger`] names one memory-safety bug or assertion of a real SFrame reader (the
//! ledger's crash and hang findings name theirs, per implementation). [`first_trigger`] walks
//! the bytes as that release reads them, on the path the harness drives it (its worker's
//! decode walk, objdump's listing, a look-up), and returns the first known bug the walk
//! reaches, wherever the crash then lands: a crash or hang is explained by the finding whose
//! trigger holds, and one whose input triggers no known bug is new.
//!
//! The walk is a model of the release's own source, cited per variant; it reads nothing out
//! of bounds, allocates nothing but a copy of a foreign-endian section (swapped as the
//! release's pass swaps it, `flip`; for objdump 2.47, of the section with the 0 byte its loader
//! puts after it), and stops at the first bad access. Every model reads every input: each
//! release's byte-swapping pass of a foreign-endian section is modelled too. [`first_trigger`] models GNU libsframe;
//! [`glibc::first_trigger`] glibc's reader; [`simple_frame::first_trigger`] simple-frame-rs.

mod flip;
pub mod glibc;
pub mod simple_frame;

/// One known crash or hang cause of a real reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum Trigger {
    /// `sframe_decode` copies the function descriptors, or `sfh_fre_len` bytes of FREs,
    /// from beyond the end of the buffer it was given: nothing compares `sfh_num_fdes`,
    /// `sfh_fre_len` or the sub-section offsets with `sf_size` (2.40, 2.44: `memcpy
    /// (dctx->sfd_funcdesc, frame_buf, fidx_size); ... memcpy (dctx->sfd_fres, frame_buf,
    /// sfheaderp->sfh_fre_len);` from right after the header; 2.47: `sframe_fde_tbl_init
    /// (dctx->sfd_funcdesc, frame_buf + dhp->sfh_fdeoff, frame_buf + dhp->sfh_freoff, ...)`,
    /// which also reads each v3 FDE's attribute at `fre_buf + fdep->sfdi_func_start_fre_off`,
    /// then `memcpy (dctx->sfd_fres, frame_buf + dhp->sfh_freoff, dhp->sfh_fre_len)`; F0115).
    LibsframeDecodeCopiesPastBuffer,
    /// A function with FREs whose FRE type is 3..15: `sframe_decode_fre` calls
    /// `sframe_fre_start_addr_size`, whose `default: sframe_assert (0);` aborts (every
    /// release; F0115).
    LibsframeInvalidFreType,
    /// An FRE walked from a function's `sfde_func_start_fre_off` lies, in part, beyond the
    /// `sfh_fre_len` bytes `sframe_decode` copied (`sframe_decoder_get_fre`: `fres =
    /// ctx->sfd_fres + fdep->sfde_func_start_fre_off;` then `sframe_decode_fre (fres, ...)`,
    /// which reads the start address, `fre->fre_info = *(uint8_t *)(fre_buf + addr_size)`
    /// and `memcpy (fre->fre_datawords, datawords, datawords_sz)` with no bound: a heap
    /// over-read; F0115).
    LibsframeFreWalkPastFreBytes,
    /// An FRE's data words are more bytes than the frame-row entry's array holds
    /// (`MAX_OFFSET_BYTES` 12 in 2.40 and 2.44, `MAX_DATAWORD_BYTES` 24 in 2.47), and the
    /// copy either runs past the whole `sframe_frame_row_entry` (20 bytes in 2.40/2.44, 32 in
    /// 2.47: a stack buffer overflow of the caller's frame) or changes, through the byte it
    /// writes over `fre_info`, the entry size `sframe_decode_fre` then asserts (`memcpy
    /// (fre->fre_offsets, stack_offsets, stack_offsets_sz); ... sframe_assert (fre_size ==
    /// (addr_size + sizeof (fre->fre_info) + stack_offsets_sz));`). The copy happens before
    /// `sframe_fre_sanity_check_p` refuses the count (F0145).
    LibsframeFreDataWordsOverflow,
    /// The FRE `sframe_decoder_get_fre` returns starts at or past its function's size:
    /// 2.40 and 2.44 assert `fre->fre_start_addr < fdep->sfde_func_size` (`==` for a
    /// function of size 0), 2.47 `ifre.fre_start_addr <= fdep->func_size` (F0115).
    LibsframeFreStartPastFunction,
    /// A look-up reaches the FREs of a PC-mask function whose repetition size is 0:
    /// `sframe_fre_check_range_p` computes `pc_offset % rep_block_size` (2.44: `(int32_t)
    /// pc % rep_block_size`) unchecked, SIGFPE on x86-64 (2.44, 2.47; 2.40 masks low bytes
    /// instead, F0140; F0115).
    LibsframeMaskRepSizeZero,
    /// 2.40 and 2.44 size the function table in an `int` (`int fidx_size; ... fidx_size =
    /// sfheaderp->sfh_num_fdes * sizeof (sframe_func_desc_entry);`): when the product passes
    /// 2^32 and wraps to a positive `int`, `malloc (fidx_size)` gets a shorter table than the
    /// `sfh_num_fdes` entries `sframe_decoder_get_funcdesc` (`fdep = &dctx->sfd_funcdesc[i]`)
    /// and the look-up's binary search index: a heap over-read past the table (F0115).
    LibsframeFdeTableTruncated,
    /// The byte-swapping pass of a foreign-endian section reads or swaps bytes past the copy
    /// it swaps: 2.40 and 2.44's `flip_sframe` checks only where each function descriptor
    /// starts (`if ((char*)fdep >= (frame_buf + buf_size)) goto bad;`) and walks FREs from
    /// `fp = frame_buf + sframe_get_hdr_size (ihp) + ihp->sfh_freoff; fp += fre_offset;`
    /// unchecked; 2.47's `flip_sframe_fdes_with_fres_v2`/`_v3` pass `buf_end - fp`, which
    /// wraps once `fp` is past the end (F0115).
    LibsframeFlipPastBuffer,
    /// libsframe 2.44 reads a v1 section with its v2 layout (F0112): it copies `sfh_num_fdes`
    /// 20-byte function descriptors from the end of the header, then `sfh_fre_len` bytes of
    /// FREs from there (`fidx_size = sfheaderp->sfh_num_fdes * sizeof
    /// (sframe_func_desc_entry); ... memcpy (dctx->sfd_funcdesc, frame_buf, fidx_size); ...
    /// frame_buf += (fidx_size); ... memcpy (dctx->sfd_fres, frame_buf,
    /// sfheaderp->sfh_fre_len);`), `3 * sfh_num_fdes` bytes further than v1's 17-byte
    /// descriptors put them: the copy runs past the buffer where v1's layout fits in it (a
    /// section that does not fit even read as v1 is
    /// [`Trigger::LibsframeDecodeCopiesPastBuffer`]).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "libsframe-2.44-v1-layout-copies-past-buffer")
    )]
    Libsframe244V1LayoutCopiesPastBuffer,
    /// objdump 2.47 dumps a flex function's FRE whose RA is defined (one data word or more)
    /// but which has no second data word, the CFA offset: `dump_sframe_func_fres_flex` reads
    /// the CFA control word and offset (`sframe_get_fre_udata (&fre,
    /// SFRAME_FRE_CFA_OFFSET_IDX, &err_cfa_reg); ... sframe_fre_get_cfa_offset (sfd_ctx, &fre,
    /// fde_type, &err_cfa_offset);`, index 1 for a flex FDE) and asserts both were there
    /// (sframe-dump.c:387 `sframe_assert (!err_cfa_reg && !err_cfa_offset);`; F0115).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "objdump-2.47-flex-fre-without-cfa-offset")
    )]
    Objdump247FlexFreWithoutCfaOffset,
    /// objdump 2.47 prints a register rule of a flex FRE (a control word with `reg_p` set:
    /// the CFA's, the FP's when its control word and offset are present, the RA's when it is
    /// not padding) in a section whose ABI is none of the four: `sframe_get_reg_name`'s
    /// `switch (abi_arch)` reaches `default: sframe_assert (false);` (sframe-dump.c:77;
    /// `sframe_decode` does not check the ABI byte; F0115).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "objdump-2.47-register-name-of-unknown-abi")
    )]
    Objdump247RegisterNameOfUnknownAbi,
    /// objdump 2.47 dumps a flex function whose first FRE `sframe_decoder_get_fre` refuses
    /// (`sframe_fre_sanity_check_p` fails): the failure is ignored (`sframe_decoder_get_fre
    /// (sfd_ctx, funcidx, j, &fre);`) and `sframe_frame_row_entry fre;` is read uninitialized.
    /// What follows depends on the stack's bytes: `sframe_assert (!err_ra_offset);`
    /// (sframe-dump.c:369) when they are not a sane FRE, the assertions of the two triggers
    /// above when they are, or a row of garbage. (Later FREs it refuses leave the previous,
    /// already printed, FRE in `fre`.) No sanitizer in `ci/check-triggers` sees an
    /// uninitialized read; F0115.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "objdump-2.47-flex-first-fre-uninitialized")
    )]
    Objdump247FlexFirstFreUninitialized,
    /// glibc's reader reads outside the section (it takes no length): the header of a
    /// section shorter than it (`__sframe_decode`), a function descriptor the look-up's
    /// binary search probes (`sframe_decoder_get_secrel_func_start_addr`: `func_start_addr
    /// = dctx->sfd_funcdesc[func_idx].sfde_func_start_address;`), an FRE's start address or
    /// info byte as `__sframe_find_fre` walks them, or a data word the offset getters read;
    /// before the section when `int fidx_size` wraps negative ([`glibc`]; F0162).
    GlibcReadsOutsideSection,
    /// A look-up reaches the range check of a PC-mask function whose repetition size is 0:
    /// `sframe_fre_check_range_p`'s `pc_offset = pc_offset % rep_block_size;`, SIGFPE on
    /// x86-64 ([`glibc`]; F0163).
    GlibcMaskRepSizeZero,
    /// simple-frame-rs 0.3.0's v3 `get_fde` slices the function's 5-byte attribute at
    /// `self.freoff as usize + size_of::<RawSFrameHeader>() + func_start_fre_off as usize`
    /// unchecked: `&self.data[fre_offset..]` (v3.rs:271) or a field's `read_struct!`
    /// (v3.rs:269, :276, :283, :290) panics when it lies, in part, past the section
    /// ([`simple_frame`]; F0117).
    SimpleFrameRsFdeAttributePastEnd,
    /// simple-frame-rs 0.3.0's `s390x::cfa_offset_decode`, `(offset *
    /// SFRAME_S390X_CFA_OFFSET_ALIGNMENT_FACTOR) - SFRAME_S390X_CFA_OFFSET_ADJUSTMENT` in
    /// `i32`, overflows on a 4-byte CFA offset of an s390x FRE (v2.rs:49, v3.rs:49; a panic
    /// only with overflow checks; [`simple_frame`]; F0117).
    SimpleFrameRsS390xCfaOffsetOverflow,
    /// simple-frame-rs 0.3.0's v3 `find_fde` on a sorted section: `pc < base_pc +
    /// base_fde.func_size as u64` (v3.rs:499) overflows for a function whose 64-bit start lies
    /// within its size of 2^64 (a panic only with overflow checks; [`simple_frame`]; F0117).
    SimpleFrameRsFunctionEndOverflow,
    /// simple-frame-rs 0.3.0's v3 `find_fre` of a PC-increment function:
    /// `fre.start_address.get() as u64 + fde_pc > pc` (v3.rs:819) overflows for a function
    /// starting near 2^64 (a panic only with overflow checks; [`simple_frame`]; F0117).
    SimpleFrameRsFreStartOverflow,
}

impl Trigger {
    /// Every trigger, in declaration order.
    pub const ALL: [Trigger; 18] = [
        Trigger::LibsframeDecodeCopiesPastBuffer,
        Trigger::LibsframeInvalidFreType,
        Trigger::LibsframeFreWalkPastFreBytes,
        Trigger::LibsframeFreDataWordsOverflow,
        Trigger::LibsframeFreStartPastFunction,
        Trigger::LibsframeMaskRepSizeZero,
        Trigger::LibsframeFdeTableTruncated,
        Trigger::LibsframeFlipPastBuffer,
        Trigger::Libsframe244V1LayoutCopiesPastBuffer,
        Trigger::Objdump247FlexFreWithoutCfaOffset,
        Trigger::Objdump247RegisterNameOfUnknownAbi,
        Trigger::Objdump247FlexFirstFreUninitialized,
        Trigger::GlibcReadsOutsideSection,
        Trigger::GlibcMaskRepSizeZero,
        Trigger::SimpleFrameRsFdeAttributePastEnd,
        Trigger::SimpleFrameRsS390xCfaOffsetOverflow,
        Trigger::SimpleFrameRsFunctionEndOverflow,
        Trigger::SimpleFrameRsFreStartOverflow,
    ];

    /// The kebab-case name used in the ledger (`finding.json`).
    pub fn name(self) -> &'static str {
        match self {
            Trigger::LibsframeDecodeCopiesPastBuffer => "libsframe-decode-copies-past-buffer",
            Trigger::LibsframeInvalidFreType => "libsframe-invalid-fre-type",
            Trigger::LibsframeFreWalkPastFreBytes => "libsframe-fre-walk-past-fre-bytes",
            Trigger::LibsframeFreDataWordsOverflow => "libsframe-fre-data-words-overflow",
            Trigger::LibsframeFreStartPastFunction => "libsframe-fre-start-past-function",
            Trigger::LibsframeMaskRepSizeZero => "libsframe-mask-rep-size-zero",
            Trigger::LibsframeFdeTableTruncated => "libsframe-fde-table-truncated",
            Trigger::LibsframeFlipPastBuffer => "libsframe-flip-past-buffer",
            Trigger::Libsframe244V1LayoutCopiesPastBuffer => {
                "libsframe-2.44-v1-layout-copies-past-buffer"
            }
            Trigger::Objdump247FlexFreWithoutCfaOffset => {
                "objdump-2.47-flex-fre-without-cfa-offset"
            }
            Trigger::Objdump247RegisterNameOfUnknownAbi => {
                "objdump-2.47-register-name-of-unknown-abi"
            }
            Trigger::Objdump247FlexFirstFreUninitialized => {
                "objdump-2.47-flex-first-fre-uninitialized"
            }
            Trigger::GlibcReadsOutsideSection => "glibc-reads-outside-section",
            Trigger::GlibcMaskRepSizeZero => "glibc-mask-rep-size-zero",
            Trigger::SimpleFrameRsFdeAttributePastEnd => "simple-frame-rs-fde-attribute-past-end",
            Trigger::SimpleFrameRsS390xCfaOffsetOverflow => {
                "simple-frame-rs-s390x-cfa-offset-overflow"
            }
            Trigger::SimpleFrameRsFunctionEndOverflow => "simple-frame-rs-function-end-overflow",
            Trigger::SimpleFrameRsFreStartOverflow => "simple-frame-rs-fre-start-overflow",
        }
    }

    /// The trigger of a ledger name.
    pub fn from_name(name: &str) -> Option<Trigger> {
        Trigger::ALL.into_iter().find(|t| t.name() == name)
    }
}

impl core::fmt::Display for Trigger {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.name())
    }
}

/// A libsframe release whose reading [`first_trigger`] models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Release {
    /// binutils 2.40-2 (Debian bookworm): v1 only, sub-section offsets not read.
    Libsframe240,
    /// binutils 2.44-3 (Debian trixie): v1 and v2, both with the 20-byte v2 FDE layout,
    /// sub-section offsets not read (F0112, F0133).
    Libsframe244,
    /// binutils 2.47.50.20261021-1 (Debian sid): v2 and v3, sub-section offsets read.
    Libsframe247,
}

/// Who drives the release, and so which FREs are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Caller {
    /// `sframe-worker`'s decode (worker/src/libsframe.rs): per function the descriptor
    /// getter, then `sframe_decoder_get_fre (i, j)` for `j < min (num_fres, 4096)`, stopping
    /// at the first failure.
    Worker,
    /// `objdump --sframe` of the same release (binutils' `dump_section_sframe`, 2.47's
    /// `display_sframe`: `sframe_decode`, then libsframe's `dump_sframe`, sframe-dump.c):
    /// per function `sframe_decoder_get_funcdesc*`, then `sframe_decoder_get_fre` for every
    /// `j < num_fres`, its failures ignored (F0155). 2.44 lists the functions of a v2 section
    /// only (`if (ver == SFRAME_VERSION) dump_sframe_functions (...)`): of a v1 section it
    /// reads the header alone. 2.47 prints each FRE of a flex function as it gets it
    /// (`dump_sframe_func_fres_flex`), with assertions of its own
    /// ([`Trigger::Objdump247FlexFreWithoutCfaOffset`],
    /// [`Trigger::Objdump247RegisterNameOfUnknownAbi`],
    /// [`Trigger::Objdump247FlexFirstFreUninitialized`]).
    Objdump,
    /// `sframe_find_fre` for PCs in every function (the harness looks up PCs across the
    /// section): per function, its FREs decoded in order with no sanity check and no start
    /// assertion, and the range check of a PC-mask function. A look-up stops at the FRE
    /// that matches its PC; this walk does not, so it names a bug some look-up of the
    /// function reaches, not the one a given PC reaches.
    Lookup,
}

/// What the walk concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Evaluation {
    /// The first known bug the walk reaches.
    Triggered(Trigger),
    /// The walk ends without reaching a known bug.
    Clean,
}

/// How many FREs of a function the worker reads (worker/src/libsframe.rs `MAX_FRES`).
pub const WORKER_MAX_FRES: u64 = 4096;

// Allocations are taken to succeed, as in `sframe-worker`, whose heap maps libsframe's blocks
// `MAP_NORESERVE` (worker/src/guarded_heap.rs): 2.47's function table of `sfh_num_fdes`
// 24-byte entries is allocated whatever its size, then filled from past the buffer. (An ASan
// build's allocator refuses a table larger than the host's memory: `ci/check-triggers`
// counts those apart.) 2.40's and 2.44's `int fidx_size` keeps theirs below 2 GiB.

/// The fixed header's size, `sizeof (sframe_header)`.
const HEADER: usize = 28;

fn rd(data: &[u8], off: usize, width: usize) -> Option<u64> {
    let end = off.checked_add(width)?;
    let b = data.get(off..end)?;
    Some(b.iter().rev().fold(0u64, |a, &x| (a << 8) | u64::from(x)))
}

/// The bytes of a data-word size code, as `sframe_fre_offset_bytes_size` /
/// `sframe_fre_datawords_bytes_size` count them: 2 and 4 for codes 1 and 2, else 1
/// (the reserved code 3 included).
fn word_bytes(info: u8) -> usize {
    match (info >> 5) & 3 {
        1 => 2,
        2 => 4,
        _ => 1,
    }
}

fn dataword_bytes(info: u8) -> usize {
    usize::from((info >> 1) & 0xf) * word_bytes(info)
}

/// One function descriptor as the release's decoder context holds it.
struct Fde {
    size: u32,
    fre_off: u64,
    num_fres: u64,
    info: u8,
    /// v3's `sfdi_func_info2` (the FDE type: flex or default); 0 in v1 and v2.
    info2: u8,
    rep_size: u8,
}

struct Model {
    /// `MAX_OFFSET_BYTES` / `MAX_DATAWORD_BYTES`.
    array: usize,
    /// The bytes from the array's start to the end of `sframe_frame_row_entry`.
    tail: usize,
    /// `MAX_NUM_STACK_OFFSETS` / `MAX_NUM_DATAWORDS`.
    max_count: u8,
}

impl Release {
    fn model(self) -> Model {
        match self {
            // sframe-api.h: `uint32_t fre_start_addr; unsigned char fre_offsets[12];
            // unsigned char fre_info;` (20 bytes with its padding).
            Release::Libsframe240 | Release::Libsframe244 => Model {
                array: 12,
                tail: 16,
                max_count: 3,
            },
            // `uint32_t fre_start_addr; unsigned char fre_datawords[24]; unsigned char
            // fre_info;` (32 bytes).
            Release::Libsframe247 => Model {
                array: 24,
                tail: 28,
                max_count: crate::Quirk::LIBSFRAME_2_47_MAX_DATAWORDS as u8,
            },
        }
    }

    /// `sframe_header_sanity_check_p`, and the versions `sframe_decode` goes on with.
    fn accepts(self, version: u8, flags: u8) -> bool {
        match self {
            Release::Libsframe240 => version == 1 && flags & !3 == 0,
            Release::Libsframe244 => (version == 1 || version == 2) && flags & !3 == 0,
            // `SFRAME_V2_F_ALL_FLAGS` (7), `SFRAME_V3_F_ALL_FLAGS` (5); v1 passes the check
            // and `sframe_fde_tbl_init` then refuses it ("Not possible ATM").
            Release::Libsframe247 => match version {
                2 => flags & !7 == 0,
                3 => flags & !5 == 0,
                _ => false,
            },
        }
    }
}

/// What `sframe_decode` made of a section.
enum Copied {
    /// Refused before any copy.
    Refused,
    /// A copy ran into a bug.
    Bug(Trigger),
    /// The function descriptors, and the FRE bytes' place and length in the section; whether
    /// the table is shorter than `sfh_num_fdes` ([`Trigger::LibsframeFdeTableTruncated`]).
    Fdes(Vec<Fde>, usize, u64, bool),
}

/// The function descriptors `sframe_decode` builds (`None`: a field the model needs is not
/// there to read) from `data`, of which the caller said `sf_size` bytes are the section
/// (the rest is readable memory after it, [`first_trigger`]).
fn decode(data: &[u8], rel: Release, sf_size: usize) -> Option<Copied> {
    let len = data.len();
    if sf_size < HEADER || rd(data, 0, 2)? != 0xdee2 {
        return Some(Copied::Refused);
    }
    let (version, flags) = (data[2], data[3]);
    let hdrsz = HEADER + usize::from(data[7]);
    let num_fdes = rd(data, 8, 4)?;
    let fre_len = rd(data, 16, 4)?;
    let (fdeoff, freoff) = (rd(data, 20, 4)?, rd(data, 24, 4)?);
    if !rel.accepts(version, flags) || fdeoff > freoff {
        return Some(Copied::Refused);
    }
    let past = Copied::Bug(Trigger::LibsframeDecodeCopiesPastBuffer);
    // A copy of no bytes reads nothing, wherever it starts.
    let fits = |off: u64, n: u64| n == 0 || off.checked_add(n).is_some_and(|e| e <= len as u64);
    let hdr = hdrsz as u64;
    let (fde_at, stride, fres_at) = match (rel, version) {
        (Release::Libsframe240, _) => (hdr, 17u64, hdr + num_fdes * 17),
        (Release::Libsframe244, _) => (hdr, 20, hdr + num_fdes * 20),
        (_, 2) => (hdr + fdeoff, 20, hdr + freoff),
        _ => (hdr + fdeoff, 16, hdr + freoff),
    };
    if matches!(rel, Release::Libsframe240 | Release::Libsframe244) {
        // `int fidx_size = sfh_num_fdes * sizeof (sframe_func_desc_entry)`: negative, the
        // `malloc` fails (refused, SFRAME_ERR_NOMEM); wrapped to a smaller positive size, the
        // table is shorter than the count the getters index.
        let product = num_fdes * stride;
        if (product as u32 as i32) < 0 {
            return Some(Copied::Refused);
        }
    }
    // The entries the table holds (2.40/2.44: `fidx_size` bytes, wrapped).
    let table = if matches!(rel, Release::Libsframe240 | Release::Libsframe244) {
        u64::from((num_fdes * stride) as u32)
    } else {
        num_fdes * stride
    };
    let truncated = table < num_fdes * stride;
    let fres_at = if truncated { fde_at + table } else { fres_at };
    if truncated && !fits(fde_at, table) {
        return Some(past);
    }
    let num_fdes = if truncated { table / stride } else { num_fdes };
    let mut fdes = Vec::new();
    for i in 0..num_fdes {
        let at = fde_at + i * stride;
        // 2.40 and 2.44 copy the whole table; 2.47 reads a v2 entry field by field, its two
        // bytes of padding unread (`sframe_fde_tbl_init`).
        let read = if rel == Release::Libsframe247 && stride == 20 {
            18
        } else {
            stride
        };
        if !fits(at, read) {
            return Some(past);
        }
        let at = at as usize;
        let fde = if stride == 16 {
            // v3: `sframe_func_desc_idx_v3` then its attribute at the FRE sub-section.
            let fre_off = rd(data, at + 12, 4)?;
            let attr = fres_at + fre_off;
            if !fits(attr, 5) {
                return Some(past);
            }
            let attr = attr as usize;
            Fde {
                size: rd(data, at + 8, 4)? as u32,
                fre_off: fre_off + 5,
                num_fres: rd(data, attr, 2)?,
                info: data[attr + 2],
                info2: data[attr + 3],
                rep_size: data[attr + 4],
            }
        } else {
            Fde {
                size: rd(data, at + 4, 4)? as u32,
                fre_off: rd(data, at + 8, 4)?,
                num_fres: rd(data, at + 12, 4)?,
                info: data[at + 16],
                info2: 0,
                // v1 (2.40) has no repetition size; 2.44 reads a v1 section's from the
                // next FDE's bytes (F0112).
                rep_size: if stride == 20 { data[at + 17] } else { 0 },
            }
        };
        // Bounded: each descriptor read lies inside `data`.
        fdes.push(fde);
    }
    if !fits(fres_at, fre_len) {
        return Some(past);
    }
    Some(Copied::Fdes(fdes, fres_at as usize, fre_len, truncated))
}

/// The first known bug `rel`, driven by `caller`, reaches on `data`.
pub fn first_trigger(data: &[u8], rel: Release, caller: Caller) -> Evaluation {
    // A foreign-endian section: `sframe_decode` swaps a copy (`flip_header`, `flip_sframe`),
    // then reads the copy in host order.
    let host;
    let sf_size = data.len();
    let data = if data.len() >= 2 && rd(data, 0, 2) == Some(0xe2de) {
        if data.len() < HEADER {
            return Evaluation::Clean;
        }
        match flip::flip(data, rel) {
            flip::Flipped::Refused => return Evaluation::Clean,
            flip::Flipped::Bug(t) => return Evaluation::Triggered(t),
            flip::Flipped::Host(b) => {
                host = b;
                &host[..]
            }
        }
    } else if caller == Caller::Objdump && rel == Release::Libsframe247 {
        // objdump 2.47 loads the section with `load_specific_debug_section`
        // (binutils/objdump.c: `alloced = amt = section->size + 1; ... section->start =
        // contents = xmalloc (alloced); /* Ensure any string section has a terminating
        // NUL.  */ section->start[section->size] = 0;`) and gives `sframe_decode`
        // `section->size` bytes: a read of the one byte after them reads that 0, inside the
        // block, and goes on. (2.40 and 2.44 read it with `bfd_malloc_and_get_section`, of
        // the section's size; a foreign-endian section is read from `sframe_decode`'s copy
        // of `sf_size` bytes.)
        host = [data, &[0]].concat();
        &host[..]
    } else {
        data
    };
    let (fdes, fres_at, fre_len, truncated) = match decode(data, rel, sf_size) {
        None | Some(Copied::Refused) => return Evaluation::Clean,
        Some(Copied::Bug(Trigger::LibsframeDecodeCopiesPastBuffer))
            if rel == Release::Libsframe244 && v1_layout_fits(data) =>
        {
            return Evaluation::Triggered(Trigger::Libsframe244V1LayoutCopiesPastBuffer)
        }
        Some(Copied::Bug(t)) => return Evaluation::Triggered(t),
        Some(Copied::Fdes(f, at, n, t)) => (f, at, n, t),
    };
    if truncated && caller == Caller::Lookup {
        // The binary search indexes `sfh_num_fdes` entries before any FRE is read.
        return Evaluation::Triggered(Trigger::LibsframeFdeTableTruncated);
    }
    if caller == Caller::Objdump && rel == Release::Libsframe244 && data[2] != 2 {
        // objdump 2.44's `dump_sframe`: `if (ver == SFRAME_VERSION) dump_sframe_functions
        // (sfd_ctx, sec_addr); else printf ("\n No further information can be displayed.
        // ...")`: no descriptor and no FRE of a v1 section is read.
        return Evaluation::Clean;
    }
    let fres = data
        .get(fres_at..fres_at + fre_len as usize)
        .unwrap_or_default();
    let m = rel.model();
    let dump = Dump {
        abi: data[4],
        fixed_fp: data[5],
    };
    for fde in &fdes {
        if let Some(t) = walk_fres(fres, fde, rel, &m, caller, dump) {
            return Evaluation::Triggered(t);
        }
    }
    if truncated {
        // The next function's descriptor lies past the table.
        return Evaluation::Triggered(Trigger::LibsframeFdeTableTruncated);
    }
    Evaluation::Clean
}

/// Whether a v1 section's function descriptors (17 bytes each, v1's `sframe.h`) and its
/// `sfh_fre_len` bytes of FREs, from the end of its header, lie inside it.
fn v1_layout_fits(data: &[u8]) -> bool {
    let (Some(n), Some(fre_len)) = (rd(data, 8, 4), rd(data, 16, 4)) else {
        return false;
    };
    data.get(2) == Some(&1)
        && (HEADER as u64 + u64::from(data.get(7).copied().unwrap_or(0)) + n * 17 + fre_len)
            <= data.len() as u64
}

/// The FREs of one function, as `sframe_decoder_get_fre (i, j)` for `j = 0, 1, ...` first
/// decodes them (each call decodes FREs `0..=j` again, the same way).
fn walk_fres(
    fres: &[u8],
    fde: &Fde,
    rel: Release,
    m: &Model,
    caller: Caller,
    dump: Dump,
) -> Option<Trigger> {
    // objdump 2.47 prints a flex function's FREs with `dump_sframe_func_fres_flex`
    // (sframe-dump.c: `bool flex_p = (SFRAME_V3_FDE_TYPE (func_info2) ==
    // SFRAME_FDE_TYPE_FLEX);`, the type in the low 5 bits).
    let flex_dump =
        caller == Caller::Objdump && rel == Release::Libsframe247 && fde.info2 & 0x1f == 1;
    let limit = match caller {
        Caller::Worker => fde.num_fres.min(WORKER_MAX_FRES),
        Caller::Objdump | Caller::Lookup => fde.num_fres,
    };
    if limit == 0 {
        return None;
    }
    let addr = match fde.info & 0xf {
        0 => 1usize,
        1 => 2,
        2 => 4,
        _ => return Some(Trigger::LibsframeInvalidFreType),
    };
    let past = Some(Trigger::LibsframeFreWalkPastFreBytes);
    let mut pos = fde.fre_off;
    let mut k = 0u64;
    // Every FRE is at least two bytes, so the walk leaves `fres` within `fres.len()` steps.
    while k < limit {
        let p = match usize::try_from(pos) {
            Ok(p) if p.checked_add(addr + 1).is_some_and(|e| e <= fres.len()) => p,
            _ => return past,
        };
        let start = rd(fres, p, addr)?;
        let mut info = fres[p + addr];
        let sz = dataword_bytes(info);
        if p + addr + 1 + sz > fres.len() {
            return past;
        }
        if sz > m.array {
            // The byte of the data words that lands on `fre_info`.
            let over = fres[p + addr + 1 + m.array];
            if sz > m.tail || dataword_bytes(over) != sz {
                return Some(Trigger::LibsframeFreDataWordsOverflow);
            }
            info = over;
        }
        if caller == Caller::Lookup {
            // `sframe_fre_check_range_p` on the first FRE: `SFRAME_V2_FUNC_PC_TYPE`.
            let mask = (fde.info >> 4) & 1 == 1;
            if k == 0 && mask && fde.rep_size == 0 && rel != Release::Libsframe240 {
                return Some(Trigger::LibsframeMaskRepSizeZero);
            }
        }
        let sane = (info >> 5) & 3 != 3 && (info >> 1) & 0xf <= m.max_count;
        // The worker's look-up also reads candidate functions' FREs through
        // `sframe_decoder_get_fre` to say which function `sframe_find_fre` searched.
        if sane {
            let size = u64::from(fde.size);
            let ok = match rel {
                Release::Libsframe247 => start <= size,
                _ if size == 0 => start == 0,
                _ => start < size,
            };
            if !ok {
                return Some(Trigger::LibsframeFreStartPastFunction);
            }
            if flex_dump {
                let words = &fres[p + addr + 1..p + addr + 1 + sz];
                if let Some(t) = dump.flex_fre(info, words) {
                    return Some(t);
                }
            }
        } else if caller == Caller::Worker {
            return None;
        } else if flex_dump && k == 0 {
            return Some(Trigger::Objdump247FlexFirstFreUninitialized);
        }
        pos += (addr + 1 + sz) as u64;
        k += 1;
    }
    None
}

/// What objdump 2.47's `dump_sframe_func_fres_flex` reads of the header.
#[derive(Clone, Copy)]
struct Dump {
    /// `sfh_abi_arch`.
    abi: u8,
    /// `sfh_cfa_fixed_fp_offset` (0: `SFRAME_CFA_FIXED_FP_INVALID`).
    fixed_fp: u8,
}

impl Dump {
    /// The assertion `dump_sframe_func_fres_flex` (sframe-dump.c:353-466) reaches on a flex
    /// FRE `sframe_decoder_get_fre` returned (sane: at most 6 data words of 1, 2 or 4
    /// bytes), with data words `words` in host order.
    fn flex_fre(self, info: u8, words: &[u8]) -> Option<Trigger> {
        let count = usize::from((info >> 1) & 0xf);
        let size = word_bytes(info);
        // `sframe_get_fre_udata (&fre, idx, &err)`: `SFRAME_ERR_FREOFFSET_NOPRESENT` when
        // `dataword_cnt < idx + 1`, else the word, unsigned.
        let word = |i: usize| (i < count).then(|| rd(words, i * size, size)).flatten();
        // `sframe_fre_get_ra_undefined_p`: no data words, `printf ("  RA undefined");
        // continue;` (:370).
        if count == 0 {
            return None;
        }
        // The CFA's control word (index 0) and offset (index 1, flex): :387.
        if count < 2 {
            return Some(Trigger::Objdump247FlexFreWithoutCfaOffset);
        }
        // `sframe_get_reg_name` (:64-78) knows the four ABIs of sframe.h.
        if (1..=4).contains(&self.abi) {
            return None;
        }
        // `SFRAME_V3_FLEX_FDE_CTRLWORD_REG_P (data)`: `(data) & 0x1`.
        let reg_p = |w: Option<u64>| w.is_some_and(|w| w & 1 == 1);
        let unknown = Some(Trigger::Objdump247RegisterNameOfUnknownAbi);
        // CFA (:388-393, printed by `sframe_format_fre_disp` at :428).
        if reg_p(word(0)) {
            return unknown;
        }
        // RA control word, index `SFRAME_FRE_RA_OFFSET_IDX * 2` (:397); 0 is padding
        // (`SFRAME_FRE_RA_OFFSET_INVALID`).
        let ra = word(2);
        let padding = ra == Some(0);
        // FP control word at index 4, 3 after RA padding (:411-416); its offset, as
        // `sframe_fre_get_fp_offset` reads it for a flex FDE, at 5, 4 after padding
        // (sframe.c: `fp_offset_idx = SFRAME_FRE_FP_OFFSET_IDX * 2` when the RA word is 0,
        // else `* 2 + 1`), or the header's fixed FP offset when absent and that is not 0.
        let (fp_idx, fp_off_idx) = if padding { (3, 4) } else { (4, 5) };
        let fp_offset = count > fp_off_idx || self.fixed_fp != 0;
        // FP printed when both are there (:433-435).
        if word(fp_idx).is_some() && fp_offset && reg_p(word(fp_idx)) {
            return unknown;
        }
        // RA printed unless absent or padding (:443-455).
        if !padding && reg_p(ra) {
            return unknown;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A little-endian v3 section of ABI `abi` (fixed RA offset -8), one function per
    /// `(func_info2, FRE bytes)` (16 bytes, one FRE of 1-byte start address).
    fn v3(abi: u8, fixed_fp: u8, fdes: &[(u8, &[u8])]) -> Vec<u8> {
        let (mut tbl, mut fres) = (Vec::new(), Vec::new());
        for (i, (info2, fre)) in fdes.iter().enumerate() {
            tbl.extend_from_slice(&(0x100 * i as i64).to_le_bytes());
            tbl.extend_from_slice(&16u32.to_le_bytes());
            tbl.extend_from_slice(&(fres.len() as u32).to_le_bytes());
            fres.extend_from_slice(&[1, 0, 0, *info2, 0]);
            fres.extend_from_slice(fre);
        }
        let mut d = vec![0xe2, 0xde, 3, 0, abi, fixed_fp, 0xf8, 0];
        for v in [fdes.len(), fdes.len(), fres.len(), 0, tbl.len()] {
            d.extend_from_slice(&(v as u32).to_le_bytes());
        }
        d.extend(tbl);
        d.extend(fres);
        d
    }

    fn objdump_247(d: &[u8]) -> Evaluation {
        first_trigger(d, Release::Libsframe247, Caller::Objdump)
    }

    // What objdump 2.47.50.20261021-1 did on each section, over the ASan build of its
    // libsframe (ci/check-triggers' way; the sections are F0115's objdump-flex-*.sframe
    // and their neighbours).
    #[test]
    fn objdump_2_47_asserts_on_a_flex_fre_it_cannot_print() {
        use Evaluation::*;
        // One data word in a flex FRE: sframe-dump.c:387.
        let one = v3(3, 0, &[(1, &[0, 0x02, 0x10])]);
        assert_eq!(
            objdump_247(&one),
            Triggered(Trigger::Objdump247FlexFreWithoutCfaOffset)
        );
        // The worker's walk has no dump: clean.
        let worker = first_trigger(&one, Release::Libsframe247, Caller::Worker);
        assert_eq!(worker, Clean);
        // A default FDE prints one word without asserting.
        assert_eq!(objdump_247(&v3(3, 0, &[(0, &[0, 0x02, 0x10])])), Clean);
        // ABI 9, a CFA control word with reg_p: sframe-dump.c:77; a default FDE: clean;
        // the same FRE with the register bit clear and no FP or RA words: clean.
        let fre = [0, 0x04, 0x01, 0x10];
        assert_eq!(
            objdump_247(&v3(9, 0, &[(1, &fre)])),
            Triggered(Trigger::Objdump247RegisterNameOfUnknownAbi)
        );
        assert_eq!(objdump_247(&v3(9, 0, &[(0, &fre)])), Clean);
        assert_eq!(
            objdump_247(&v3(9, 0, &[(1, &[0, 0x04, 0x00, 0x10])])),
            Clean
        );
        assert_eq!(objdump_247(&v3(3, 0, &[(1, &fre)])), Clean);
        // The RA control word (index 2) with reg_p, in an unknown ABI: asserts.
        let ra = [0, 0x08, 0x00, 0x10, 0x21, 0x00];
        assert_eq!(
            objdump_247(&v3(0, 0, &[(1, &ra)])),
            Triggered(Trigger::Objdump247RegisterNameOfUnknownAbi)
        );
        // RA padding (0), the FP control word at index 3 with reg_p and its offset at 4.
        let fp = [0, 0x0a, 0x00, 0x10, 0x00, 0x31, 0x08];
        assert_eq!(
            objdump_247(&v3(0, 0, &[(1, &fp)])),
            Triggered(Trigger::Objdump247RegisterNameOfUnknownAbi)
        );
        // Without its offset the FP is `u`, unless the header has a fixed FP offset.
        let fp_alone = [0, 0x08, 0x00, 0x10, 0x00, 0x31];
        assert_eq!(objdump_247(&v3(0, 0, &[(1, &fp_alone)])), Clean);
        assert_eq!(
            objdump_247(&v3(0, 0xf0, &[(1, &fp_alone)])),
            Triggered(Trigger::Objdump247RegisterNameOfUnknownAbi)
        );
    }

    #[test]
    fn objdump_2_47_reads_an_unwritten_fre_when_a_flex_functions_first_is_refused() {
        // Seven 1-byte data words: `sframe_fre_sanity_check_p` refuses FRE 0, and
        // `dump_sframe_func_fres_flex` prints the never-written `fre` (ASan: no report;
        // the listing showed garbage, pc 0x20202020 uninstrumented).
        let mut fre = vec![0, 0x0e];
        fre.extend([0; 7]);
        let uninit = Evaluation::Triggered(Trigger::Objdump247FlexFirstFreUninitialized);
        assert_eq!(objdump_247(&v3(3, 0, &[(1, &fre)])), uninit);
        // After a flex function, as the first FRE of the next one: still unwritten there.
        let ok: &[u8] = &[0, 0x04, 0x10, 0x08];
        assert_eq!(objdump_247(&v3(3, 0, &[(1, ok), (1, &fre)])), uninit);
        // A default FDE's dump reads it too, but asserts nothing on it.
        assert_eq!(objdump_247(&v3(3, 0, &[(0, &fre)])), Evaluation::Clean);
    }

    #[test]
    fn objdump_2_47_reads_the_nul_its_loader_puts_after_the_section() {
        // `sfh_fre_len` one byte past the section: the worker's copy (ASan: a heap
        // over-read in sframe_decode) runs past it; objdump 2.47's copy reads the 0 after it
        // (ASan-backed objdump: clean). Two bytes past: both.
        let mut d = v3(3, 0, &[(0, &[0, 0x04, 0x10, 0x08])]);
        let copies = Evaluation::Triggered(Trigger::LibsframeDecodeCopiesPastBuffer);
        let rel = Release::Libsframe247;
        let fre_len = rd(&d, 16, 4).unwrap() as u32;
        for (past, objdump) in [(1, Evaluation::Clean), (2, copies)] {
            d[16..20].copy_from_slice(&(fre_len + past).to_le_bytes());
            assert_eq!(first_trigger(&d, rel, Caller::Worker), copies, "{past}");
            assert_eq!(first_trigger(&d, rel, Caller::Objdump), objdump, "{past}");
        }
    }

    #[test]
    fn objdump_2_44_lists_no_function_of_a_v1_section() {
        // F0112's input-13 shape: a v1 section whose FRE offset lies past its FRE bytes. The
        // worker's 2.44 walk reads past them; objdump 2.44 decodes and prints the header
        // only (ASan-backed objdump 2.44: clean; 2.40: libsframe-fre-walk-past-fre-bytes).
        let mut d = vec![0xe2, 0xde, 1, 0, 3, 0, 0xf8, 0];
        for v in [1u32, 1, 2, 0, 20] {
            d.extend_from_slice(&v.to_le_bytes());
        }
        // One 20-byte FDE as 2.44 reads it: start, size 16, FRE offset 40, 1 FRE, info 0.
        for v in [0u32, 16, 40, 1] {
            d.extend_from_slice(&v.to_le_bytes());
        }
        d.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0x02]);
        let walk = Evaluation::Triggered(Trigger::LibsframeFreWalkPastFreBytes);
        let rel = Release::Libsframe244;
        assert_eq!(first_trigger(&d, rel, Caller::Worker), walk);
        assert_eq!(first_trigger(&d, rel, Caller::Objdump), Evaluation::Clean);
    }

    #[test]
    fn names_round_trip() {
        for t in Trigger::ALL {
            assert_eq!(Trigger::from_name(t.name()), Some(t));
        }
        assert_eq!(Trigger::from_name("no-such-trigger"), None);
    }
}
