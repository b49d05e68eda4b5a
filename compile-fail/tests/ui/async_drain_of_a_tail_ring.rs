//! The async drain takes phase rings only: a tail ring's drain waits for the
//! last pending entry to land with a blocking delay, so its async drain does
//! not compile (a tail ring drains with `ring.drain(delay, out)`).
use khal::asynch::{self, NqSignal};
use khal::notific::{NqEntry, NqRing, Tail};
use khal::wait::Budget;
use khal_std::{DmaBuf, HeapMmio, SimClock, SimDelay};

async fn drain(ring: &mut NqRing<'_, DmaBuf, &HeapMmio, Tail>, signal: &NqSignal) {
    let clock = SimClock::new();
    let mut out = [NqEntry::default(); 4];
    let budget = Budget::NQ_DEFAULT;
    let _ = asynch::drain(ring, signal, &mut SimDelay::new(&clock), budget, &mut out).await;
}

fn main() {
    let _ = drain;
}
