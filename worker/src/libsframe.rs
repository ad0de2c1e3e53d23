//! GNU libsframe as an [`Implementation`]: the numbers its public API returns, normalized.
//!
//! - `decode`: `sframe_decode`; the header getters; per function the release's descriptor
//!   getter (2.40 `sframe_decoder_get_funcdesc`, 2.44 `_v2`, sid `_v2`/`_v3`), its start
//!   resolved as the format says (with `SFRAME_F_FDE_FUNC_START_PCREL`, plus the offset of
//!   the field, `sframe_decoder_get_offsetof_fde_start_addr`); per FRE
//!   `sframe_decoder_get_fre` and the offset getters. A release without a descriptor getter
//!   for the section's version (2.44 on v1) leaves the descriptor fields unreported.
//! - `find_fre`: `sframe_find_fre` (a failure means "no row": the API gives no reason). The
//!   function the row belongs to is looked up with the descriptor getters, the way the
//!   library's own search resolves starts (sid: always relative to the field, as its
//!   `sframe_decoder_get_secrel_func_start_addr` does; older: the stored value).
//! - rows: CFA from `sframe_fre_get_base_reg_id` and `_cfa_offset`; RA and FP from
//!   `_ra_offset`/`_fp_offset` (error = not present = unchanged), read through
//!   [`sframe_harness::impls::norm`]; sid flex FDEs read the control words with
//!   `sframe_get_fre_udata`; sid `sframe_fre_get_ra_undefined_p` marks outermost frames.
//! - `encode`: the encoder API of the release, as a producer.
//!
//! Sections are passed in a guarded buffer with wide guards ([`Guarded::far`]): a read past
//! their end, or from an offset the section gives that lands outside it, faults on the
//! buffer's own guard (a clean crash, recovered from: `recover`).

use crate::ffi::{Api, Decoder, EncFunction, FreBuf, Lib};
use crate::guard::Guarded;
use sframe_harness::impls::norm::Ctx;
use sframe_harness::impls::{
    norm, section_version, BenchTiming, Decoded, Found, FreFacts, FunctionFacts, HeaderFacts,
};
use sframe_harness::impls::{Implementation, Outcome, Row};
use sframe_harness::signature::ErrorClass;
use sframe_spec::constants::flags::FDE_FUNC_START_PCREL;
use sframe_spec::layout::{fde_info, fde_info2, RawHeader};
use sframe_spec::{Abi, Loc, Section, Version};
use std::ffi::c_int;
use std::hint::black_box;
use std::path::Path;

/// Names of libsframe's error codes (`_SFRAME_ERRORS` in sframe-api.h, from 2000).
const ERRORS: [&str; 12] = [
    "SFRAME_ERR_VERSION_INVAL",
    "SFRAME_ERR_NOMEM",
    "SFRAME_ERR_INVAL",
    "SFRAME_ERR_BUF_INVAL",
    "SFRAME_ERR_DCTX_INVAL",
    "SFRAME_ERR_ECTX_INVAL",
    "SFRAME_ERR_FDE_INVAL",
    "SFRAME_ERR_FRE_INVAL",
    "SFRAME_ERR_FDE_NOTFOUND",
    "SFRAME_ERR_FDE_NOTSORTED",
    "SFRAME_ERR_FRE_NOTFOUND",
    "SFRAME_ERR_FREOFFSET_NOPRESENT",
];

fn err_name(code: c_int) -> String {
    usize::try_from(code - 2000)
        .ok()
        .and_then(|i| ERRORS.get(i))
        .map_or_else(|| format!("error {code}"), |s| s.to_string())
}

/// The low `width` bytes of `v` in host byte order (libsframe's FRE structs are host-endian).
fn host_bytes(v: i32, width: usize) -> Vec<u8> {
    if cfg!(target_endian = "big") {
        v.to_be_bytes()[4 - width..].to_vec()
    } else {
        v.to_le_bytes()[..width].to_vec()
    }
}

/// At most this many FREs are read per function (mutated counts can be huge, and
/// `sframe_decoder_get_fre` rescans from the function's first FRE each time).
const MAX_FRES: u32 = 4096;

/// One GNU libsframe release.
pub struct Libsframe {
    lib: Lib,
    release: String,
    version: String,
}

impl Libsframe {
    pub fn open(path: &Path, release: &str, version: &str) -> Result<Libsframe, String> {
        Ok(Libsframe {
            lib: Lib::open(path, Api::for_release(release))?,
            release: release.into(),
            version: version.into(),
        })
    }
}

const NOT_PRESENT: c_int = 2011;

fn row(d: &Decoder<'_>, ctx: Ctx, fre: &FreBuf, fde_type: u8) -> Row {
    let mangled = d.ra_mangled(fre);
    if d.ra_undefined(fre) == Some(true) {
        return Row::outermost(mangled);
    }
    let flex = fde_type == 1;
    let t = u32::from(fde_type);
    let (base, berr) = d.base_reg_id(fre);
    let (cfa_off, cerr) = d.cfa_offset(fre, t);
    let cfa = match cerr {
        0 if flex => d
            .udata(fre, 0)
            .map(|c| norm::flex(u64::from(c), i64::from(cfa_off))),
        0 if berr == 0 => Some(norm::cfa(ctx.abi, base, i64::from(cfa_off))),
        NOT_PRESENT => Some(Loc::Undefined),
        _ => None,
    };
    let fixed_or_unchanged = |off: i32, err: c_int| match err {
        0 => Some(norm::slot(i64::from(off))),
        NOT_PRESENT => Some(Loc::SameValue),
        _ => None,
    };
    let (ra, fp) = if flex {
        // v3 §3.2: CFA pair, then an RA pair or one padding word, then an FP pair.
        let ra_ctl = d.udata(fre, 2);
        let (ra_off, rerr) = d.ra_offset(fre, t);
        let (fp_off, ferr) = d.fp_offset(fre, t);
        let ra = match ra_ctl {
            Some(c) if c != 0 => (rerr == 0).then(|| norm::flex(u64::from(c), i64::from(ra_off))),
            _ => norm::fixed(ctx.fixed_ra).or(Some(Loc::SameValue)),
        };
        let fp_ctl = d.udata(fre, if ra_ctl == Some(0) { 3 } else { 4 });
        let fp = match fp_ctl {
            Some(c) => (ferr == 0).then(|| norm::flex(u64::from(c), i64::from(fp_off))),
            None => fixed_or_unchanged(fp_off, ferr),
        };
        (ra, fp)
    } else {
        let (ra_off, rerr) = d.ra_offset(fre, t);
        let (fp_off, ferr) = d.fp_offset(fre, t);
        // "Not present" means: not in the FRE. 2.40's getters stop there and leave the
        // header's fixed offset to the caller (sframe_decoder_get_fixed_ra_offset); later
        // releases return the fixed offset themselves. Either way the header decides.
        let ra = match rerr {
            0 if ctx.fixed_ra != 0 => Some(norm::slot(i64::from(ra_off))),
            0 => Some(norm::tracked(ctx.abi, ctx.version, i64::from(ra_off), true)),
            NOT_PRESENT => Some(norm::fixed(ctx.fixed_ra).unwrap_or(Loc::SameValue)),
            _ => None,
        };
        let fp = match ferr {
            0 if ctx.fixed_fp != 0 => Some(norm::slot(i64::from(fp_off))),
            0 => Some(norm::tracked(
                ctx.abi,
                ctx.version,
                i64::from(fp_off),
                false,
            )),
            NOT_PRESENT => Some(norm::fixed(ctx.fixed_fp).unwrap_or(Loc::SameValue)),
            _ => None,
        };
        (ra, fp)
    };
    Row {
        cfa,
        ra,
        fp,
        ra_mangled: Some(mangled),
    }
}

impl Libsframe {
    fn ctx(&self, d: &Decoder<'_>, data: &[u8]) -> Ctx {
        let version = d
            .version()
            .or_else(|| RawHeader::of(data).version_byte())
            .unwrap_or(0);
        Ctx {
            abi: Abi::from_u8(d.abi_arch()).unwrap_or(Abi::Amd64),
            version,
            fixed_fp: d.fixed_fp(),
            fixed_ra: d.fixed_ra(),
        }
    }

    fn flags_of(d: &Decoder<'_>, data: &[u8]) -> u8 {
        d.flags()
            .or_else(|| RawHeader::of(data).flags())
            .unwrap_or(0)
    }

    /// Section-relative start of function `i` as the format says to resolve the field.
    fn resolved_start(d: &Decoder<'_>, i: u32, raw: i64, pcrel: bool) -> Option<i64> {
        if !pcrel {
            return Some(raw);
        }
        d.offsetof_fde_start(i)
            .map(|o| raw.wrapping_add(i64::from(o)))
    }

    /// The function the row `fre` found for `pc` belongs to, as the library's own search
    /// resolves starts. `sframe_find_fre` does not say which function it searched, so it is
    /// named only when the row identifies it: the one function the release's search may
    /// have used for `pc`, or the one among several (at most 64) that has an FRE identical
    /// to `fre`. Otherwise `None`: not reported, so not compared.
    /// Also the function's FDE type, when every function that may hold the row has the same.
    fn containing(
        &self,
        d: &Decoder<'_>,
        version: u8,
        pc: i64,
        fre: &FreBuf,
    ) -> (Option<i64>, Option<u8>) {
        let mut candidates = Vec::new();
        for i in 0..d.num_fidx().min(1 << 20) {
            let Some(Ok(fd)) = d.funcdesc(i, version) else {
                return (None, None);
            };
            let start = match (self.lib.api, d.offsetof_fde_start(i)) {
                (Api::R247, Some(o)) => fd.raw_start.wrapping_add(i64::from(o)),
                (Api::R247, None) => return (None, None),
                _ => fd.raw_start,
            };
            // The functions the release's search may have used: 2.47's checks containment on
            // a 32-bit distance (`(uint32_t)(addr - start) < func_size` in
            // sframe_get_funcdesc_with_addr_internal), so a function found across a 2^32
            // wrap is named as libsframe found it; 2.40's and 2.44's check only that the
            // function starts at or before the PC (its end only through its FREs).
            let inside = match self.lib.api {
                Api::R247 => pc >= start && (pc.wrapping_sub(start) as u32) < fd.size,
                _ => pc >= start,
            };
            if inside {
                candidates.push((
                    i,
                    start,
                    if version == 3 {
                        fde_info2::fde_type(fd.info2)
                    } else {
                        0
                    },
                    fd.num_fres,
                ));
            }
        }
        if let [only] = candidates.as_slice() {
            return (Some(only.1), Some(only.2));
        }
        // Too many to read each one's FREs per PC: not named.
        const CANDIDATES: usize = 64;
        if candidates.len() > CANDIDATES {
            let t = candidates[0].2;
            return (None, candidates.iter().all(|c| c.2 == t).then_some(t));
        }
        // A function may hold the row: it has an identical FRE among those read, an FRE
        // `sframe_decoder_get_fre` refuses (it checks `sframe_fre_sanity_check_p`, which
        // `sframe_find_fre` does not: the refused FRE may be the one found), or more FREs
        // than are read here.
        const READ: u32 = 4096;
        let may_hold = |i: u32, n: u32| {
            n > READ || (0..n).any(|j| d.fre(i, j).map_or(true, |f| f.same_as(fre)))
        };
        let holding: Vec<_> = candidates
            .iter()
            .filter(|(i, _, _, n)| may_hold(*i, *n))
            .collect();
        let start = match holding.as_slice() {
            [only] => Some(only.1),
            _ => None,
        };
        // The FDE type (how the row's data words read) is known when they all agree.
        let fde_type = holding
            .first()
            .map(|c| c.2)
            .filter(|&t| holding.iter().all(|c| c.2 == t));
        (start, fde_type)
    }
}

impl Implementation for Libsframe {
    fn name(&self) -> String {
        format!("libsframe-{}", self.release)
    }
    fn version(&self) -> String {
        format!("GNU libsframe {}", self.version)
    }
    fn supports(&self, version: Version) -> bool {
        // 2.40 reads v1 only (SFRAME_VERSION_1 is its current version); 2.44 v1 and v2;
        // sid v2 and v3 (its sframe_fde_tbl_init has no v1 case).
        match self.lib.api {
            Api::R240 => version == Version::V1,
            Api::R244 => version != Version::V3,
            Api::R247 => version != Version::V1,
        }
    }
    fn decode(&self, data: &[u8]) -> Outcome<Decoded> {
        if let Some(v) = section_version(data) {
            if !self.supports(v) {
                return Outcome::unsupported(format!("{} does not read SFrame {v}", self.name()));
            }
        }
        let Some(guarded) = Guarded::far(data) else {
            return Outcome::unsupported("cannot map a guarded buffer");
        };
        let d = match self.lib.decoder(guarded.as_slice()) {
            Ok(d) => d,
            Err(code) => return Outcome::rejected(err_name(code), Some(self.lib.errmsg(code))),
        };
        let ctx = self.ctx(&d, data);
        let flags = Self::flags_of(&d, data);
        let pcrel = self.lib.api == Api::R247 && flags & FDE_FUNC_START_PCREL != 0;
        let n = d.num_fidx();
        let mut out = Decoded {
            header: HeaderFacts {
                version: d.version(),
                flags: d.flags(),
                abi: Some(d.abi_arch()),
                cfa_fixed_fp_offset: Some(ctx.fixed_fp),
                cfa_fixed_ra_offset: Some(ctx.fixed_ra),
                num_fdes: Some(n),
                num_fres: None,
            },
            functions: Vec::new(),
        };
        for i in 0..n {
            let mut f = FunctionFacts::default();
            let mut fde_type = 0u8;
            let mut num_fres = None;
            match d.funcdesc(i, ctx.version) {
                Some(Ok(fd)) => {
                    f.start = Self::resolved_start(&d, i, fd.raw_start, pcrel);
                    f.size = Some(fd.size);
                    f.fre_type = Some(fde_info::fre_type(fd.info).into());
                    f.pc_type = Some(fde_info::pc_type(fd.info).into());
                    fde_type = if ctx.version == 3 {
                        fde_info2::fde_type(fd.info2)
                    } else {
                        0
                    };
                    f.fde_type = Some(fde_type.into());
                    f.rep_size = fd.rep_size;
                    f.num_fres = Some(fd.num_fres);
                    num_fres = Some(fd.num_fres);
                }
                Some(Err(code)) => {
                    f.error = Some(ErrorClass::call("get_funcdesc", code));
                    out.functions.push(f);
                    continue;
                }
                None => {}
            }
            let limit = num_fres.unwrap_or(MAX_FRES).min(MAX_FRES);
            for j in 0..limit {
                match d.fre(i, j) {
                    Ok(fre) => f.fres.push(FreFacts {
                        start: Some(fre.start()),
                        row: row(&d, ctx, &fre, fde_type),
                    }),
                    Err(code) => {
                        // Without a descriptor getter the FRE count is unknown: the first
                        // failure ends the list.
                        if num_fres.is_some() {
                            f.error = Some(ErrorClass::call("get_fre", code));
                        }
                        break;
                    }
                }
            }
            out.functions.push(f);
        }
        Outcome::ok(out)
    }
    fn find_fre(&self, data: &[u8], pc: i64) -> Outcome<Option<Found>> {
        let mut v = self.find_fres(data, &[pc]);
        v.pop().unwrap_or_else(|| Outcome::unsupported("no PC"))
    }
    fn find_fres(&self, data: &[u8], pcs: &[i64]) -> Vec<Outcome<Option<Found>>> {
        if let Some(v) = section_version(data) {
            if !self.supports(v) {
                let o = Outcome::unsupported(format!("{} does not read SFrame {v}", self.name()));
                return pcs.iter().map(|_| o.clone()).collect();
            }
        }
        let Some(guarded) = Guarded::far(data) else {
            return pcs
                .iter()
                .map(|_| Outcome::unsupported("cannot map a guarded buffer"))
                .collect();
        };
        let d = match self.lib.decoder(guarded.as_slice()) {
            Ok(d) => d,
            Err(code) => {
                let o = Outcome::rejected(err_name(code), Some(self.lib.errmsg(code)));
                return pcs.iter().map(|_| o.clone()).collect();
            }
        };
        let ctx = self.ctx(&d, data);
        pcs.iter()
            .map(|&pc| match d.find(pc) {
                Err(()) => Outcome::unsupported("the PC does not fit sframe_find_fre's int32_t"),
                Ok(None) => Outcome::ok(None),
                Ok(Some(fre)) => {
                    let (function_start, fde_type) = self.containing(&d, ctx.version, pc, &fre);
                    let fde_type = fde_type.unwrap_or(0);
                    Outcome::ok(Some(Found {
                        function_start,
                        fre_start: Some(fre.start()),
                        row: row(&d, ctx, &fre, fde_type),
                    }))
                }
            })
            .collect()
    }
    fn encode(&self, m: &Section) -> Outcome<Vec<u8>> {
        let want = match self.lib.api {
            Api::R240 => Version::V1,
            Api::R244 => Version::V2,
            Api::R247 => Version::V3,
        };
        if m.version != want {
            return Outcome::unsupported(format!(
                "the {} encoder writes SFrame {want} only",
                self.name()
            ));
        }
        let functions: Vec<EncFunction> = m
            .functions
            .iter()
            .map(|f| EncFunction {
                start: f.start,
                size: f.size,
                info: f.info_byte(m.version),
                info2: f.info2_byte(),
                rep_size: f.rep_size,
                fres: f
                    .fres
                    .iter()
                    .map(|fre| {
                        let info = fre.info_byte();
                        let w = fre.dataword_size.bytes();
                        let bytes: Vec<u8> = fre
                            .datawords
                            .iter()
                            .flat_map(|&v| host_bytes(v, w))
                            .collect();
                        (fre.start, info, bytes)
                    })
                    .collect(),
            })
            .collect();
        match self.lib.encode(
            m.version.number(),
            m.flags,
            m.abi.id(),
            m.cfa_fixed_fp_offset,
            m.cfa_fixed_ra_offset,
            &functions,
            m.is_sorted_flag(),
        ) {
            Ok(b) => Outcome::ok(b),
            Err(e) => Outcome::rejected("encoder", Some(e)),
        }
    }
    fn bench_find(&self, data: &[u8], pcs: &[i64], rounds: u32) -> Outcome<BenchTiming> {
        let d = match self.lib.decoder(data) {
            Ok(d) => d,
            Err(code) => return Outcome::rejected(err_name(code), None),
        };
        Outcome::ok(BenchTiming::measure(pcs, rounds, |pc| {
            let Ok(Some(fre)) = d.find(pc) else {
                return false;
            };
            black_box(d.cfa_offset(&fre, 0));
            true
        }))
    }
}
