//! Delta debugging of a failing program: the one function that gives the signature, then
//! its directive list, then its instructions, then its flags (signal frame, B-key, cold
//! part), each step keeping only what still gives the same signature.

use crate::asm::Producer;
use crate::gen::{Func, Insn, Item, Program};
use sframe_findings::signature::Signature;
use std::path::Path;

/// The smallest program found that still gives `sig` through `p`.
pub fn minimize(p: &Producer, prog: &Program, sig: &Signature, work: &Path) -> Program {
    let test = |pr: &Program| {
        // Only valid CFI: dropping a .cfi_remember_state but not its .cfi_restore_state
        // makes a different (invalid) input.
        pr.well_formed()
            && crate::signatures_of(p, &pr.to_asm(), work)
                .iter()
                .any(|s| s == sig)
    };
    let mut best = prog.clone();
    // One function alone, if one does it.
    for f in &prog.funcs {
        let one = crate::single(prog.arch, f.clone());
        if test(&one) {
            best = one;
            break;
        }
    }
    let mut changed = true;
    while changed {
        changed = false;
        for k in 0..best.funcs.len() {
            // Directives, then instructions, of the hot part then the cold part.
            for cold in [false, true] {
                for want_cfi in [true, false] {
                    let items = match (cold, &best.funcs[k].cold) {
                        (false, _) => best.funcs[k].items.clone(),
                        (true, Some(c)) => c.clone(),
                        (true, None) => continue,
                    };
                    let reduced = ddmin(&items, want_cfi, |cand| {
                        let mut t = best.clone();
                        set_items(&mut t.funcs[k], cold, cand.to_vec());
                        test(&t)
                    });
                    if reduced.len() < items.len() {
                        set_items(&mut best.funcs[k], cold, reduced);
                        changed = true;
                    }
                }
            }
            // Flags and the cold part.
            let tries: [fn(&mut Func); 3] = [
                |f| f.signal_frame = false,
                |f| f.b_key = false,
                |f| f.cold = None,
            ];
            for t in tries {
                let mut g = best.funcs[k].clone();
                t(&mut g);
                if g != best.funcs[k] {
                    let mut cand = best.clone();
                    cand.funcs[k] = g.clone();
                    if test(&cand) {
                        best.funcs[k] = g;
                        changed = true;
                    }
                }
            }
            // Shorter no-op runs.
            for i in 0..best.funcs[k].items.len() {
                if let Item::Insn(Insn::Fill(n)) = best.funcs[k].items[i] {
                    for m in [1u32, 256, 65_536] {
                        if m < n {
                            let mut cand = best.clone();
                            cand.funcs[k].items[i] = Item::Insn(Insn::Fill(m));
                            if test(&cand) {
                                best = cand;
                                changed = true;
                                break;
                            }
                        }
                    }
                }
            }
        }
        // Other functions.
        if best.funcs.len() > 1 {
            for k in (0..best.funcs.len()).rev() {
                let mut cand = best.clone();
                cand.funcs.remove(k);
                if test(&cand) {
                    best = cand;
                    changed = true;
                }
            }
        }
    }
    best
}

fn set_items(f: &mut Func, cold: bool, items: Vec<Item>) {
    if cold {
        f.cold = Some(items);
    } else {
        f.items = items;
    }
}

/// ddmin over the items of one kind (directives when `want_cfi`, else instructions),
/// the others kept in place.
fn ddmin(items: &[Item], want_cfi: bool, mut test: impl FnMut(&[Item]) -> bool) -> Vec<Item> {
    let is_target = |it: &Item| matches!(it, Item::Cfi(_)) == want_cfi;
    let mut keep: Vec<bool> = vec![true; items.len()];
    let targets = |keep: &[bool]| -> Vec<usize> {
        (0..items.len())
            .filter(|&i| keep[i] && is_target(&items[i]))
            .collect()
    };
    let build = |keep: &[bool]| -> Vec<Item> {
        items
            .iter()
            .zip(keep)
            .filter(|(_, &k)| k)
            .map(|(i, _)| *i)
            .collect()
    };
    let mut n = 2usize;
    loop {
        let t = targets(&keep);
        if t.is_empty() {
            break;
        }
        let chunk = t.len().div_ceil(n);
        let mut reduced = false;
        for c in t.chunks(chunk.max(1)) {
            let mut k2 = keep.clone();
            for &i in c {
                k2[i] = false;
            }
            if test(&build(&k2)) {
                keep = k2;
                n = (n - 1).max(2);
                reduced = true;
                break;
            }
        }
        if !reduced {
            if chunk <= 1 {
                break;
            }
            n = (n * 2).min(t.len());
        }
    }
    build(&keep)
}
