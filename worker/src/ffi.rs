//! Bindings to GNU libsframe, per release, loaded with `dlopen` (the only `unsafe` code of
//! the harness).
//!
//! The public API (`sframe-api.h`) differs between releases, and these declarations follow
//! each release's header exactly:
//!
//! | item | 2.40 (`libsframe.so.0`) | 2.44 (`.so.1`) | sid 2.47 (`.so.3`) |
//! |---|---|---|---|
//! | `sframe_frame_row_entry` data | `fre_offsets[12]` | `fre_offsets[12]` | `fre_datawords[24]` |
//! | function descriptor getter | `sframe_decoder_get_funcdesc` (no rep size) | `_get_funcdesc_v2` (v1: `sframe_decoder_get_funcdesc`) | `_get_funcdesc_v2`, `_v3` |
//! | `sframe_find_fre` PC | `int32_t` | `int32_t` | `int64_t` |
//! | `sframe_fre_get_{cfa,fp,ra}_offset` | `(dctx, fre, errp)` | same | `(dctx, fre, fde_type, errp)` |
//! | `sframe_fre_get_base_reg_id` returns | `unsigned int` | `uint8_t` | `uint8_t` |
//! | `sframe_decoder_get_version` / `_flags` | — / — | yes / — | yes / yes |
//! | `sframe_fre_get_ra_undefined_p`, `sframe_get_fre_udata`, `_get_offsetof_fde_start_addr` | — | — | yes |
//! | `sframe_encode` ABI argument | `int` | `uint8_t` | `uint8_t` |
//! | encoder funcdesc | `_add_funcdesc(start i32, size, info, num_fres)` | `_add_funcdesc_v2(start i32, size, info, rep, num_fres)` | `_add_funcdesc_v3(start i64, size, info, info2, rep, num_fres)` |
//! | `sframe_encoder_write` | `(ectx, size*, errp)` | same | `(ectx, size*, sort_fde_p, errp)` |
//!
//! Inputs are handed to the library in a [`Guarded`](crate::guard::Guarded) buffer (guard pages
//! on both sides), so that out-of-bounds reads become crashes the harness sees.
//!
//! `MAX_OFFSET_BYTES` is `SFRAME_FRE_OFFSET_4B * 2 * 3` = 12 (the enum value 2 times 2 is the
//! 4-byte width); `MAX_DATAWORD_BYTES` is `SFRAME_FRE_DATAWORD_4B * 2 * 6` = 24.

use libloading::Library;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::Path;

/// Which header the library follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// binutils 2.40 (libsframe.so.0).
    R240,
    /// binutils 2.44 (libsframe.so.1).
    R244,
    /// binutils 2.45 and later with SFrame v3 (sid, libsframe.so.3).
    R247,
}

impl Api {
    pub fn for_release(release: &str) -> Api {
        let key: Vec<u32> = release.split('.').map(|p| p.parse().unwrap_or(0)).collect();
        if key.as_slice() < [2, 44].as_slice() {
            Api::R240
        } else if key.as_slice() < [2, 45].as_slice() {
            Api::R244
        } else {
            Api::R247
        }
    }
}

/// `sframe_frame_row_entry` of 2.40 and 2.44.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Fre12 {
    pub fre_start_addr: u32,
    pub fre_offsets: [u8; 12],
    pub fre_info: u8,
}

/// `sframe_frame_row_entry` of sid (2.47).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Fre24 {
    pub fre_start_addr: u32,
    pub fre_datawords: [u8; 24],
    pub fre_info: u8,
}

/// An FRE as the release lays it out.
#[derive(Debug, Clone, Copy)]
pub enum FreBuf {
    Small(Fre12),
    Large(Fre24),
}

impl FreBuf {
    pub fn new(api: Api) -> FreBuf {
        match api {
            Api::R247 => FreBuf::Large(Fre24::default()),
            _ => FreBuf::Small(Fre12::default()),
        }
    }
    pub fn start(&self) -> u32 {
        match self {
            FreBuf::Small(f) => f.fre_start_addr,
            FreBuf::Large(f) => f.fre_start_addr,
        }
    }
    /// The same start, info byte and data words.
    pub fn same_as(&self, other: &FreBuf) -> bool {
        let (a, b) = (self.words(), other.words());
        self.start() == other.start() && self.info() == other.info() && a == b
    }
    fn info(&self) -> u8 {
        match self {
            FreBuf::Small(f) => f.fre_info,
            FreBuf::Large(f) => f.fre_info,
        }
    }
    fn words(&self) -> &[u8] {
        match self {
            FreBuf::Small(f) => &f.fre_offsets,
            FreBuf::Large(f) => &f.fre_datawords,
        }
    }
    /// Fill from start address, info byte and data-word bytes (host order); `None` when the
    /// bytes do not fit the release's array.
    pub fn set(&mut self, start: u32, info: u8, words: &[u8]) -> Option<()> {
        match self {
            FreBuf::Small(f) => {
                f.fre_start_addr = start;
                f.fre_info = info;
                f.fre_offsets.get_mut(..words.len())?.copy_from_slice(words);
            }
            FreBuf::Large(f) => {
                f.fre_start_addr = start;
                f.fre_info = info;
                f.fre_datawords
                    .get_mut(..words.len())?
                    .copy_from_slice(words);
            }
        }
        Some(())
    }
    fn as_ptr(&self) -> *const c_void {
        match self {
            FreBuf::Small(f) => f as *const Fre12 as *const c_void,
            FreBuf::Large(f) => f as *const Fre24 as *const c_void,
        }
    }
    fn as_mut_ptr(&mut self) -> *mut c_void {
        match self {
            FreBuf::Small(f) => f as *mut Fre12 as *mut c_void,
            FreBuf::Large(f) => f as *mut Fre24 as *mut c_void,
        }
    }
}

type Ctx = c_void;
type Ectx = c_void;

type DecodeFn = unsafe extern "C" fn(*const c_char, usize, *mut c_int) -> *mut Ctx;
type FreeFn = unsafe extern "C" fn(*mut *mut Ctx);
type CtxU32Fn = unsafe extern "C" fn(*const Ctx) -> u32;
type CtxU8Fn = unsafe extern "C" fn(*const Ctx) -> u8;
type CtxI8Fn = unsafe extern "C" fn(*const Ctx) -> i8;
type GetFreFn = unsafe extern "C" fn(*const Ctx, u32, u32, *mut c_void) -> c_int;
type Funcdesc240Fn =
    unsafe extern "C" fn(*const Ctx, u32, *mut u32, *mut u32, *mut i32, *mut u8) -> c_int;
type FuncdescV2Fn =
    unsafe extern "C" fn(*const Ctx, u32, *mut u32, *mut u32, *mut i32, *mut u8, *mut u8) -> c_int;
type FuncdescV3Fn = unsafe extern "C" fn(
    *const Ctx,
    u32,
    *mut u32,
    *mut u32,
    *mut i64,
    *mut u8,
    *mut u8,
    *mut u8,
) -> c_int;
type BaseReg240Fn = unsafe extern "C" fn(*const c_void, *mut c_int) -> u32;
type BaseRegFn = unsafe extern "C" fn(*const c_void, *mut c_int) -> u8;
type OffsetOldFn = unsafe extern "C" fn(*const Ctx, *const c_void, *mut c_int) -> i32;
type OffsetNewFn = unsafe extern "C" fn(*const Ctx, *const c_void, u32, *mut c_int) -> i32;
type FrePredFn = unsafe extern "C" fn(*const Ctx, *const c_void, *mut c_int) -> bool;
type UdataFn = unsafe extern "C" fn(*const c_void, c_int, *mut c_int) -> u32;
type FindOldFn = unsafe extern "C" fn(*const Ctx, i32, *mut c_void) -> c_int;
type FindNewFn = unsafe extern "C" fn(*const Ctx, i64, *mut c_void) -> c_int;
type OffsetofFn = unsafe extern "C" fn(*const Ctx, u32, *mut c_int) -> u32;
type Encode240Fn = unsafe extern "C" fn(u8, u8, c_int, i8, i8, *mut c_int) -> *mut Ectx;
type EncodeFn = unsafe extern "C" fn(u8, u8, u8, i8, i8, *mut c_int) -> *mut Ectx;
type EncFreeFn = unsafe extern "C" fn(*mut *mut Ectx);
type AddFuncdesc240Fn = unsafe extern "C" fn(*mut Ectx, i32, u32, u8, u32) -> c_int;
type AddFuncdescV2Fn = unsafe extern "C" fn(*mut Ectx, i32, u32, u8, u8, u32) -> c_int;
type AddFuncdescV3Fn = unsafe extern "C" fn(*mut Ectx, i64, u32, u8, u8, u8, u32) -> c_int;
type AddFreFn = unsafe extern "C" fn(*mut Ectx, u32, *mut c_void) -> c_int;
type WriteOldFn = unsafe extern "C" fn(*mut Ectx, *mut usize, *mut c_int) -> *mut c_char;
type WriteNewFn = unsafe extern "C" fn(*mut Ectx, *mut usize, bool, *mut c_int) -> *mut c_char;
type EncOffsetofFn = unsafe extern "C" fn(*mut Ectx, u32, *mut c_int) -> u32;
type ErrmsgFn = unsafe extern "C" fn(c_int) -> *const c_char;

/// The loaded library and the functions this harness calls.
pub struct Lib {
    pub api: Api,
    decode: DecodeFn,
    free: FreeFn,
    num_fidx: CtxU32Fn,
    abi_arch: CtxU8Fn,
    version: Option<CtxU8Fn>,
    flags: Option<CtxU8Fn>,
    fixed_fp: CtxI8Fn,
    fixed_ra: CtxI8Fn,
    get_fre: GetFreFn,
    funcdesc_240: Option<Funcdesc240Fn>,
    funcdesc_v2: Option<FuncdescV2Fn>,
    funcdesc_v3: Option<FuncdescV3Fn>,
    base_reg_240: Option<BaseReg240Fn>,
    base_reg: Option<BaseRegFn>,
    cfa_old: Option<OffsetOldFn>,
    fp_old: Option<OffsetOldFn>,
    ra_old: Option<OffsetOldFn>,
    cfa_new: Option<OffsetNewFn>,
    fp_new: Option<OffsetNewFn>,
    ra_new: Option<OffsetNewFn>,
    mangled: FrePredFn,
    ra_undefined: Option<FrePredFn>,
    udata: Option<UdataFn>,
    find_old: Option<FindOldFn>,
    find_new: Option<FindNewFn>,
    offsetof: Option<OffsetofFn>,
    encode_240: Option<Encode240Fn>,
    encode: Option<EncodeFn>,
    enc_free: EncFreeFn,
    add_funcdesc_240: Option<AddFuncdesc240Fn>,
    add_funcdesc_v2: Option<AddFuncdescV2Fn>,
    add_funcdesc_v3: Option<AddFuncdescV3Fn>,
    add_fre: AddFreFn,
    write_old: Option<WriteOldFn>,
    write_new: Option<WriteNewFn>,
    enc_offsetof: Option<EncOffsetofFn>,
    errmsg: ErrmsgFn,
    /// Keeps the code the pointers above point into mapped.
    _lib: Library,
}

/// Look a function up by name as the given type.
///
/// SAFETY (for callers): `T` must be the exact C signature the release's `sframe-api.h`
/// declares for `name` (see the table in the module docs).
unsafe fn sym<T: Copy>(lib: &Library, name: &str) -> Result<T, String> {
    // SAFETY: the caller guarantees that `T` is the function's type; the pointer is copied
    // out and stays valid while `lib` is loaded, which `Lib` guarantees by owning it.
    unsafe {
        lib.get::<T>(name.as_bytes())
            .map(|s| *s)
            .map_err(|e| format!("{name}: {e}"))
    }
}

/// [`sym`] where the release has the function (`present`), `None` where it does not.
///
/// SAFETY (for callers): as for [`sym`].
unsafe fn sym_if<T: Copy>(present: bool, lib: &Library, name: &str) -> Result<Option<T>, String> {
    if present {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { sym(lib, name).map(Some) }
    } else {
        Ok(None)
    }
}

impl Lib {
    /// `dlopen` the library and resolve the functions of `api`.
    pub fn open(path: &Path, api: Api) -> Result<Lib, String> {
        // SAFETY: loading a GNU libsframe shared object runs no initialisers with
        // preconditions (it only depends on libc).
        let lib =
            unsafe { Library::new(path) }.map_err(|e| format!("dlopen {}: {e}", path.display()))?;
        let old = api != Api::R247;
        // SAFETY: every type below is the signature of the named function in the header of
        // `api`'s release (module docs); functions missing in a release are not looked up.
        unsafe {
            Ok(Lib {
                api,
                decode: sym(&lib, "sframe_decode")?,
                free: sym(&lib, "sframe_decoder_free")?,
                num_fidx: sym(&lib, "sframe_decoder_get_num_fidx")?,
                abi_arch: sym(&lib, "sframe_decoder_get_abi_arch")?,
                version: sym_if(api != Api::R240, &lib, "sframe_decoder_get_version")?,
                flags: sym_if(api == Api::R247, &lib, "sframe_decoder_get_flags")?,
                fixed_fp: sym(&lib, "sframe_decoder_get_fixed_fp_offset")?,
                fixed_ra: sym(&lib, "sframe_decoder_get_fixed_ra_offset")?,
                get_fre: sym(&lib, "sframe_decoder_get_fre")?,
                // 2.40's only getter; 2.44 keeps it for v1 sections (its `_v2` refuses them).
                funcdesc_240: sym_if(api != Api::R247, &lib, "sframe_decoder_get_funcdesc")?,
                funcdesc_v2: sym_if(api != Api::R240, &lib, "sframe_decoder_get_funcdesc_v2")?,
                funcdesc_v3: sym_if(api == Api::R247, &lib, "sframe_decoder_get_funcdesc_v3")?,
                base_reg_240: sym_if(api == Api::R240, &lib, "sframe_fre_get_base_reg_id")?,
                base_reg: sym_if(api != Api::R240, &lib, "sframe_fre_get_base_reg_id")?,
                cfa_old: sym_if(old, &lib, "sframe_fre_get_cfa_offset")?,
                fp_old: sym_if(old, &lib, "sframe_fre_get_fp_offset")?,
                ra_old: sym_if(old, &lib, "sframe_fre_get_ra_offset")?,
                cfa_new: sym_if(!old, &lib, "sframe_fre_get_cfa_offset")?,
                fp_new: sym_if(!old, &lib, "sframe_fre_get_fp_offset")?,
                ra_new: sym_if(!old, &lib, "sframe_fre_get_ra_offset")?,
                mangled: sym(&lib, "sframe_fre_get_ra_mangled_p")?,
                ra_undefined: sym_if(!old, &lib, "sframe_fre_get_ra_undefined_p")?,
                udata: sym_if(!old, &lib, "sframe_get_fre_udata")?,
                find_old: sym_if(old, &lib, "sframe_find_fre")?,
                find_new: sym_if(!old, &lib, "sframe_find_fre")?,
                offsetof: sym_if(!old, &lib, "sframe_decoder_get_offsetof_fde_start_addr")?,
                encode_240: sym_if(api == Api::R240, &lib, "sframe_encode")?,
                encode: sym_if(api != Api::R240, &lib, "sframe_encode")?,
                enc_free: sym(&lib, "sframe_encoder_free")?,
                add_funcdesc_240: sym_if(api == Api::R240, &lib, "sframe_encoder_add_funcdesc")?,
                add_funcdesc_v2: sym_if(api == Api::R244, &lib, "sframe_encoder_add_funcdesc_v2")?,
                add_funcdesc_v3: sym_if(api == Api::R247, &lib, "sframe_encoder_add_funcdesc_v3")?,
                add_fre: sym(&lib, "sframe_encoder_add_fre")?,
                write_old: sym_if(old, &lib, "sframe_encoder_write")?,
                write_new: sym_if(!old, &lib, "sframe_encoder_write")?,
                enc_offsetof: sym_if(!old, &lib, "sframe_encoder_get_offsetof_fde_start_addr")?,
                errmsg: sym(&lib, "sframe_errmsg")?,
                _lib: lib,
            })
        }
    }

    /// `sframe_decode`: a decoder, or the library's error code.
    pub fn decoder<'a>(&'a self, data: &'a [u8]) -> Result<Decoder<'a>, c_int> {
        let mut err: c_int = 0;
        // SAFETY: `data` is a valid buffer of `data.len()` bytes, alive for the decoder's
        // lifetime ('a); `err` is a valid out-pointer.
        let ctx = unsafe { (self.decode)(data.as_ptr() as *const c_char, data.len(), &mut err) };
        if ctx.is_null() {
            Err(err)
        } else {
            Ok(Decoder {
                lib: self,
                ctx,
                _data: data,
            })
        }
    }

    /// `sframe_errmsg`.
    pub fn errmsg(&self, code: c_int) -> String {
        // SAFETY: sframe_errmsg takes any int and returns a static string (or NULL).
        let p = unsafe { (self.errmsg)(code) };
        if p.is_null() {
            return String::new();
        }
        // SAFETY: a non-null result is a NUL-terminated static string of the library.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    }
}

/// A live `sframe_decoder_ctx`, freed on drop.
pub struct Decoder<'a> {
    lib: &'a Lib,
    ctx: *mut Ctx,
    _data: &'a [u8],
}

/// A function descriptor as the getters of the release give it.
#[derive(Debug, Clone, Copy, Default)]
pub struct FuncDesc {
    pub num_fres: u32,
    pub size: u32,
    /// The start field as stored (v3: int64; v1/v2: int32 sign-extended).
    pub raw_start: i64,
    pub info: u8,
    pub info2: u8,
    pub rep_size: Option<u8>,
}

impl Decoder<'_> {
    fn ctx(&self) -> *const Ctx {
        self.ctx
    }
    pub fn num_fidx(&self) -> u32 {
        // SAFETY: `ctx` is a live decoder returned by sframe_decode.
        unsafe { (self.lib.num_fidx)(self.ctx()) }
    }
    pub fn abi_arch(&self) -> u8 {
        // SAFETY: as above.
        unsafe { (self.lib.abi_arch)(self.ctx()) }
    }
    pub fn version(&self) -> Option<u8> {
        // SAFETY: as above; the function exists in this release.
        self.lib.version.map(|f| unsafe { f(self.ctx()) })
    }
    pub fn flags(&self) -> Option<u8> {
        // SAFETY: as above.
        self.lib.flags.map(|f| unsafe { f(self.ctx()) })
    }
    pub fn fixed_fp(&self) -> i8 {
        // SAFETY: as above.
        unsafe { (self.lib.fixed_fp)(self.ctx()) }
    }
    pub fn fixed_ra(&self) -> i8 {
        // SAFETY: as above.
        unsafe { (self.lib.fixed_ra)(self.ctx()) }
    }

    /// The descriptor of function `i`, through the getter the release and `version` call for
    /// (`None` when the release has no getter for this version; `Err` with the return code).
    pub fn funcdesc(&self, i: u32, version: u8) -> Option<Result<FuncDesc, c_int>> {
        let mut d = FuncDesc::default();
        let (mut start32, mut rep) = (0i32, 0u8);
        // SAFETY: `ctx` is live; every out-pointer points to a local of the declared type.
        let rc = unsafe {
            match (self.lib.api, version) {
                (Api::R240, _) | (Api::R244, 1) => {
                    let f = self.lib.funcdesc_240?;
                    let rc = f(
                        self.ctx(),
                        i,
                        &mut d.num_fres,
                        &mut d.size,
                        &mut start32,
                        &mut d.info,
                    );
                    d.raw_start = i64::from(start32);
                    rc
                }
                (_, 3) => {
                    let f = self.lib.funcdesc_v3?;
                    let rc = f(
                        self.ctx(),
                        i,
                        &mut d.num_fres,
                        &mut d.size,
                        &mut d.raw_start,
                        &mut d.info,
                        &mut d.info2,
                        &mut rep,
                    );
                    d.rep_size = Some(rep);
                    rc
                }
                _ => {
                    let f = self.lib.funcdesc_v2?;
                    let rc = f(
                        self.ctx(),
                        i,
                        &mut d.num_fres,
                        &mut d.size,
                        &mut start32,
                        &mut d.info,
                        &mut rep,
                    );
                    d.raw_start = i64::from(start32);
                    d.rep_size = Some(rep);
                    rc
                }
            }
        };
        Some(if rc == 0 { Ok(d) } else { Err(rc) })
    }

    /// `sframe_decoder_get_offsetof_fde_start_addr` (sid only).
    pub fn offsetof_fde_start(&self, i: u32) -> Option<u32> {
        let f = self.lib.offsetof?;
        let mut err = 0;
        // SAFETY: `ctx` is live, `err` a valid out-pointer.
        let v = unsafe { f(self.ctx(), i, &mut err) };
        (err == 0).then_some(v)
    }

    /// `sframe_decoder_get_fre`.
    pub fn fre(&self, func: u32, idx: u32) -> Result<FreBuf, c_int> {
        let mut buf = FreBuf::new(self.lib.api);
        // SAFETY: `ctx` is live; `buf` is the release's sframe_frame_row_entry.
        let rc = unsafe { (self.lib.get_fre)(self.ctx(), func, idx, buf.as_mut_ptr()) };
        if rc == 0 {
            Ok(buf)
        } else {
            Err(rc)
        }
    }

    /// `sframe_find_fre`: `None` when the call fails (the API gives no reason), or when the
    /// PC does not fit the release's `int32_t` parameter (`Err`).
    pub fn find(&self, pc: i64) -> Result<Option<FreBuf>, ()> {
        let mut buf = FreBuf::new(self.lib.api);
        // SAFETY: `ctx` is live; `buf` is the release's sframe_frame_row_entry.
        let rc = unsafe {
            match (self.lib.find_old, self.lib.find_new) {
                (Some(f), _) => f(
                    self.ctx(),
                    i32::try_from(pc).map_err(|_| ())?,
                    buf.as_mut_ptr(),
                ),
                (_, Some(f)) => f(self.ctx(), pc, buf.as_mut_ptr()),
                _ => return Err(()),
            }
        };
        Ok((rc == 0).then_some(buf))
    }

    pub fn base_reg_id(&self, fre: &FreBuf) -> (u8, c_int) {
        let mut err = 0;
        // SAFETY: `fre` is the release's sframe_frame_row_entry, `err` a valid out-pointer.
        let v = unsafe {
            match (self.lib.base_reg_240, self.lib.base_reg) {
                (Some(f), _) => f(fre.as_ptr(), &mut err) as u8,
                (_, Some(f)) => f(fre.as_ptr(), &mut err),
                _ => 0,
            }
        };
        (v, err)
    }

    fn offset(
        &self,
        old: Option<OffsetOldFn>,
        new: Option<OffsetNewFn>,
        fre: &FreBuf,
        fde_type: u32,
    ) -> (i32, c_int) {
        let mut err = 0;
        // SAFETY: `ctx` is live; `fre` is the release's sframe_frame_row_entry.
        let v = unsafe {
            match (old, new) {
                (Some(f), _) => f(self.ctx(), fre.as_ptr(), &mut err),
                (_, Some(f)) => f(self.ctx(), fre.as_ptr(), fde_type, &mut err),
                _ => 0,
            }
        };
        (v, err)
    }
    /// `sframe_fre_get_cfa_offset`: value and error code (0 = present).
    pub fn cfa_offset(&self, fre: &FreBuf, fde_type: u32) -> (i32, c_int) {
        self.offset(self.lib.cfa_old, self.lib.cfa_new, fre, fde_type)
    }
    pub fn fp_offset(&self, fre: &FreBuf, fde_type: u32) -> (i32, c_int) {
        self.offset(self.lib.fp_old, self.lib.fp_new, fre, fde_type)
    }
    pub fn ra_offset(&self, fre: &FreBuf, fde_type: u32) -> (i32, c_int) {
        self.offset(self.lib.ra_old, self.lib.ra_new, fre, fde_type)
    }
    pub fn ra_mangled(&self, fre: &FreBuf) -> bool {
        let mut err = 0;
        // SAFETY: as above.
        unsafe { (self.lib.mangled)(self.ctx(), fre.as_ptr(), &mut err) }
    }
    /// `sframe_fre_get_ra_undefined_p` (sid only).
    pub fn ra_undefined(&self, fre: &FreBuf) -> Option<bool> {
        let f = self.lib.ra_undefined?;
        let mut err = 0;
        // SAFETY: as above.
        Some(unsafe { f(self.ctx(), fre.as_ptr(), &mut err) })
    }
    /// `sframe_get_fre_udata` (sid only): the data word read unsigned, if present.
    pub fn udata(&self, fre: &FreBuf, idx: i32) -> Option<u32> {
        let f = self.lib.udata?;
        let mut err = 0;
        // SAFETY: `fre` is the release's sframe_frame_row_entry, `err` a valid out-pointer.
        let v = unsafe { f(fre.as_ptr(), idx, &mut err) };
        (err == 0).then_some(v)
    }
}

impl Drop for Decoder<'_> {
    fn drop(&mut self) {
        // SAFETY: `ctx` came from sframe_decode and is freed exactly once.
        unsafe { (self.lib.free)(&mut self.ctx) }
    }
}

/// One function to encode.
pub struct EncFunction {
    /// Section-relative start.
    pub start: i64,
    pub size: u32,
    pub info: u8,
    pub info2: u8,
    pub rep_size: u8,
    /// FREs: start, info byte, data-word bytes in host order.
    pub fres: Vec<(u32, u8, Vec<u8>)>,
}

impl Lib {
    /// Drive the encoder: `sframe_encode`, one funcdesc and its FREs per function, then
    /// `sframe_encoder_write` (sid: with `sort_fde_p` = `sort`). `Err` names the failing call.
    #[allow(clippy::too_many_arguments)]
    pub fn encode(
        &self,
        version: u8,
        flags: u8,
        abi: u8,
        fixed_fp: i8,
        fixed_ra: i8,
        functions: &[EncFunction],
        sort: bool,
    ) -> Result<Vec<u8>, String> {
        let mut err: c_int = 0;
        // SAFETY: scalar arguments and a valid out-pointer.
        let mut ectx = unsafe {
            match (self.encode_240, self.encode) {
                (Some(f), _) => f(
                    version,
                    flags,
                    c_int::from(abi),
                    fixed_fp,
                    fixed_ra,
                    &mut err,
                ),
                (_, Some(f)) => f(version, flags, abi, fixed_fp, fixed_ra, &mut err),
                _ => return Err("no sframe_encode".into()),
            }
        };
        if ectx.is_null() {
            return Err(format!("sframe_encode: {} ({err})", self.errmsg(err)));
        }
        let result = (|| {
            for (i, f) in functions.iter().enumerate() {
                let i = i as u32;
                let n = f.fres.len() as u32;
                // SAFETY: `ectx` is a live encoder; scalar arguments.
                let rc = unsafe {
                    match (
                        self.add_funcdesc_240,
                        self.add_funcdesc_v2,
                        self.add_funcdesc_v3,
                    ) {
                        (Some(g), _, _) => g(
                            ectx,
                            i32::try_from(f.start).map_err(|_| "start does not fit int32_t")?,
                            f.size,
                            f.info,
                            n,
                        ),
                        (_, Some(g), _) => g(
                            ectx,
                            i32::try_from(f.start).map_err(|_| "start does not fit int32_t")?,
                            f.size,
                            f.info,
                            f.rep_size,
                            n,
                        ),
                        (_, _, Some(g)) => {
                            // The v3 field is PC-relative: relative to the FDE's own start field.
                            let mut e = 0;
                            let off = match self.enc_offsetof {
                                Some(o) => i64::from(o(ectx, i, &mut e)),
                                None => 0,
                            };
                            g(ectx, f.start - off, f.size, f.info, f.info2, f.rep_size, n)
                        }
                        _ => return Err("no funcdesc adder".to_string()),
                    }
                };
                if rc != 0 {
                    return Err(format!("add_funcdesc[{i}]: {rc}"));
                }
                for (k, (start, info, words)) in f.fres.iter().enumerate() {
                    let mut buf = FreBuf::new(self.api);
                    buf.set(*start, *info, words)
                        .ok_or_else(|| format!("FRE {k} of function {i}: data words do not fit"))?;
                    // SAFETY: live encoder; `buf` is the release's sframe_frame_row_entry,
                    // copied by the library.
                    let rc = unsafe { (self.add_fre)(ectx, i, buf.as_mut_ptr()) };
                    if rc != 0 {
                        return Err(format!("add_fre[{i}][{k}]: {rc}"));
                    }
                }
            }
            let mut size = 0usize;
            let mut err: c_int = 0;
            // SAFETY: live encoder; valid out-pointers.
            let p = unsafe {
                match (self.write_old, self.write_new) {
                    (Some(w), _) => w(ectx, &mut size, &mut err),
                    (_, Some(w)) => w(ectx, &mut size, sort, &mut err),
                    _ => return Err("no sframe_encoder_write".to_string()),
                }
            };
            if p.is_null() || err != 0 {
                return Err(format!(
                    "sframe_encoder_write: {} ({err})",
                    self.errmsg(err)
                ));
            }
            // SAFETY: the library returns a buffer of `size` bytes it owns until the encoder
            // is freed; it is copied out before that.
            Ok(unsafe { std::slice::from_raw_parts(p as *const u8, size) }.to_vec())
        })();
        // SAFETY: `ectx` came from sframe_encode and is freed exactly once.
        unsafe { (self.enc_free)(&mut ectx) };
        result
    }
}
