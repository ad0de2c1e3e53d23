//! Triage aid: one implementation's answers beside the quirky reference's (the reference with
//! every quirk the ledger's findings name for that implementation), on one section.
//!
//! ```text
//! cargo run --release -p sframe-conform --example quirky -- FILE IMPL [PC...]
//! ```
//!
//! Without PCs it prints both decodes; with PCs, both look-ups at each. `FDES=1` also lists
//! the FDEs as the quirky reference reads them, `FDE=1` the FDE and FREs the quirky look-up
//! lands in for each PC, `BIG=N` the FREs with more than N bytes of data words.

use sframe_harness::diff::explain::QuirkTable;
use sframe_harness::impls::reference::Quirky;
use sframe_harness::ledger::Ledger;
use sframe_impls::registry::{Options, Registry};
use sframe_spec::{Quirks, SectionRef};
use std::process::ExitCode;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("quirky: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [file, name, pcs @ ..] = args.as_slice() else {
        return Err("usage: quirky FILE IMPL [PC...]".into());
    };
    let data = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    let reg = Registry::discover(&Options {
        objdump: true,
        ..Options::default()
    });
    let imp = reg
        .get(name)
        .ok_or_else(|| format!("no implementation {name:?} here"))?;
    let ledger = Ledger::load(&Ledger::default_dir()).map_err(|e| e.to_string())?;
    let q = QuirkTable::from_ledger(&ledger)
        .causes(name)
        .iter()
        .fold(Quirks::NONE, |all, c| all.union(c.quirks));
    println!("quirks: {q:?}");
    let section = SectionRef::parse_with(&data, q);
    if std::env::var_os("FDES").is_some() {
        match &section {
            Ok(s) => list_fdes(s),
            Err(v) => println!("refused: {v:?}"),
        }
    }
    if let (Ok(s), Some(limit)) = (&section, std::env::var("BIG").ok()) {
        big_fres(s, limit.parse().map_err(|_| "BIG: a byte count")?);
    }
    let pcs: Vec<i64> = pcs
        .iter()
        .map(|p| p.parse().map_err(|_| format!("{p:?}: not a PC")))
        .collect::<Result<_, _>>()?;
    if pcs.is_empty() {
        println!("{name}: {:?}", imp.decode(&data));
        println!(
            "quirky: {:?}",
            Quirky(q).decode(&data, data.len().saturating_mul(4))
        );
        return Ok(());
    }
    let found = imp.find_fres(&data, &pcs);
    let quirky = Quirky(q).find_fres(&data, &pcs);
    for ((pc, f), r) in pcs.iter().zip(&found).zip(&quirky) {
        println!("pc {pc}\n  {name}: {f:?}\n  quirky: {r:?}");
        if let (Ok(s), Some(_)) = (&section, std::env::var_os("FDE")) {
            landing(s, *pc);
        }
    }
    Ok(())
}

fn list_fdes(s: &SectionRef<'_>) {
    println!("header {:?}", s.header());
    for i in 0..s.num_fdes() {
        match s.fde_fields(i) {
            Ok(f) => println!(
                "  fde {i}: raw {} resolved {} size {} fres {} info {:#x}",
                f.raw_start,
                s.resolve_start(f.offset, f.raw_start),
                f.size,
                f.num_fres,
                f.info
            ),
            Err(e) => println!("  fde {i}: {e:?}"),
        }
    }
}

fn landing(s: &SectionRef<'_>, pc: i64) {
    let f = s.find_fde(pc);
    println!("  find_fde: {f:?}");
    if let Ok(Some(fde)) = f {
        for (k, fre) in s.fres(&fde).enumerate().take(40) {
            println!("   fre {k}: {fre:?}");
        }
    }
}

fn big_fres(s: &SectionRef<'_>, limit: usize) {
    for i in 0..s.num_fdes() {
        let Ok(fde) = s.fde(i) else { continue };
        for (k, f) in s.fres(&fde).enumerate().take(64) {
            let Ok(f) = f else { break };
            let bytes = f.dataword_count() * f.dataword_size.bytes();
            if bytes > limit {
                println!("  fde {i} fre {k}: {bytes} bytes of data words");
            }
        }
    }
}
