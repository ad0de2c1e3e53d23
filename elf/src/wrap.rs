//! The other direction: a raw `.sframe` section wrapped in a minimal ELF file, so that the
//! readers that only take ELF (`objdump --sframe`, `readelf --sframe`, `llvm-readobj
//! --sframe`) show it. The file is an ELF64 executable of the section's machine and byte
//! order with three sections (the null one, `.sframe` allocated at address 0, and
//! `.shstrtab`), no program headers and no code: enough for binutils 2.40, 2.44 and 2.47 and
//! for LLVM's tools, which the text adapters and the bug reports (`sframe_harness::report`)
//! run on it.

use sframe_spec::{Abi, Endian};

/// ELF machine numbers (`e_machine`).
pub const EM_S390: u16 = 22;
pub const EM_X86_64: u16 = 62;
pub const EM_AARCH64: u16 = 183;

/// The ELF machine of an SFrame ABI.
pub fn e_machine(abi: Abi) -> u16 {
    match abi {
        Abi::Amd64 => EM_X86_64,
        Abi::Aarch64Le | Abi::Aarch64Be => EM_AARCH64,
        Abi::S390x => EM_S390,
    }
}

/// A minimal ELF64 executable for `machine` in byte order `endian`, holding `data` as its
/// `.sframe` section at address 0.
pub fn wrap_sframe(data: &[u8], machine: u16, endian: Endian) -> Vec<u8> {
    let shstr: &[u8] = b"\0.sframe\0.shstrtab\0";
    let off_data = 64usize;
    let off_shstr = off_data + data.len();
    let off_sh = (off_shstr + shstr.len() + 7) & !7;
    let mut out = Vec::with_capacity(off_sh + 3 * 64);
    let put = |out: &mut Vec<u8>, v: u64, n: usize| endian.put(out, v, n);
    out.extend_from_slice(b"\x7fELF");
    out.push(2); // ELFCLASS64
    out.push(if endian == Endian::Little { 1 } else { 2 });
    out.push(1); // EV_CURRENT
    out.extend_from_slice(&[0; 9]);
    put(&mut out, 2, 2); // ET_EXEC
    put(&mut out, u64::from(machine), 2);
    put(&mut out, 1, 4); // e_version
    put(&mut out, 0, 8); // e_entry
    put(&mut out, 0, 8); // e_phoff
    put(&mut out, off_sh as u64, 8); // e_shoff
    put(&mut out, 0, 4); // e_flags
    put(&mut out, 64, 2); // e_ehsize
    put(&mut out, 0, 2); // e_phentsize
    put(&mut out, 0, 2); // e_phnum
    put(&mut out, 64, 2); // e_shentsize
    put(&mut out, 3, 2); // e_shnum
    put(&mut out, 2, 2); // e_shstrndx
    out.extend_from_slice(data);
    out.extend_from_slice(shstr);
    out.resize(off_sh, 0);
    out.extend_from_slice(&[0; 64]); // SHN_UNDEF
                                     // .sframe: SHT_PROGBITS, SHF_ALLOC, address 0; .shstrtab: SHT_STRTAB.
    for (name, ty, flags, off, size, align) in [
        (1u64, 1u64, 2u64, off_data, data.len(), 8u64),
        (9, 3, 0, off_shstr, shstr.len(), 1),
    ] {
        put(&mut out, name, 4);
        put(&mut out, ty, 4);
        put(&mut out, flags, 8);
        put(&mut out, 0, 8); // sh_addr
        put(&mut out, off as u64, 8);
        put(&mut out, size as u64, 8);
        put(&mut out, 0, 4); // sh_link
        put(&mut out, 0, 4); // sh_info
        put(&mut out, align, 8);
        put(&mut out, 0, 8); // sh_entsize
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loader_reads_the_section_back_for_each_machine_and_byte_order() {
        // A v2 header (sframe.h: magic 0xdee2, version 2, flags, ABI, fixed offsets, aux
        // length, counts and lengths), no FDE: the bytes come back unchanged.
        for (abi, endian, machine) in [
            (Abi::Amd64, Endian::Little, crate::Machine::X86_64),
            (Abi::Aarch64Be, Endian::Big, crate::Machine::Aarch64),
            (Abi::S390x, Endian::Big, crate::Machine::S390x),
        ] {
            let mut sec = Vec::new();
            endian.put(&mut sec, 0xdee2, 2);
            sec.extend_from_slice(&[2, 0, abi as u8, 0, 0, 0]);
            sec.resize(28, 0);
            let elf = wrap_sframe(&sec, e_machine(abi), endian);
            let loaded = crate::load(&elf).expect("an ELF file with .sframe");
            assert_eq!(loaded.bytes, sec);
            let info = loaded.elf.expect("read as ELF, not as a raw section");
            assert_eq!((info.machine, info.endian), (machine, endian));
        }
    }
}
