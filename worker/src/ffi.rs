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
//! Each release is a type of its own ([`R240`], [`R244`], [`R247`], beside the functions
//! all share): a function a release lacks is not there to call, and a call goes through the
//! signature of the release it is made on.
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
    /// The same start, info byte and data words. Only the data words the info byte declares
    /// are compared: `sframe_decode_fre` copies that many bytes into the entry (`memcpy
    /// (fre->fre_offsets, stack_offsets, stack_offsets_sz)`), and the rest of the array is
    /// whatever the entry held before (`sframe_find_fre` decodes into an uninitialized
    /// `cur_fre` on its stack and copies the whole entry out), so it differs between two
    /// decodings of the same FRE.
    pub fn same_as(&self, other: &FreBuf) -> bool {
        self.start() == other.start()
            && self.info() == other.info()
            && self.declared_words() == other.declared_words()
    }
    /// The data words the info byte declares (bits 1-4 the count, bits 5-6 the size code: 1,
    /// 2 or 4 bytes), at most the array.
    fn declared_words(&self) -> &[u8] {
        let info = self.info();
        let count = usize::from((info >> 1) & 0xf);
        let size = match (info >> 5) & 0x3 {
            0 => 1,
            1 => 2,
            _ => 4,
        };
        let words = self.words();
        &words[..(count * size).min(words.len())]
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

/// The functions every release has, with the same signature in each.
struct Common {
    decode: DecodeFn,
    free: FreeFn,
    num_fidx: CtxU32Fn,
    abi_arch: CtxU8Fn,
    fixed_fp: CtxI8Fn,
    fixed_ra: CtxI8Fn,
    get_fre: GetFreFn,
    mangled: FrePredFn,
    enc_free: EncFreeFn,
    add_fre: AddFreFn,
    errmsg: ErrmsgFn,
}

/// The functions 2.40 and 2.44 both have with the signatures 2.45 changed.
struct Before245 {
    offsets: [OffsetOldFn; 3],
    find: FindOldFn,
    write: WriteOldFn,
}

/// binutils 2.40 (`libsframe.so.0`): SFrame v1 only.
struct R240 {
    funcdesc: Funcdesc240Fn,
    base_reg: BaseReg240Fn,
    encode: Encode240Fn,
    add_funcdesc: AddFuncdesc240Fn,
    old: Before245,
}

/// binutils 2.44 (`libsframe.so.1`): v1 (through the old descriptor getter) and v2.
struct R244 {
    version: CtxU8Fn,
    funcdesc_v1: Funcdesc240Fn,
    funcdesc_v2: FuncdescV2Fn,
    base_reg: BaseRegFn,
    encode: EncodeFn,
    add_funcdesc: AddFuncdescV2Fn,
    old: Before245,
}

/// binutils 2.45 and later (sid, `libsframe.so.3`): v2 and v3.
struct R247 {
    version: CtxU8Fn,
    flags: CtxU8Fn,
    funcdesc_v2: FuncdescV2Fn,
    funcdesc_v3: FuncdescV3Fn,
    base_reg: BaseRegFn,
    offsets: [OffsetNewFn; 3],
    ra_undefined: FrePredFn,
    udata: UdataFn,
    find: FindNewFn,
    offsetof: OffsetofFn,
    encode: EncodeFn,
    add_funcdesc: AddFuncdescV3Fn,
    write: WriteNewFn,
    enc_offsetof: EncOffsetofFn,
}

/// The functions of one release whose presence or signature is the release's own.
enum Release {
    R240(R240),
    R244(R244),
    R247(R247),
}

/// Which of the FRE offset getters (`sframe_fre_get_{cfa,fp,ra}_offset`).
#[derive(Debug, Clone, Copy)]
enum Which {
    Cfa = 0,
    Fp = 1,
    Ra = 2,
}

/// The loaded library and the functions this harness calls.
pub struct Lib {
    pub api: Api,
    common: Common,
    release: Release,
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

/// The three FRE offset getters.
///
/// SAFETY (for callers): as for [`sym`].
unsafe fn offset_getters<T: Copy>(lib: &Library) -> Result<[T; 3], String> {
    // SAFETY: the caller's guarantee, passed on.
    unsafe {
        Ok([
            sym(lib, "sframe_fre_get_cfa_offset")?,
            sym(lib, "sframe_fre_get_fp_offset")?,
            sym(lib, "sframe_fre_get_ra_offset")?,
        ])
    }
}

/// The functions of [`Before245`].
///
/// SAFETY (for callers): the library is a release before 2.45.
unsafe fn before_245(lib: &Library) -> Result<Before245, String> {
    // SAFETY: these are the signatures of 2.40's and 2.44's headers.
    unsafe {
        Ok(Before245 {
            offsets: offset_getters(lib)?,
            find: sym(lib, "sframe_find_fre")?,
            write: sym(lib, "sframe_encoder_write")?,
        })
    }
}

impl Lib {
    /// `dlopen` the library and resolve the functions of `api`.
    pub fn open(path: &Path, api: Api) -> Result<Lib, String> {
        // SAFETY: loading a GNU libsframe shared object runs no initialisers with
        // preconditions (it only depends on libc).
        let lib =
            unsafe { Library::new(path) }.map_err(|e| format!("dlopen {}: {e}", path.display()))?;
        // SAFETY: every type below is the signature of the named function in the header of
        // `api`'s release (module docs); each release's struct looks up only what it has.
        unsafe {
            let common = Common {
                decode: sym(&lib, "sframe_decode")?,
                free: sym(&lib, "sframe_decoder_free")?,
                num_fidx: sym(&lib, "sframe_decoder_get_num_fidx")?,
                abi_arch: sym(&lib, "sframe_decoder_get_abi_arch")?,
                fixed_fp: sym(&lib, "sframe_decoder_get_fixed_fp_offset")?,
                fixed_ra: sym(&lib, "sframe_decoder_get_fixed_ra_offset")?,
                get_fre: sym(&lib, "sframe_decoder_get_fre")?,
                mangled: sym(&lib, "sframe_fre_get_ra_mangled_p")?,
                enc_free: sym(&lib, "sframe_encoder_free")?,
                add_fre: sym(&lib, "sframe_encoder_add_fre")?,
                errmsg: sym(&lib, "sframe_errmsg")?,
            };
            let release = match api {
                Api::R240 => Release::R240(R240 {
                    funcdesc: sym(&lib, "sframe_decoder_get_funcdesc")?,
                    base_reg: sym(&lib, "sframe_fre_get_base_reg_id")?,
                    encode: sym(&lib, "sframe_encode")?,
                    add_funcdesc: sym(&lib, "sframe_encoder_add_funcdesc")?,
                    old: before_245(&lib)?,
                }),
                Api::R244 => Release::R244(R244 {
                    version: sym(&lib, "sframe_decoder_get_version")?,
                    // 2.44 keeps the old getter for v1 sections (its `_v2` refuses them).
                    funcdesc_v1: sym(&lib, "sframe_decoder_get_funcdesc")?,
                    funcdesc_v2: sym(&lib, "sframe_decoder_get_funcdesc_v2")?,
                    base_reg: sym(&lib, "sframe_fre_get_base_reg_id")?,
                    encode: sym(&lib, "sframe_encode")?,
                    add_funcdesc: sym(&lib, "sframe_encoder_add_funcdesc_v2")?,
                    old: before_245(&lib)?,
                }),
                Api::R247 => Release::R247(R247 {
                    version: sym(&lib, "sframe_decoder_get_version")?,
                    flags: sym(&lib, "sframe_decoder_get_flags")?,
                    funcdesc_v2: sym(&lib, "sframe_decoder_get_funcdesc_v2")?,
                    funcdesc_v3: sym(&lib, "sframe_decoder_get_funcdesc_v3")?,
                    base_reg: sym(&lib, "sframe_fre_get_base_reg_id")?,
                    offsets: offset_getters(&lib)?,
                    ra_undefined: sym(&lib, "sframe_fre_get_ra_undefined_p")?,
                    udata: sym(&lib, "sframe_get_fre_udata")?,
                    find: sym(&lib, "sframe_find_fre")?,
                    offsetof: sym(&lib, "sframe_decoder_get_offsetof_fde_start_addr")?,
                    encode: sym(&lib, "sframe_encode")?,
                    add_funcdesc: sym(&lib, "sframe_encoder_add_funcdesc_v3")?,
                    write: sym(&lib, "sframe_encoder_write")?,
                    enc_offsetof: sym(&lib, "sframe_encoder_get_offsetof_fde_start_addr")?,
                }),
            };
            Ok(Lib {
                api,
                common,
                release,
                _lib: lib,
            })
        }
    }

    /// `sframe_decode`: a decoder, or the library's error code.
    pub fn decoder<'a>(&'a self, data: &'a [u8]) -> Result<Decoder<'a>, c_int> {
        let mut err: c_int = 0;
        // SAFETY: `data` is a valid buffer of `data.len()` bytes, alive for the decoder's
        // lifetime ('a); `err` is a valid out-pointer.
        // The decoder's own copies of the section on guard pages: a read past them crashes.
        let guarded = crate::guarded_heap::guarding();
        let ctx = crate::stage::decoding(|| unsafe {
            (self.common.decode)(data.as_ptr() as *const c_char, data.len(), &mut err)
        });
        drop(guarded);
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
        let p = unsafe { (self.common.errmsg)(code) };
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
        unsafe { (self.lib.common.num_fidx)(self.ctx()) }
    }
    pub fn abi_arch(&self) -> u8 {
        // SAFETY: as above.
        unsafe { (self.lib.common.abi_arch)(self.ctx()) }
    }
    pub fn version(&self) -> Option<u8> {
        let f = match &self.lib.release {
            Release::R240(_) => return None,
            Release::R244(r) => r.version,
            Release::R247(r) => r.version,
        };
        // SAFETY: as above.
        Some(unsafe { f(self.ctx()) })
    }
    pub fn flags(&self) -> Option<u8> {
        let Release::R247(r) = &self.lib.release else {
            return None;
        };
        // SAFETY: as above.
        Some(unsafe { (r.flags)(self.ctx()) })
    }
    pub fn fixed_fp(&self) -> i8 {
        // SAFETY: as above.
        unsafe { (self.lib.common.fixed_fp)(self.ctx()) }
    }
    pub fn fixed_ra(&self) -> i8 {
        // SAFETY: as above.
        unsafe { (self.lib.common.fixed_ra)(self.ctx()) }
    }

    /// The descriptor of function `i`, through the getter the release and `version` call for
    /// (`None` when the release has no getter for this version; `Err` with the return code).
    pub fn funcdesc(&self, i: u32, version: u8) -> Option<Result<FuncDesc, c_int>> {
        let mut d = FuncDesc::default();
        let (mut start32, mut rep) = (0i32, 0u8);
        // SAFETY: `ctx` is live; every out-pointer points to a local of the declared type.
        let rc = unsafe {
            match (&self.lib.release, version) {
                (Release::R240(R240 { funcdesc: f, .. }), _)
                | (Release::R244(R244 { funcdesc_v1: f, .. }), 1) => {
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
                (Release::R244(_), 3) => return None,
                (Release::R247(r), 3) => {
                    let rc = (r.funcdesc_v3)(
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
                (
                    Release::R244(R244 { funcdesc_v2: f, .. })
                    | Release::R247(R247 { funcdesc_v2: f, .. }),
                    _,
                ) => {
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
        let Release::R247(r) = &self.lib.release else {
            return None;
        };
        let mut err = 0;
        // SAFETY: `ctx` is live, `err` a valid out-pointer.
        let v = unsafe { (r.offsetof)(self.ctx(), i, &mut err) };
        (err == 0).then_some(v)
    }

    /// `sframe_decoder_get_fre`.
    pub fn fre(&self, func: u32, idx: u32) -> Result<FreBuf, c_int> {
        let mut buf = FreBuf::new(self.lib.api);
        // SAFETY: `ctx` is live; `buf` is the release's sframe_frame_row_entry.
        let rc = unsafe { (self.lib.common.get_fre)(self.ctx(), func, idx, buf.as_mut_ptr()) };
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
            match &self.lib.release {
                Release::R240(R240 { old, .. }) | Release::R244(R244 { old, .. }) => (old.find)(
                    self.ctx(),
                    i32::try_from(pc).map_err(|_| ())?,
                    buf.as_mut_ptr(),
                ),
                Release::R247(r) => (r.find)(self.ctx(), pc, buf.as_mut_ptr()),
            }
        };
        Ok((rc == 0).then_some(buf))
    }

    pub fn base_reg_id(&self, fre: &FreBuf) -> (u8, c_int) {
        let mut err = 0;
        // SAFETY: `fre` is the release's sframe_frame_row_entry, `err` a valid out-pointer.
        let v = unsafe {
            match &self.lib.release {
                Release::R240(r) => (r.base_reg)(fre.as_ptr(), &mut err) as u8,
                Release::R244(R244 { base_reg: f, .. })
                | Release::R247(R247 { base_reg: f, .. }) => f(fre.as_ptr(), &mut err),
            }
        };
        (v, err)
    }

    fn offset(&self, which: Which, fre: &FreBuf, fde_type: u32) -> (i32, c_int) {
        let mut err = 0;
        let k = which as usize;
        // SAFETY: `ctx` is live; `fre` is the release's sframe_frame_row_entry.
        let v = unsafe {
            match &self.lib.release {
                Release::R240(R240 { old, .. }) | Release::R244(R244 { old, .. }) => {
                    old.offsets[k](self.ctx(), fre.as_ptr(), &mut err)
                }
                Release::R247(r) => r.offsets[k](self.ctx(), fre.as_ptr(), fde_type, &mut err),
            }
        };
        (v, err)
    }
    /// `sframe_fre_get_cfa_offset`: value and error code (0 = present).
    pub fn cfa_offset(&self, fre: &FreBuf, fde_type: u32) -> (i32, c_int) {
        self.offset(Which::Cfa, fre, fde_type)
    }
    pub fn fp_offset(&self, fre: &FreBuf, fde_type: u32) -> (i32, c_int) {
        self.offset(Which::Fp, fre, fde_type)
    }
    pub fn ra_offset(&self, fre: &FreBuf, fde_type: u32) -> (i32, c_int) {
        self.offset(Which::Ra, fre, fde_type)
    }
    pub fn ra_mangled(&self, fre: &FreBuf) -> bool {
        let mut err = 0;
        // SAFETY: as above.
        unsafe { (self.lib.common.mangled)(self.ctx(), fre.as_ptr(), &mut err) }
    }
    /// `sframe_fre_get_ra_undefined_p` (sid only).
    pub fn ra_undefined(&self, fre: &FreBuf) -> Option<bool> {
        let Release::R247(r) = &self.lib.release else {
            return None;
        };
        let mut err = 0;
        // SAFETY: as above.
        Some(unsafe { (r.ra_undefined)(self.ctx(), fre.as_ptr(), &mut err) })
    }
    /// `sframe_get_fre_udata` (sid only): the data word read unsigned, if present.
    pub fn udata(&self, fre: &FreBuf, idx: i32) -> Option<u32> {
        let Release::R247(r) = &self.lib.release else {
            return None;
        };
        let mut err = 0;
        // SAFETY: `fre` is the release's sframe_frame_row_entry, `err` a valid out-pointer.
        let v = unsafe { (r.udata)(fre.as_ptr(), idx, &mut err) };
        (err == 0).then_some(v)
    }
}

impl Drop for Decoder<'_> {
    fn drop(&mut self) {
        // SAFETY: `ctx` came from sframe_decode and is freed exactly once.
        unsafe { (self.lib.common.free)(&mut self.ctx) }
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
        // The encoder's buffers on guard pages (see `guarded_heap`).
        let _guarded = crate::guarded_heap::guarding();
        let mut err: c_int = 0;
        // SAFETY: scalar arguments and a valid out-pointer.
        let mut ectx = unsafe {
            match &self.release {
                Release::R240(r) => (r.encode)(
                    version,
                    flags,
                    c_int::from(abi),
                    fixed_fp,
                    fixed_ra,
                    &mut err,
                ),
                Release::R244(R244 { encode: f, .. }) | Release::R247(R247 { encode: f, .. }) => {
                    f(version, flags, abi, fixed_fp, fixed_ra, &mut err)
                }
            }
        };
        if ectx.is_null() {
            return Err(format!("sframe_encode: {} ({err})", self.errmsg(err)));
        }
        let result = (|| {
            for (i, f) in functions.iter().enumerate() {
                let i = i as u32;
                let n = f.fres.len() as u32;
                let start32 = || i32::try_from(f.start).map_err(|_| "start does not fit int32_t");
                // SAFETY: `ectx` is a live encoder; scalar arguments.
                let rc = unsafe {
                    match &self.release {
                        Release::R240(r) => (r.add_funcdesc)(ectx, start32()?, f.size, f.info, n),
                        Release::R244(r) => {
                            (r.add_funcdesc)(ectx, start32()?, f.size, f.info, f.rep_size, n)
                        }
                        Release::R247(r) => {
                            // The v3 field is PC-relative: relative to the FDE's own start field.
                            let mut e = 0;
                            let off = i64::from((r.enc_offsetof)(ectx, i, &mut e));
                            (r.add_funcdesc)(
                                ectx,
                                f.start - off,
                                f.size,
                                f.info,
                                f.info2,
                                f.rep_size,
                                n,
                            )
                        }
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
                    let rc = unsafe { (self.common.add_fre)(ectx, i, buf.as_mut_ptr()) };
                    if rc != 0 {
                        return Err(format!("add_fre[{i}][{k}]: {rc}"));
                    }
                }
            }
            let mut size = 0usize;
            let mut err: c_int = 0;
            // SAFETY: live encoder; valid out-pointers.
            let p = unsafe {
                match &self.release {
                    Release::R240(R240 { old, .. }) | Release::R244(R244 { old, .. }) => {
                        (old.write)(ectx, &mut size, &mut err)
                    }
                    Release::R247(r) => (r.write)(ectx, &mut size, sort, &mut err),
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
        unsafe { (self.common.enc_free)(&mut ectx) };
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn small(info: u8, words: [u8; 12]) -> FreBuf {
        FreBuf::Small(Fre12 {
            fre_start_addr: 0,
            fre_offsets: words,
            fre_info: info,
        })
    }

    /// v2 manual §2.4.1: fre_offset_count in bits 1-4, fre_offset_size in bits 5-6
    /// (SFRAME_FRE_OFFSET_1B 0, _2B 1, _4B 2). Bytes past the declared data words are stale.
    #[test]
    fn only_the_declared_data_words_are_compared() {
        // No data words (info 0x80: RA mangled only): any stale bytes.
        assert!(small(0x80, [0; 12]).same_as(&small(0x80, [0xaa; 12])));
        // Two 2-byte words (count 2 << 1, size 1 << 5): the first 4 bytes count.
        let info = (2 << 1) | (1 << 5);
        let mut a = [0x55; 12];
        let mut b = [0x11; 12];
        a[..4].copy_from_slice(&[1, 2, 3, 4]);
        b[..4].copy_from_slice(&[1, 2, 3, 4]);
        assert!(small(info, a).same_as(&small(info, b)));
        b[3] = 5;
        assert!(!small(info, a).same_as(&small(info, b)));
        // A different info byte is a different FRE.
        assert!(!small(0x80, [0; 12]).same_as(&small(0x00, [0; 12])));
    }
}
