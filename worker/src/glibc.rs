//! glibc's SFrame reader (`sysdeps/generic/sframe-read.c`, what `backtrace()` uses when glibc
//! is built with `--enable-sframe`) as an [`Implementation`], named `glibc-<release>`.
//!
//! `ci/glibc-reader` compiles the reader of Debian's glibc source, unchanged, with the
//! project's wrapper `worker/glibc/shim.c` into `libglibc-sframe-read.so`; the wrapper only
//! calls the reader's functions and copies what they return into the structs below.
//!
//! - `decode`: `__sframe_decode` (version 2 only: its header check refuses others); the
//!   header as the decoder context holds it; per function the descriptor the context points
//!   at, its start as the reader resolves it (`sframe_decoder_get_secrel_func_start_addr`);
//!   its rows walked with the steps of `__sframe_find_fre`'s loop. This walk is the
//!   wrapper's, not the reader's (glibc never lists functions): it is given the section's
//!   length and stops at a descriptor or row past the end (`fde: past the end of the
//!   section`, `fre: ...`), so that every read past the section is one the reader's own
//!   look-up makes.
//! - `find_fre`: `__sframe_find_fre` (an `int32_t` PC); the function is the one the reader's
//!   FDE search (`sframe_get_funcdesc_with_addr_internal`) returns for the PC.
//! - rows: the getters `__sframe_fre_get_{base_reg_id,cfa_offset,ra_offset,fp_offset}`,
//!   read with the arithmetic of glibc's walker (`sysdeps/generic/sframe.c`,
//!   `__stacktrace_sframe`): CFA = (base register SP ? sp : fp) + CFA offset; RA read at
//!   CFA + RA offset; FP read at CFA + FP offset, or unchanged when the getter fails. When
//!   the CFA or RA getter fails the walker stops and hands the stack to the DWARF unwinder
//!   ("Force fallback"): no rule, the field is left unreported (`None`). The walker never
//!   looks at the mangled-RA bit: not reported either.
//!
//! The reader takes no buffer length (`__sframe_decode (dctx, sf_buf)`): it trusts the
//! counts and offsets in the section. Sections are handed to it in a [`Guarded`] copy with
//! wide guards (address space only) on both sides, so that every read past the section
//! faults, and each request runs in a forked child: a fault is a crash the harness sees.

use crate::guard::Guarded;
use libloading::Library;
use sframe_harness::impls::{
    norm, section_version, Decoded, Found, FreFacts, FunctionFacts, HeaderFacts,
};
use sframe_harness::impls::{Implementation, Outcome, Row};
use sframe_spec::{Abi, Loc, Version};
use std::ffi::{c_char, c_int, c_void};
use std::path::Path;

/// `struct gs_header` of worker/glibc/shim.c.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
struct GsHeader {
    magic: u16,
    version: u8,
    flags: u8,
    abi: u8,
    auxhdr_len: u8,
    fixed_fp: i8,
    fixed_ra: i8,
    num_fdes: u32,
    num_fres: u32,
    fre_len: u32,
    fdeoff: u32,
    freoff: u32,
}

/// `struct gs_fde` of worker/glibc/shim.c.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
struct GsFde {
    start: i32,
    raw_start: i32,
    size: u32,
    start_fre_off: u32,
    num_fres: u32,
    info: u8,
    rep_size: u8,
    fre_type: u8,
    fde_type: u8,
}

/// `struct gs_row` of worker/glibc/shim.c.
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
struct GsRow {
    cfa_err: i32,
    ra_err: i32,
    fp_err: i32,
    cfa_offset: i32,
    ra_offset: i32,
    fp_offset: i32,
    fre_start: u32,
    base_reg_id: u8,
    fre_info: u8,
    ra_mangled: u8,
    pad: u8,
    func_idx: i32,
    func_start: i32,
}

type CtxSizeFn = unsafe extern "C" fn() -> usize;
type DecodeFn = unsafe extern "C" fn(*mut c_void, *const c_char, usize) -> c_int;
type HeaderFn = unsafe extern "C" fn(*mut c_void, *mut GsHeader);
type FdeFn = unsafe extern "C" fn(*mut c_void, u32, *mut GsFde) -> c_int;
type FresFn = unsafe extern "C" fn(*mut c_void, u32, u32, *mut GsRow, *mut u32) -> c_int;
type FindFn = unsafe extern "C" fn(*mut c_void, i32, *mut GsRow) -> c_int;

/// At most this many rows are read per function (counts are taken from the section).
const MAX_FRES: u32 = 4096;

/// `_URC_NO_REASON`.
const URC_NO_REASON: c_int = 0;
/// What gs_fde and gs_fres return for an entry that does not lie inside the section.
const SHIM_PAST_END: c_int = -2;

/// One glibc release's reader.
pub struct Glibc {
    _lib: Library,
    release: String,
    version: String,
    ctx_size: usize,
    decode: DecodeFn,
    header: HeaderFn,
    fde: FdeFn,
    fres: FresFn,
    find: FindFn,
}

/// # Safety
/// `T` must be the C type of the function `name` in worker/glibc/shim.c.
unsafe fn sym<T: Copy>(lib: &Library, name: &str) -> Result<T, String> {
    // SAFETY: the caller guarantees `T`; the pointer stays valid while `lib` is loaded,
    // which `Glibc` guarantees by owning it.
    unsafe {
        lib.get::<T>(name.as_bytes())
            .map(|s| *s)
            .map_err(|e| format!("{name}: {e}"))
    }
}

/// A decoded section: the context the reader filled, over the guarded copy it points into.
struct Ctx<'a> {
    g: &'a Glibc,
    buf: Vec<u64>,
    _data: Guarded,
}

impl Ctx<'_> {
    fn ptr(&mut self) -> *mut c_void {
        self.buf.as_mut_ptr() as *mut c_void
    }
    fn header(&mut self) -> GsHeader {
        let mut h = GsHeader::default();
        let f = self.g.header;
        // SAFETY: the context was filled by __sframe_decode; `h` is a gs_header.
        unsafe { f(self.ptr(), &mut h) };
        h
    }
    /// Function descriptor `i`: `Err(())` when it lies past the section's end (the
    /// wrapper's walk reads nothing there; the reader's look-up would).
    fn fde(&mut self, i: u32) -> Option<Result<GsFde, ()>> {
        let mut o = GsFde::default();
        let f = self.g.fde;
        // SAFETY: as above; the wrapper reads the descriptor only inside the section.
        match unsafe { f(self.ptr(), i, &mut o) } {
            0 => Some(Ok(o)),
            SHIM_PAST_END => Some(Err(())),
            _ => None,
        }
    }
    /// The rows of function `i` (at most [`MAX_FRES`]) and why the walk stopped early.
    fn fres(&mut self, i: u32, max: u32) -> (Vec<GsRow>, Option<&'static str>) {
        let mut rows = vec![GsRow::default(); max as usize];
        let mut n = 0u32;
        let f = self.g.fres;
        // SAFETY: `rows` has room for `max` rows; the wrapper reads rows only inside the
        // section (the getters it calls read the row's own data words).
        let r = unsafe { f(self.ptr(), i, max, rows.as_mut_ptr(), &mut n) };
        rows.truncate(n as usize);
        let stopped = match r {
            SHIM_PAST_END => Some("fre: past the end of the section"),
            r if r < 0 => Some("fre: no start-address size for the FRE type"),
            _ => None,
        };
        (rows, stopped)
    }
    fn find(&mut self, pc: i32) -> Option<GsRow> {
        let mut r = GsRow::default();
        let f = self.g.find;
        // SAFETY: as above.
        (unsafe { f(self.ptr(), pc, &mut r) } == 1).then_some(r)
    }
}

/// A row as glibc's walker (`__stacktrace_sframe`) computes the caller's registers.
fn row(abi: Abi, r: &GsRow) -> Row {
    Row {
        cfa: (r.cfa_err == URC_NO_REASON)
            .then(|| norm::cfa(abi, r.base_reg_id, i64::from(r.cfa_offset))),
        ra: (r.ra_err == URC_NO_REASON).then(|| norm::slot(i64::from(r.ra_offset))),
        fp: Some(if r.fp_err == URC_NO_REASON {
            norm::slot(i64::from(r.fp_offset))
        } else {
            Loc::SameValue
        }),
        ra_mangled: None,
    }
}

impl Glibc {
    pub fn open(path: &Path, release: &str, version: &str) -> Result<Glibc, String> {
        // SAFETY: the object is the reader and the wrapper; no initialisers.
        let lib =
            unsafe { Library::new(path) }.map_err(|e| format!("dlopen {}: {e}", path.display()))?;
        // SAFETY: each type is the C signature of the function in worker/glibc/shim.c.
        unsafe {
            let ctx_size: CtxSizeFn = sym(&lib, "gs_ctx_size")?;
            Ok(Glibc {
                ctx_size: ctx_size(),
                decode: sym(&lib, "gs_decode")?,
                header: sym(&lib, "gs_header")?,
                fde: sym(&lib, "gs_fde")?,
                fres: sym(&lib, "gs_fres")?,
                find: sym(&lib, "gs_find")?,
                _lib: lib,
                release: release.into(),
                version: version.into(),
            })
        }
    }

    /// `__sframe_decode` on a guarded copy of `data`.
    fn decoder(&self, data: &[u8]) -> Result<Ctx<'_>, Outcome<()>> {
        if let Some(v) = section_version(data) {
            if !self.supports(v) {
                return Err(Outcome::unsupported(format!(
                    "{} reads SFrame version 2 only",
                    self.name()
                )));
            }
        }
        let g = Guarded::far(data)
            .ok_or_else(|| Outcome::unsupported("cannot map a guarded buffer"))?;
        let mut ctx = Ctx {
            g: self,
            buf: vec![0u64; self.ctx_size.div_ceil(8)],
            _data: g,
        };
        let p = ctx._data.as_slice().as_ptr() as *const c_char;
        let f = self.decode;
        // SAFETY: `buf` has room for a sframe_decoder_ctx; the section lies in a guarded
        // mapping that lives as long as the context.
        let len = data.len();
        let r = crate::stage::decoding(|| unsafe { f(ctx.ptr(), p, len) });
        if r != URC_NO_REASON {
            return Err(Outcome::rejected(
                "_URC_END_OF_STACK",
                Some(format!("__sframe_decode returned {r}")),
            ));
        }
        Ok(ctx)
    }
}

impl Implementation for Glibc {
    fn name(&self) -> String {
        format!("glibc-{}", self.release)
    }
    fn version(&self) -> String {
        format!(
            "glibc {} sysdeps/generic/sframe-read.c (Debian source)",
            self.version
        )
    }
    fn supports(&self, version: Version) -> bool {
        // sframe_header_sanity_check_p: sfp_version != SFRAME_VERSION_2 -> refused.
        version == Version::V2
    }
    fn decode(&self, data: &[u8]) -> Outcome<Decoded> {
        let mut d = match self.decoder(data) {
            Ok(d) => d,
            Err(o) => return o.map(|_| Decoded::default()),
        };
        let h = d.header();
        let abi = Abi::from_u8(h.abi).unwrap_or(Abi::Amd64);
        let mut out = Decoded {
            header: HeaderFacts {
                version: Some(h.version),
                flags: Some(h.flags),
                abi: Some(h.abi),
                cfa_fixed_fp_offset: Some(h.fixed_fp),
                cfa_fixed_ra_offset: Some(h.fixed_ra),
                num_fdes: Some(h.num_fdes),
                num_fres: Some(h.num_fres),
            },
            functions: Vec::new(),
        };
        for i in 0..h.num_fdes {
            let fd = match d.fde(i) {
                Some(Ok(fd)) => fd,
                Some(Err(())) => {
                    out.functions.push(FunctionFacts {
                        error: Some("fde: past the end of the section".into()),
                        ..FunctionFacts::default()
                    });
                    break;
                }
                None => break,
            };
            let (rows, stopped) = d.fres(i, fd.num_fres.min(MAX_FRES));
            out.functions.push(FunctionFacts {
                start: Some(i64::from(fd.start)),
                size: Some(fd.size),
                fre_type: Some(fd.fre_type.into()),
                pc_type: Some(fd.fde_type.into()),
                fde_type: None,
                rep_size: Some(fd.rep_size),
                num_fres: Some(fd.num_fres),
                fres: rows
                    .iter()
                    .map(|r| FreFacts {
                        start: Some(r.fre_start),
                        row: row(abi, r),
                    })
                    .collect(),
                error: stopped.map(Into::into),
            });
        }
        Outcome::ok(out)
    }
    fn find_fre(&self, data: &[u8], pc: i64) -> Outcome<Option<Found>> {
        let mut v = self.find_fres(data, &[pc]);
        v.pop().unwrap_or_else(|| Outcome::unsupported("no PC"))
    }
    fn find_fres(&self, data: &[u8], pcs: &[i64]) -> Vec<Outcome<Option<Found>>> {
        let mut d = match self.decoder(data) {
            Ok(d) => d,
            Err(o) => return pcs.iter().map(|_| o.clone().map(|_| None)).collect(),
        };
        let abi = Abi::from_u8(d.header().abi).unwrap_or(Abi::Amd64);
        pcs.iter()
            .map(|&pc| {
                let Ok(pc32) = i32::try_from(pc) else {
                    return Outcome::unsupported("the PC does not fit __sframe_find_fre's int32_t");
                };
                Outcome::ok(d.find(pc32).map(|r| Found {
                    function_start: (r.func_idx >= 0).then_some(i64::from(r.func_start)),
                    fre_start: Some(r.fre_start),
                    row: row(abi, &r),
                }))
            })
            .collect()
    }
}
