//! The one bounded-wait helper: every poll of the device goes through here.
//!
//! No other polling loop exists in khal (a CI check greps for them). A wait
//! checks its condition, then sleeps `period_us` through
//! [`embedded_hal::delay::DelayNs`], at most `polls` times, and gives up with
//! [`Error::Timeout`]. The total time a wait may sleep is `period_us * polls`.

use embedded_hal::delay::DelayNs;

use crate::error::{Error, Result};

/// How long a wait may take: `polls` sleeps of `period_us` each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Budget {
    /// Sleep between two checks, in microseconds.
    pub period_us: u32,
    /// Maximum number of sleeps.
    pub polls: u32,
}

impl Budget {
    /// The notes' NQ waits: `usleep(100)` between polls, at most 10000 polls
    /// (one second) [004 §3].
    pub const NQ_DEFAULT: Budget = Budget {
        period_us: 100,
        polls: 10_000,
    };

    /// The longest time this budget may sleep, in microseconds.
    pub const fn total_us(self) -> u64 {
        self.period_us as u64 * self.polls as u64
    }
}

impl Default for Budget {
    fn default() -> Self {
        Budget::NQ_DEFAULT
    }
}

/// Poll `cond` until it returns `Ok(true)`, sleeping `budget.period_us` between
/// checks, at most `budget.polls` times. Returns the number of sleeps taken.
///
/// An error from `cond` ends the wait at once and is returned as is.
///
/// ```
/// use khal_core::wait::{poll_until, Budget};
/// # struct NoDelay; impl embedded_hal::delay::DelayNs for NoDelay { fn delay_ns(&mut self, _: u32) {} }
/// let mut n = 0;
/// let sleeps = poll_until(&mut NoDelay, Budget { period_us: 100, polls: 5 }, "demo", || {
///     n += 1;
///     Ok(n == 3)
/// }).unwrap();
/// assert_eq!(sleeps, 2);
/// let never = poll_until(&mut NoDelay, Budget { period_us: 100, polls: 5 }, "never", || Ok(false));
/// assert_eq!(never, Err(khal_core::Error::Timeout("never")));
/// ```
pub fn poll_until<D, F>(
    delay: &mut D,
    budget: Budget,
    what: &'static str,
    mut cond: F,
) -> Result<u32>
where
    D: DelayNs + ?Sized,
    F: FnMut() -> Result<bool>,
{
    let mut sleeps = 0u32;
    loop {
        if cond()? {
            return Ok(sleeps);
        }
        if sleeps >= budget.polls {
            return Err(Error::Timeout(what));
        }
        sleep(delay, budget.period_us);
        sleeps += 1;
    }
}

/// One sleep of a wait: out of line, so the waits of one delay type share
/// one copy of `delay_us` instead of each inlining its own. A wait sleeps,
/// so the call costs nothing that matters.
#[inline(never)]
fn sleep<D: DelayNs + ?Sized>(delay: &mut D, us: u32) {
    delay.delay_us(us);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake delay that only adds up simulated time.
    struct FakeDelay {
        ns: u64,
    }
    impl DelayNs for FakeDelay {
        fn delay_ns(&mut self, ns: u32) {
            self.ns += ns as u64;
        }
    }

    #[test]
    fn times_out_within_budget_against_a_register_that_never_changes() {
        let reg = 0xFFFF_FFFFu32;
        let mut d = FakeDelay { ns: 0 };
        let b = Budget {
            period_us: 100,
            polls: 10_000,
        };
        let r = poll_until(&mut d, b, "tail drain", || Ok(reg == 0));
        assert_eq!(r, Err(Error::Timeout("tail drain")));
        assert_eq!(d.ns, b.total_us() * 1000);
    }

    #[test]
    fn returns_at_once_when_ready_and_propagates_errors() {
        let mut d = FakeDelay { ns: 0 };
        assert_eq!(
            poll_until(&mut d, Budget::NQ_DEFAULT, "x", || Ok(true)),
            Ok(0)
        );
        assert_eq!(d.ns, 0);
        let e = poll_until(&mut d, Budget::NQ_DEFAULT, "x", || Err(Error::NoContext));
        assert_eq!(e, Err(Error::NoContext));
    }

    #[test]
    fn zero_polls_checks_once() {
        let mut d = FakeDelay { ns: 0 };
        let mut checks = 0;
        let r = poll_until(
            &mut d,
            Budget {
                period_us: 1,
                polls: 0,
            },
            "x",
            || {
                checks += 1;
                Ok(false)
            },
        );
        assert_eq!(r, Err(Error::Timeout("x")));
        assert_eq!(checks, 1);
    }
}
