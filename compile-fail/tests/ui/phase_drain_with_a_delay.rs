//! A phase ring's drain never waits (the entries' phase bits say what is
//! new), so it takes no delay: `ring.drain(&mut out)`. Handing it one does
//! not compile.
use khal::notific::{NqEntry, NqRing};
use khal_std::{DmaBuf, HeapMmio, SimClock, SimDelay};

fn drain(ring: &mut NqRing<'_, DmaBuf, &HeapMmio>) -> khal::Result<usize> {
    let clock = SimClock::new();
    let mut out = [NqEntry::default(); 4];
    ring.drain(&mut SimDelay::new(&clock), &mut out)
}

fn main() {
    let _ = drain;
}
