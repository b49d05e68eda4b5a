//! `async` twins of khal's waits, for embassy-style executors; the blocking
//! API is unchanged and stays the reference.
//!
//! - `wait`: `poll_until_signalled`, the bounded wait over
//!   [`embedded_hal_async::delay::DelayNs`] that also wakes early on an
//!   interrupt, under both.
//! - `signal`: [`NqSignal`], the interrupt-safe waker cell an NQ's
//!   interrupt handler (MSI-X) raises, or the host device model.
//! - `nq`: [`wait_new`] (until the next entry of an NQ ring is new,
//!   woken by the interrupt, bounded by a budget) and [`drain`] (that
//!   wait, then the blocking drain) over the public API of
//!   [`NqRing`](crate::notific::NqRing).
//!
//! Every wait here is bounded exactly like the blocking ones: at most
//! `budget.polls` waits of `budget.period_us`, then [`Error::Timeout`]
//! (ARCHITECTURE rule "every wait has a budget"). An interrupt only ends a
//! wait early; a lost interrupt costs at most one period.
//!
//! [`Error::Timeout`]: crate::Error::Timeout

pub(crate) mod nq;

pub use nq::{drain, wait_new};
pub(crate) mod signal;
pub(crate) mod wait;

pub use signal::NqSignal;
