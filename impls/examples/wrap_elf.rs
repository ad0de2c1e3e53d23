//! Wrap raw `.sframe` sections in ELF files as the objdump adapter does (`impls/src/objdump.rs`:
//! the machine and byte order of the section's ABI and magic): `wrap_elf OUTDIR FILE...`
//! writes `OUTDIR/<n>.elf` per file and prints `FILE TRIPLE OUTDIR/<n>.elf`, or `FILE
//! unsupported REASON` where the adapter gives objdump nothing. `ci/check-triggers` runs each
//! release's objdump on them.
use sframe_impls::objdump::elf_for;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((out, files)) = args.split_first() else {
        eprintln!("usage: wrap_elf OUTDIR FILE...");
        std::process::exit(2);
    };
    let mut status = 0;
    for (n, path) in files.iter().enumerate() {
        let data = match std::fs::read(path) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{path}: {e}");
                status = 1;
                continue;
            }
        };
        match elf_for(&data) {
            Ok((triple, elf)) => {
                let dest = format!("{out}/{n}.elf");
                if let Err(e) = std::fs::write(&dest, elf) {
                    eprintln!("{dest}: {e}");
                    std::process::exit(1);
                }
                println!("{path} {triple} {dest}");
            }
            Err(why) => println!("{path} unsupported {}", why.replace(' ', "_")),
        }
    }
    std::process::exit(status);
}
