//! A small evaluator for the DWARF expressions linkers write as CFA rules (DWARF 5 §2.5),
//! reducing one to "register + offset" at a given PC.
//!
//! GNU ld describes the x86-64 lazy PLT entries with one `DW_CFA_def_cfa_expression` for
//! every entry: `DW_OP_breg7 (rsp) 8; DW_OP_breg16 (rip) 0; DW_OP_lit15; DW_OP_and;
//! DW_OP_lit11; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus` (CFA = rsp + 8, plus 8 once the
//! entry has pushed its index). At a known PC the instruction pointer is a constant, so the
//! expression is `rsp + n`, which SFrame can say. GCC's DRAP prologues (x86-64 stack
//! realignment) write `DW_CFA_def_cfa_expression: DW_OP_breg6 -8; DW_OP_deref` (CFA =
//! `*(rbp - 8)`) and `DW_CFA_expression: r6: DW_OP_breg6 0` (rbp saved at `rbp + 0`), which
//! SFrame v3's flexible FDEs can say. Values on the stack are constants, one register (or
//! the CFA) plus a constant, or, as the last operation, the word at such an address; an
//! operation on anything else (a register times something, two registers, a dereference of
//! a dereference) is not reducible and is named.

/// A stack value: a constant, a register's value plus a constant, or the word stored there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Value {
    Const(u64),
    RegPlus(Base, i64),
    Deref(Base, i64),
}

/// What an address is based on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Base {
    /// A DWARF register.
    Reg(u16),
    /// The CFA (pushed before a register rule's expression, DWARF 5 §6.4.2.3).
    Cfa,
    /// A register number beyond 16 bits: kept apart from every real one.
    Unknown,
}

/// An expression's value: `base + offset`, or the word stored there (`deref`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    pub base: Base,
    pub offset: i64,
    pub deref: bool,
}

/// Why an expression does not reduce to register + offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExprError {
    /// An operation this evaluator does not know (its opcode).
    UnknownOp(u8),
    /// An operation on a register's value other than adding or subtracting a constant
    /// (its opcode), or a dereference.
    NotAffine(u8),
    /// Fewer values on the stack than the operation takes.
    StackUnderflow,
    /// The expression ends inside an operand.
    Truncated,
    /// Division by zero (`DW_OP_div`, `DW_OP_mod`).
    DivideByZero,
    /// The result is a constant, not register + offset.
    ConstantResult,
    /// The expression leaves nothing on the stack.
    Empty,
}

impl ExprError {
    /// A short name for reports.
    pub fn name(self) -> &'static str {
        match self {
            ExprError::UnknownOp(_) => "unknown-op",
            ExprError::NotAffine(_) => "not-affine",
            ExprError::StackUnderflow => "stack-underflow",
            ExprError::Truncated => "truncated",
            ExprError::DivideByZero => "divide-by-zero",
            ExprError::ConstantResult => "constant-result",
            ExprError::Empty => "empty",
        }
    }
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
    big_endian: bool,
}

impl Reader<'_> {
    fn bytes(&mut self, n: usize) -> Result<&[u8], ExprError> {
        let s = self
            .b
            .get(self.at..self.at.checked_add(n).ok_or(ExprError::Truncated)?)
            .ok_or(ExprError::Truncated)?;
        self.at += n;
        Ok(s)
    }
    fn fixed(&mut self, n: usize) -> Result<u64, ExprError> {
        let big = self.big_endian;
        let s = self.bytes(n)?;
        let mut v = 0u64;
        for i in 0..n {
            let b = if big { s[i] } else { s[n - 1 - i] };
            v = (v << 8) | u64::from(b);
        }
        Ok(v)
    }
    fn signed(&mut self, n: usize) -> Result<i64, ExprError> {
        let v = self.fixed(n)?;
        let shift = 64 - 8 * n as u32;
        Ok(((v << shift) as i64) >> shift)
    }
    fn uleb(&mut self) -> Result<u64, ExprError> {
        let (mut v, mut shift) = (0u64, 0u32);
        loop {
            let b = self.bytes(1)?[0];
            if shift < 64 {
                v |= u64::from(b & 0x7f) << shift;
            }
            shift += 7;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
    }
    fn sleb(&mut self) -> Result<i64, ExprError> {
        let (mut v, mut shift) = (0i64, 0u32);
        loop {
            let b = self.bytes(1)?[0];
            if shift < 64 {
                v |= i64::from(b & 0x7f) << shift;
            }
            shift += 7;
            if b & 0x80 == 0 {
                if shift < 64 && b & 0x40 != 0 {
                    v |= -1i64 << shift;
                }
                return Ok(v);
            }
        }
    }
}

/// The DWARF opcodes this evaluator knows (DWARF 5 §7.7.1).
mod op {
    pub const ADDR: u8 = 0x03;
    pub const DEREF: u8 = 0x06;
    pub const CONST1U: u8 = 0x08;
    pub const CONST1S: u8 = 0x09;
    pub const CONST2U: u8 = 0x0a;
    pub const CONST2S: u8 = 0x0b;
    pub const CONST4U: u8 = 0x0c;
    pub const CONST4S: u8 = 0x0d;
    pub const CONST8U: u8 = 0x0e;
    pub const CONST8S: u8 = 0x0f;
    pub const CONSTU: u8 = 0x10;
    pub const CONSTS: u8 = 0x11;
    pub const DUP: u8 = 0x12;
    pub const DROP: u8 = 0x13;
    pub const OVER: u8 = 0x14;
    pub const SWAP: u8 = 0x16;
    pub const AND: u8 = 0x1a;
    pub const DIV: u8 = 0x1b;
    pub const MINUS: u8 = 0x1c;
    pub const MOD: u8 = 0x1d;
    pub const MUL: u8 = 0x1e;
    pub const NEG: u8 = 0x1f;
    pub const NOT: u8 = 0x20;
    pub const OR: u8 = 0x21;
    pub const PLUS: u8 = 0x22;
    pub const PLUS_UCONST: u8 = 0x23;
    pub const SHL: u8 = 0x24;
    pub const SHR: u8 = 0x25;
    pub const SHRA: u8 = 0x26;
    pub const XOR: u8 = 0x27;
    pub const EQ: u8 = 0x29;
    pub const GE: u8 = 0x2a;
    pub const GT: u8 = 0x2b;
    pub const LE: u8 = 0x2c;
    pub const LT: u8 = 0x2d;
    pub const NE: u8 = 0x2e;
    pub const LIT0: u8 = 0x30;
    pub const LIT31: u8 = 0x4f;
    pub const BREG0: u8 = 0x70;
    pub const BREG31: u8 = 0x8f;
    pub const BREGX: u8 = 0x92;
    pub const NOP: u8 = 0x96;
}

/// Evaluate `expr` as a CFA rule (DWARF 5 §6.4.2.2: nothing is pushed first) at a PC where
/// the DWARF register `pc_reg` (if the ABI has one) holds `pc`.
pub fn eval_cfa(
    expr: &[u8],
    pc_reg: Option<u16>,
    pc: u64,
    big_endian: bool,
) -> Result<Location, ExprError> {
    eval(expr, pc_reg, pc, big_endian, false)
}

/// Evaluate `expr` as a register rule's expression (`DW_CFA_expression`,
/// `DW_CFA_val_expression`: the CFA is pushed first, DWARF 5 §6.4.2.3).
pub fn eval_register_rule(
    expr: &[u8],
    pc_reg: Option<u16>,
    pc: u64,
    big_endian: bool,
) -> Result<Location, ExprError> {
    eval(expr, pc_reg, pc, big_endian, true)
}

fn eval(
    expr: &[u8],
    pc_reg: Option<u16>,
    pc: u64,
    big_endian: bool,
    push_cfa: bool,
) -> Result<Location, ExprError> {
    use Value::*;
    let mut r = Reader {
        b: expr,
        at: 0,
        big_endian,
    };
    let mut stack: Vec<Value> = Vec::new();
    if push_cfa {
        stack.push(RegPlus(Base::Cfa, 0));
    }
    let breg = |reg: u64, off: i64| -> Value {
        match u16::try_from(reg) {
            Ok(reg) if Some(reg) == pc_reg => Const(pc.wrapping_add(off as u64)),
            Ok(reg) => RegPlus(Base::Reg(reg), off),
            Err(_) => RegPlus(Base::Unknown, off),
        }
    };
    while r.at < expr.len() {
        let code = r.bytes(1)?[0];
        let push = match code {
            op::LIT0..=op::LIT31 => Some(Const(u64::from(code - op::LIT0))),
            op::CONST1U => Some(Const(r.fixed(1)?)),
            op::CONST1S => Some(Const(r.signed(1)? as u64)),
            op::CONST2U => Some(Const(r.fixed(2)?)),
            op::CONST2S => Some(Const(r.signed(2)? as u64)),
            op::CONST4U => Some(Const(r.fixed(4)?)),
            op::CONST4S => Some(Const(r.signed(4)? as u64)),
            op::CONST8U | op::CONST8S | op::ADDR => Some(Const(r.fixed(8)?)),
            op::CONSTU => Some(Const(r.uleb()?)),
            op::CONSTS => Some(Const(r.sleb()? as u64)),
            op::BREG0..=op::BREG31 => {
                let off = r.sleb()?;
                Some(breg(u64::from(code - op::BREG0), off))
            }
            op::BREGX => {
                let reg = r.uleb()?;
                let off = r.sleb()?;
                Some(breg(reg, off))
            }
            op::NOP => None,
            op::DUP => Some(*stack.last().ok_or(ExprError::StackUnderflow)?),
            op::DROP => {
                stack.pop().ok_or(ExprError::StackUnderflow)?;
                None
            }
            op::OVER => {
                let n = stack.len();
                Some(
                    *stack
                        .get(n.wrapping_sub(2))
                        .ok_or(ExprError::StackUnderflow)?,
                )
            }
            op::SWAP => {
                let n = stack.len();
                if n < 2 {
                    return Err(ExprError::StackUnderflow);
                }
                stack.swap(n - 1, n - 2);
                None
            }
            op::PLUS_UCONST => {
                let k = r.uleb()?;
                let v = stack.pop().ok_or(ExprError::StackUnderflow)?;
                Some(match v {
                    Const(a) => Const(a.wrapping_add(k)),
                    RegPlus(g, o) => RegPlus(g, o.wrapping_add(k as i64)),
                    Deref(..) => return Err(ExprError::NotAffine(code)),
                })
            }
            op::NEG | op::NOT => match stack.pop().ok_or(ExprError::StackUnderflow)? {
                Const(a) if code == op::NEG => Some(Const(a.wrapping_neg())),
                Const(a) => Some(Const(!a)),
                _ => return Err(ExprError::NotAffine(code)),
            },
            op::AND
            | op::DIV
            | op::MINUS
            | op::MOD
            | op::MUL
            | op::OR
            | op::PLUS
            | op::SHL
            | op::SHR
            | op::SHRA
            | op::XOR
            | op::EQ
            | op::GE
            | op::GT
            | op::LE
            | op::LT
            | op::NE => {
                let b = stack.pop().ok_or(ExprError::StackUnderflow)?;
                let a = stack.pop().ok_or(ExprError::StackUnderflow)?;
                Some(binary(code, a, b)?)
            }
            op::DEREF => match stack.pop().ok_or(ExprError::StackUnderflow)? {
                RegPlus(g, o) => Some(Deref(g, o)),
                _ => return Err(ExprError::NotAffine(code)),
            },
            other => return Err(ExprError::UnknownOp(other)),
        };
        if let Some(v) = push {
            stack.push(v);
        }
    }
    let loc = |base, offset, deref| Location {
        base,
        offset,
        deref,
    };
    match stack.pop() {
        Some(RegPlus(g, o)) => Ok(loc(g, o, false)),
        Some(Deref(g, o)) => Ok(loc(g, o, true)),
        Some(Const(_)) => Err(ExprError::ConstantResult),
        None => Err(ExprError::Empty),
    }
}

/// `a OP b` (`b` the top of the stack). Comparisons are signed (DWARF 5 §2.5.1.4).
fn binary(code: u8, a: Value, b: Value) -> Result<Value, ExprError> {
    use Value::*;
    Ok(match (a, b) {
        (Const(x), Const(y)) => Const(match code {
            op::AND => x & y,
            op::OR => x | y,
            op::XOR => x ^ y,
            op::PLUS => x.wrapping_add(y),
            op::MINUS => x.wrapping_sub(y),
            op::MUL => x.wrapping_mul(y),
            op::DIV if y == 0 => return Err(ExprError::DivideByZero),
            op::DIV => (x as i64).wrapping_div(y as i64) as u64,
            op::MOD if y == 0 => return Err(ExprError::DivideByZero),
            op::MOD => x % y,
            op::SHL => x.checked_shl(y.min(64) as u32).unwrap_or(0),
            op::SHR => x.checked_shr(y.min(64) as u32).unwrap_or(0),
            op::SHRA => ((x as i64) >> y.min(63)) as u64,
            op::EQ => u64::from(x == y),
            op::NE => u64::from(x != y),
            op::GE => u64::from(x as i64 >= y as i64),
            op::GT => u64::from(x as i64 > y as i64),
            op::LE => u64::from(x as i64 <= y as i64),
            op::LT => u64::from((x as i64) < y as i64),
            other => return Err(ExprError::UnknownOp(other)),
        }),
        (RegPlus(g, o), Const(y)) if code == op::PLUS => RegPlus(g, o.wrapping_add(y as i64)),
        (Const(x), RegPlus(g, o)) if code == op::PLUS => RegPlus(g, o.wrapping_add(x as i64)),
        (RegPlus(g, o), Const(y)) if code == op::MINUS => RegPlus(g, o.wrapping_sub(y as i64)),
        _ => return Err(ExprError::NotAffine(code)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GNU ld's x86-64 lazy PLT expression (`elf_x86_64_eh_frame_lazy_plt` in
    /// bfd/elf64-x86-64.c), the bytes DWARF 5 §7.7.1 gives each operation: breg7 8, breg16 0,
    /// lit15, and, lit11, ge, lit3, shl, plus.
    const LAZY_PLT: [u8; 11] = [0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22];

    #[test]
    fn the_lazy_plt_expression_is_rsp_plus_8_then_16() {
        // Entry at 0x1020: the push ends at offset 11 of the 16-byte entry.
        for k in 0..16u64 {
            let want = if k >= 11 { 16 } else { 8 };
            assert_eq!(
                eval_cfa(&LAZY_PLT, Some(16), 0x1020 + k, false),
                Ok(Location {
                    base: Base::Reg(7),
                    offset: want,
                    deref: false
                }),
                "{k}"
            );
        }
    }

    #[test]
    fn what_is_not_register_plus_offset_is_named() {
        // breg7 0; deref; deref
        assert_eq!(
            eval_cfa(&[0x77, 0, 0x06, 0x06], Some(16), 0, false),
            Err(ExprError::NotAffine(0x06))
        );
        // lit1
        assert_eq!(
            eval_cfa(&[0x31], Some(16), 0, false),
            Err(ExprError::ConstantResult)
        );
        // breg7 0; breg6 0; plus
        assert_eq!(
            eval_cfa(&[0x77, 0, 0x76, 0, 0x22], Some(16), 0, false),
            Err(ExprError::NotAffine(0x22))
        );
        assert_eq!(eval_cfa(&[0x77], None, 0, false), Err(ExprError::Truncated));
        assert_eq!(
            eval_cfa(&[0xe0], None, 0, false),
            Err(ExprError::UnknownOp(0xe0))
        );
        assert_eq!(
            eval_cfa(&[0x22], None, 0, false),
            Err(ExprError::StackUnderflow)
        );
    }

    #[test]
    fn constants_of_every_width_and_endian() {
        let rsp = |offset| Location {
            base: Base::Reg(7),
            offset,
            deref: false,
        };
        // breg7 0; const2s -16 (big-endian bytes ff f0); plus
        assert_eq!(
            eval_cfa(&[0x77, 0, 0x0b, 0xff, 0xf0, 0x22], None, 0, true),
            Ok(rsp(-16))
        );
        // breg7 0; consts -16 (sleb 0x70); plus
        assert_eq!(
            eval_cfa(&[0x77, 0, 0x11, 0x70, 0x22], None, 0, false),
            Ok(rsp(-16))
        );
    }

    #[test]
    fn gcc_drap_rules_are_a_dereference_and_an_address() {
        // GCC 12's x86-64 DRAP prologue (`-mstackrealign`, over-aligned locals): CFA =
        // DW_OP_breg6 (rbp) -8; DW_OP_deref, and rbp saved by DW_OP_breg6 (rbp) 0.
        assert_eq!(
            eval_cfa(&[0x76, 0x78, 0x06], Some(16), 0, false),
            Ok(Location {
                base: Base::Reg(6),
                offset: -8,
                deref: true
            })
        );
        assert_eq!(
            eval_register_rule(&[0x76, 0], Some(16), 0, false),
            Ok(Location {
                base: Base::Reg(6),
                offset: 0,
                deref: false
            })
        );
        // A register rule's expression starts from the CFA: DW_OP_plus_uconst 16.
        assert_eq!(
            eval_register_rule(&[0x23, 16], None, 0, false),
            Ok(Location {
                base: Base::Cfa,
                offset: 16,
                deref: false
            })
        );
    }
}
