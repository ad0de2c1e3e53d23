//! `decode_diff`: raw bytes into every implementation (decode, then look-ups at the PCs the
//! engine derives from the reference's reading); anything the ledger does not cover, a
//! crash or a hang of a foreign implementation included, fails.

use arbitrary::Unstructured;

pub fn run(u: &mut Unstructured) -> arbitrary::Result<()> {
    let n = u.len();
    let data = u.bytes(n)?;
    crate::differential::check(data, "decode_diff");
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::differential::{check, ledger_reproducers, require_all};

    /// The ledger's reproducers replay: each shows only what the ledger covers.
    #[test]
    fn ledger_reproducers_replay() {
        require_all();
        let inputs = ledger_reproducers();
        assert!(!inputs.is_empty(), "no reproducers in the ledger");
        for (name, bytes) in inputs {
            check(&bytes, &name);
        }
    }

    #[test]
    fn seeded() {
        require_all();
        crate::seeded::run_seeded(300, 512, super::run);
    }
}
