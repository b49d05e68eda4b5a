//! Phase-bit consumption is for host memory only (the notes assert
//! `!on_hbm`): a device-memory ring takes a tail config, and a phase config
//! does not compile.
use khal::notific::{NqConfig, NqQueue, NqRing};
use khal_std::{DmaBuf, HeapMmio};

fn device_ring(q: NqQueue<'_, &HeapMmio>) {
    let zero = |_: u64, _: usize| Ok(());
    let view = DmaBuf::new(256, 64).unwrap();
    let _ = NqRing::device(view, zero, q, NqConfig::phase(256));
}

fn main() {
    let _ = device_ring;
}
