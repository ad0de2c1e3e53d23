//! The binary searches the look-ups share: one home for their loops, so that the reference's
//! probe order (which decides the answer on a section whose sorted flag lies) is written
//! once and the fast index ([`crate::index`]) probes exactly as the reference does.

/// How many of `0..n` come before the first index for which `before` fails, by the
/// half-open binary search `lo = 0, hi = n; while lo < hi { mid = lo + (hi - lo) / 2; ... }`:
/// on indices where `before` holds for a prefix, the length of that prefix. `before`'s
/// error stops the search.
pub(crate) fn partition<E>(
    n: usize,
    mut before: impl FnMut(usize) -> Result<bool, E>,
) -> Result<usize, E> {
    let (mut lo, mut hi) = (0usize, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid)? {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    Ok(lo)
}

/// What a probe of [`probe`] decides.
pub(crate) enum Probe {
    /// The answer is this index.
    Hit(usize),
    /// Search right of the probe.
    Right,
    /// Search left of the probe.
    Left,
    /// Stop with no answer.
    Miss,
}

/// The closed-range binary search C readers write, `while (low <= high) { mid = low + (high
/// - low) / 2; ... }` over `[lo, hi]`, stopping at the first probe that decides.
pub(crate) fn probe<E>(
    mut lo: i64,
    mut hi: i64,
    mut at: impl FnMut(i64) -> Result<Probe, E>,
) -> Result<Option<usize>, E> {
    while lo <= hi {
        let mid = lo + (hi - lo) / 2;
        match at(mid)? {
            Probe::Hit(i) => return Ok(Some(i)),
            Probe::Right => lo = mid + 1,
            Probe::Left => hi = mid - 1,
            Probe::Miss => return Ok(None),
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_counts_the_prefix_that_holds() {
        let keys = [1, 3, 3, 7, 9];
        for (x, want) in [(0, 0), (1, 1), (3, 3), (8, 4), (9, 5), (10, 5)] {
            let got = partition::<()>(keys.len(), |i| Ok(keys[i] <= x)).unwrap();
            assert_eq!(got, want, "x = {x}");
        }
        assert_eq!(partition::<()>(0, |_| Ok(true)), Ok(0));
        assert_eq!(
            partition(5, |i| if i == 2 { Err(i) } else { Ok(true) }),
            Err(2)
        );
    }

    #[test]
    fn probe_stops_at_the_first_deciding_probe() {
        let keys = [2i64, 4, 6, 8, 10];
        let find = |x: i64| {
            probe::<()>(0, keys.len() as i64 - 1, |m| {
                let k = keys[m as usize];
                Ok(if k == x {
                    Probe::Hit(m as usize)
                } else if k < x {
                    Probe::Right
                } else {
                    Probe::Left
                })
            })
            .unwrap()
        };
        assert_eq!(find(2), Some(0));
        assert_eq!(find(10), Some(4));
        assert_eq!(find(5), None);
        // The probes visit 2 (the middle of 0..=4), then 0 (of 0..=1), which stops.
        let mut seen = Vec::new();
        let r = probe::<()>(0, 4, |m| {
            seen.push(m);
            Ok(if m == 2 { Probe::Left } else { Probe::Miss })
        });
        assert_eq!((r, seen), (Ok(None), vec![2, 0]));
    }
}
