//! Print, per file and libsframe release, the first known bug the release's decode (as
//! `sframe-worker` drives it; with `--lookup` first, its look-ups) reaches: `FILE RELEASE
//! TRIGGER|clean|not-modelled`. `ci/check-triggers` compares these lines with what the ASan
//! builds report.
use sframe_spec::triggers::{first_trigger, Caller, Evaluation, Release};

fn main() {
    let mut status = 0;
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let caller = if args.first().map(String::as_str) == Some("--lookup") {
        args.remove(0);
        Caller::Lookup
    } else {
        Caller::Worker
    };
    for path in args {
        let data = match std::fs::read(&path) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{path}: {e}");
                status = 1;
                continue;
            }
        };
        for (name, rel) in [
            ("libsframe-2.40", Release::Libsframe240),
            ("libsframe-2.44", Release::Libsframe244),
            ("libsframe-2.47", Release::Libsframe247),
        ] {
            let what = match first_trigger(&data, rel, caller) {
                Evaluation::Triggered(t) => t.name(),
                Evaluation::Clean => "clean",
                Evaluation::NotModelled => "not-modelled",
            };
            println!("{path} {name} {what}");
        }
    }
    std::process::exit(status);
}
