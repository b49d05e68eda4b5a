//! The async bounded wait [`poll_until_signalled`]: the twin of
//! [`crate::wait::poll_until`] over [`embedded_hal_async::delay::DelayNs`],
//! each sleep also ended early when an [`NqSignal`] is raised.
//!
//! Same contract as the blocking helper: `cond` is checked first, then at most
//! `budget.polls` times after a wait; [`Error::Timeout`] names the wait when
//! the budget is spent; an error from `cond` ends the wait at once.

use core::future::{poll_fn, Future};
use core::pin::pin;
use core::task::Poll;

use embedded_hal_async::delay::DelayNs;

use super::signal::NqSignal;
use crate::error::{Error, Result};
use crate::wait::Budget;

/// Poll `cond` until it returns `Ok(true)`, awaiting `budget.period_us`
/// between checks, at most `budget.polls` times, each wait also ended when
/// `signal` is raised (an interrupt), so a ready condition is seen at once
/// instead of at the next period (a signal nobody raises, `&NqSignal::new()`,
/// leaves each wait the whole period). A wait ended by the signal counts
/// against the budget like a full period, so an interrupt storm cannot make
/// the wait unbounded; a lost interrupt costs at most one period. Returns the
/// number of waits taken.
pub(crate) async fn poll_until_signalled<D, F>(
    signal: &NqSignal,
    delay: &mut D,
    budget: Budget,
    what: &'static str,
    mut cond: F,
) -> Result<u32>
where
    D: DelayNs + ?Sized,
    F: FnMut() -> Result<bool>,
{
    let mut waits = 0u32;
    loop {
        if cond()? {
            // A signal raised for what we just saw is spent.
            signal.take();
            return Ok(waits);
        }
        if waits >= budget.polls {
            return Err(Error::Timeout(what));
        }
        first_of(signal.wait(), delay.delay_us(budget.period_us)).await;
        waits += 1;
    }
}

/// Resolve when either future does (the other is dropped unfinished).
async fn first_of<A: Future, B: Future>(a: A, b: B) {
    let mut a = pin!(a);
    let mut b = pin!(b);
    poll_fn(|cx| {
        if a.as_mut().poll(cx).is_ready() || b.as_mut().poll(cx).is_ready() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wait with a signal nobody raises: each wait the whole period.
    async fn poll_until<F: FnMut() -> Result<bool>>(
        delay: &mut FakeDelay,
        budget: Budget,
        what: &'static str,
        cond: F,
    ) -> Result<u32> {
        poll_until_signalled(&NqSignal::new(), delay, budget, what, cond).await
    }

    /// An async delay that only adds up the time asked (ready at once).
    struct FakeDelay {
        ns: u64,
    }
    impl DelayNs for FakeDelay {
        async fn delay_ns(&mut self, ns: u32) {
            self.ns += ns as u64;
        }
    }

    /// An async delay that never completes: only a signal can end a wait.
    struct Forever;
    impl DelayNs for Forever {
        async fn delay_ns(&mut self, _ns: u32) {
            core::future::pending::<()>().await
        }
    }

    #[test]
    fn times_out_after_exactly_the_budget() {
        let mut d = FakeDelay { ns: 0 };
        let b = Budget {
            period_us: 100,
            polls: 10_000,
        };
        let r = embassy_futures::block_on(poll_until(&mut d, b, "tail drain", || Ok(false)));
        assert_eq!(r, Err(Error::Timeout("tail drain")));
        assert_eq!(d.ns, b.total_us() * 1000);
    }

    #[test]
    fn returns_at_once_when_ready_and_propagates_errors() {
        let mut d = FakeDelay { ns: 0 };
        let b = Budget::NQ_DEFAULT;
        assert_eq!(
            embassy_futures::block_on(poll_until(&mut d, b, "x", || Ok(true))),
            Ok(0)
        );
        let mut n = 0;
        let r = embassy_futures::block_on(poll_until(&mut d, b, "x", || {
            n += 1;
            Ok(n == 3)
        }));
        assert_eq!(r, Ok(2));
        assert_eq!(d.ns, 2 * 100_000);
        let e = embassy_futures::block_on(poll_until(&mut d, b, "x", || Err(Error::NoContext)));
        assert_eq!(e, Err(Error::NoContext));
    }

    #[test]
    fn a_signal_ends_a_wait_that_no_delay_would() {
        let s = NqSignal::new();
        let b = Budget {
            period_us: 100,
            polls: 3,
        };
        // Ready on the third check; every wait ended by a pending signal
        // (the delay never completes).
        let mut n = 0;
        let r = embassy_futures::block_on(poll_until_signalled(&s, &mut Forever, b, "nq", || {
            n += 1;
            s.signal(); // the "interrupt" of the next wait
            Ok(n == 3)
        }));
        assert_eq!(r, Ok(2));
        assert!(!s.take(), "the signal of the satisfied check is spent");
    }

    #[test]
    fn signalled_waits_are_bounded_by_the_budget() {
        let s = NqSignal::new();
        let mut d = FakeDelay { ns: 0 };
        let b = Budget {
            period_us: 100,
            polls: 7,
        };
        // Interrupts keep coming, the condition never holds: still a timeout.
        let mut checks = 0;
        let r = embassy_futures::block_on(poll_until_signalled(&s, &mut d, b, "storm", || {
            checks += 1;
            s.signal();
            Ok(false)
        }));
        assert_eq!(r, Err(Error::Timeout("storm")));
        assert_eq!(checks, 8);
        // No interrupts: the periods bound it, exactly the budget.
        let mut d = FakeDelay { ns: 0 };
        let r = embassy_futures::block_on(poll_until_signalled(&s, &mut d, b, "quiet", || {
            s.take();
            Ok(false)
        }));
        assert_eq!(r, Err(Error::Timeout("quiet")));
        assert_eq!(d.ns, b.total_us() * 1000);
    }
}
