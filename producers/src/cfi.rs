//! The DWARF CFI of an object's `.eh_frame`, as rows per PC.
//!
//! gimli parses the section (after this module applies its relocations in the synthetic
//! layout of [`sframe_elf::section_addresses`], the same one `sframe_elf::load` gives
//! `.sframe`); the rows are evaluated here, keeping apart an explicit `DW_CFA_undefined`
//! and a register without a rule (gimli's own table does not), since SFrame's "not saved"
//! is the latter.

use gimli::{BaseAddresses, CallFrameInstruction, CieOrFde, EhFrame, LittleEndian, UnwindSection};
use goblin::elf::Elf;
use std::collections::BTreeMap;

/// A register's rule (DWARF 6.4.1), as far as SFrame cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegRule {
    /// `DW_CFA_undefined`.
    Undefined,
    /// `DW_CFA_same_value`, or no rule at all.
    SameValue,
    /// Saved at CFA + n.
    Offset(i64),
    /// Value is CFA + n.
    ValOffset(i64),
    /// In another register.
    Register(u16),
    /// Saved at register + n (`DW_CFA_expression` reducing to `DW_OP_bregN n`).
    AtRegister(u16, i64),
    /// Value is register + n (`DW_CFA_val_expression` reducing to `DW_OP_bregN n`).
    ValRegister(u16, i64),
    /// A DWARF expression that does not reduce to one of the above.
    Expression,
}

/// The CFA rule.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum CfaRule {
    RegOffset(u16, i64),
    /// `DW_CFA_def_cfa_expression`, with the expression's bytes (evaluated by
    /// [`crate::dwarf_expr`] where it reduces to a register plus an offset).
    Expression(Vec<u8>),
}

/// One row: from `start` (absolute, in the synthetic layout) to the next row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub start: u64,
    pub cfa: CfaRule,
    pub regs: BTreeMap<u16, RegRule>,
    /// AArch64 `RA_SIGN_STATE` (toggled by `DW_CFA_AARCH64_negate_ra_state`).
    pub ra_signed: bool,
}

impl Row {
    pub fn reg(&self, r: u16) -> RegRule {
        self.regs.get(&r).copied().unwrap_or(RegRule::SameValue)
    }
}

/// One FDE's function and rows.
#[derive(Debug, Clone)]
pub struct FdeRows {
    pub start: u64,
    pub len: u64,
    pub signal: bool,
    /// AArch64: the CIE's augmentation has `B` (return addresses signed with key B).
    pub b_key: bool,
    pub ra_column: u16,
    /// The CIE's code alignment factor: row starts are multiples of it from `start`.
    pub code_align: u64,
    pub rows: Vec<Row>,
}

impl FdeRows {
    /// The row at `pc`.
    pub fn row_at(&self, pc: u64) -> Option<&Row> {
        self.rows.iter().rev().find(|r| r.start <= pc)
    }
}

/// Relocated bytes and address of a section named `name` of a relocatable object (or the
/// bytes as they are in a linked file).
pub fn relocated_section(file: &[u8], elf: &Elf<'_>, name: &str) -> Option<(Vec<u8>, u64)> {
    let machine = match elf.header.e_machine {
        goblin::elf::header::EM_X86_64 => sframe_elf::Machine::X86_64,
        goblin::elf::header::EM_AARCH64 => sframe_elf::Machine::Aarch64,
        goblin::elf::header::EM_S390 => sframe_elf::Machine::S390x,
        _ => return None,
    };
    let (idx, sh) = elf
        .section_headers
        .iter()
        .enumerate()
        .find(|(_, s)| elf.shdr_strtab.get_at(s.sh_name) == Some(name))?;
    let start = usize::try_from(sh.sh_offset).ok()?;
    let mut bytes = file
        .get(start..start.checked_add(usize::try_from(sh.sh_size).ok()?)?)?
        .to_vec();
    let addrs = sframe_elf::section_addresses(elf);
    let vaddr = addrs.get(idx).copied().unwrap_or(0);
    if elf.header.e_type == goblin::elf::header::ET_REL {
        for (_, relocs) in elf.shdr_relocs.iter().filter(|(ri, _)| {
            elf.section_headers
                .get(*ri)
                .is_some_and(|r| r.sh_info as usize == idx)
        }) {
            for r in relocs.iter() {
                let sym = elf.syms.get(r.r_sym)?;
                let s = addrs
                    .get(sym.st_shndx)
                    .copied()
                    .unwrap_or(0)
                    .wrapping_add(sym.st_value);
                let a = r.r_addend.unwrap_or(0) as u64;
                let p = vaddr.wrapping_add(r.r_offset);
                let (value, width) = sframe_elf::reloc_value(machine, r.r_type, s, a, p)?;
                let off = usize::try_from(r.r_offset).ok()?;
                let dst = bytes.get_mut(off..off + width)?;
                if elf.little_endian {
                    dst.copy_from_slice(&value.to_le_bytes()[..width]);
                } else {
                    dst.copy_from_slice(&value.to_be_bytes()[8 - width..]);
                }
            }
        }
    }
    Some((bytes, vaddr))
}

/// Every FDE of `.eh_frame` with its rows. Errors are strings (the producer wrote
/// something gimli cannot read): the first one ends the reading.
pub fn read_eh_frame(file: &[u8], elf: &Elf<'_>) -> Result<Vec<FdeRows>, String> {
    let all = read_eh_frame_lenient(file, elf);
    match all.errors.into_iter().next() {
        Some(e) => Err(e.message),
        None => Ok(all.fdes),
    }
}

/// An `.eh_frame` entry that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CfiError {
    /// The FDE's function, when its header could be read.
    pub function: Option<(u64, u64)>,
    /// gimli's or this module's message.
    pub message: String,
}

/// `.eh_frame` as far as it reads: the FDEs that read, and an error per FDE that did not
/// (an error in the entry list itself ends it).
#[derive(Debug, Clone, Default)]
pub struct EhFrameRows {
    pub fdes: Vec<FdeRows>,
    pub errors: Vec<CfiError>,
}

/// Every FDE of `.eh_frame` that reads, and what did not: one FDE's bad instruction
/// leaves the others readable (for files nobody here wrote).
pub fn read_eh_frame_lenient(file: &[u8], elf: &Elf<'_>) -> EhFrameRows {
    if !elf.little_endian {
        return read_eh_frame_endian(file, elf, gimli::BigEndian);
    }
    read_eh_frame_endian(file, elf, LittleEndian)
}

fn read_eh_frame_endian<E: gimli::Endianity>(file: &[u8], elf: &Elf<'_>, endian: E) -> EhFrameRows {
    let mut out = EhFrameRows::default();
    let Some((mut bytes, vaddr)) = relocated_section(file, elf, ".eh_frame") else {
        return out;
    };
    let b_key_cies = hide_b_key_augmentation(&mut bytes, elf.little_endian);
    let mut eh = EhFrame::new(&bytes, endian);
    if elf.header.e_machine == goblin::elf::header::EM_AARCH64 {
        // `DW_CFA_AARCH64_negate_ra_state` shares its opcode with `DW_CFA_GNU_window_save`.
        eh.set_vendor(gimli::Vendor::AArch64);
    }
    let bases = BaseAddresses::default().set_eh_frame(vaddr);
    let mut entries = eh.entries(&bases);
    loop {
        let partial = match entries.next() {
            Ok(None) => break,
            Ok(Some(CieOrFde::Cie(_))) => continue,
            Ok(Some(CieOrFde::Fde(p))) => p,
            Err(e) => {
                out.errors.push(CfiError {
                    function: None,
                    message: e.to_string(),
                });
                break;
            }
        };
        let fde = match partial.parse(EhFrame::cie_from_offset) {
            Ok(f) => f,
            Err(e) => {
                out.errors.push(CfiError {
                    function: None,
                    message: e.to_string(),
                });
                continue;
            }
        };
        let pc_reg = (elf.header.e_machine == goblin::elf::header::EM_X86_64).then_some(16);
        match fde_rows(
            &eh,
            &bases,
            &fde,
            &b_key_cies,
            &bytes,
            pc_reg,
            !elf.little_endian,
        ) {
            Ok(rows) => out.fdes.push(rows),
            Err(message) => out.errors.push(CfiError {
                function: Some((fde.initial_address(), fde.len())),
                message,
            }),
        }
    }
    out
}

/// One FDE's rows.
fn fde_rows<R: gimli::Reader<Offset = usize>>(
    eh: &EhFrame<R>,
    bases: &BaseAddresses,
    fde: &gimli::FrameDescriptionEntry<R>,
    b_key_cies: &BTreeMap<usize, bool>,
    bytes: &[u8],
    pc_reg: Option<u16>,
    big_endian: bool,
) -> Result<FdeRows, String> {
    let cie = fde.cie();
    let caf = cie.code_alignment_factor();
    let daf = cie.data_alignment_factor();
    let ra_column = cie.return_address_register().0;
    let start = fde.initial_address();
    let (b_key, signal) = match b_key_cies.get(&cie.offset()) {
        Some(&signal) => (true, signal),
        None => (false, fde.is_signal_trampoline()),
    };
    let mut st = State {
        cfa: CfaRule::RegOffset(0, 0),
        regs: BTreeMap::new(),
        ra_signed: false,
        pc_reg,
        big_endian,
    };
    let mut stack: Vec<State> = Vec::new();
    let mut ins = cie.instructions(eh, bases);
    while let Some(i) = ins.next().map_err(|e| e.to_string())? {
        st.apply(&i, daf, None, &mut stack, bytes)?;
    }
    let initial = st.clone();
    let mut rows: Vec<Row> = Vec::new();
    let mut pc = start;
    let mut ins = fde.instructions(eh, bases);
    while let Some(i) = ins.next().map_err(|e| e.to_string())? {
        let next_pc = match i {
            CallFrameInstruction::AdvanceLoc { delta } => {
                Some(pc.wrapping_add(u64::from(delta).wrapping_mul(caf)))
            }
            CallFrameInstruction::SetLoc { address } => Some(address),
            _ => None,
        };
        if let Some(n) = next_pc {
            push_row(&mut rows, pc, &st);
            pc = n;
            continue;
        }
        st.apply(&i, daf, Some(&initial), &mut stack, bytes)?;
    }
    push_row(&mut rows, pc, &st);
    Ok(FdeRows {
        start,
        len: fde.len(),
        signal,
        b_key,
        ra_column,
        code_align: caf,
        rows,
    })
}

/// gimli does not know the AArch64 augmentation `B` (no augmentation data; the CIE's
/// functions sign return addresses with key B). In each CIE whose augmentation string has
/// it, it is overwritten with `S`, which gimli reads and which takes no data either; the
/// CIEs changed are returned by offset, with whether they had `S` of their own.
fn hide_b_key_augmentation(bytes: &mut [u8], little_endian: bool) -> BTreeMap<usize, bool> {
    let word = |b: &[u8], at: usize| -> Option<u32> {
        let w: [u8; 4] = b.get(at..at.checked_add(4)?)?.try_into().ok()?;
        Some(if little_endian {
            u32::from_le_bytes(w)
        } else {
            u32::from_be_bytes(w)
        })
    };
    let mut out = BTreeMap::new();
    let mut at = 0usize;
    while let Some(len) = word(bytes, at) {
        // A zero length ends the section; a 64-bit length is not written by assemblers.
        if len == 0 || len == u32::MAX {
            break;
        }
        let next = at.saturating_add(4).saturating_add(len as usize);
        // CIE id 0, then the version byte and the NUL-terminated augmentation string.
        if word(bytes, at + 4) == Some(0) {
            let aug_start = at + 9;
            let aug_end = bytes
                .get(aug_start..next.min(bytes.len()))
                .and_then(|a| a.iter().position(|&c| c == 0))
                .map(|n| aug_start + n);
            if let Some(end) = aug_end {
                let aug = &mut bytes[aug_start..end];
                if let Some(b) = aug.iter().position(|&c| c == b'B') {
                    let signal = aug.contains(&b'S');
                    aug[b] = b'S';
                    out.insert(at, signal);
                }
            }
        }
        at = next;
    }
    out
}

fn push_row(rows: &mut Vec<Row>, pc: u64, st: &State) {
    let row = Row {
        start: pc,
        cfa: st.cfa.clone(),
        regs: st.regs.clone(),
        ra_signed: st.ra_signed,
    };
    if let Some(last) = rows.last_mut() {
        if last.start == pc {
            *last = row;
            return;
        }
    }
    rows.push(row);
}

#[derive(Debug, Clone)]
struct State {
    cfa: CfaRule,
    regs: BTreeMap<u16, RegRule>,
    ra_signed: bool,
    /// The DWARF register holding the PC (x86-64: 16): an expression using it depends on
    /// the PC and is left an expression.
    pc_reg: Option<u16>,
    big_endian: bool,
}

/// The rule of a register whose `DW_CFA_expression` (`val`: `DW_CFA_val_expression`) is
/// `expr`, where it reduces to a register or the CFA plus an offset.
fn register_expression(expr: &[u8], val: bool, pc_reg: Option<u16>, big: bool) -> RegRule {
    use crate::dwarf_expr::{eval_register_rule, Base, Location};
    // A PC that is no instruction's: an expression using the PC gives a constant.
    match eval_register_rule(expr, pc_reg, 0, big) {
        Ok(Location {
            base: Base::Cfa,
            offset,
            deref,
        }) => match (val, deref) {
            (false, false) | (true, true) => RegRule::Offset(offset),
            (true, false) => RegRule::ValOffset(offset),
            (false, true) => RegRule::Expression,
        },
        Ok(Location {
            base: Base::Reg(r),
            offset,
            deref,
        }) => match (val, deref) {
            (false, false) | (true, true) => RegRule::AtRegister(r, offset),
            (true, false) => RegRule::ValRegister(r, offset),
            (false, true) => RegRule::Expression,
        },
        _ => RegRule::Expression,
    }
}

impl State {
    fn apply<T: gimli::ReaderOffset>(
        &mut self,
        i: &CallFrameInstruction<T>,
        daf: i64,
        initial: Option<&State>,
        stack: &mut Vec<State>,
        section: &[u8],
    ) -> Result<(), String> {
        use CallFrameInstruction as C;
        let (cfa_reg, cfa_off) = match self.cfa {
            CfaRule::RegOffset(r, o) => (Some(r), o),
            CfaRule::Expression(_) => (None, 0),
        };
        match *i {
            C::DefCfa { register, offset } => {
                self.cfa = CfaRule::RegOffset(register.0, offset as i64)
            }
            C::DefCfaSf {
                register,
                factored_offset,
            } => self.cfa = CfaRule::RegOffset(register.0, factored_offset.wrapping_mul(daf)),
            C::DefCfaRegister { register } => match cfa_reg {
                Some(_) => self.cfa = CfaRule::RegOffset(register.0, cfa_off),
                None => return Err("def_cfa_register after a CFA expression".into()),
            },
            C::DefCfaOffset { offset } => match cfa_reg {
                Some(r) => self.cfa = CfaRule::RegOffset(r, offset as i64),
                None => return Err("def_cfa_offset after a CFA expression".into()),
            },
            C::DefCfaOffsetSf { factored_offset } => match cfa_reg {
                Some(r) => self.cfa = CfaRule::RegOffset(r, factored_offset.wrapping_mul(daf)),
                None => return Err("def_cfa_offset_sf after a CFA expression".into()),
            },
            C::DefCfaExpression { expression } => {
                let at = expression.offset.into_u64() as usize;
                let len = expression.length.into_u64() as usize;
                let bytes = at
                    .checked_add(len)
                    .and_then(|end| section.get(at..end))
                    .ok_or("DW_CFA_def_cfa_expression outside .eh_frame")?;
                self.cfa = CfaRule::Expression(bytes.to_vec());
            }
            C::Undefined { register } => {
                self.regs.insert(register.0, RegRule::Undefined);
            }
            C::SameValue { register } => {
                self.regs.insert(register.0, RegRule::SameValue);
            }
            C::Offset {
                register,
                factored_offset,
            } => {
                self.regs.insert(
                    register.0,
                    RegRule::Offset((factored_offset as i64).wrapping_mul(daf)),
                );
            }
            C::OffsetExtendedSf {
                register,
                factored_offset,
            } => {
                self.regs.insert(
                    register.0,
                    RegRule::Offset(factored_offset.wrapping_mul(daf)),
                );
            }
            C::ValOffset {
                register,
                factored_offset,
            } => {
                self.regs.insert(
                    register.0,
                    RegRule::ValOffset((factored_offset as i64).wrapping_mul(daf)),
                );
            }
            C::ValOffsetSf {
                register,
                factored_offset,
            } => {
                self.regs.insert(
                    register.0,
                    RegRule::ValOffset(factored_offset.wrapping_mul(daf)),
                );
            }
            C::Register {
                dest_register,
                src_register,
            } => {
                self.regs
                    .insert(dest_register.0, RegRule::Register(src_register.0));
            }
            C::Expression {
                register,
                expression,
            }
            | C::ValExpression {
                register,
                expression,
            } => {
                let at = expression.offset.into_u64() as usize;
                let len = expression.length.into_u64() as usize;
                let bytes = at
                    .checked_add(len)
                    .and_then(|end| section.get(at..end))
                    .ok_or("DW_CFA_expression outside .eh_frame")?;
                let val = matches!(i, C::ValExpression { .. });
                let rule = register_expression(bytes, val, self.pc_reg, self.big_endian);
                self.regs.insert(register.0, rule);
            }
            C::Restore { register } => {
                let Some(init) = initial else {
                    return Err("DW_CFA_restore in a CIE".into());
                };
                match init.regs.get(&register.0) {
                    Some(r) => {
                        self.regs.insert(register.0, *r);
                    }
                    None => {
                        self.regs.remove(&register.0);
                    }
                }
            }
            C::RememberState => stack.push(self.clone()),
            C::RestoreState => {
                let Some(s) = stack.pop() else {
                    return Err("DW_CFA_restore_state without a remembered state".into());
                };
                // The location is not part of the remembered state.
                *self = s;
            }
            C::NegateRaState => self.ra_signed = !self.ra_signed,
            C::ArgsSize { .. } | C::Nop | C::SetLoc { .. } | C::AdvanceLoc { .. } => {}
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{register_expression, RegRule};

    #[test]
    fn register_expressions_reduce_to_rules_where_they_can() {
        // DW_CFA_expression r6: DW_OP_breg6 0 (GCC's DRAP: rbp saved at rbp + 0).
        assert_eq!(
            register_expression(&[0x76, 0], false, Some(16), false),
            RegRule::AtRegister(6, 0)
        );
        // DW_CFA_val_expression: DW_OP_breg7 16: the value is rsp + 16.
        assert_eq!(
            register_expression(&[0x77, 16], true, Some(16), false),
            RegRule::ValRegister(7, 16)
        );
        // DW_CFA_expression: DW_OP_plus_uconst 16 on the CFA pushed first: saved at CFA+16.
        assert_eq!(
            register_expression(&[0x23, 16], false, None, false),
            RegRule::Offset(16)
        );
        // DW_CFA_expression: DW_OP_breg16 (rip) 8: depends on the PC, left an expression.
        assert_eq!(
            register_expression(&[0x80, 8], false, Some(16), false),
            RegRule::Expression
        );
    }
}
