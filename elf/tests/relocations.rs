//! Every relocation type the real assemblers write against `.sframe`, applied by [`load`] as
//! the real linker applies it.
//!
//! Each case assembles a small file with a provisioned assembler (GNU as 2.40, 2.44, 2.47 of
//! `ci/toolchains`, LLVM's `llvm-mc-23`), checks that the object's `.rela.sframe` holds the
//! relocation type under test, loads the object, and links it into a shared object with GNU
//! ld of the release (ld 2.44 for LLVM's version 2 sections: ld 2.47 drops version 2 input
//! and leaves an empty `.sframe`). The expected function starts come from ld: in the
//! linked `.sframe` (read with this project's reader), each function starts at the address
//! of a named symbol and has a size; in the loaded object the same function must start at
//! the address that symbol has in the synthetic layout ([`section_addresses`]), with the
//! same size. A missing tool fails the test, naming `ci/toolchains`.
//!
//! The null relocation is written by `ld -r` (binutils PR ld/33401: `R_*_NONE` entries among
//! the `.rela.sframe` of a relocatable link), not by an assembler: its case links two
//! assembled files with `ld -r` first (see [`null_relocations_of_ld_r_are_skipped`]). The
//! AArch64 ABI's withdrawn null code 256, which no tool here writes, is a unit test of the
//! crate.

use goblin::elf::Elf;
use sframe_elf::{load, section_addresses, LoadError, Machine};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use sframe_provision::cache_dir as cache;

fn tool(name: &str) -> PathBuf {
    let p = cache().join("bin").join(name);
    assert!(
        p.exists(),
        "{} is missing: run ci/toolchains --llvm to provision the assemblers and linkers",
        p.display()
    );
    p
}

fn work_dir(case: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("sframe-elf-relocations")
        .join(case);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Two functions in two sections (so that addends and section addresses both matter), with
/// the ABI's return instruction.
fn source(ret: &str, prologue: &str) -> String {
    let f = |section: &str, name: &str| {
        format!(
            "\t.section {section},\"ax\",%progbits\n\t.globl {name}\n\t.type {name}, @function\n\
             {name}:\n\t.cfi_startproc\n{prologue}\t{ret}\n\t{ret}\n\t.cfi_def_cfa_offset 16\n\t{ret}\n\
             \t.cfi_endproc\n\t.size {name}, .-{name}\n"
        )
    };
    format!(
        "{}{}{}",
        f(".text", "first"),
        f(".text", "second"),
        f(".text.other", "third")
    )
}

/// One assembler, ABI and relocation type.
struct Case {
    name: &'static str,
    /// Assembler binary (in the cache's `bin/`) and its arguments before `-o`.
    assembler: &'static str,
    as_args: &'static [&'static str],
    /// Linker binary and its arguments before `-o`.
    linker: &'static str,
    ld_args: &'static [&'static str],
    machine: Machine,
    /// The relocation type the object's `.rela.sframe` must hold.
    r_type: u32,
    ret: &'static str,
    prologue: &'static str,
}

const X86_RET: &str = "ret";
const A64_RET: &str = "ret";
const S390_RET: &str = "br %r14";
/// llvm-mc 23 leaves out every AArch64 function without this (finding F0235).
const LLVM_A64: &str = "\t.cfi_return_column 29\n";

// One row per case: a table, kept as one.
#[rustfmt::skip]
const CASES: &[Case] = &[
    Case { name: "x86_64-gas-2.40-pc32", assembler: "x86_64-linux-gnu-as-2.40", as_args: &["--gsframe"], linker: "x86_64-linux-gnu-ld-2.40", ld_args: &[], machine: Machine::X86_64, r_type: 2, ret: X86_RET, prologue: "" },
    Case { name: "x86_64-gas-2.44-pc32", assembler: "x86_64-linux-gnu-as-2.44", as_args: &["--gsframe"], linker: "x86_64-linux-gnu-ld-2.44", ld_args: &[], machine: Machine::X86_64, r_type: 2, ret: X86_RET, prologue: "" },
    Case { name: "x86_64-gas-2.47-pc64", assembler: "x86_64-linux-gnu-as-2.47", as_args: &["--gsframe"], linker: "x86_64-linux-gnu-ld-2.47", ld_args: &[], machine: Machine::X86_64, r_type: 24, ret: X86_RET, prologue: "" },
    Case { name: "x86_64-llvm-23-pc32", assembler: "llvm-mc-23", as_args: &["-triple=x86_64-linux-gnu", "-filetype=obj", "--gsframe"], linker: "x86_64-linux-gnu-ld-2.44", ld_args: &[], machine: Machine::X86_64, r_type: 2, ret: X86_RET, prologue: "" },
    Case { name: "aarch64-gas-2.40-prel32", assembler: "aarch64-linux-gnu-as-2.40", as_args: &["--gsframe"], linker: "aarch64-linux-gnu-ld-2.40", ld_args: &[], machine: Machine::Aarch64, r_type: 261, ret: A64_RET, prologue: "" },
    Case { name: "aarch64-gas-2.44-prel32", assembler: "aarch64-linux-gnu-as-2.44", as_args: &["--gsframe"], linker: "aarch64-linux-gnu-ld-2.44", ld_args: &[], machine: Machine::Aarch64, r_type: 261, ret: A64_RET, prologue: "" },
    Case { name: "aarch64-gas-2.47-prel64", assembler: "aarch64-linux-gnu-as-2.47", as_args: &["--gsframe"], linker: "aarch64-linux-gnu-ld-2.47", ld_args: &[], machine: Machine::Aarch64, r_type: 260, ret: A64_RET, prologue: "" },
    Case { name: "aarch64_be-gas-2.44-prel32", assembler: "aarch64-linux-gnu-as-2.44", as_args: &["-EB", "--gsframe"], linker: "aarch64-linux-gnu-ld-2.44", ld_args: &["-EB"], machine: Machine::Aarch64, r_type: 261, ret: A64_RET, prologue: "" },
    Case { name: "aarch64_be-gas-2.47-prel64", assembler: "aarch64-linux-gnu-as-2.47", as_args: &["-EB", "--gsframe"], linker: "aarch64-linux-gnu-ld-2.47", ld_args: &["-EB"], machine: Machine::Aarch64, r_type: 260, ret: A64_RET, prologue: "" },
    Case { name: "aarch64-llvm-23-prel32", assembler: "llvm-mc-23", as_args: &["-triple=aarch64-linux-gnu", "-filetype=obj", "--gsframe"], linker: "aarch64-linux-gnu-ld-2.44", ld_args: &[], machine: Machine::Aarch64, r_type: 261, ret: A64_RET, prologue: LLVM_A64 },
    Case { name: "aarch64_be-llvm-23-prel32", assembler: "llvm-mc-23", as_args: &["-triple=aarch64_be-linux-gnu", "-filetype=obj", "--gsframe"], linker: "aarch64-linux-gnu-ld-2.44", ld_args: &["-EB"], machine: Machine::Aarch64, r_type: 261, ret: A64_RET, prologue: LLVM_A64 },
    Case { name: "s390x-gas-2.47-pc64", assembler: "s390x-linux-gnu-as-2.47", as_args: &["--gsframe"], linker: "s390x-linux-gnu-ld-2.47", ld_args: &[], machine: Machine::S390x, r_type: 23, ret: S390_RET, prologue: "" },
];

/// Assemble `case`'s source; the object's bytes and path.
fn assemble(case: &Case, dir: &Path) -> (Vec<u8>, PathBuf) {
    let s = dir.join("f.s");
    let o = dir.join("f.o");
    std::fs::write(&s, source(case.ret, case.prologue)).unwrap();
    run(Command::new(tool(case.assembler))
        .args(case.as_args)
        .arg("-o")
        .arg(&o)
        .arg(&s));
    (std::fs::read(&o).unwrap(), o)
}

/// The relocation types applied to `.sframe` in an object.
fn sframe_relocation_types(obj: &[u8]) -> Vec<u32> {
    let elf = Elf::parse(obj).unwrap();
    let idx = elf
        .section_headers
        .iter()
        .position(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(".sframe"))
        .expect(".sframe");
    elf.shdr_relocs
        .iter()
        .filter(|(ri, _)| elf.section_headers[*ri].sh_info as usize == idx)
        .flat_map(|(_, rs)| rs.iter().map(|r| r.r_type).collect::<Vec<_>>())
        .collect()
}

/// Per function of a file's `.sframe` (as `load` gives it, read with the project's reader):
/// the symbol whose address is the function's start, and the function's size. `addr` gives
/// a symbol's address from its section index and value.
fn functions_by_symbol(
    file: &[u8],
    addr: impl Fn(&Elf<'_>, usize, u64) -> u64,
) -> BTreeMap<String, (u64, u32)> {
    let loaded = load(file).unwrap_or_else(|e| panic!("load: {e}"));
    assert!(!loaded.bytes.is_empty());
    let section = sframe_spec::decode(&loaded.bytes).unwrap_or_else(|v| panic!("decode: {v}"));
    let elf = Elf::parse(file).unwrap();
    let symbols: BTreeMap<u64, String> = elf
        .syms
        .iter()
        .filter(|s| s.is_function())
        .map(|s| {
            (
                addr(&elf, s.st_shndx, s.st_value),
                elf.strtab.get_at(s.st_name).unwrap_or("").to_string(),
            )
        })
        .collect();
    section
        .functions
        .iter()
        .map(|f| {
            let pc = loaded.vaddr.wrapping_add(f.start as u64);
            let name = symbols
                .get(&pc)
                .unwrap_or_else(|| panic!("no function symbol at {pc:#x} ({symbols:x?})"));
            (name.clone(), (pc, f.size))
        })
        .collect()
}

fn linked_functions(so: &[u8]) -> BTreeMap<String, u32> {
    functions_by_symbol(so, |_, _, value| value)
        .into_iter()
        .map(|(name, (_, size))| (name, size))
        .collect()
}

fn loaded_functions(obj: &[u8]) -> BTreeMap<String, u32> {
    let synthetic = |elf: &Elf<'_>, shndx: usize, value: u64| {
        section_addresses(elf)
            .get(shndx)
            .copied()
            .unwrap_or(0)
            .wrapping_add(value)
    };
    functions_by_symbol(obj, synthetic)
        .into_iter()
        .map(|(name, (_, size))| (name, size))
        .collect()
}

#[test]
fn every_emitted_relocation_type_starts_functions_where_ld_does() {
    for case in CASES {
        let dir = work_dir(case.name);
        let (obj, o) = assemble(case, &dir);
        let types = sframe_relocation_types(&obj);
        assert!(
            !types.is_empty() && types.iter().all(|&t| t == case.r_type),
            "{}: .rela.sframe has types {types:?}, the case is for {}",
            case.name,
            case.r_type
        );
        let loaded = load(&obj).unwrap_or_else(|e| panic!("{}: {e}", case.name));
        let info = loaded.elf.as_ref().unwrap();
        assert_eq!(info.machine, case.machine, "{}", case.name);
        assert_eq!(info.relocations_applied, types.len(), "{}", case.name);

        let so = dir.join("f.so");
        run(Command::new(tool(case.linker))
            .args(case.ld_args)
            .args(["-shared", "-o"])
            .arg(&so)
            .arg(&o));
        eprintln!("{}", case.name);
        let linked = linked_functions(&std::fs::read(&so).unwrap());
        assert_eq!(linked.len(), 3, "{}: {linked:?}", case.name);
        assert_eq!(loaded_functions(&obj), linked, "{}", case.name);
    }
}

/// A function in section `section`, in COMDAT group `group` when one is given.
fn comdat_function(ret: &str, section: &str, name: &str, group: Option<&str>) -> String {
    let (flags, tail, bind) = match group {
        Some(g) => ("axG", format!(",{g},comdat"), "weak"),
        None => ("ax", String::new(), "globl"),
    };
    format!(
        "\t.section {section},\"{flags}\",%progbits{tail}\n\t.{bind} {name}\n\t.type {name}, @function\n\
         {name}:\n\t.cfi_startproc\n\t{ret}\n\t.cfi_def_cfa_offset 16\n\t{ret}\n\t.cfi_endproc\n\
         \t.size {name}, .-{name}\n"
    )
}

/// `ld -r` of binutils 2.47 leaves `R_*_NONE` entries in `.rela.sframe` (PR ld/33401) when
/// a later input's FDEs describe functions of a COMDAT group an earlier input already
/// brought, and the inputs carry debug information: the relocations against the discarded
/// group's sections become null relocations, at the offset of the input's first kept FDE.
/// The psABIs give the null relocation no field and no calculation (x86-64: `R_X86_64_NONE`
/// 0 none none; AArch64 aaelf64 §5.7.4: 0, operation None; s390x: `R_390_NONE` 0 none
/// none). Two files of this project's own (`as -g --gsframe`), linked `-r` by GNU ld 2.47,
/// give such an object on every ABI; it loads, and its functions start where GNU ld 2.47
/// puts them when it links that object into a shared object.
#[test]
fn null_relocations_of_ld_r_are_skipped() {
    // GNU as 2.47's case of every ABI: its assembler, linker and flags.
    for case in CASES.iter().filter(|c| c.name.contains("-gas-2.47-")) {
        let (abi, ret) = (case.name, case.ret);
        let dir = work_dir(&format!("ld-r-none-{abi}"));
        let first = comdat_function(ret, ".text.d2", "d2", Some("grp"))
            + &comdat_function(ret, ".text.d0", "d0", Some("grp"));
        let second = comdat_function(ret, ".text", "kept", None)
            + &comdat_function(ret, ".text.d2", "d2", Some("grp"))
            + &comdat_function(ret, ".text.d0", "d0", Some("grp"))
            + &comdat_function(ret, ".text.x", "x", Some("grp2"));
        let mut objects = Vec::new();
        for (name, src) in [("a", first), ("b", second)] {
            let s = dir.join(format!("{name}.s"));
            let o = dir.join(format!("{name}.o"));
            std::fs::write(&s, src).unwrap();
            run(Command::new(tool(case.assembler))
                .args(case.as_args)
                .args(["-g", "--gsframe", "-o"])
                .arg(&o)
                .arg(&s));
            objects.push(o);
        }
        let ld = tool(case.linker);
        let r = dir.join("r.o");
        run(Command::new(&ld)
            .args(case.ld_args)
            .arg("-r")
            .arg("-o")
            .arg(&r)
            .args(&objects));
        let obj = std::fs::read(&r).unwrap();
        let types = sframe_relocation_types(&obj);
        let nulls = types.iter().filter(|&&t| t == 0).count();
        assert!(
            nulls > 0,
            "{abi}: ld -r wrote no null relocation ({types:?})"
        );
        let loaded = load(&obj).unwrap_or_else(|e| panic!("{abi}: {e}"));
        assert_eq!(
            loaded.elf.as_ref().unwrap().relocations_applied,
            types.len() - nulls,
            "{abi}: a null relocation is not applied"
        );
        let so = dir.join("r.so");
        run(Command::new(&ld)
            .args(case.ld_args)
            .args(["-shared", "-o"])
            .arg(&so)
            .arg(&r));
        let linked = linked_functions(&std::fs::read(&so).unwrap());
        assert_eq!(linked.len(), 4, "{abi}: {linked:?}");
        assert_eq!(loaded_functions(&obj), linked, "{abi}");
    }
}

/// What `ld --discard-sframe` (GNU ld 2.47) leaves: a `.sframe` section of 0 bytes. It is no
/// SFrame data (D-EMPTY-SFRAME-SECTION), reported as such, not as a broken section.
#[test]
fn an_empty_sframe_section_is_no_sframe_data() {
    let dir = work_dir("discard-sframe");
    let case = &CASES[2];
    let (_, o) = assemble(case, &dir);
    let x = dir.join("f.x");
    run(Command::new(tool(case.linker))
        .args(["--discard-sframe", "-e", "first", "-o"])
        .arg(&x)
        .arg(&o));
    let file = std::fs::read(&x).unwrap();
    let elf = Elf::parse(&file).unwrap();
    let sframe = elf
        .section_headers
        .iter()
        .find(|s| elf.shdr_strtab.get_at(s.sh_name) == Some(".sframe"))
        .expect("ld 2.47 --discard-sframe keeps a .sframe section header");
    assert_eq!(sframe.sh_size, 0);
    assert_eq!(load(&file).unwrap_err(), LoadError::EmptySection);
}
