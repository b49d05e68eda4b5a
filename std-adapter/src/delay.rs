//! Delays: [`StdDelay`] sleeps for real; [`SimDelay`] advances simulated time;
//! `TokioDelay` (feature `tokio`) sleeps on tokio's timer.
//!
//! Tests of bounded waits use [`SimDelay`] so that a one-second budget costs
//! nothing, while the device model still sees time pass (e.g. a slow DMA whose
//! phase byte lands after a while).

use std::sync::atomic::{AtomicU64, Ordering};

use embedded_hal::delay::DelayNs;

/// A real delay: `std::thread::sleep`.
#[derive(Debug, Default, Clone, Copy)]
pub struct StdDelay;

impl DelayNs for StdDelay {
    fn delay_ns(&mut self, ns: u32) {
        std::thread::sleep(std::time::Duration::from_nanos(ns as u64));
    }
}

/// An async delay on tokio's timer (`tokio::time::sleep`), for the async
/// waits of `khal_core::asynch` in a tokio program (feature `tokio`). Needs a
/// tokio runtime with its time driver enabled (`#[tokio::main]` enables it,
/// a `Builder` needs `enable_time`). An embassy program uses
/// `embassy_time::Delay`, which is the same for embassy's timer.
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
#[derive(Debug, Default, Clone, Copy)]
pub struct TokioDelay;

#[cfg(feature = "tokio")]
impl embedded_hal_async::delay::DelayNs for TokioDelay {
    async fn delay_ns(&mut self, ns: u32) {
        tokio::time::sleep(std::time::Duration::from_nanos(ns.into())).await;
    }
}

/// Something that simulated time can be advanced on (a clock, the device model).
pub trait Advance {
    /// Let `ns` nanoseconds of simulated time pass.
    fn advance_ns(&self, ns: u64);
    /// Simulated nanoseconds since creation.
    fn now_ns(&self) -> u64;
}

/// A bare simulated clock.
#[derive(Debug, Default)]
pub struct SimClock {
    ns: AtomicU64,
}

impl SimClock {
    /// A clock at time zero.
    pub fn new() -> Self {
        SimClock::default()
    }
}

impl Advance for SimClock {
    fn advance_ns(&self, ns: u64) {
        self.ns.fetch_add(ns, Ordering::Relaxed);
    }
    fn now_ns(&self) -> u64 {
        self.ns.load(Ordering::Relaxed)
    }
}

/// A delay that advances simulated time on `T` instead of sleeping.
#[derive(Debug)]
pub struct SimDelay<'a, T: Advance + ?Sized> {
    target: &'a T,
    slept_ns: u64,
}

impl<'a, T: Advance + ?Sized> SimDelay<'a, T> {
    /// A delay driving `target`'s clock.
    pub fn new(target: &'a T) -> Self {
        SimDelay {
            target,
            slept_ns: 0,
        }
    }

    /// Simulated nanoseconds this delay has slept.
    pub fn slept_ns(&self) -> u64 {
        self.slept_ns
    }
}

impl<T: Advance + ?Sized> DelayNs for SimDelay<'_, T> {
    fn delay_ns(&mut self, ns: u32) {
        self.slept_ns += ns as u64;
        self.target.advance_ns(ns as u64);
    }
}

/// The async twin, for `khal_core::asynch`: simulated time passes, then the
/// future yields to the executor once (it wakes itself and is pending one
/// poll), so another task on the same executor (one posting notifications
/// on the device model) runs during every wait, as it would during a real
/// sleep. Ready on the next poll.
impl<T: Advance + ?Sized> embedded_hal_async::delay::DelayNs for SimDelay<'_, T> {
    async fn delay_ns(&mut self, ns: u32) {
        DelayNs::delay_ns(self, ns);
        YieldOnce(false).await;
    }
}

/// Pending once (after waking its task), then ready.
struct YieldOnce(bool);

impl core::future::Future for YieldOnce {
    type Output = ();

    fn poll(
        mut self: core::pin::Pin<&mut Self>,
        cx: &mut core::task::Context<'_>,
    ) -> core::task::Poll<()> {
        if self.0 {
            return core::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        core::task::Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sim_delay_advances_the_clock() {
        let c = SimClock::new();
        let mut d = SimDelay::new(&c);
        d.delay_us(100);
        d.delay_ms(1);
        assert_eq!(c.now_ns(), 1_100_000);
        assert_eq!(d.slept_ns(), 1_100_000);
    }
}
