use sframe_harness::impls::reference::Quirky;
use sframe_spec::{Quirk, Quirks};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let data = std::fs::read(&a[1]).unwrap();
    let q: Quirks = a[2]
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|n| Quirk::from_name(n).expect(n))
        .collect();
    let pcs: Vec<i64> = a[3..]
        .iter()
        .map(|p| {
            if let Some(h) = p.strip_prefix("-0x") {
                -i64::from_str_radix(h, 16).unwrap()
            } else if let Some(h) = p.strip_prefix("0x") {
                i64::from_str_radix(h, 16).unwrap()
            } else {
                p.parse().unwrap()
            }
        })
        .collect();
    for (pc, r) in pcs.iter().zip(Quirky(q).find_fres(&data, &pcs)) {
        println!("{pc:#x}: {r:?}");
    }
}
