//! [`NqSignal`]: the waker cell between an NQ's interrupt and the task that
//! waits for its notifications.
//!
//! The interrupt side calls [`NqSignal::signal`] (from an MSI-X handler on
//! the target, from the device model on the host); the task side awaits
//! [`NqSignal::wait`]. The cell is a `critical_section::Mutex`, so both sides
//! may run in any context (thread, interrupt) on any target khal supports.
//! A signal raised before anyone waits is kept (one pending flag), so it is
//! never lost between the waiter's check of the ring and its sleep.

use core::cell::RefCell;
use core::future::{poll_fn, Future};
use core::task::{Poll, Waker};

use critical_section::Mutex;

#[derive(Default)]
struct Inner {
    waker: Option<Waker>,
    pending: bool,
}

/// An interrupt-safe "new notifications" signal with one waiting task.
///
/// ```
/// use khal_core::asynch::NqSignal;
///
/// // Firmware: a static the NQ interrupt handler raises.
/// static NQ2: NqSignal = NqSignal::new();
/// fn msix_handler() {
///     NQ2.signal(); // wakes the task awaiting NQ2.wait(), if any
/// }
/// msix_handler();
/// assert!(NQ2.take()); // the signal was kept for the next waiter
/// assert!(!NQ2.take());
/// ```
pub struct NqSignal {
    inner: Mutex<RefCell<Inner>>,
}

impl NqSignal {
    /// A signal with nothing pending and no waiter.
    pub const fn new() -> Self {
        NqSignal {
            inner: Mutex::new(RefCell::new(Inner {
                waker: None,
                pending: false,
            })),
        }
    }

    /// Raise the signal: mark it pending and wake the waiting task. Safe to
    /// call from an interrupt handler; the wake runs outside the critical
    /// section.
    pub fn signal(&self) {
        let waker = critical_section::with(|cs| {
            let mut inner = self.inner.borrow_ref_mut(cs);
            inner.pending = true;
            inner.waker.take()
        });
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// Consume a pending signal: `true` if one was raised since the last
    /// `take` or completed `wait`.
    pub fn take(&self) -> bool {
        critical_section::with(|cs| core::mem::take(&mut self.inner.borrow_ref_mut(cs).pending))
    }

    /// Resolve once the signal is raised (at once if it is pending), consuming
    /// it. Only one task should wait on a signal at a time: a second waiter
    /// replaces the first one's waker.
    pub fn wait(&self) -> impl Future<Output = ()> + '_ {
        poll_fn(move |cx| {
            critical_section::with(|cs| {
                let mut inner = self.inner.borrow_ref_mut(cs);
                if core::mem::take(&mut inner.pending) {
                    return Poll::Ready(());
                }
                match &inner.waker {
                    Some(w) if w.will_wake(cx.waker()) => {}
                    _ => inner.waker = Some(cx.waker().clone()),
                }
                Poll::Pending
            })
        })
    }
}

impl Default for NqSignal {
    fn default() -> Self {
        NqSignal::new()
    }
}

impl core::fmt::Debug for NqSignal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (pending, waiting) = critical_section::with(|cs| {
            let inner = self.inner.borrow_ref(cs);
            (inner.pending, inner.waker.is_some())
        });
        f.debug_struct("NqSignal")
            .field("pending", &pending)
            .field("waiting", &waiting)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use core::pin::pin;
    use core::task::Context;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Wake;

    struct CountWakes(AtomicUsize);
    impl Wake for CountWakes {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn a_signal_wakes_the_waiter_once_and_is_consumed() {
        let s = NqSignal::new();
        let count = Arc::new(CountWakes(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        let mut cx = Context::from_waker(&waker);
        let mut fut = pin!(s.wait());
        assert!(fut.as_mut().poll(&mut cx).is_pending());
        assert_eq!(count.0.load(Ordering::SeqCst), 0);
        s.signal();
        assert_eq!(count.0.load(Ordering::SeqCst), 1, "the waiter was woken");
        assert!(fut.as_mut().poll(&mut cx).is_ready());
        assert!(!s.take(), "the wait consumed the signal");
        // A second signal with no waiter: kept, nobody woken.
        s.signal();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert!(pin!(s.wait()).poll(&mut cx).is_ready());
    }

    /// Run `fut` on this thread, parked between polls; its waker unparks the
    /// thread. Panics if the future is not woken within `limit` (a lost wake).
    fn block_on_woken<F: Future>(fut: F, limit: std::time::Duration) -> F::Output {
        struct Unpark(std::thread::Thread);
        impl Wake for Unpark {
            fn wake(self: Arc<Self>) {
                self.0.unpark();
            }
        }
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        let mut fut = pin!(fut);
        let start = std::time::Instant::now();
        loop {
            if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
                return v;
            }
            assert!(start.elapsed() < limit, "not woken within {limit:?}");
            std::thread::park_timeout(limit);
        }
    }

    #[test]
    fn a_wait_is_woken_by_a_signal_from_another_thread() {
        // Fewer rounds under Miri (it runs threads, slowly).
        let rounds = if cfg!(miri) { 3 } else { 50 };
        for _ in 0..rounds {
            let s = Arc::new(NqSignal::new());
            let t = {
                let s = s.clone();
                std::thread::spawn(move || {
                    std::thread::sleep(std::time::Duration::from_micros(200));
                    s.signal();
                })
            };
            block_on_woken(s.wait(), std::time::Duration::from_secs(5));
            t.join().ok();
        }
    }
}
