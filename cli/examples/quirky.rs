//! Triage aid: an implementation's answers beside the quirky reference's (all the quirks its
//! findings name) on one section. `cargo run --example quirky -- FILE IMPL [PC...]`.
use sframe_conform::impls::reference::Quirky;
use sframe_conform::impls::registry::{Options, Registry};
use sframe_harness::diff::explain::QuirkTable;
use sframe_harness::ledger::Ledger;
use sframe_spec::Quirks;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let data = std::fs::read(&a[0]).unwrap();
    let reg = Registry::discover(&Options::default());
    let imp = reg.get(&a[1]).expect("impl");
    let ledger = Ledger::load(std::path::Path::new("corpus/findings")).unwrap();
    let table = QuirkTable::from_ledger(&ledger);
    let q = table
        .causes(&a[1])
        .iter()
        .fold(Quirks::NONE, |x, c| x.union(c.quirks));
    eprintln!("quirks: {q:?}");
    if std::env::var("FDES").is_ok() {
        fdes_dbg(&data, q);
    }
    let pcs: Vec<i64> = a[2..].iter().map(|p| p.parse().unwrap()).collect();
    if pcs.is_empty() {
        println!("impl:   {:?}", imp.decode(&data));
        println!("quirky: {:?}", Quirky(q).decode(&data, 1 << 24));
        return;
    }
    let f = imp.find_fres(&data, &pcs);
    let r = Quirky(q).find_fres(&data, &pcs);
    for (i, pc) in pcs.iter().enumerate() {
        println!("pc {pc}\n  impl:   {:?}\n  quirky: {:?}", f[i], r[i]);
        if std::env::var("FDE").is_ok() {
            fde_dbg(&data, q, *pc);
        }
    }
}

#[allow(dead_code)]
fn fde_dbg(data: &[u8], q: Quirks, pc: i64) {
    let s = sframe_spec::SectionRef::parse_with(data, q).unwrap();
    let f = s.find_fde(pc);
    println!("  find_fde: {f:?}");
    if let Ok(Some(fde)) = f {
        for (k, fre) in s.fres(&fde).enumerate().take(40) {
            println!("   fre {k}: {fre:?}");
        }
    }
}

#[allow(dead_code)]
pub fn fdes_dbg(data: &[u8], q: Quirks) {
    let s = sframe_spec::SectionRef::parse_with(data, q).unwrap();
    println!("header {:?}", s.header());
    for i in 0..s.num_fdes() {
        let f = s.fde_fields(i);
        match f {
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

#[allow(dead_code)]
pub fn big_fres(data: &[u8], q: Quirks, limit: usize) {
    let s = sframe_spec::SectionRef::parse_with(data, q).unwrap();
    for i in 0..s.num_fdes() {
        let Ok(fde) = s.fde(i) else { continue };
        for (k, f) in s.fres(&fde).enumerate().take(64) {
            let Ok(f) = f else { break };
            let bytes = f.dataword_count() * f.dataword_size.bytes();
            if bytes > limit {
                println!(
                    "  fde {i} fre {k}: {} words of {} bytes",
                    f.dataword_count(),
                    f.dataword_size.bytes()
                );
            }
        }
    }
}
