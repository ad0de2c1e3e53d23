//! Executable functions: prologue/epilogue shapes that compilers emit, with their exact CFI,
//! for the checks that run the code (the emulator, in `sframe-conform produce --patterns`).
//!
//! Unlike [`crate::gen`], whose directives describe nothing the instructions do, a pattern's
//! directives are true: its CFI is what the instructions do to the stack, so the SFrame rows
//! can be judged against the machine state as well as against `.eh_frame`. The body only
//! touches scratch registers, so any argument values run it to a return.
//!
//! A function's symbol is its shape ([`Pattern::name`]), which is what an emulator signature
//! names: `oracle:<producer>:<abi>:<shape>:<kind>`.

use crate::gen::Arch;
use arbitrary::{Result, Unstructured};
use std::fmt::Write;

/// The size of the locals area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Locals {
    None,
    /// Up to a few hundred bytes (1-byte or 2-byte data words).
    Small(u32),
    /// Tens of kilobytes and more (4-byte data words).
    Large(u32),
}

/// One function's shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// A frame pointer is set up and the CFA follows it.
    pub fp_frame: bool,
    /// Callee-saved registers saved besides the frame record (0 to 2).
    pub saves: u8,
    pub locals: Locals,
    /// Body instructions (indices into the architecture's scratch-register instructions).
    pub body: Vec<u8>,
    /// A second, early epilogue under `.cfi_remember_state`/`.cfi_restore_state`.
    pub early_return: bool,
    /// Bytes of no-op padding in the body (2- and 4-byte FRE start addresses).
    pub padding: u32,
}

impl Pattern {
    pub fn arbitrary(u: &mut Unstructured<'_>, arch: Arch) -> Result<Pattern> {
        let locals = match u.int_in_range(0u8..=5)? {
            0 | 1 => Locals::None,
            2..=4 => Locals::Small(16 * u.int_in_range(1u32..=24)?),
            _ => Locals::Large(4096 * u.int_in_range(1u32..=64)?),
        };
        let n = u.int_in_range(1usize..=12)?;
        let ops = body_ops(arch).len() as u8;
        let mut body = Vec::with_capacity(n);
        for _ in 0..n {
            body.push(u.int_in_range(0..=ops - 1)?);
        }
        let padding = match u.int_in_range(0u8..=15)? {
            0 => u.int_in_range(256u32..=1024)?,
            1 => u.int_in_range(65_536u32..=66_000)?,
            _ => 0,
        };
        Ok(Pattern {
            fp_frame: u.arbitrary()?,
            saves: u.int_in_range(0u8..=2)?,
            locals,
            body,
            early_return: u.ratio(1u8, 3)?,
            padding,
        })
    }

    /// The shape, as a symbol name: `fp_s2_small_early_pad4`.
    pub fn name(&self) -> String {
        let mut s = format!(
            "{}_s{}_{}",
            if self.fp_frame { "fp" } else { "sp" },
            self.saves,
            match self.locals {
                Locals::None => "nolocals",
                Locals::Small(_) => "small",
                Locals::Large(_) => "large",
            }
        );
        if self.early_return {
            s.push_str("_early");
        }
        match self.padding {
            0 => {}
            1..=65_535 => s.push_str("_pad2"),
            _ => s.push_str("_pad4"),
        }
        s
    }

    fn locals(&self) -> u32 {
        match self.locals {
            Locals::None => 0,
            Locals::Small(n) | Locals::Large(n) => n,
        }
    }
}

/// A file of pattern functions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternProgram {
    pub arch: Arch,
    pub funcs: Vec<Pattern>,
}

impl PatternProgram {
    pub fn arbitrary(u: &mut Unstructured<'_>, arch: Arch, max_functions: usize) -> Result<Self> {
        let n = u.int_in_range(1..=max_functions.max(1))?;
        let mut funcs = Vec::with_capacity(n);
        for _ in 0..n {
            funcs.push(Pattern::arbitrary(u, arch)?);
        }
        Ok(PatternProgram { arch, funcs })
    }

    /// The assembly text. Functions are named `<shape>__<index>` ([`shape_of`] gives the
    /// shape back).
    pub fn to_asm(&self) -> String {
        let mut s = String::from("\t.text\n");
        for (i, f) in self.funcs.iter().enumerate() {
            let name = format!("{}__{i}", f.name());
            let _ = writeln!(
                s,
                "\t.globl {name}\n\t.type {name}, @function\n{name}:\n\t.cfi_startproc"
            );
            match self.arch {
                Arch::X86_64 => x86_64(f, i, &mut s),
                Arch::Aarch64 | Arch::Aarch64Be => aarch64(f, i, &mut s),
                Arch::S390x => s390x(f, i, &mut s),
            }
            let _ = writeln!(s, "\t.cfi_endproc\n\t.size {name}, .-{name}");
        }
        s
    }
}

/// The pattern program of case `index` of seed `seed` (as [`crate::gen::program`]).
pub fn program(seed: u64, index: u64, arch: Arch, max_functions: usize) -> PatternProgram {
    let bytes = crate::gen::case_bytes(seed, index);
    let mut u = Unstructured::new(&bytes);
    PatternProgram::arbitrary(&mut u, arch, max_functions).unwrap_or(PatternProgram {
        arch,
        funcs: vec![],
    })
}

/// The shape of a function [`PatternProgram::to_asm`] named.
pub fn shape_of(symbol: &str) -> &str {
    symbol.split("__").next().unwrap_or(symbol)
}

/// Instructions that touch scratch registers only.
fn body_ops(arch: Arch) -> &'static [&'static str] {
    match arch {
        Arch::X86_64 => &[
            "nop",
            "xor %eax, %eax",
            "mov %rdi, %rax",
            "lea 1(%rax), %rcx",
            "add $1, %rdx",
            "nopw 0x0(%rax,%rax,1)",
            "movabs $0x1122334455667788, %r11",
        ],
        Arch::Aarch64 | Arch::Aarch64Be => &[
            "nop",
            "mov x9, x0",
            "add x10, x10, #1",
            "eor x11, x11, x11",
            "movz x12, #0x1234, lsl #16",
        ],
        Arch::S390x => &[
            "nopr",
            "nop",
            "lgr %r1, %r2",
            "aghi %r1, 1",
            "la %r3, 8(%r2)",
            "lghi %r0, 77",
        ],
    }
}

fn body(arch: Arch, ops: &[u8], s: &mut String) {
    let table = body_ops(arch);
    for &k in ops {
        let _ = writeln!(s, "\t{}", table[usize::from(k) % table.len()]);
    }
}

/// `n` bytes of no-ops, jumped over (they only move the later rows' start addresses: the
/// emulator need not run them).
fn padding(arch: Arch, idx: usize, n: u32, s: &mut String) {
    if n == 0 {
        return;
    }
    let end = format!(".Lpad{idx}");
    let _ = match arch {
        Arch::X86_64 => writeln!(s, "\tjmp {end}\n\t.fill {n}, 1, 0x90\n{end}:"),
        Arch::Aarch64 | Arch::Aarch64Be => {
            writeln!(s, "\tb {end}\n\t.rept {}\n\tnop\n\t.endr\n{end}:", n / 4)
        }
        Arch::S390x => writeln!(s, "\tjg {end}\n\t.rept {}\n\tnopr\n\t.endr\n{end}:", n / 2),
    };
}

/// The body, with an early exit when the pattern has one: `branch` jumps over the first
/// epilogue to the label when the first argument is not zero.
fn body_and_epilogues(
    f: &Pattern,
    arch: Arch,
    idx: usize,
    branch: &str,
    epilogue: &dyn Fn(&mut String),
    s: &mut String,
) {
    let half = f.body.len() / 2;
    body(arch, &f.body[..half], s);
    padding(arch, idx, f.padding, s);
    if f.early_return {
        let label = format!(".Lrest{idx}");
        let _ = writeln!(s, "\t{branch} {label}\n\t.cfi_remember_state");
        epilogue(s);
        let _ = writeln!(s, "{label}:\n\t.cfi_restore_state");
    }
    body(arch, &f.body[half..], s);
    epilogue(s);
}

/// AMD64 as GCC writes it: `push %rbp; mov %rsp, %rbp`, pushes, `sub $n, %rsp`.
fn x86_64(f: &Pattern, idx: usize, s: &mut String) {
    const SAVED: [&str; 2] = ["%rbx", "%r12"];
    // The CFA's distance from %rsp (CFA = %rsp + 8 at entry).
    let mut depth: i64 = 8;
    if f.fp_frame {
        depth += 8;
        let _ = writeln!(
            s,
            "\tpush %rbp\n\t.cfi_def_cfa_offset {depth}\n\t.cfi_offset %rbp, -{depth}\n\tmov %rsp, %rbp\n\t.cfi_def_cfa_register %rbp"
        );
    }
    for r in &SAVED[..usize::from(f.saves)] {
        depth += 8;
        let _ = writeln!(s, "\tpush {r}");
        if !f.fp_frame {
            let _ = writeln!(s, "\t.cfi_def_cfa_offset {depth}");
        }
        let _ = writeln!(s, "\t.cfi_offset {r}, -{depth}");
    }
    let locals = i64::from(f.locals());
    if locals > 0 {
        let _ = writeln!(s, "\tsub ${locals}, %rsp");
        if !f.fp_frame {
            let _ = writeln!(s, "\t.cfi_def_cfa_offset {}", depth + locals);
        }
    }
    let saves = usize::from(f.saves);
    let fp = f.fp_frame;
    let epilogue = move |s: &mut String| {
        let mut d = depth + locals;
        if locals > 0 {
            if fp {
                let _ = writeln!(s, "\tlea -{}(%rbp), %rsp", 8 * saves);
            } else {
                let _ = writeln!(s, "\tadd ${locals}, %rsp\n\t.cfi_def_cfa_offset {depth}");
            }
            d = depth;
        }
        for r in SAVED[..saves].iter().rev() {
            d -= 8;
            let _ = writeln!(s, "\tpop {r}");
            if !fp {
                let _ = writeln!(s, "\t.cfi_def_cfa_offset {d}");
            }
            let _ = writeln!(s, "\t.cfi_restore {r}");
        }
        if fp {
            let _ = writeln!(s, "\tpop %rbp\n\t.cfi_def_cfa %rsp, 8\n\t.cfi_restore %rbp");
        }
        let _ = writeln!(s, "\tret");
    };
    body_and_epilogues(f, Arch::X86_64, idx, "test %edi, %edi\n\tjne", &epilogue, s);
}

/// AArch64 as GCC writes it: `stp x29, x30, [sp, -F]!`, `mov x29, sp`, `stp x19, x20`,
/// `sub sp, sp, #n`.
fn aarch64(f: &Pattern, idx: usize, s: &mut String) {
    let frame: i64 = if f.saves > 0 { 32 } else { 16 };
    let _ = writeln!(
        s,
        "\tstp x29, x30, [sp, -{frame}]!\n\t.cfi_def_cfa_offset {frame}\n\t.cfi_offset 29, -{frame}\n\t.cfi_offset 30, -{}",
        frame - 8
    );
    if f.fp_frame {
        let _ = writeln!(s, "\tmov x29, sp\n\t.cfi_def_cfa_register 29");
    }
    let saves = usize::from(f.saves);
    for (k, r) in [19, 20][..saves].iter().enumerate() {
        let off = 16 + 8 * k as i64;
        let _ = writeln!(
            s,
            "\tstr x{r}, [sp, {off}]\n\t.cfi_offset {r}, -{}",
            frame - off
        );
    }
    let locals = i64::from(f.locals());
    let (sub, add) = match f.locals {
        Locals::None => (String::new(), String::new()),
        Locals::Small(n) => (format!("sub sp, sp, #{n}"), format!("add sp, sp, #{n}")),
        Locals::Large(n) => (
            format!("sub sp, sp, #{}, lsl #12", n / 4096),
            format!("add sp, sp, #{}, lsl #12", n / 4096),
        ),
    };
    if locals > 0 {
        let _ = writeln!(s, "\t{sub}");
        if !f.fp_frame {
            let _ = writeln!(s, "\t.cfi_def_cfa_offset {}", frame + locals);
        }
    }
    let fp = f.fp_frame;
    let epilogue = move |s: &mut String| {
        if locals > 0 {
            let _ = writeln!(s, "\t{add}");
            if !fp {
                let _ = writeln!(s, "\t.cfi_def_cfa_offset {frame}");
            }
        }
        for (k, r) in [19, 20][..saves].iter().enumerate() {
            let _ = writeln!(s, "\tldr x{r}, [sp, {}]\n\t.cfi_restore {r}", 16 + 8 * k);
        }
        let _ = writeln!(
            s,
            "\tldp x29, x30, [sp], {frame}\n\t.cfi_restore 30\n\t.cfi_restore 29\n\t.cfi_def_cfa sp, 0\n\tret"
        );
    };
    body_and_epilogues(f, Arch::Aarch64, idx, "cbnz x0,", &epilogue, s);
}

/// s390x as GCC writes it: `stmg %rN, %r15, 8*N(%r15)`, `aghi %r15, -F` (or `lay`,
/// `agfi`), `lgr %r11, %r15`.
fn s390x(f: &Pattern, idx: usize, s: &mut String) {
    // The first register saved: %r14 (RA only), %r11 (and FP), %r6 (all callee-saved).
    let first: i64 = match (f.saves, f.fp_frame) {
        (0, false) => 14,
        (0, true) | (1, _) => 11,
        _ => 6,
    };
    let _ = writeln!(s, "\tstmg %r{first}, %r15, {}(%r15)", 8 * first);
    for r in first..=15 {
        // Slot of %rN: SP + 8N at entry, and the CFA is SP + 160.
        let _ = writeln!(s, "\t.cfi_offset %r{r}, {}", 8 * r - 160);
    }
    let frame = 160 + i64::from(f.locals());
    let alloc = match frame {
        0..=32_768 => format!("aghi %r15, -{frame}"),
        32_769..=524_288 => format!("lay %r15, -{frame}(%r15)"),
        _ => format!("agfi %r15, -{frame}"),
    };
    let _ = writeln!(s, "\t{alloc}\n\t.cfi_def_cfa_offset {}", 160 + frame);
    if f.fp_frame {
        let _ = writeln!(s, "\tlgr %r11, %r15\n\t.cfi_def_cfa_register %r11");
    }
    let base = if f.fp_frame { "%r11" } else { "%r15" };
    let epilogue = move |s: &mut String| {
        // `lmg`'s displacement is 20-bit signed: beyond it, free the frame first.
        if frame + 8 * first < 524_288 {
            let _ = writeln!(s, "\tlmg %r{first}, %r15, {}({base})", frame + 8 * first);
        } else {
            let _ = writeln!(
                s,
                "\tlgr %r15, {base}\n\tagfi %r15, {frame}\n\tlmg %r{first}, %r15, {}(%r15)",
                8 * first
            );
        }
        for r in first..=15 {
            let _ = writeln!(s, "\t.cfi_restore %r{r}");
        }
        let _ = writeln!(s, "\t.cfi_def_cfa %r15, 160\n\tbr %r14");
    };
    body_and_epilogues(f, Arch::S390x, idx, "cgijne %r2, 0,", &epilogue, s);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_say_the_shape() {
        let p = Pattern {
            fp_frame: true,
            saves: 2,
            locals: Locals::Small(32),
            body: vec![0, 1],
            early_return: true,
            padding: 70_000,
        };
        assert_eq!(p.name(), "fp_s2_small_early_pad4");
    }

    #[test]
    fn every_architecture_writes_balanced_cfi() {
        let data: Vec<u8> = (0..4096u32)
            .map(|i| i.wrapping_mul(2_654_435_761) as u8 ^ (i >> 3) as u8)
            .collect();
        for arch in Arch::ALL {
            let mut u = Unstructured::new(&data);
            let p = PatternProgram::arbitrary(&mut u, arch, 6).unwrap();
            let text = p.to_asm();
            assert_eq!(
                text.matches(".cfi_remember_state").count(),
                text.matches(".cfi_restore_state").count()
            );
            assert_eq!(text.matches(".cfi_startproc").count(), p.funcs.len());
        }
    }
}
