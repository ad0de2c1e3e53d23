//! Print, per file and libsframe release, the first known bug the release's decode (as
//! `sframe-worker` drives it; with `--lookup` first, its look-ups) reaches: `FILE RELEASE
//! TRIGGER|clean`. `ci/check-triggers` compares these lines with what the ASan
//! builds report. `--objdump`: the same per objdump release, `FILE objdump-RELEASE TRIGGER`, as
//! `objdump --sframe` of that release reads the file. `--glibc FILE [PC...]`: glibc 2.43's reader on FILE, its decode and a
//! look-up at each PC (`decode|PC TRIGGER|clean`).
use sframe_spec::triggers::{first_trigger, glibc, Caller, Evaluation, Release};

fn name(e: Evaluation) -> &'static str {
    match e {
        Evaluation::Triggered(t) => t.name(),
        Evaluation::Clean => "clean",
    }
}

fn glibc_main(args: &[String]) -> i32 {
    let Some((path, pcs)) = args.split_first() else {
        eprintln!("usage: triggers --glibc FILE [PC...]");
        return 2;
    };
    let data = match std::fs::read(path) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{path}: {e}");
            return 1;
        }
    };
    println!(
        "decode {}",
        name(glibc::first_trigger(&data, glibc::Call::Decode))
    );
    for pc in pcs {
        let Ok(v) = pc.parse::<i64>() else {
            eprintln!("{pc}: not a PC");
            return 2;
        };
        println!(
            "{v} {}",
            name(glibc::first_trigger(&data, glibc::Call::Lookup(v)))
        );
    }
    0
}

fn main() {
    let mut status = 0;
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--glibc") {
        std::process::exit(glibc_main(&args[1..]));
    }
    let (caller, prefix) = match args.first().map(String::as_str) {
        Some("--lookup") => (Caller::Lookup, "libsframe"),
        Some("--objdump") => (Caller::Objdump, "objdump"),
        _ => (Caller::Worker, "libsframe"),
    };
    if prefix == "objdump" || caller == Caller::Lookup {
        args.remove(0);
    }
    for path in args {
        let data = match std::fs::read(&path) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{path}: {e}");
                status = 1;
                continue;
            }
        };
        for (rel, release) in [
            ("2.40", Release::Libsframe240),
            ("2.44", Release::Libsframe244),
            ("2.47", Release::Libsframe247),
        ] {
            let what = name(first_trigger(&data, release, caller));
            println!("{path} {prefix}-{rel} {what}");
        }
    }
    std::process::exit(status);
}
