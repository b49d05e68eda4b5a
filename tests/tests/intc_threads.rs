//! The vector-mask shadow is shared by thread and interrupt context: two
//! threads hammer mask / unmask on a `Sync` register file and, at the end, the
//! shadow equals the register state [004 §4], ARCHITECTURE rule 10.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Barrier};

use khal::intc::Intc;
use khal::Mariana;
use khal::{DeviceAddr, Mmio, Result};
use khal_std::HeapMmio;

const BASE: DeviceAddr = DeviceAddr(0x1_0000);

/// A `Sync` register file that also plays the set-mask / clear-mask
/// semantics on a hardware mask word, remembers the last mask written, and
/// counts publishes out of order: when shadows are published in the order
/// they change (one bit apart each time), the hardware mask after a set-mask
/// (OR) or clear-mask (AND) write equals the value written; a stale publish
/// breaks that.
struct MaskHw {
    regs: HeapMmio,
    hw_mask: AtomicU32,
    last_written: AtomicU32,
    out_of_order: AtomicU32,
}

impl Mmio for MaskHw {
    fn read32(&self, a: DeviceAddr) -> Result<u32> {
        self.regs.read32(a)
    }
    fn write32(&self, a: DeviceAddr, v: u32) -> Result<()> {
        match a.get() - BASE.get() {
            16 => {
                if self.hw_mask.fetch_or(v, Ordering::SeqCst) | v != v {
                    self.out_of_order.fetch_add(1, Ordering::SeqCst);
                }
                self.last_written.store(v, Ordering::SeqCst);
            }
            24 => {
                if self.hw_mask.fetch_and(v, Ordering::SeqCst) & v != v {
                    self.out_of_order.fetch_add(1, Ordering::SeqCst);
                }
                self.last_written.store(v, Ordering::SeqCst);
            }
            _ => {}
        }
        self.regs.write32(a, v)
    }
}

#[test]
fn two_threads_hammering_mask_unmask_keep_shadow_and_registers_equal() {
    let hw = Arc::new(MaskHw {
        regs: HeapMmio::new(BASE, 0x1000),
        hw_mask: AtomicU32::new(0),
        last_written: AtomicU32::new(0),
        out_of_order: AtomicU32::new(0),
    });
    let intc = Arc::new(Intc::<Mariana>::new(BASE).unwrap());
    let start = Arc::new(Barrier::new(2));
    let workers: Vec<_> = (0..2u32)
        .map(|t| {
            let (hw, intc, start) = (hw.clone(), intc.clone(), start.clone());
            std::thread::spawn(move || {
                start.wait();
                // A cheap xorshift so the two threads interleave differently.
                let mut x = 0x9E37_79B9u32 ^ (t + 1);
                for _ in 0..100_000 {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    let vec = x % 8;
                    if x & 0x100 == 0 {
                        intc.mask_vector(&*hw, vec).unwrap();
                    } else {
                        intc.unmask_vector(&*hw, vec).unwrap();
                    }
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    assert_eq!(hw.out_of_order.load(Ordering::SeqCst), 0);
    let shadow = hw.last_written.load(Ordering::SeqCst);
    assert_eq!(hw.hw_mask.load(Ordering::SeqCst), shadow);
    for vec in 0..8u64 {
        let ctrl = hw.regs.read32(BASE.add(2060 + 16 * vec)).unwrap();
        assert_eq!(ctrl, (shadow >> vec) & 1, "vector {vec}");
    }
    // The software shadow is that state: one more toggle of vector 0 writes
    // the shadow with only bit 0 changed.
    if shadow & 1 == 0 {
        intc.mask_vector(&*hw, 0).unwrap();
    } else {
        intc.unmask_vector(&*hw, 0).unwrap();
    }
    assert_eq!(hw.last_written.load(Ordering::SeqCst), shadow ^ 1);
}
