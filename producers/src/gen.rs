//! Random functions: real instructions of varied lengths interleaved with well-formed
//! `.cfi_*` directives, drawn from an [`arbitrary::Unstructured`] (so any byte string is a
//! function list, and shrinking the bytes shrinks the functions) under a [`Config`].

use arbitrary::{Result, Unstructured};
use std::fmt::Write;

/// The ABIs the generator writes assembly for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    X86_64,
    Aarch64,
    /// AArch64 big-endian (GNU as `-EB`).
    Aarch64Be,
    S390x,
}

impl Arch {
    pub const ALL: [Arch; 4] = [Arch::X86_64, Arch::Aarch64, Arch::Aarch64Be, Arch::S390x];

    /// The GNU triple of the target's binutils.
    pub fn gnu_triple(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64-linux-gnu",
            Arch::Aarch64 | Arch::Aarch64Be => "aarch64-linux-gnu",
            Arch::S390x => "s390x-linux-gnu",
        }
    }
    /// The LLVM target triple.
    pub fn llvm_triple(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64-linux-gnu",
            Arch::Aarch64 => "aarch64-linux-gnu",
            Arch::Aarch64Be => "aarch64_be-linux-gnu",
            Arch::S390x => "s390x-linux-gnu",
        }
    }
    /// The ABI as oracle signatures name it.
    pub fn oracle_abi(self) -> sframe_findings::signature::OracleAbi {
        use sframe_findings::signature::OracleAbi;
        match self {
            Arch::X86_64 => OracleAbi::Amd64,
            Arch::Aarch64 => OracleAbi::Aarch64,
            Arch::Aarch64Be => OracleAbi::Aarch64Be,
            Arch::S390x => OracleAbi::S390x,
        }
    }
    /// The name oracle signatures give the ABI.
    pub fn abi_name(self) -> &'static str {
        self.oracle_abi().name()
    }
    pub fn from_name(s: &str) -> Option<Arch> {
        match s {
            "amd64" | "x86-64" | "x86_64" => Some(Arch::X86_64),
            "aarch64" => Some(Arch::Aarch64),
            "aarch64-be" | "aarch64_be" => Some(Arch::Aarch64Be),
            "s390x" => Some(Arch::S390x),
            _ => None,
        }
    }
    /// DWARF numbers of SP, FP, RA and of the other registers directives may name.
    fn regs(self) -> ArchRegs {
        match self {
            Arch::X86_64 => ArchRegs {
                sp: "%rsp",
                fp: "%rbp",
                ra: "%rip",
                others: &["%rax", "%rbx", "%r10", "%r12", "%r15"],
            },
            Arch::Aarch64 | Arch::Aarch64Be => ArchRegs {
                sp: "sp",
                fp: "x29",
                ra: "x30",
                others: &["x9", "x12", "x19", "x20", "x28"],
            },
            Arch::S390x => ArchRegs {
                sp: "%r15",
                fp: "%r11",
                ra: "%r14",
                others: &["%r1", "%r6", "%r7", "%r12", "%r13"],
            },
        }
    }
}

struct ArchRegs {
    sp: &'static str,
    fp: &'static str,
    ra: &'static str,
    others: &'static [&'static str],
}

/// What the generator may produce.
#[derive(Debug, Clone)]
pub struct Config {
    pub arch: Arch,
    /// Functions per file (at least 1).
    pub max_functions: usize,
    /// Instructions and directives per function.
    pub max_items: usize,
    /// Allow `.fill` runs that push a function past 255 and 65535 bytes (2- and 4-byte FRE
    /// start addresses).
    pub long_functions: bool,
    /// Allow directives no SFrame version can express (CFA on another register, RA/FP in a
    /// register, undefined FP, ...): the producer must then omit the function.
    pub unrepresentable: bool,
    /// Allow a function's second part in `.text.unlikely` (a hot/cold split: two FDEs).
    pub cold_splits: bool,
}

impl Config {
    pub fn new(arch: Arch) -> Config {
        Config {
            arch,
            max_functions: 3,
            max_items: 40,
            long_functions: true,
            unrepresentable: true,
            cold_splits: true,
        }
    }
}

/// A register a directive names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reg {
    Sp,
    Fp,
    Ra,
    Other(u8),
}

/// A `.cfi_*` directive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cfi {
    DefCfa(Reg, i64),
    DefCfaOffset(i64),
    DefCfaRegister(Reg),
    AdjustCfaOffset(i64),
    Offset(Reg, i64),
    RelOffset(Reg, i64),
    Register(Reg, Reg),
    Restore(Reg),
    RememberState,
    RestoreState,
    Undefined(Reg),
    SameValue(Reg),
    NegateRaState,
}

/// An instruction (or a run of no-op instructions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Insn {
    /// One of the architecture's instruction templates, by index.
    Op(u8),
    /// `n` bytes of no-op instructions.
    Fill(u32),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    Insn(Insn),
    Cfi(Cfi),
}

/// One function: `.cfi_startproc` ... `.cfi_endproc`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Func {
    pub signal_frame: bool,
    pub b_key: bool,
    pub items: Vec<Item>,
    /// Items of a cold part in `.text.unlikely` (its own FDE, continuing the CFI state is
    /// not possible across FDEs, so it starts from the CIE state).
    pub cold: Option<Vec<Item>>,
}

/// A file's worth of functions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub arch: Arch,
    pub funcs: Vec<Func>,
}

fn x86_ops() -> &'static [&'static str] {
    &[
        "nop",                              // 1
        "push %rbx",                        // 1
        "pop %rbx",                         // 1
        "xor %eax, %eax",                   // 2
        "mov %rsp, %rbp",                   // 3
        "sub $16, %rsp",                    // 4
        "lea 8(%rsp), %r10",                // 5
        "nopw 0x0(%rax,%rax,1)",            // 6
        "sub $4096, %rsp",                  // 7
        "movabs $0x1122334455667788, %rax", // 10
        "mov %rax, 0x12345678(%rsp)",       // 8
    ]
}

fn aarch64_ops() -> &'static [&'static str] {
    &[
        "nop",
        "stp x29, x30, [sp, -16]!",
        "mov x29, sp",
        "sub sp, sp, #32",
        "add sp, sp, #32",
        "ldp x29, x30, [sp], 16",
        "mov x9, sp",
        "str x19, [sp, 8]",
    ]
}

fn s390x_ops() -> &'static [&'static str] {
    &[
        "nopr",                     // 2
        "nop",                      // 4
        "lgr %r11, %r15",           // 4
        "aghi %r15, -160",          // 4
        "stmg %r6, %r15, 48(%r15)", // 6
        "lay %r15, -4096(%r15)",    // 6
        "lgr %r1, %r15",            // 4
    ]
}

fn ops(arch: Arch) -> &'static [&'static str] {
    match arch {
        Arch::X86_64 => x86_ops(),
        Arch::Aarch64 | Arch::Aarch64Be => aarch64_ops(),
        Arch::S390x => s390x_ops(),
    }
}

/// The CFA offset of the CIE's initial instructions (`.cfi_startproc`).
fn initial_cfa_offset(arch: Arch) -> i64 {
    match arch {
        Arch::X86_64 => 8,
        Arch::Aarch64 | Arch::Aarch64Be => 0,
        Arch::S390x => 160,
    }
}

/// GNU as's running CFA offset (dw2gencfi's `cur_cfa_offset`: set by `.cfi_def_cfa[_offset]`,
/// moved by `.cfi_adjust_cfa_offset`, pushed and popped by remember/restore_state).
struct CfaTrack {
    cur: i64,
    saved: Vec<i64>,
}

impl CfaTrack {
    fn new(arch: Arch) -> CfaTrack {
        CfaTrack {
            cur: initial_cfa_offset(arch),
            saved: vec![],
        }
    }
    /// The CFA offset after `c`.
    fn apply(&mut self, c: &Cfi) -> i64 {
        match *c {
            Cfi::DefCfa(_, o) | Cfi::DefCfaOffset(o) => self.cur = o,
            Cfi::AdjustCfaOffset(a) => self.cur += a,
            Cfi::RememberState => self.saved.push(self.cur),
            Cfi::RestoreState => self.cur = self.saved.pop().unwrap_or(self.cur),
            _ => {}
        }
        self.cur
    }
}

/// Whether `o` survives .eh_frame: GNU as writes a negative CFA offset as
/// DW_CFA_def_cfa_offset_sf / DW_CFA_def_cfa_sf, whose operand DWARF 5 (6.4.2.2) defines as
/// *factored* ("the resulting offset is factored_offset * data_alignment_factor"), and
/// truncates one that is not a multiple of the factor (8 with gas on all three targets) — the
/// CFI then says something else than the directive, and no SFrame row can be judged by it.
fn cfa_offset_encodable(o: i64) -> bool {
    o >= 0 || o % 8 == 0
}

/// Whether every CFA offset `items` set has an exact .eh_frame encoding.
fn cfa_offsets_encodable(arch: Arch, items: &[Item]) -> bool {
    let mut t = CfaTrack::new(arch);
    items.iter().all(|it| match it {
        Item::Cfi(c) => cfa_offset_encodable(t.apply(c)),
        _ => true,
    })
}

/// Whether every `.cfi_restore_state` of `items` pops a state an earlier
/// `.cfi_remember_state` of the same FDE pushed. DWARF 5, 6.4.2.4: "DW_CFA_remember_state
/// ... push the set of rules for every register onto an implicit stack";
/// "DW_CFA_restore_state ... pop the set of rules off the implicit stack and place them in
/// the current row". A pop of an empty stack is not a CFI program (gimli refuses it too).
fn states_balanced(items: &[Item]) -> bool {
    let mut depth = 0u32;
    for it in items {
        match it {
            Item::Cfi(Cfi::RememberState) => depth += 1,
            Item::Cfi(Cfi::RestoreState) if depth == 0 => return false,
            Item::Cfi(Cfi::RestoreState) => depth -= 1,
            _ => {}
        }
    }
    true
}

impl Program {
    /// Whether the program's CFI is valid DWARF as the generator writes it: every
    /// `.cfi_restore_state` has its `.cfi_remember_state` in the same FDE (hot and cold
    /// parts are separate FDEs). The generator only draws such programs; the minimizer must
    /// keep to them, else an assembler's reaction to invalid CFI is blamed on it.
    /// Also, every CFA offset has an exact .eh_frame encoding ([`cfa_offsets_encodable`]).
    pub fn well_formed(&self) -> bool {
        let ok = |items: &[Item]| states_balanced(items) && cfa_offsets_encodable(self.arch, items);
        self.funcs
            .iter()
            .all(|f| ok(&f.items) && f.cold.as_deref().is_none_or(ok))
    }

    /// A program drawn from `u` under `cfg`.
    pub fn arbitrary(u: &mut Unstructured<'_>, cfg: &Config) -> Result<Program> {
        let n = u.int_in_range(1..=cfg.max_functions.max(1))?;
        let mut funcs = Vec::with_capacity(n);
        for _ in 0..n {
            funcs.push(Func::arbitrary(u, cfg)?);
        }
        Ok(Program {
            arch: cfg.arch,
            funcs,
        })
    }

    /// The assembly text.
    pub fn to_asm(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "\t.text");
        for (i, f) in self.funcs.iter().enumerate() {
            f.write_asm(self.arch, i, &mut s);
        }
        s
    }
}

/// A CFA offset: mostly small multiples of the slot size, some large, negative or odd.
fn offset(u: &mut Unstructured<'_>, arch: Arch) -> Result<i64> {
    Ok(match u.int_in_range(0u8..=9)? {
        // Not a multiple of the data alignment factor: positive only (gas writes a negative
        // CFA offset factored, and truncates one that is not a multiple).
        8 => i64::from(u.int_in_range(0i16..=200)?),
        _ => slot_offset(u, arch)?,
    })
}

/// A register save offset: a multiple of the data alignment factor (gas uses 8 on all
/// three targets and refuses others).
fn slot_offset(u: &mut Unstructured<'_>, _arch: Arch) -> Result<i64> {
    let unit: i64 = 8;
    Ok(match u.int_in_range(0u8..=8)? {
        0..=6 => unit * i64::from(u.int_in_range(-4i8..=8)?),
        7 => unit * i64::from(u.int_in_range(-4096i16..=4096)?),
        _ => unit * i64::from(u.int_in_range(-(1i32 << 26)..=(1i32 << 26))?),
    })
}

fn reg(u: &mut Unstructured<'_>, cfg: &Config, cfa_only: bool) -> Result<Reg> {
    let n = if cfg.unrepresentable { 9 } else { 7 };
    Ok(match u.int_in_range(0u8..=n)? {
        0..=3 => Reg::Sp,
        4..=6 => Reg::Fp,
        7 if !cfa_only => Reg::Ra,
        7 => Reg::Fp,
        _ => Reg::Other(u.int_in_range(0u8..=4)?),
    })
}

fn saved_reg(u: &mut Unstructured<'_>, cfg: &Config) -> Result<Reg> {
    Ok(match u.int_in_range(0u8..=7)? {
        0..=3 => Reg::Fp,
        4..=6 => Reg::Ra,
        _ if cfg.unrepresentable => Reg::Other(u.int_in_range(0u8..=4)?),
        _ => Reg::Fp,
    })
}

impl Func {
    pub fn arbitrary(u: &mut Unstructured<'_>, cfg: &Config) -> Result<Func> {
        let signal_frame = u.ratio(1u8, 16)?;
        let b_key = matches!(cfg.arch, Arch::Aarch64 | Arch::Aarch64Be) && u.ratio(1u8, 8)?;
        let items = items(u, cfg)?;
        let cold = if cfg.cold_splits && u.ratio(1u8, 8)? {
            Some(items_n(u, cfg, cfg.max_items / 4)?)
        } else {
            None
        };
        Ok(Func {
            signal_frame,
            b_key,
            items,
            cold,
        })
    }

    fn write_asm(&self, arch: Arch, i: usize, s: &mut String) {
        let name = format!("f{i}");
        let _ = writeln!(s, "\t.globl {name}\n\t.type {name}, @function\n{name}:");
        let _ = writeln!(s, "\t.cfi_startproc");
        if self.signal_frame {
            let _ = writeln!(s, "\t.cfi_signal_frame");
        }
        if self.b_key {
            let _ = writeln!(s, "\t.cfi_b_key_frame");
        }
        write_items(arch, &self.items, s);
        if let Some(cold) = &self.cold {
            let _ = writeln!(s, "\t.cfi_endproc");
            let _ = writeln!(
                s,
                "\t.pushsection .text.unlikely,\"ax\",@progbits\n{name}.cold:\n\t.cfi_startproc"
            );
            write_items(arch, cold, s);
            let _ = writeln!(s, "\t.cfi_endproc\n\t.popsection");
        } else {
            let _ = writeln!(s, "\t.cfi_endproc");
        }
        let _ = writeln!(s, "\t.size {name}, .-{name}");
    }
}

fn items(u: &mut Unstructured<'_>, cfg: &Config) -> Result<Vec<Item>> {
    items_n(u, cfg, cfg.max_items)
}

fn items_n(u: &mut Unstructured<'_>, cfg: &Config, max: usize) -> Result<Vec<Item>> {
    let n = u.int_in_range(1..=max.max(1))?;
    let nops = ops(cfg.arch).len() as u8;
    let mut v = Vec::with_capacity(n);
    let mut remembered = 0u32;
    let mut cfa = CfaTrack::new(cfg.arch);
    // Directives only follow an instruction: each row then has its own address.
    v.push(Item::Insn(Insn::Op(u.int_in_range(0..=nops - 1)?)));
    for _ in 0..n {
        let k = u.int_in_range(0u8..=99)?;
        let item = if k < 45 {
            let insn = if cfg.long_functions && u.ratio(1u8, 40)? {
                if u.ratio(1u8, 6)? {
                    Insn::Fill(u.int_in_range(65_536..=70_000)?)
                } else {
                    Insn::Fill(u.int_in_range(200..=600)?)
                }
            } else {
                Insn::Op(u.int_in_range(0..=nops - 1)?)
            };
            Item::Insn(insn)
        } else {
            let c = match u.int_in_range(0u8..=16)? {
                0 => Cfi::DefCfa(reg(u, cfg, true)?, offset(u, cfg.arch)?),
                1 | 2 => Cfi::DefCfaOffset(offset(u, cfg.arch)?),
                3 => Cfi::DefCfaRegister(reg(u, cfg, true)?),
                4 | 5 => Cfi::AdjustCfaOffset(offset(u, cfg.arch)?),
                6 | 7 => Cfi::Offset(saved_reg(u, cfg)?, slot_offset(u, cfg.arch)?),
                8 => Cfi::RelOffset(saved_reg(u, cfg)?, slot_offset(u, cfg.arch)?),
                9 if cfg.unrepresentable => {
                    Cfi::Register(saved_reg(u, cfg)?, Reg::Other(u.int_in_range(0u8..=4)?))
                }
                10 => Cfi::Restore(saved_reg(u, cfg)?),
                11 => {
                    remembered += 1;
                    Cfi::RememberState
                }
                12 if remembered > 0 => {
                    remembered -= 1;
                    Cfi::RestoreState
                }
                13 if cfg.unrepresentable => Cfi::Undefined(saved_reg(u, cfg)?),
                14 => Cfi::SameValue(saved_reg(u, cfg)?),
                15 if matches!(cfg.arch, Arch::Aarch64 | Arch::Aarch64Be) => Cfi::NegateRaState,
                _ => Cfi::DefCfaOffset(offset(u, cfg.arch)?),
            };
            // An adjustment that would leave a negative CFA offset gas cannot encode exactly
            // is rounded down to one it can (def_cfa offsets already are).
            let c = match c {
                Cfi::AdjustCfaOffset(a) if !cfa_offset_encodable(cfa.cur + a) => {
                    Cfi::AdjustCfaOffset(a - (cfa.cur + a).rem_euclid(8))
                }
                // `.cfi_rel_offset` is taken from the CFA offset: moved by the CFA offset's
                // remainder modulo 8, the save offset it stands for (its offset minus the CFA
                // offset) stays a multiple of 8, as assemblers require.
                Cfi::RelOffset(r, o) => Cfi::RelOffset(r, o.wrapping_add(cfa.cur.rem_euclid(8))),
                c => c,
            };
            cfa.apply(&c);
            Item::Cfi(c)
        };
        v.push(item);
    }
    // A last instruction, so that the last directives describe code.
    v.push(Item::Insn(Insn::Op(0)));
    Ok(v)
}

fn reg_name(arch: Arch, r: Reg) -> &'static str {
    let regs = arch.regs();
    match r {
        Reg::Sp => regs.sp,
        Reg::Fp => regs.fp,
        Reg::Ra => regs.ra,
        Reg::Other(i) => regs.others[usize::from(i) % regs.others.len()],
    }
}

fn fill(arch: Arch, n: u32, s: &mut String) {
    match arch {
        Arch::X86_64 => {
            let _ = writeln!(s, "\t.fill {n}, 1, 0x90");
        }
        Arch::Aarch64 | Arch::Aarch64Be => {
            let _ = writeln!(s, "\t.fill {}, 4, 0xd503201f", n / 4);
        }
        Arch::S390x => {
            let _ = writeln!(s, "\t.fill {}, 2, 0x0700", n / 2);
        }
    }
}

/// Write `items` as assembly lines.
pub fn write_items(arch: Arch, items: &[Item], s: &mut String) {
    for it in items {
        match *it {
            Item::Insn(Insn::Op(k)) => {
                let o = ops(arch);
                let _ = writeln!(s, "\t{}", o[usize::from(k) % o.len()]);
            }
            Item::Insn(Insn::Fill(n)) => fill(arch, n, s),
            Item::Cfi(c) => {
                let r = |x| reg_name(arch, x);
                let _ = match c {
                    Cfi::DefCfa(a, o) => writeln!(s, "\t.cfi_def_cfa {}, {o}", r(a)),
                    Cfi::DefCfaOffset(o) => writeln!(s, "\t.cfi_def_cfa_offset {o}"),
                    Cfi::DefCfaRegister(a) => writeln!(s, "\t.cfi_def_cfa_register {}", r(a)),
                    Cfi::AdjustCfaOffset(o) => writeln!(s, "\t.cfi_adjust_cfa_offset {o}"),
                    Cfi::Offset(a, o) => writeln!(s, "\t.cfi_offset {}, {o}", r(a)),
                    Cfi::RelOffset(a, o) => writeln!(s, "\t.cfi_rel_offset {}, {o}", r(a)),
                    Cfi::Register(a, b) => writeln!(s, "\t.cfi_register {}, {}", r(a), r(b)),
                    Cfi::Restore(a) => writeln!(s, "\t.cfi_restore {}", r(a)),
                    Cfi::RememberState => writeln!(s, "\t.cfi_remember_state"),
                    Cfi::RestoreState => writeln!(s, "\t.cfi_restore_state"),
                    Cfi::Undefined(a) => writeln!(s, "\t.cfi_undefined {}", r(a)),
                    Cfi::SameValue(a) => writeln!(s, "\t.cfi_same_value {}", r(a)),
                    Cfi::NegateRaState => writeln!(s, "\t.cfi_negate_ra_state"),
                };
            }
        }
    }
}

/// A small deterministic byte source (xorshift64*) for seeded runs.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(n + 8);
        while v.len() < n {
            v.extend_from_slice(&self.next_u64().to_le_bytes());
        }
        v.truncate(n);
        v
    }
}

/// The bytes a seeded case is drawn from.
pub fn case_bytes(seed: u64, index: u64) -> Vec<u8> {
    Rng::new(seed ^ index.wrapping_mul(0xd134_2543_de82_ef95)).bytes(4096)
}

/// The program of case `index` of seed `seed`.
pub fn program(seed: u64, index: u64, cfg: &Config) -> Program {
    let bytes = case_bytes(seed, index);
    let mut u = Unstructured::new(&bytes);
    Program::arbitrary(&mut u, cfg).unwrap_or(Program {
        arch: cfg.arch,
        funcs: vec![],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prog(items: Vec<Item>) -> Program {
        Program {
            arch: Arch::X86_64,
            funcs: vec![Func {
                signal_frame: false,
                b_key: false,
                items,
                cold: None,
            }],
        }
    }

    /// DWARF 5, 6.4.2.4: DW_CFA_restore_state pops what a DW_CFA_remember_state pushed; the
    /// minimizer must not keep a restore whose remember it removed (GNU as asserts on that
    /// invalid input, which is no producer finding).
    #[test]
    fn restore_state_needs_its_remember_state() {
        let nop = Item::Insn(Insn::Op(0));
        let rem = Item::Cfi(Cfi::RememberState);
        let res = Item::Cfi(Cfi::RestoreState);
        assert!(prog(vec![nop, rem, nop, res, nop]).well_formed());
        assert!(!prog(vec![nop, res, nop]).well_formed());
        assert!(!prog(vec![nop, rem, res, res, nop]).well_formed());
        let mut split = prog(vec![nop, rem, nop]);
        split.funcs[0].cold = Some(vec![nop, res, nop]);
        assert!(!split.well_formed(), "the cold part is its own FDE");
        // A negative CFA offset that is not a multiple of 8 (gas truncates its factored
        // .eh_frame operand): `.cfi_def_cfa_offset -16; .cfi_adjust_cfa_offset 3`.
        let neg = prog(vec![
            nop,
            Item::Cfi(Cfi::DefCfaOffset(-16)),
            Item::Cfi(Cfi::AdjustCfaOffset(3)),
            nop,
        ]);
        assert!(!neg.well_formed());
        let pos = prog(vec![
            nop,
            Item::Cfi(Cfi::DefCfaOffset(-16)),
            Item::Cfi(Cfi::AdjustCfaOffset(19)),
            nop,
        ]);
        assert!(
            pos.well_formed(),
            "-16 + 19 = 3 is positive: written unfactored"
        );
        // Every generated program is well formed.
        for arch in Arch::ALL {
            let cfg = Config::new(arch);
            for i in 0..2000 {
                assert!(program(7, i, &cfg).well_formed(), "{arch:?} {i}");
            }
        }
    }
}
