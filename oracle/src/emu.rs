//! The emulator: one Unicorn instance per worker thread with the image mapped once, and the
//! runs of each function under test.
//!
//! A run starts the function with a fresh stack (guard pages around it), sentinel values in
//! the return address, the frame pointer and the callee-saved registers, and argument
//! registers drawn from one of several distributions (small integers, pointers into a
//! scratch heap, mixtures, raw random words). A code hook sees every instruction:
//!
//! - a call into a function of the file pushes a [`TrueFrame`]; a call anywhere else (PLT,
//!   extern slot, wild pointer) returns at once with a random result, as the ABI's return
//!   would (AMD64 pops the return address, AArch64 and s390x branch to the link register);
//!   a call that is the last instruction of its function is to a `noreturn` function and
//!   ends the run;
//! - reaching the top frame's return address with the caller's SP pops it;
//! - at every PC of a function with an FDE the row is checked ([`crate::checker`]) and, when
//!   two or more frames are live, the whole stack is walked once per `(PC, depth)`;
//! - memory outside the image is mapped on demand (zero-filled) for wild pointers, except
//!   the stack's guard pages; an instruction budget bounds every run.
//!
//! Pages are mapped on demand *between* slices of a run, never inside a hook: the memory hook
//! only records the access and stops the emulator, the run maps the pages and resumes at the
//! faulting instruction (whose code hook has already run, so it is not run again). A mapping
//! made inside the hook flushes Unicorn's TLB in the middle of the access, which Unicorn then
//! retries with the TLB entry it looked up before the hook; QEMU shrinks the TLB at a flush by
//! the wall clock (`gettimeofday`, 100 ms windows), freeing the table that entry is in. So
//! whether the retried access succeeded (at least at the last page of the address space)
//! depended on the machine's load, and reports were not reproducible.
//!
//! A page mapped for a data access is readable and writable, not executable: a jump into it
//! stops the emulator too, and the run gives the code hook's verdict on that foreign code
//! before Unicorn translates the page's data (see `foreign_fetch`).
//!
//! After the base runs, further runs force conditional branches towards the side not yet
//! covered, while that finds new instructions. Forcing a branch only chooses another CFG
//! path: the stack height at a PC does not depend on the path, so the truth stays valid.

use crate::arch::Flow;
use crate::checker::{self, CheckOutcome, Machine, OracleKind, Values};
use crate::disasm::Insn;
use crate::error::OracleError;
use crate::image::{frame_family, is_cold_part, FunctionKind, Image, PAGE};
use crate::report::Sighting;
use crate::shadow::{ShadowStack, TrueFrame};
use crate::snapshot::{MemoryRange, SnapshotFrame, StackSnapshot};
use crate::Options;
use sframe_spec::recovery::Loc;
use sframe_spec::rng::SplitMix64;
use sframe_spec::unwind::{Frame, StepError};
use sframe_spec::{Endian, SectionRef};
use std::collections::{BTreeMap, HashSet};
use unicorn_engine::unicorn_const::{uc_error, HookType, MemType, Prot};
use unicorn_engine::Unicorn;

/// Bottom of the stack region.
pub const STACK_LO: u64 = 0x7ff0_0000_0000;
/// Size of the stack region (Linux's default 8 MiB limit).
pub const STACK_SIZE: u64 = 0x80_0000;
/// Top of the stack region.
pub const STACK_HI: u64 = STACK_LO + STACK_SIZE;
/// Guard size below and above the stack: never mapped on demand.
pub const GUARD: u64 = 0x1_0000;
/// Room above the entry SP (the caller's stack arguments and, on s390x, its save area).
pub const HEADROOM: u64 = 0x4000;
/// Scratch memory that pointer arguments point into.
pub const HEAP: u64 = 0x6000_0000_0000;
pub const HEAP_SIZE: u64 = 0x4_0000;
/// Thread-local storage area; the thread pointer is in its middle.
pub const TLS_AREA: u64 = 0x6100_0000_0000;
pub const TLS_SIZE: u64 = 0x4000;
pub const TLS: u64 = TLS_AREA + TLS_SIZE / 2;
/// The page the sentinel return address points into.
pub const TRAP: u64 = 0x5e5e_5e5e_0000;
/// The return address the function under test returns to.
pub const RA_SENTINEL: u64 = TRAP + 0x40;

/// The instructions of one function and an index from offset to instruction.
#[derive(Debug, Clone, Default)]
pub struct FunctionCode {
    pub insns: Vec<Insn>,
    /// `index[pc - start]` is the instruction's index + 1, or 0 when no instruction starts there.
    index: Vec<u32>,
    /// Targets of the function's direct jumps.
    pub branch_targets: HashSet<u64>,
}

impl FunctionCode {
    pub fn new(insns: Vec<Insn>, start: u64, len: u64) -> FunctionCode {
        let mut index = vec![0u32; len as usize];
        let mut branch_targets = HashSet::new();
        for (i, insn) in insns.iter().enumerate() {
            if let Some(slot) = index.get_mut((insn.addr - start) as usize) {
                *slot = i as u32 + 1;
            }
            if let Flow::Jump { target: Some(t) } | Flow::CondJump { target: t } = insn.flow {
                branch_targets.insert(t);
            }
        }
        FunctionCode {
            insns,
            index,
            branch_targets,
        }
    }
    pub fn at(&self, start: u64, pc: u64) -> Option<usize> {
        let i = *self.index.get(pc.checked_sub(start)? as usize)?;
        (i > 0).then(|| i as usize - 1)
    }
}

/// What the hooks read and never change.
pub struct Ctx<'o> {
    pub image: &'o Image,
    pub code: &'o [FunctionCode],
    pub opts: &'o Options,
    pub section: SectionRef<'o>,
}

/// Why a run was dropped: control left the program's control flow, so the shadow stack's
/// frames no longer describe the machine and nothing after that point is judged. What the
/// run checked before it stays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DropReason {
    /// A call arrived inside a function of the file, not at its start (a wild function
    /// pointer), or at a `.cold` part, which is never called.
    WildCall,
    /// A jump arrived inside another function of the file, not at its start and not in a
    /// part of the same frame (`foo` and `foo.cold`).
    WildJump,
    /// Control arrived at a PC that is no instruction start of its function.
    MisalignedPc,
    /// A return reached the executing frame's return address with another SP than the
    /// caller's.
    UnbalancedReturn,
    /// A return went elsewhere than the executing frame's return address.
    WildReturn,
    /// Control reached the start of another function (by a jump or by running off the end
    /// of the executing one) with the SP not where the executing frame's entry left it: no
    /// tail call does that, since the callee returns to the caller with the SP it finds (a
    /// forced branch past a bounds check sent an indirect jump through a table there, or a
    /// `noreturn` call's emulated return ran into the next function).
    UnbalancedTailCall,
    /// The code overwrote its own return-address slot: the row's RA slot held the true
    /// return address at an earlier PC of the frame, and holds another value now.
    RaSlotOverwritten,
    /// The same for the slot of the caller's frame pointer (a stack buffer overrun by wild
    /// arguments reaches the save area).
    FpSlotOverwritten,
}

impl DropReason {
    /// Stable name, used in reports.
    pub fn name(self) -> &'static str {
        match self {
            DropReason::WildCall => "wild-call",
            DropReason::WildJump => "wild-jump",
            DropReason::MisalignedPc => "misaligned-pc",
            DropReason::UnbalancedReturn => "unbalanced-return",
            DropReason::WildReturn => "wild-return",
            DropReason::UnbalancedTailCall => "unbalanced-tail-call",
            DropReason::RaSlotOverwritten => "ra-slot-overwritten",
            DropReason::FpSlotOverwritten => "fp-slot-overwritten",
        }
    }
}

impl std::fmt::Display for DropReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RunEnd {
    /// The function under test returned to the sentinel with the caller's SP.
    Returned,
    /// The instruction budget ran out.
    Budget,
    /// A call to a `noreturn` function outside the file.
    NoReturn,
    /// A system call, breakpoint or halt.
    Trap,
    /// Control left the file other than by a call or a balanced tail call.
    LeftFile,
    /// An access to a guard page of the stack.
    GuardPage,
    /// Too many pages mapped on demand.
    PageLimit,
    /// The SP left the stack, or rose above the executing frame's entry SP (a wild
    /// `alloca` size): the frame's own memory is no longer what it was.
    WildSp,
    /// An unmapped or unmappable access, a write to read-only memory, an exception, an
    /// invalid instruction.
    Fault,
    /// Control left the program's control flow: the rest of the run is not judged.
    Dropped(DropReason),
}

impl RunEnd {
    pub fn name(self) -> &'static str {
        match self {
            RunEnd::Returned => "returned",
            RunEnd::Budget => "budget",
            RunEnd::NoReturn => "noreturn-call",
            RunEnd::Trap => "trap",
            RunEnd::LeftFile => "left-file",
            RunEnd::GuardPage => "guard-page",
            RunEnd::PageLimit => "page-limit",
            RunEnd::WildSp => "wild-sp",
            RunEnd::Fault => "fault",
            RunEnd::Dropped(DropReason::WildCall) => "dropped-wild-call",
            RunEnd::Dropped(DropReason::WildJump) => "dropped-wild-jump",
            RunEnd::Dropped(DropReason::MisalignedPc) => "dropped-misaligned-pc",
            RunEnd::Dropped(DropReason::UnbalancedReturn) => "dropped-unbalanced-return",
            RunEnd::Dropped(DropReason::WildReturn) => "dropped-wild-return",
            RunEnd::Dropped(DropReason::UnbalancedTailCall) => "dropped-unbalanced-tail-call",
            RunEnd::Dropped(DropReason::RaSlotOverwritten) => "dropped-ra-slot-overwritten",
            RunEnd::Dropped(DropReason::FpSlotOverwritten) => "dropped-fp-slot-overwritten",
        }
    }
}

/// A mismatch as first seen, with how often it was seen.
#[derive(Debug, Clone)]
pub struct MismatchRec {
    pub pc: u64,
    pub seen: Sighting,
    /// Function under test and run of the first sighting.
    pub origin: (usize, u32),
}

/// Per-function results of a worker.
#[derive(Debug, Clone, Default)]
pub struct FnAcc {
    /// Times each instruction was executed.
    pub executed: Vec<u64>,
    pub rows_checked: u64,
    pub outermost_rows: u64,
    pub stack_walks: u64,
    /// Caller frames whose return address lay past their function's end (looked up at
    /// `pc - 1`).
    pub ra_past_end: u64,
    /// Caller frames where a walk stopped by design (a rule needing a register other than
    /// SP and FP below the topmost frame).
    pub stack_stopped: u64,
    pub max_depth: usize,
    pub runs: u32,
    pub outcomes: BTreeMap<&'static str, u32>,
    /// Runs dropped, by reason.
    pub dropped: BTreeMap<DropReason, u32>,
    pub mismatches: BTreeMap<(u64, usize, OracleKind), MismatchRec>,
    pub snapshot: Option<StackSnapshot>,
}

impl FnAcc {
    pub fn merge(&mut self, o: FnAcc) {
        for (a, b) in self.executed.iter_mut().zip(o.executed) {
            *a += b;
        }
        self.rows_checked += o.rows_checked;
        self.outermost_rows += o.outermost_rows;
        self.stack_walks += o.stack_walks;
        self.ra_past_end += o.ra_past_end;
        self.stack_stopped += o.stack_stopped;
        self.max_depth = self.max_depth.max(o.max_depth);
        self.runs += o.runs;
        for (k, v) in o.outcomes {
            *self.outcomes.entry(k).or_default() += v;
        }
        for (k, v) in o.dropped {
            *self.dropped.entry(k).or_default() += v;
        }
        for (k, v) in o.mismatches {
            match self.mismatches.get_mut(&k) {
                Some(m) => {
                    let count = m.seen.count + v.seen.count;
                    if v.origin < m.origin {
                        *m = v;
                    }
                    m.seen.count = count;
                }
                None => {
                    self.mismatches.insert(k, v);
                }
            }
        }
        let deeper = match (&self.snapshot, &o.snapshot) {
            (None, Some(_)) => true,
            (Some(a), Some(b)) => better_snapshot(b, a),
            _ => false,
        };
        if deeper {
            self.snapshot = o.snapshot;
        }
    }
}

/// Whether snapshot `new` replaces `old`: deeper, or as deep and of a function under test
/// that sorts first (the runs of one function under test run in order on one worker, so
/// the choice does not depend on how functions were spread over workers).
fn better_snapshot(new: &StackSnapshot, old: &StackSnapshot) -> bool {
    (
        new.frames.len(),
        std::cmp::Reverse((&new.under_test, new.pc)),
    ) > (
        old.frames.len(),
        std::cmp::Reverse((&old.under_test, old.pc)),
    )
}

#[derive(Debug, Clone, Copy)]
struct Pending {
    /// The return address of the call.
    ret: u64,
    /// The return address lies in the calling function (else the callee cannot return).
    inside: bool,
}

/// One run's state.
#[derive(Debug)]
struct Run {
    under_test: usize,
    index: u32,
    shadow: ShadowStack,
    pending: Option<Pending>,
    icount: u64,
    /// Instruction budget of this run.
    budget: u64,
    end: Option<RunEnd>,
    rng: SplitMix64,
    flip: bool,
    mapped: Vec<u64>,
    /// Lowest SP seen (the stack is zeroed from there up after the run).
    min_sp: u64,
    /// Where an emulated return from an external call lands.
    landing: Option<u64>,
    /// The first landing at a PC whose stack height was never seen on a natural path:
    /// `(pc, height)`. Until the session confirms that height, the run's mismatches wait
    /// in `buffered` (the callee may have been `noreturn`, the landing impossible).
    taint: Option<(u64, i64)>,
    buffered: Vec<Buffered>,
    deepest: usize,
    snapshot: Option<StackSnapshot>,
    /// The access to unmapped memory that stopped the current slice, to be mapped before the
    /// run resumes.
    unmapped: Option<Unmapped>,
    /// The PC whose code hook already ran before its instruction faulted: the resumed slice
    /// starts there and must not count or check it twice.
    replay: Option<u64>,
    /// Control flow of the last instruction of the file the run executed.
    last_flow: Flow,
    /// Save slots a row read the true return address or frame pointer from, as `(entry SP
    /// of the frame, slot address, is the RA)`: when the same slot later holds another
    /// value, the code wrote it.
    ra_slots: Vec<(u64, u64, bool)>,
}

/// An access to unmapped memory, as the memory hook saw it.
#[derive(Debug, Clone, Copy)]
struct Unmapped {
    fetch: bool,
    /// A fetch from a page mapped for data (not executable): foreign code, see
    /// [`foreign_fetch`].
    foreign: bool,
    addr: u64,
    size: usize,
}

/// A mismatch observation waiting for its run to be confirmed.
#[derive(Debug, Clone)]
struct Buffered {
    fi: usize,
    pc: u64,
    frame: usize,
    truth: Values,
    outcome: CheckOutcome,
    origin: (usize, u32),
}

/// A run whose mismatches wait for its landing's stack height to be confirmed.
#[derive(Debug)]
struct Tentative {
    pc: u64,
    height: i64,
    buffered: Vec<Buffered>,
}

/// What a worker found.
#[derive(Debug, Default)]
pub struct WorkerResult {
    pub acc: Vec<FnAcc>,
    /// Instructions emulated.
    pub emulated: u64,
    pub runs: u64,
}

/// Everything the hooks change.
#[derive(Debug)]
pub struct State {
    pub acc: Vec<FnAcc>,
    pub emulated: u64,
    pub runs: u64,
    run: Run,
    /// PCs covered by the current function under test's runs (guides branch forcing).
    local: HashSet<u64>,
    /// `(PC, depth)` pairs whose whole stack was walked for this function under test.
    walked: HashSet<(u64, usize)>,
    /// Stack heights (SP minus the frame's entry SP) seen at each PC on natural paths, in
    /// this function under test's runs. In compiled code the height at a PC does not depend
    /// on the path (dynamic allocations aside): landing elsewhere after an emulated return
    /// means the callee does not return.
    heights: std::collections::HashMap<u64, Vec<i64>>,
    tentative: Vec<Tentative>,
}

/// A worker's emulator.
///
/// Nothing a run does may reach the next run: which functions a worker runs, and in which
/// order, depends on the thread count and on timing. So every run starts from the CPU state
/// saved when the emulator was made (vector, floating-point and flag registers included,
/// not only the ones a run sets), the image's writable pages are restored whole, and its
/// other pages are mapped without write permission (a write there faults, as it would in a
/// process), as is the sentinel return page.
pub struct Emulator<'o> {
    uc: Unicorn<'o, State>,
    ctx: &'o Ctx<'o>,
    /// The CPU state every run starts from.
    initial: unicorn_engine::Context,
    /// The image's writable pages as loaded, `(address, bytes)` per run of pages.
    writable: Vec<(u64, Vec<u8>)>,
}

fn uc_err(what: &str, e: uc_error) -> OracleError {
    OracleError::Emulator(format!("{what}: {e:?}"))
}

fn reg<D>(uc: &Unicorn<'_, D>, id: i32) -> u64 {
    uc.reg_read(id).unwrap_or(0)
}

fn read_word<D>(uc: &Unicorn<'_, D>, endian: Endian, addr: u64) -> Option<u64> {
    let mut b = [0u8; 8];
    uc.mem_read(addr, &mut b).ok()?;
    Some(match endian {
        Endian::Little => u64::from_le_bytes(b),
        Endian::Big => u64::from_be_bytes(b),
    })
}

fn word_bytes(endian: Endian, v: u64) -> [u8; 8] {
    match endian {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    }
}

fn in_guard(addr: u64) -> bool {
    (STACK_LO - GUARD..STACK_LO).contains(&addr) || (STACK_HI..STACK_HI + GUARD).contains(&addr)
}

impl<'o> Emulator<'o> {
    /// Set up Unicorn for the image: memory, fixed regions, hooks.
    pub fn new(ctx: &'o Ctx<'o>) -> Result<Emulator<'o>, OracleError> {
        let image = ctx.image;
        let cpu = image.cpu;
        let (arch, mode) = cpu.unicorn_mode();
        let state = State {
            acc: ctx
                .code
                .iter()
                .map(|c| FnAcc {
                    executed: vec![0; c.insns.len()],
                    ..FnAcc::default()
                })
                .collect(),
            emulated: 0,
            runs: 0,
            run: Run {
                under_test: 0,
                index: 0,
                shadow: ShadowStack::default(),
                pending: None,
                icount: 0,
                budget: 0,
                end: None,
                rng: SplitMix64::new(0),
                flip: false,
                mapped: Vec::new(),
                min_sp: STACK_LO,
                landing: None,
                taint: None,
                buffered: Vec::new(),
                deepest: 0,
                snapshot: None,
                unmapped: None,
                replay: None,
                last_flow: Flow::Other,
                ra_slots: Vec::new(),
            },
            local: HashSet::new(),
            walked: HashSet::new(),
            heights: std::collections::HashMap::new(),
            tentative: Vec::new(),
        };
        let mut uc = Unicorn::new_with_data(arch, mode, state).map_err(|e| uc_err("open", e))?;
        if let Some(m) = cpu.cpu_model() {
            uc.ctl_set_cpu_model(m)
                .map_err(|e| uc_err("cpu model", e))?;
        }
        // The image, as merged page ranges.
        let mut ranges: Vec<(u64, u64)> = image
            .segments
            .iter()
            .filter(|s| !s.bytes.is_empty())
            .map(|s| (s.addr & !(PAGE - 1), (s.end() + PAGE - 1) & !(PAGE - 1)))
            .collect();
        ranges.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::new();
        for (a, b) in ranges {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        let fixed = [
            (STACK_LO - GUARD, STACK_HI + GUARD),
            (HEAP, HEAP + HEAP_SIZE),
            (TLS_AREA, TLS_AREA + TLS_SIZE),
            (TRAP, TRAP + PAGE),
        ];
        for &(a, b) in &merged {
            if fixed.iter().any(|&(x, y)| a < y && x < b) {
                return Err(OracleError::Emulator(format!(
                    "image range {a:#x}..{b:#x} collides with the oracle's memory layout"
                )));
            }
            uc.mem_map(a, b - a, Prot::ALL)
                .map_err(|e| uc_err("map image", e))?;
        }
        for s in &image.segments {
            uc.mem_write(s.addr, &s.bytes)
                .map_err(|e| uc_err("write image", e))?;
        }
        // Page permissions: the image's pages are readable and executable (a jump into data
        // is foreign code, as in a process without NX), writable only where a writable
        // segment touches the page. The pages a run can write are restored before each run:
        // the writable ones or, where no page can be write-protected (s390x), all of them
        // (code included: wild stores into code happen, and a worker's later runs saw them).
        let no_protect = cpu.fetch_needs_write();
        let touches = |page: u64, pred: &dyn Fn(&crate::image::Segment) -> bool| {
            image
                .segments
                .iter()
                .any(|s| pred(s) && !s.bytes.is_empty() && s.addr < page + PAGE && page < s.end())
        };
        let mut writable: Vec<(u64, Vec<u8>)> = Vec::new();
        for &(a, b) in &merged {
            let mut page = a;
            while page < b {
                let w = touches(page, &|s| s.writable);
                let restore = w || no_protect;
                if !w && !no_protect {
                    uc.mem_protect(page, PAGE, Prot::READ | Prot::EXEC)
                        .map_err(|e| uc_err("protect image", e))?;
                }
                if restore {
                    let bytes = uc
                        .mem_read_as_vec(page, PAGE as usize)
                        .map_err(|e| uc_err("read image", e))?;
                    match writable.last_mut() {
                        Some((start, v)) if *start + v.len() as u64 == page => {
                            v.extend_from_slice(&bytes)
                        }
                        _ => writable.push((page, bytes)),
                    }
                }
                page += PAGE;
            }
        }
        uc.mem_map(STACK_LO, STACK_SIZE, Prot::READ | Prot::WRITE)
            .map_err(|e| uc_err("map stack", e))?;
        uc.mem_map(HEAP, HEAP_SIZE, Prot::READ | Prot::WRITE)
            .map_err(|e| uc_err("map heap", e))?;
        uc.mem_map(TLS_AREA, TLS_SIZE, Prot::READ | Prot::WRITE)
            .map_err(|e| uc_err("map tls", e))?;
        uc.mem_map(TRAP, PAGE, Prot::ALL)
            .map_err(|e| uc_err("map trap", e))?;
        // Decodable code at the sentinel, so the code hook sees the return to it.
        uc.mem_write(TRAP, &cpu.return_page(PAGE as usize))
            .map_err(|e| uc_err("write trap", e))?;
        if cpu.fetch_needs_write() {
            writable.push((TRAP, cpu.return_page(PAGE as usize)));
        } else {
            uc.mem_protect(TRAP, PAGE, Prot::READ | Prot::EXEC)
                .map_err(|e| uc_err("protect trap", e))?;
        }

        uc.add_code_hook(1, 0, move |uc, pc, _size| on_code(ctx, uc, pc))
            .map_err(|e| uc_err("code hook", e))?;
        let unmapped = HookType::MEM_READ_UNMAPPED
            | HookType::MEM_WRITE_UNMAPPED
            | HookType::MEM_FETCH_UNMAPPED
            | HookType::MEM_FETCH_PROT;
        uc.add_mem_hook(unmapped, 1, 0, move |uc, t: MemType, addr, size, _v| {
            on_unmapped(uc, t, addr, size)
        })
        .map_err(|e| uc_err("memory hook", e))?;
        uc.add_intr_hook(move |uc, intno| on_interrupt(ctx, uc, intno))
            .map_err(|e| uc_err("interrupt hook", e))?;
        let initial = uc.context_init().map_err(|e| uc_err("save context", e))?;
        Ok(Emulator {
            uc,
            ctx,
            initial,
            writable,
        })
    }

    /// The accumulated results.
    pub fn finish(mut self) -> WorkerResult {
        let st = self.uc.get_data_mut();
        WorkerResult {
            acc: std::mem::take(&mut st.acc),
            emulated: st.emulated,
            runs: st.runs,
        }
    }

    /// All runs of function `f`: the base runs from each entry, then branch-forcing runs
    /// while they find new instructions.
    pub fn check_function(&mut self, f: usize) {
        let ctx = self.ctx;
        let func = &ctx.image.functions[f];
        if func.skip_reason().is_some() || func.entries.is_empty() {
            return;
        }
        let entries = func.entries.clone();
        let opts = self.ctx.opts;
        {
            let st = self.uc.get_data_mut();
            st.local.clear();
            st.walked.clear();
            st.heights.clear();
            st.tentative.clear();
        }
        // The function and its `.cold` parts: one frame, covered together (a cold part runs
        // only from its parent's runs, so branch forcing must go on until it is reached).
        let parts: Vec<usize> = std::iter::once(f)
            .chain(
                ctx.image
                    .functions
                    .iter()
                    .enumerate()
                    .filter(|(i, g)| {
                        *i != f && is_cold_part(&g.name) && frame_family(&g.name) == func.name
                    })
                    .map(|(i, _)| i),
            )
            .collect();
        let total: usize = parts
            .iter()
            .map(|&p| self.ctx.code[p].insns.iter().filter(|i| !i.padding).count())
            .sum();
        let ranges: Vec<(u64, u64)> = parts
            .iter()
            .map(|&p| (ctx.image.functions[p].start, ctx.image.functions[p].end))
            .collect();
        let base = opts.runs * entries.len() as u32;
        let mut stale = 0;
        let mut index = 0u32;
        while index < base + opts.extra_runs {
            let forcing = index >= base;
            let covered = |e: &Emulator<'_>| {
                e.uc.get_data()
                    .local
                    .iter()
                    .filter(|&&pc| ranges.iter().any(|&(lo, hi)| (lo..hi).contains(&pc)))
                    .count()
            };
            let before = covered(self);
            if forcing && (before >= total || stale >= 6) {
                break;
            }
            self.run(f, entries[index as usize % entries.len()], index, forcing);
            if forcing {
                stale = if covered(self) > before { 0 } else { stale + 1 };
            }
            index += 1;
        }
        // Runs that landed at a PC of unknown height: keep their mismatches when a natural
        // path confirmed the height (or never reached the PC), drop them otherwise.
        let st = self.uc.get_data_mut();
        for t in std::mem::take(&mut st.tentative) {
            let refuted = st
                .heights
                .get(&t.pc)
                .is_some_and(|hs| !hs.contains(&t.height));
            if refuted {
                *st.acc[f].outcomes.entry("noreturn-call").or_default() += 1;
                continue;
            }
            for b in t.buffered {
                record(&mut st.acc, &b);
            }
        }
    }

    fn run(&mut self, f: usize, entry: u64, index: u32, flip: bool) {
        let ctx = self.ctx;
        let image = ctx.image;
        let cpu = image.cpu;
        let r = cpu.regs();
        let e = image.abi.endian();
        let mut rng = SplitMix64::derive(ctx.opts.seed, entry, u64::from(index));
        let uc = &mut self.uc;
        let _ = uc.context_restore(&self.initial);
        for (addr, bytes) in &self.writable {
            let _ = uc.mem_write(*addr, bytes);
        }
        // Heap: zeros, small bytes or random bytes; TLS zero; stack zero, then stack arguments.
        let mut heap = vec![0u8; HEAP_SIZE as usize];
        match index % 3 {
            0 => {}
            1 => heap.iter_mut().for_each(|b| *b = rng.below(8) as u8),
            _ => rng.fill(&mut heap),
        }
        let _ = uc.mem_write(HEAP, &heap);
        let _ = uc.mem_write(TLS_AREA, &vec![0u8; TLS_SIZE as usize]);
        let (align, rem) = cpu.entry_sp_alignment();
        let sp = (STACK_HI - HEADROOM) / align * align + rem;
        let strategy = index % 4;
        let mut above = Vec::new();
        for k in 0..(HEADROOM / 8 - 4) {
            let v = if k < 32 {
                arg_value(&mut rng, strategy)
            } else {
                0
            };
            above.extend_from_slice(&word_bytes(e, v));
        }
        let _ = uc.mem_write(sp + 8, &above);
        // Registers.
        let fp = 0x0000_f9f9_0000_0000 | rng.below(1 << 32) & !7;
        for (k, &id) in r.callee_saved.iter().enumerate() {
            let _ = uc.reg_write(
                id,
                0x0000_c5c5_0000_0000 | (k as u64) << 24 | rng.below(1 << 24),
            );
        }
        for &id in r.scratch {
            let _ = uc.reg_write(id, rng.next_u64());
        }
        let _ = uc.reg_write(r.ret, rng.next_u64());
        for (k, &id) in r.args.iter().enumerate() {
            // The first run passes zeros (the baseline path); the small-integer runs walk
            // through 0..8 so that every case of a small switch comes up.
            let v = match (index, strategy) {
                (0, _) => 0,
                (_, 0) => (u64::from(index / 4) + k as u64) % 8,
                _ => arg_value(&mut rng, strategy),
            };
            let _ = uc.reg_write(id, v);
        }
        for (id, v) in cpu.init_registers(TLS) {
            let _ = uc.reg_write(id, v);
        }
        let _ = uc.reg_write(r.fp, fp);
        let _ = uc.reg_write(r.sp, sp);
        match r.ra {
            Some(id) => {
                let _ = uc.reg_write(id, RA_SENTINEL);
            }
            None => {
                let _ = uc.mem_write(sp, &word_bytes(e, RA_SENTINEL));
            }
        }
        {
            let st = uc.get_data_mut();
            let run = &mut st.run;
            run.under_test = f;
            run.index = index;
            run.shadow.clear();
            run.shadow.push(TrueFrame {
                function: f,
                cfa: sp.wrapping_add(cpu.cfa_from_entry_sp()),
                ra: RA_SENTINEL,
                fp,
                entry_sp: sp,
            });
            run.pending = None;
            run.icount = 0;
            // Straight-line code longer than the budget still runs to its end.
            run.budget = ctx.opts.budget + 4 * ctx.code[f].insns.len() as u64;
            run.end = None;
            run.rng = rng;
            run.flip = flip;
            run.min_sp = sp;
            run.landing = None;
            run.taint = None;
            run.buffered.clear();
            run.deepest = 0;
            run.snapshot = None;
            run.unmapped = None;
            run.replay = None;
            run.last_flow = Flow::Other;
            run.ra_slots.clear();
        }
        let mut start = entry;
        let result = loop {
            let result = uc.emu_start(start, TRAP + 0x800, 0, 0);
            let st = uc.get_data_mut();
            let Some(access) = st.run.unmapped.take() else {
                break result;
            };
            if st.run.end.is_some() {
                break result;
            }
            if access.foreign {
                // Only pages mapped for data are made so; the heap, stack and TLS fault.
                let page = access.addr & !(PAGE - 1);
                if !st.run.mapped.contains(&page) {
                    break result;
                }
                let pc = reg(uc, r.pc);
                if pc == access.addr {
                    if !foreign_fetch(ctx, uc, pc) {
                        break result;
                    }
                } else if uc.mem_protect(page, PAGE, Prot::ALL).is_err() {
                    // An instruction of the image that ends in the page: decoded as it is.
                    break result;
                }
                start = reg(uc, r.pc);
                continue;
            }
            if !map_on_demand(ctx, uc, access) {
                break result;
            }
            // A data access faults inside an instruction whose code hook has run; a fetch
            // faults before any instruction of its block has run.
            let pc = reg(uc, r.pc);
            uc.get_data_mut().run.replay = (!access.fetch).then_some(pc);
            start = pc;
        };
        let st = uc.get_data_mut();
        let end = match (st.run.end, result) {
            (Some(e), _) => e,
            (None, Ok(())) => RunEnd::Returned,
            (None, Err(_)) => RunEnd::Fault,
        };
        st.emulated += st.run.icount;
        st.runs += 1;
        let acc = &mut st.acc[f];
        acc.runs += 1;
        *acc.outcomes.entry(end.name()).or_default() += 1;
        if let RunEnd::Dropped(why) = end {
            *acc.dropped.entry(why).or_default() += 1;
        }
        acc.max_depth = acc.max_depth.max(st.run.deepest);
        if let Some(s) = st.run.snapshot.take() {
            if acc.snapshot.as_ref().is_none_or(|o| better_snapshot(&s, o)) {
                acc.snapshot = Some(s);
            }
        }
        if let Some((pc, height)) = st.run.taint {
            let buffered = std::mem::take(&mut st.run.buffered);
            st.tentative.push(Tentative {
                pc,
                height,
                buffered,
            });
        }
        let mapped = std::mem::take(&mut st.run.mapped);
        // Zero what the run may have written of the stack: from below its lowest SP up.
        let low = st
            .run
            .min_sp
            .saturating_sub(cpu.red_zone() + PAGE)
            .max(STACK_LO)
            & !(PAGE - 1);
        for page in mapped {
            let _ = uc.mem_unmap(page, PAGE);
        }
        let _ = uc.mem_write(low, &vec![0u8; (STACK_HI - low) as usize]);
    }
}

/// An argument of the run's distribution.
fn arg_value(rng: &mut SplitMix64, strategy: u32) -> u64 {
    let heap_ptr = |rng: &mut SplitMix64| HEAP + rng.below(HEAP_SIZE / 2) / 16 * 16;
    match strategy {
        0 => rng.below(4),
        1 => heap_ptr(rng),
        2 => match rng.below(6) {
            0 => 0,
            1 => rng.below(64),
            2 => (rng.below(64) as i64).wrapping_neg() as u64,
            3 => heap_ptr(rng),
            4 => rng.below(1 << 32),
            _ => rng.next_u64(),
        },
        _ => {
            if rng.chance(1, 2) {
                rng.below(1 << 32)
            } else {
                rng.next_u64()
            }
        }
    }
}

fn end(uc: &mut Unicorn<'_, State>, why: RunEnd) {
    let st = uc.get_data_mut();
    if st.run.end.is_none() {
        st.run.end = Some(why);
    }
    let _ = uc.emu_stop();
}

/// The memory hook: stop at an access to unmapped memory and say which (the run maps it and
/// resumes, see [`map_on_demand`]). Nothing is mapped here: see the module documentation.
fn on_unmapped(uc: &mut Unicorn<'_, State>, kind: MemType, addr: u64, size: usize) -> bool {
    let st = uc.get_data_mut();
    if st.run.end.is_none() {
        st.run.unmapped = Some(Unmapped {
            fetch: kind == MemType::FETCH_UNMAPPED,
            foreign: kind == MemType::FETCH_PROT,
            addr,
            size,
        });
    }
    false
}

/// QEMU's s390x program interruption (`EXCP_PGM` of `target/s390x/cpu.h`).
const S390X_EXCP_PGM: u32 = 3;

/// An interrupt: a trap, except an s390x program interruption for a storage operand outside
/// the mapped memory. Unicorn's s390x raises an addressing exception there
/// (`s390_cpu_tlb_fill`, "out of RAM access") instead of calling the unmapped-memory hook,
/// and records no address: the operand's address is computed from the instruction at the
/// PC and its registers, and the access is handed to [`map_on_demand`] as a hook would.
fn on_interrupt(ctx: &Ctx<'_>, uc: &mut Unicorn<'_, State>, intno: u32) {
    if ctx.image.abi == sframe_spec::Abi::S390x && intno == S390X_EXCP_PGM {
        if let Some(addr) = s390x_unmapped_operand(ctx, uc) {
            if uc.get_data().run.end.is_none() {
                uc.get_data_mut().run.unmapped = Some(Unmapped {
                    fetch: false,
                    foreign: false,
                    addr,
                    size: 8,
                });
                let _ = uc.emu_stop();
                return;
            }
        }
    }
    end(uc, RunEnd::Trap);
}

/// The first storage operand of the s390x instruction at the PC whose address is not
/// mapped.
fn s390x_unmapped_operand(ctx: &Ctx<'_>, uc: &mut Unicorn<'_, State>) -> Option<u64> {
    let cpu = ctx.image.cpu;
    let pc = reg(uc, cpu.regs().pc);
    let bytes = uc.mem_read_as_vec(pc, 6).ok()?;
    let cs = cpu.capstone().ok()?;
    let insns = cs.disasm_count(&bytes, pc, 1).ok()?;
    let insn = insns.iter().next()?;
    let ops = crate::arch::s390x::storage_operands(insn.op_str().unwrap_or(""));
    ops.into_iter().find_map(|(regs, disp)| {
        let mut addr = disp;
        for n in regs {
            addr = addr.wrapping_add(reg(uc, cpu.dwarf_register(u32::from(n))?));
        }
        let mut b = [0u8; 1];
        uc.mem_read(addr, &mut b).is_err().then_some(addr)
    })
}

/// Map the pages of an access to unmapped memory (zero-filled; decodable code for a fetch),
/// between two slices of a run. False, with the run's end set when a limit says why, when the
/// run cannot go on: a guard page, the page limit, or no page could be mapped.
fn map_on_demand(ctx: &Ctx<'_>, uc: &mut Unicorn<'_, State>, access: Unmapped) -> bool {
    let Unmapped {
        fetch, addr, size, ..
    } = access;
    if in_guard(addr) {
        uc.get_data_mut().run.end.get_or_insert(RunEnd::GuardPage);
        return false;
    }
    let first = addr & !(PAGE - 1);
    let last = addr.saturating_add(size.max(1) as u64 - 1) & !(PAGE - 1);
    let mut page = first;
    let mut any = false;
    loop {
        if uc.get_data().run.mapped.len() >= ctx.opts.page_limit {
            uc.get_data_mut().run.end.get_or_insert(RunEnd::PageLimit);
            return false;
        }
        if in_guard(page) {
            uc.get_data_mut().run.end.get_or_insert(RunEnd::GuardPage);
            return false;
        }
        // A page for data is not executable: a later jump into it is foreign code, met by
        // `foreign_fetch` before Unicorn translates the data as code.
        let prot = if fetch {
            Prot::ALL
        } else {
            Prot::READ | Prot::WRITE
        };
        if uc.mem_map(page, PAGE, prot).is_ok() {
            uc.get_data_mut().run.mapped.push(page);
            any = true;
            if fetch {
                // A wild jump or call: decodable code, returned from by the code hook.
                let _ = uc.mem_write(page, &ctx.image.cpu.return_page(PAGE as usize));
            }
        }
        if page >= last {
            break;
        }
        page += PAGE;
    }
    any
}

/// A jump or call into a page mapped for data: the code hook's verdict on foreign code at
/// `pc` (it returns at once or ends the run), given between two slices of the run. Pages
/// mapped for data are not executable because a page holding both translated code and data
/// loses its translations at every store: a run that calls a null function pointer and
/// stores through null pointers made Unicorn translate the page's data as a block of hundreds
/// of stores again after each store (minutes per file, and its translation buffer full).
/// Should the hook let the code run, the page becomes executable and the run goes on as
/// before. False when the run ended.
fn foreign_fetch(ctx: &Ctx<'_>, uc: &mut Unicorn<'_, State>, pc: u64) -> bool {
    let r = ctx.image.cpu.regs();
    on_code(ctx, uc, pc);
    if uc.get_data().run.end.is_some() {
        return false;
    }
    if reg(uc, r.pc) == pc {
        if uc.mem_protect(pc & !(PAGE - 1), PAGE, Prot::ALL).is_err() {
            return false;
        }
        uc.get_data_mut().run.replay = Some(pc);
    }
    true
}

/// Return from foreign code at once, as the ABI's return would, with a random result.
fn emulate_return(ctx: &Ctx<'_>, uc: &mut Unicorn<'_, State>) {
    let cpu = ctx.image.cpu;
    let r = cpu.regs();
    let e = ctx.image.abi.endian();
    let target = match r.ra {
        Some(id) => reg(uc, id),
        None => {
            let sp = reg(uc, r.sp);
            let Some(t) = read_word(uc, e, sp) else {
                end(uc, RunEnd::Fault);
                return;
            };
            let _ = uc.reg_write(r.sp, sp.wrapping_add(8));
            t
        }
    };
    let v = {
        let rng = &mut uc.get_data_mut().run.rng;
        match rng.below(6) {
            0 => 0,
            1 => 1,
            2 => u64::MAX,
            3 => rng.below(256),
            4 => HEAP + rng.below(HEAP_SIZE / 2) / 16 * 16,
            _ => rng.next_u64(),
        }
    };
    let _ = uc.reg_write(r.ret, v);
    let _ = uc.reg_write(r.pc, target);
}

/// Where a call to `pc` goes.
enum CallTarget {
    /// The start of a function of the file: followed as a new frame.
    Follow(usize),
    /// Foreign code (outside the file's functions, a PLT), or a call to a local label of the
    /// calling function: returned from at once.
    Foreign,
    /// Inside a function of the file but not at its start, or at a `.cold` part: no call of
    /// the program goes there.
    Wild,
}

fn call_target(ctx: &Ctx<'_>, pc: u64, current: Option<usize>) -> CallTarget {
    let Some(fi) = ctx.image.function_at(pc) else {
        return CallTarget::Foreign;
    };
    let f = &ctx.image.functions[fi];
    if f.kind != FunctionKind::Code || !f.checkable() {
        return CallTarget::Foreign;
    }
    let insn_start = ctx.code[fi].at(f.start, pc).is_some();
    if pc == f.start && !is_cold_part(&f.name) {
        CallTarget::Follow(fi)
    } else if Some(fi) == current && insn_start {
        CallTarget::Foreign
    } else {
        CallTarget::Wild
    }
}

fn on_code(ctx: &Ctx<'_>, uc: &mut Unicorn<'_, State>, pc: u64) {
    let image = ctx.image;
    let cpu = image.cpu;
    let r = cpu.regs();
    {
        let st = uc.get_data_mut();
        if st.run.end.is_some() {
            return;
        }
        if st.run.replay.take() == Some(pc) {
            return;
        }
        st.run.icount += 1;
        if st.run.icount > st.run.budget {
            end(uc, RunEnd::Budget);
            return;
        }
    }
    let sp = reg(uc, r.sp);
    // 1. Arriving at a call's target.
    if let Some(p) = uc.get_data_mut().run.pending.take() {
        let (depth, current) = {
            let s = &uc.get_data().run.shadow;
            (s.depth(), s.top().map(|t| t.function))
        };
        let target = call_target(ctx, pc, current);
        if let CallTarget::Wild = target {
            end(uc, RunEnd::Dropped(DropReason::WildCall));
            return;
        }
        match target {
            CallTarget::Follow(fi) if depth < ctx.opts.max_depth => {
                let ra = match r.ra {
                    Some(id) => reg(uc, id),
                    None => read_word(uc, image.abi.endian(), sp).unwrap_or(0),
                };
                let fp = reg(uc, r.fp);
                let frame = TrueFrame {
                    function: fi,
                    cfa: sp.wrapping_add(cpu.cfa_from_entry_sp()),
                    ra,
                    fp,
                    entry_sp: sp,
                };
                debug_assert_eq!(ra, p.ret);
                let run = &mut uc.get_data_mut().run;
                run.ra_slots.retain(|k| k.0 != sp);
                run.shadow.push(frame);
            }
            _ if !p.inside => {
                end(uc, RunEnd::NoReturn);
                return;
            }
            _ => {
                emulate_return(ctx, uc);
                uc.get_data_mut().run.landing = Some(p.ret);
                return;
            }
        }
    }
    // 2. Returns to the top frame's caller.
    let sp_from_cfa = image.abi.sp_from_cfa() as u64;
    let mut popped = false;
    loop {
        let st = uc.get_data_mut();
        match st.run.shadow.top() {
            Some(t) if pc == t.ra && sp == t.cfa.wrapping_add(sp_from_cfa) => {
                st.run.shadow.pop();
                popped = true;
            }
            _ => break,
        }
        if st.run.shadow.depth() == 0 {
            end(uc, RunEnd::Returned);
            return;
        }
    }
    // A return instruction that did not return from the executing frame: the stack was
    // unbalanced or the return address replaced.
    if !popped && uc.get_data().run.last_flow == Flow::Return {
        let to_ra = uc.get_data().run.shadow.top().is_some_and(|t| t.ra == pc);
        let why = if to_ra {
            DropReason::UnbalancedReturn
        } else {
            DropReason::WildReturn
        };
        end(uc, RunEnd::Dropped(why));
        return;
    }
    // The SP must stay in the stack and at or below the executing frame's entry SP.
    {
        let st = uc.get_data_mut();
        let top_entry = st.run.shadow.top().map_or(STACK_HI, |t| t.entry_sp);
        if !(STACK_LO..=top_entry).contains(&sp) {
            end(uc, RunEnd::WildSp);
            return;
        }
        st.run.min_sp = st.run.min_sp.min(sp);
    }
    // 3. Where the PC is.
    let under_test_plt = image.functions[uc.get_data().run.under_test].kind == FunctionKind::Plt;
    let located = image.function_at(pc).filter(|&fi| {
        let k = image.functions[fi].kind;
        !image.functions[fi].outside_code
            && (k == FunctionKind::Code || (under_test_plt && k == FunctionKind::Plt))
    });
    let Some(fi) = located else {
        // Foreign code reached by a jump: an external tail call when the stack is as it
        // was at the frame's entry; anything else leaves the file.
        let balanced = uc
            .get_data()
            .run
            .shadow
            .top()
            .is_some_and(|t| t.entry_sp == sp);
        if balanced {
            emulate_return(ctx, uc);
        } else {
            end(uc, RunEnd::LeftFile);
        }
        return;
    };
    let func = &image.functions[fi];
    let insn_index = ctx.code[fi].at(func.start, pc);
    // Control must arrive at an instruction start, and a jump into another function at its
    // start (a tail call) or within the same frame's parts (`foo` and `foo.cold`).
    if insn_index.is_none() && !ctx.code[fi].insns.is_empty() {
        end(uc, RunEnd::Dropped(DropReason::MisalignedPc));
        return;
    }
    if let Some(t) = uc.get_data().run.shadow.top().copied() {
        if t.function != fi && pc != func.start && !same_frame(image, t.function, fi) {
            end(uc, RunEnd::Dropped(DropReason::WildJump));
            return;
        }
        if t.function != fi
            && pc == func.start
            && sp != t.entry_sp
            && func.kind == FunctionKind::Code
            && !same_frame(image, t.function, fi)
        {
            end(uc, RunEnd::Dropped(DropReason::UnbalancedTailCall));
            return;
        }
        if t.function != fi && pc == func.start {
            // A tail call: the new function keeps its return address where it likes.
            let run = &mut uc.get_data_mut().run;
            run.ra_slots.retain(|k| k.0 != t.entry_sp);
        }
    }
    // Stack heights: learn them on natural paths, check them where emulated returns land.
    {
        let st = uc.get_data_mut();
        let height = sp.wrapping_sub(st.run.shadow.top().map_or(sp, |t| t.entry_sp)) as i64;
        // Only a landing that a jump also reaches can be a path the callee never returns to.
        if st.run.landing.take() == Some(pc) && ctx.code[fi].branch_targets.contains(&pc) {
            match st.heights.get(&pc) {
                Some(hs) if !hs.contains(&height) => {
                    end(uc, RunEnd::NoReturn);
                    return;
                }
                Some(_) => {}
                None => {
                    st.run.taint.get_or_insert((pc, height));
                }
            }
        }
        if st.run.taint.is_none() {
            let hs = st.heights.entry(pc).or_default();
            if !hs.contains(&height) {
                hs.push(height);
            }
        }
    }
    let (truth, depth) = {
        let st = uc.get_data_mut();
        let top = st.run.shadow.top_mut().expect("a live frame");
        top.function = fi;
        let truth = Values::from(&*top);
        if let Some(i) = insn_index {
            st.acc[fi].executed[i] += 1;
        }
        // Tentative paths do not count for branch forcing: the natural path to the landing
        // PC must still be found to confirm or refute it.
        if st.run.taint.is_none() {
            st.local.insert(pc);
        }
        (truth, st.run.shadow.depth())
    };
    // 4. The row of this PC, applied to the live state.
    let section = &ctx.section;
    let vaddr = image.section_vaddr;
    let frame = Frame {
        pc,
        sp,
        fp: reg(uc, r.fp),
        ra_reg: r.ra.map(|id| reg(uc, id)),
    };
    if func.fde.is_some() {
        let outcome = {
            let u: &Unicorn<'_, State> = uc;
            let regf = |n: u32| cpu.dwarf_register(n).and_then(|id| u.reg_read(id).ok());
            let mut mem = |a: u64| read_word(u, image.abi.endian(), a);
            checker::check_topmost(
                section,
                vaddr,
                &frame,
                &truth,
                cpu.red_zone(),
                Machine {
                    reg: &regf,
                    mem: &mut mem,
                },
            )
        };
        if let Some(why) = slot_overwritten(ctx, uc, &frame, &truth, &outcome) {
            end(uc, RunEnd::Dropped(why));
            return;
        }
        observe(uc.get_data_mut(), fi, pc, 0, &truth, outcome);
    }
    // 5. The whole stack, once per (PC, depth).
    if depth >= 2 && uc.get_data_mut().walked.insert((pc, depth)) {
        walk(ctx, uc, frame);
    }
    if depth > uc.get_data().run.deepest {
        uc.get_data_mut().run.deepest = depth;
        if ctx.opts.snapshots {
            let s = snapshot(ctx, uc, frame);
            uc.get_data_mut().run.snapshot = Some(s);
        }
    }
    // 6. Control flow.
    let Some(i) = insn_index else {
        uc.get_data_mut().run.last_flow = Flow::Other;
        return;
    };
    let insn = ctx.code[fi].insns[i];
    uc.get_data_mut().run.last_flow = insn.flow;
    let next = pc + u64::from(insn.size);
    match insn.flow {
        Flow::Call { .. } => {
            uc.get_data_mut().run.pending = Some(Pending {
                ret: next,
                inside: next < func.end,
            });
        }
        Flow::Trap => end(uc, RunEnd::Trap),
        Flow::CondJump { target } if uc.get_data().run.flip => {
            let st = uc.get_data_mut();
            let (t, n) = (st.local.contains(&target), st.local.contains(&next));
            if t != n && st.run.rng.chance(3, 4) {
                let to = if t { next } else { target };
                let _ = uc.reg_write(r.pc, to);
            }
        }
        _ => {}
    }
}

/// Follow the executing frame's save slots: remember each slot a correct row read the true
/// return address or frame pointer from; a mismatch of that value whose row reads the same
/// slot (with the CFA, and for the FP the RA, right) means the slot's content changed, so the
/// code overwrote its own save slot. A row that reads another slot stays a mismatch.
fn slot_overwritten(
    ctx: &Ctx<'_>,
    uc: &mut Unicorn<'_, State>,
    frame: &Frame,
    truth: &Values,
    outcome: &CheckOutcome,
) -> Option<DropReason> {
    let cpu = ctx.image.cpu;
    let slots = {
        let u: &Unicorn<'_, State> = uc;
        let regf = |n: u32| cpu.dwarf_register(n).and_then(|id| u.reg_read(id).ok());
        let at = |loc: &Loc| checker::slot(loc, truth.cfa, frame, ctx.image.abi, &regf);
        read_slots(outcome, truth, &at)?
    };
    let st = uc.get_data_mut();
    let entry_sp = st.run.shadow.top()?.entry_sp;
    match slots {
        SlotsRead::Right(slots) => {
            for (slot, is_ra) in slots {
                let Some(slot) = slot else { continue };
                let key = (entry_sp, slot, is_ra);
                if !st.run.ra_slots.contains(&key) {
                    st.run.ra_slots.push(key);
                }
            }
            None
        }
        SlotsRead::Wrong(slot, is_ra) => overwritten(&st.run.ra_slots, entry_sp, slot, is_ra),
    }
}

/// The save slots a row read, as [`read_slots`] tells them.
enum SlotsRead {
    /// A right row: the RA's and the FP's slots (none where the rule reads no memory).
    Right([(Option<u64>, bool); 2]),
    /// The CFA right, the RA (`true`) or FP read wrong from this slot.
    Wrong(u64, bool),
}

/// The slots a check's row read, `at` giving a rule's slot address; none when the check is
/// not about a saved value (a wrong CFA, no row).
fn read_slots(
    outcome: &CheckOutcome,
    truth: &Values,
    at: &dyn Fn(&Loc) -> Option<u64>,
) -> Option<SlotsRead> {
    match outcome {
        CheckOutcome::Ok(row) => Some(SlotsRead::Right([
            (at(&row.rules.ra), true),
            (at(&row.rules.fp), false),
        ])),
        CheckOutcome::Mismatch {
            kind: kind @ (OracleKind::Ra | OracleKind::Fp),
            row: Some(row),
            got: Some(g),
            ..
        } if g.cfa == truth.cfa => {
            let is_ra = *kind == OracleKind::Ra;
            let loc = if is_ra { &row.rules.ra } else { &row.rules.fp };
            Some(SlotsRead::Wrong(at(loc)?, is_ra))
        }
        _ => None,
    }
}

/// Whether `slot` of the frame entered at `entry_sp` held the true RA (or FP) at an earlier
/// PC, so that a wrong value read from it now was written by the code.
fn overwritten(
    slots: &[(u64, u64, bool)],
    entry_sp: u64,
    slot: u64,
    is_ra: bool,
) -> Option<DropReason> {
    slots
        .contains(&(entry_sp, slot, is_ra))
        .then_some(if is_ra {
            DropReason::RaSlotOverwritten
        } else {
            DropReason::FpSlotOverwritten
        })
}

/// Whether functions `a` and `b` may run in one frame at PCs other than their starts: parts
/// of one function (`foo`, `foo.cold`), or either without a name to tell (an FDE without a
/// symbol), where the jump is given the benefit of the doubt.
fn same_frame(image: &Image, a: usize, b: usize) -> bool {
    let (a, b) = (&image.functions[a], &image.functions[b]);
    let unnamed = |f: &crate::image::Function| {
        f.fde
            .is_some_and(|i| f.name.starts_with(&format!("fde{i}@")))
    };
    unnamed(a) || unnamed(b) || frame_family(&a.name) == frame_family(&b.name)
}

/// Record an observation now, or buffer it while the run is tentative.
fn observe(
    st: &mut State,
    fi: usize,
    pc: u64,
    frame: usize,
    truth: &Values,
    outcome: CheckOutcome,
) {
    let b = Buffered {
        fi,
        pc,
        frame,
        truth: *truth,
        outcome,
        origin: (st.run.under_test, st.run.index),
    };
    if st.run.taint.is_some() && matches!(b.outcome, CheckOutcome::Mismatch { .. }) {
        st.run.buffered.push(b);
    } else {
        record(&mut st.acc, &b);
    }
}

fn record(acc: &mut [FnAcc], b: &Buffered) {
    let acc = &mut acc[b.fi];
    match &b.outcome {
        CheckOutcome::Ok(_) => {
            if b.frame == 0 {
                acc.rows_checked += 1;
            }
        }
        CheckOutcome::Outermost => {
            if b.frame == 0 {
                acc.outermost_rows += 1;
            }
        }
        CheckOutcome::Mismatch {
            kind,
            row,
            got,
            error,
        } => {
            if b.frame == 0 {
                acc.rows_checked += 1;
            }
            acc.mismatches
                .entry((b.pc, b.frame, *kind))
                .and_modify(|m| m.seen.count += 1)
                .or_insert(MismatchRec {
                    pc: b.pc,
                    seen: Sighting {
                        frame: b.frame,
                        kind: *kind,
                        row: *row,
                        expected: b.truth,
                        got: *got,
                        error: error.clone(),
                        count: 1,
                    },
                    origin: b.origin,
                });
        }
    }
}

/// Walk the whole stack from the executing frame and compare every caller frame with the
/// shadow stack; the first wrong caller frame is recorded against its function.
fn walk(ctx: &Ctx<'_>, uc: &mut Unicorn<'_, State>, start: Frame) {
    let image = ctx.image;
    let cpu = image.cpu;
    let frames: Vec<TrueFrame> = uc
        .get_data()
        .run
        .shadow
        .innermost_first()
        .copied()
        .collect();
    let walked = {
        let u: &Unicorn<'_, State> = uc;
        let regf = |n: u32| cpu.dwarf_register(n).and_then(|id| u.reg_read(id).ok());
        let mut mem = |a: u64| read_word(u, image.abi.endian(), a);
        let past_end = |pc: u64| {
            image
                .function_at(pc.wrapping_sub(1))
                .is_some_and(|f| image.functions[f].end == pc)
        };
        checker::unwind_stack(
            &ctx.section,
            image.section_vaddr,
            start,
            frames.len(),
            &past_end,
            Machine {
                reg: &regf,
                mem: &mut mem,
            },
        )
    };
    let under_test = uc.get_data().run.under_test;
    uc.get_data_mut().acc[under_test].stack_walks += 1;
    let none = |_: u32| None;
    for (k, w) in walked.iter().enumerate() {
        let t = &frames[k];
        if image.functions[t.function].fde.is_none() {
            break;
        }
        let truth = Values::from(t);
        if w.looked_up_before_pc {
            uc.get_data_mut().acc[t.function].ra_past_end += 1;
        }
        // Below the topmost frame a rule that needs a register other than SP and FP cannot
        // be applied (Appendix A, ERR_SFRAME_UNSAFE_UNWIND): the trace ends there by design.
        if k > 0
            && matches!(
                w.result,
                Err(StepError::RegisterUnavailable(_) | StepError::UnsafeUnwind)
            )
        {
            uc.get_data_mut().acc[t.function].stack_stopped += 1;
            break;
        }
        let outcome = checker::judge(
            &ctx.section,
            image.section_vaddr,
            &w.frame,
            &w.result,
            &truth,
            None,
            &none,
        );
        match outcome {
            CheckOutcome::Ok(_) => {}
            CheckOutcome::Outermost => break,
            m @ CheckOutcome::Mismatch { .. } => {
                if k == 0 {
                    break;
                }
                // A caller's save slot that held the true value when the caller ran, and
                // another one now: a callee wrote over it (a buffer overrun on a forced
                // path), as for the executing frame.
                let at = |loc: &Loc| checker::slot(loc, truth.cfa, &w.frame, image.abi, &none);
                if let Some(SlotsRead::Wrong(slot, is_ra)) = read_slots(&m, &truth, &at) {
                    let slots = &uc.get_data().run.ra_slots;
                    if let Some(why) = overwritten(slots, t.entry_sp, slot, is_ra) {
                        end(uc, RunEnd::Dropped(why));
                        return;
                    }
                }
                observe(uc.get_data_mut(), t.function, w.frame.pc, k, &truth, m);
                break;
            }
        }
    }
}

fn snapshot(ctx: &Ctx<'_>, uc: &Unicorn<'_, State>, frame: Frame) -> StackSnapshot {
    let image = ctx.image;
    let cpu = image.cpu;
    let regs = (0..32u32)
        .filter_map(|n| Some((n, uc.reg_read(cpu.dwarf_register(n)?).ok()?)))
        .collect();
    let lo = frame.sp.saturating_sub(cpu.red_zone() + 64).max(STACK_LO);
    let memory = if frame.sp > STACK_LO && frame.sp <= STACK_HI {
        uc.mem_read_as_vec(lo, (STACK_HI - lo) as usize)
            .map(|bytes| vec![MemoryRange { addr: lo, bytes }])
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let st = uc.get_data();
    let mut pc = frame.pc;
    let frames = st
        .run
        .shadow
        .innermost_first()
        .map(|t| {
            let f = SnapshotFrame {
                function: image.functions[t.function].name.clone(),
                pc,
                expected: Values::from(t),
            };
            pc = t.ra;
            f
        })
        .collect();
    StackSnapshot {
        abi: image.abi,
        under_test: image.functions[st.run.under_test].name.clone(),
        pc: frame.pc,
        sp: frame.sp,
        fp: frame.fp,
        ra_reg: frame.ra_reg,
        regs,
        memory,
        frames,
    }
}
