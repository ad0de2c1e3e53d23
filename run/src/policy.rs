//! The retry policy: what a question to another process settles to after a hang or a crash
//! (see the crate docs).

use sframe_findings::signature::Signal;
use std::time::Duration;

/// The time limit of a try when nothing else is said.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How many times the first limit a try that ran out of time gets on its second try.
pub const HANG_RETRY_FACTOR: u32 = 4;

/// Why a try gave no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// The process died: how, whether a fresh try died the same way (`None`: not tried
    /// again), and what it said last.
    Crashed {
        signal: Signal,
        repeated: Option<bool>,
        detail: Option<String>,
    },
    /// It missed its deadline and was killed.
    Hung { timeout_ms: u64 },
}

/// What one try gave.
pub type Try<T> = Result<T, Failure>;

/// The deadline of a first try; retries follow the crate's one policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    pub timeout: Duration,
}

impl Default for Policy {
    fn default() -> Policy {
        Policy {
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl Policy {
    pub fn new(timeout: Duration) -> Policy {
        Policy { timeout }
    }

    /// The settled answer to a question that `attempt(limit)` asks once, afresh (a new
    /// process, or a fresh one after a death), within `limit`.
    pub fn settle<T>(&self, mut attempt: impl FnMut(Duration) -> Try<T>) -> Try<T> {
        let first = attempt(self.timeout);
        self.settle_after(first, attempt)
    }

    /// [`Policy::settle`] from a first try already made (a request sent ahead, its answer
    /// read later): a hang is tried once more with [`HANG_RETRY_FACTOR`] times the limit and
    /// stands when that one hangs too; a crash (of the first try, or of the hang's second)
    /// is tried once more, and stands when the retry dies on the same signal (with the
    /// retry's last words when it has some), is marked nondeterministic when the retry
    /// answers, and gives way to the retry's own failure otherwise.
    pub fn settle_after<T>(
        &self,
        first: Try<T>,
        mut attempt: impl FnMut(Duration) -> Try<T>,
    ) -> Try<T> {
        let first = match first {
            Err(Failure::Hung { .. }) => attempt(self.timeout * HANG_RETRY_FACTOR),
            other => other,
        };
        let Err(Failure::Crashed { signal, detail, .. }) = first else {
            return first;
        };
        match attempt(self.timeout) {
            Err(Failure::Crashed {
                signal: s2,
                detail: d2,
                ..
            }) if s2 == signal => Err(Failure::Crashed {
                signal,
                repeated: Some(true),
                detail: d2.or(detail),
            }),
            Err(other) => Err(other),
            Ok(_) => Err(Failure::Crashed {
                signal,
                repeated: Some(false),
                detail: Some(format!(
                    "nondeterministic: did not repeat on a fresh process; {}",
                    detail.unwrap_or_default()
                )),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crash on the signal named `signal`, not tried again.
    fn crash(signal: &str, detail: &str) -> Failure {
        Failure::Crashed {
            signal: Signal::named(signal),
            repeated: None,
            detail: Some(detail.into()),
        }
    }

    /// `f` as the policy settles it: `repeated` said.
    fn settled_as(f: Failure, repeated: bool) -> Failure {
        match f {
            Failure::Crashed { signal, detail, .. } => Failure::Crashed {
                signal,
                repeated: Some(repeated),
                detail,
            },
            hung => hung,
        }
    }

    /// The answer after trying the scripted outcomes in turn; the limits each try got.
    fn settled(script: Vec<Try<u8>>) -> (Try<u8>, Vec<u64>) {
        let mut tries = script.into_iter();
        let mut limits = Vec::new();
        let r = Policy::new(Duration::from_millis(100)).settle(|limit| {
            limits.push(limit.as_millis() as u64);
            tries.next().expect("asked more often than scripted")
        });
        (r, limits)
    }

    #[test]
    fn an_answer_is_taken_at_once() {
        assert_eq!(settled(vec![Ok(7)]), (Ok(7), vec![100]));
    }

    #[test]
    fn a_hang_stands_only_when_the_longer_second_try_hangs_too() {
        let hung = |ms| Err(Failure::Hung { timeout_ms: ms });
        assert_eq!(settled(vec![hung(100), Ok(1)]), (Ok(1), vec![100, 400]));
        assert_eq!(
            settled(vec![hung(100), hung(400)]),
            (hung(400), vec![100, 400])
        );
    }

    #[test]
    fn a_crash_stands_when_it_repeats_and_is_nondeterministic_when_not() {
        let (r, limits) = settled(vec![Err(crash("SIGSEGV", "a")), Err(crash("SIGSEGV", "b"))]);
        assert_eq!(r, Err(settled_as(crash("SIGSEGV", "b"), true)));
        assert_eq!(limits, vec![100, 100]);
        let (r, _) = settled(vec![Err(crash("SIGSEGV", "a")), Ok(3)]);
        assert_eq!(
            r,
            Err(settled_as(
                crash(
                    "SIGSEGV",
                    "nondeterministic: did not repeat on a fresh process; a"
                ),
                false
            ))
        );
        // Another death on the retry: the retry's stands.
        let (r, _) = settled(vec![Err(crash("SIGSEGV", "a")), Err(crash("SIGBUS", "b"))]);
        assert_eq!(r, Err(crash("SIGBUS", "b")));
        // A hang whose longer retry crashes: that crash is tried once more.
        let (r, limits) = settled(vec![
            Err(Failure::Hung { timeout_ms: 100 }),
            Err(crash("SIGABRT", "a")),
            Err(crash("SIGABRT", "")),
        ]);
        assert_eq!(r, Err(settled_as(crash("SIGABRT", ""), true)));
        assert_eq!(limits, vec![100, 400, 100]);
    }
}
