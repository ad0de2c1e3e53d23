//! Triage aid: one generated case through one producer, printed.
//! `cargo run -p sframe-producers --example case -- ABI PRODUCER SEED CASE [FILE.s]`
//! (CASE may be a range A..B: then only the signatures of each case are printed)
//! (with FILE.s, that file instead of the generated case; with CASE_MINIMIZE=<signature> in
//! the environment, the generated case is also printed minimized for that signature).
//! With `patterns` instead of FILE.s, the case of the executable patterns. `MAX_FUNCTIONS=N`:
//! as `produce --max-functions N`.

use sframe_producers::asm;
use sframe_producers::gen::{self, Arch, Config};

/// The generator's configuration, with `MAX_FUNCTIONS=N` from the environment (what
/// `produce --max-functions N` sets).
fn config(arch: Arch) -> Config {
    let mut cfg = Config::new(arch);
    if let Some(n) = std::env::var("MAX_FUNCTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        cfg.max_functions = n;
    }
    cfg
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    if a.len() < 4 {
        eprintln!("usage: case ABI PRODUCER SEED CASE [FILE.s]");
        std::process::exit(2);
    }
    let arch = Arch::from_name(&a[0]).expect("ABI");
    let p = asm::producers(arch)
        .into_iter()
        .find(|p| p.name == a[1])
        .expect("producer");
    // CASE = A..B: the signatures of every generated case in A..B, one line each.
    if let Some((lo, hi)) = a[3].split_once("..") {
        let cfg = config(arch);
        let work = std::env::temp_dir().join("sframe-producers-case-range");
        for i in lo.parse::<u64>().unwrap()..hi.parse::<u64>().unwrap() {
            let prog = gen::program(a[2].parse().unwrap(), i, &cfg);
            for sig in sframe_producers::signatures_of(&p, &prog.to_asm(), &work) {
                println!("{i} {sig}");
            }
        }
        return;
    }
    let text = match a.get(4).map(String::as_str) {
        Some("patterns") => {
            let (seed, case): (u64, u64) = (a[2].parse().unwrap(), a[3].parse().unwrap());
            sframe_producers::pattern::program(seed, case, arch, 4).to_asm()
        }
        Some(f) => std::fs::read_to_string(f).expect("read"),
        None => {
            let cfg = config(arch);
            gen::program(a[2].parse().unwrap(), a[3].parse().unwrap(), &cfg).to_asm()
        }
    };
    println!("{text}");
    // CASE_MINIMIZE=<signature>: print the generated case minimized for that signature.
    if let (Ok(sig), None) = (std::env::var("CASE_MINIMIZE"), a.get(4)) {
        let cfg = config(arch);
        let prog = gen::program(a[2].parse().unwrap(), a[3].parse().unwrap(), &cfg);
        let work = std::env::temp_dir().join("sframe-producers-case-min");
        let parsed: sframe_findings::signature::Signature =
            sig.parse().expect("CASE_MINIMIZE: a signature");
        let m = sframe_producers::minimize::minimize(&p, &prog, &parsed, &work);
        println!("minimized for {sig}:\n{}", m.to_asm());
    }
    let work = std::env::temp_dir().join("sframe-producers-case");
    let r = sframe_producers::run_asm(&p, &text, &work);
    println!("{r:#?}");
    // The signatures `produce` would give this file (the minimizer's predicate).
    for sig in sframe_producers::signatures_of(&p, &text, &work) {
        println!("signature: {sig}");
    }
    println!("object: {}", work.join("out.o").display());
}
