//! A minimal executor for the async tests: polls one future on this core
//! with a waker that counts its wakes, and never spins on a future nothing woke.
//!
//! Between polls, when the future is pending and nothing has woken it, the
//! test's `idle` step runs once (the device posts, the interrupt fires);
//! if the waker is still not woken after that, the run stops and reports the
//! future as stuck. So a future that completes here was woken by something
//! the test did, and the counts say by what. Every run is bounded by
//! `max_polls` (ARCHITECTURE rule "every wait has a budget").

use core::future::Future;
use core::pin::pin;
use core::sync::atomic::{AtomicU32, Ordering};
use core::task::{Context, Poll, RawWaker, RawWakerVTable, Waker};

/// Wakes of the executor's waker since boot. Static, because a waker may be
/// kept (an `NqSignal` holds the last one) after its run ends.
static WAKES: AtomicU32 = AtomicU32::new(0);

fn clone(_: *const ()) -> RawWaker {
    RawWaker::new(core::ptr::null(), &VTABLE)
}

fn wake(_: *const ()) {
    WAKES.fetch_add(1, Ordering::SeqCst);
}

fn drop_waker(_: *const ()) {}

static VTABLE: RawWakerVTable = RawWakerVTable::new(clone, wake, wake, drop_waker);

/// What a run did.
pub struct Run<T> {
    /// The future's output, or `None` when it was stuck (pending and not woken
    /// after `idle`) or still pending after `max_polls` polls.
    pub output: Option<T>,
    /// Polls of the future.
    pub polls: u32,
    /// Wakes of its waker during the run.
    pub wakes: u32,
    /// Times `idle` ran.
    pub idles: u32,
}

/// Poll `fut` to completion: at most `max_polls` polls; after a pending poll
/// that nothing woke, run `idle` once, then poll again only if the waker was
/// woken meanwhile.
pub fn block_on<F: Future>(fut: F, max_polls: u32, mut idle: impl FnMut()) -> Run<F::Output> {
    // SAFETY: the vtable's functions ignore the data pointer (null) and only
    // touch the static counter, so every RawWaker contract holds trivially.
    let waker = unsafe { Waker::from_raw(RawWaker::new(core::ptr::null(), &VTABLE)) };
    let mut cx = Context::from_waker(&waker);
    let mut fut = pin!(fut);
    let start = WAKES.load(Ordering::SeqCst);
    let mut run = Run {
        output: None,
        polls: 0,
        wakes: 0,
        idles: 0,
    };
    while run.polls < max_polls {
        let before = WAKES.load(Ordering::SeqCst);
        run.polls += 1;
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            run.output = Some(v);
            break;
        }
        if WAKES.load(Ordering::SeqCst) == before {
            idle();
            run.idles += 1;
            if WAKES.load(Ordering::SeqCst) == before {
                break; // stuck: nothing will wake it
            }
        }
    }
    run.wakes = WAKES.load(Ordering::SeqCst).wrapping_sub(start);
    run
}
