//! Minimizing an input while it keeps showing the same signature.
//!
//! Three passes, each keeping a change only when `keeps(candidate)` still holds:
//! 1. structural, when the reference can decode the input: drop whole functions, then rows,
//!    re-encoding with the reference writer (so the result stays well-formed);
//! 2. delta debugging on bytes: remove chunks, halving the chunk size down to one byte;
//! 3. simplification: set bytes to zero.
//!
//! Every pass is bounded by a budget of predicate evaluations.

use sframe_spec::{decode, encode};

/// Minimize `input`; `keeps` must hold for `input` itself.
pub fn minimize(input: &[u8], budget: usize, keeps: &mut dyn FnMut(&[u8]) -> bool) -> Vec<u8> {
    let mut best = input.to_vec();
    let mut left = budget;
    let mut try_it = |cand: &[u8], best: &mut Vec<u8>, left: &mut usize| -> bool {
        if *left == 0 || cand.len() > best.len() || cand == best.as_slice() {
            return false;
        }
        *left -= 1;
        if keeps(cand) {
            *best = cand.to_vec();
            true
        } else {
            false
        }
    };

    // 1. Structural.
    if let Ok(model) = decode(&best) {
        let mut m = model;
        let mut i = m.functions.len();
        while i > 0 {
            i -= 1;
            let mut c = m.clone();
            c.functions.remove(i);
            c.clear_layout();
            if let Ok(bytes) = encode(&c) {
                if try_it(&bytes, &mut best, &mut left) {
                    m = c;
                }
            }
        }
        for f in 0..m.functions.len() {
            let mut k = m.functions[f].fres.len();
            while k > 0 {
                k -= 1;
                let mut c = m.clone();
                c.functions[f].fres.remove(k);
                c.clear_layout();
                if let Ok(bytes) = encode(&c) {
                    if try_it(&bytes, &mut best, &mut left) {
                        m = c;
                    }
                }
            }
        }
    }

    // 2. Remove chunks.
    let mut chunk = best.len().div_ceil(2).max(1);
    loop {
        let mut start = 0;
        while start < best.len() && left > 0 {
            let end = (start + chunk).min(best.len());
            let mut cand = best[..start].to_vec();
            cand.extend_from_slice(&best[end..]);
            if !try_it(&cand, &mut best, &mut left) {
                start += chunk;
            }
        }
        if chunk == 1 || left == 0 {
            break;
        }
        chunk = chunk.div_ceil(2);
    }

    // 3. Zero bytes.
    let mut i = 0;
    while i < best.len() && left > 0 {
        if best[i] != 0 {
            let mut cand = best.clone();
            cand[i] = 0;
            if left > 0 {
                left -= 1;
                if keeps(&cand) {
                    best = cand;
                }
            }
        }
        i += 1;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_only_what_the_predicate_needs() {
        let input: Vec<u8> = (0..100u8).collect();
        let out = minimize(&input, 10_000, &mut |b: &[u8]| {
            b.contains(&42) && b.contains(&7)
        });
        assert_eq!(out.len(), 2);
        assert!(out.contains(&42) && out.contains(&7));
    }
}
