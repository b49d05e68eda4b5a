//! Delays: [`StdDelay`] sleeps for real; [`SimDelay`] advances simulated time.
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

/// The async twin, for `khal_core::asynch`: simulated time passes and the
/// future is ready at once (nothing to wait for in a simulation).
impl<T: Advance + ?Sized> embedded_hal_async::delay::DelayNs for SimDelay<'_, T> {
    async fn delay_ns(&mut self, ns: u32) {
        DelayNs::delay_ns(self, ns);
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
