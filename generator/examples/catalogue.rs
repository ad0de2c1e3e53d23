//! Print, per version and ABI, how many catalogue rules the malformed generator reaches.
//!
//! `cargo run -p sframe-gen --example catalogue [TRIES]`

fn main() {
    let tries = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(16);
    let reached = sframe_gen::reach::reach(tries);
    print!("{}", sframe_gen::reach::table(&reached));
    for (rule, version, why) in sframe_gen::reach::UNREACHABLE {
        println!("unreachable: {} in {version}: {why}", rule.id());
    }
}
