//! The device stand-in: the notification engine's producer side, played in
//! plain code between drain calls, as the host device model does it
//! (std-adapter/src/model/notific.rs `NotificModel::post`) [004 §3], [FACTS §11]:
//!
//! - entry `k` of the stream goes to slot `k mod capacity`; byte 0 = the queue
//!   index, bytes 4..12 = a sequence number (little endian), byte 3 = the phase
//!   bit: 1 on the first pass over the ring, 0 on the second, …;
//! - the 15 other bytes are written first, the phase byte last;
//! - then the tail register moves to the next slot, as a byte offset;
//! - back-pressure: the producer stops one entry short of the consumer's head.
//!
//! Faults are plain register or memory states: a stall (the tail moved but the
//! phase byte never lands, or the tail never drains on reset), an all-ones
//! tail, a misaligned tail, a tail past the ring.

use khal::dma::{DmaMemory, StaticDma};
use khal::mmio::VolatileWindow;
use khal::{DeviceAddr, Mmio, Result};

use crate::golden::nq_stride;

/// Payload bytes holding the sequence number (the model's `SEQ_BYTES`).
pub const SEQ: core::ops::Range<usize> = 4..12;

/// The sequence number of an entry.
pub fn entry_seq(raw: &[u8; 16]) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(raw.get(SEQ).unwrap_or(&[0; 8]));
    u64::from_le_bytes(b)
}

/// One NQ's producer.
pub struct Device<'a> {
    win: &'a VolatileWindow,
    mem: &'a StaticDma,
    /// The queue's `nq_head_ptr` and `nq_tail_ptr` addresses.
    head: DeviceAddr,
    tail: DeviceAddr,
    idx: u32,
    cap: u64,
    /// Entries written since the last reset.
    written: u64,
    /// The next sequence number.
    pub seq: u64,
}

impl<'a> Device<'a> {
    /// The producer of queue `idx` of the engine at `base`, ring `mem` of `cap` entries.
    pub fn new(
        win: &'a VolatileWindow,
        base: DeviceAddr,
        ten_queue: bool,
        idx: u32,
        mem: &'a StaticDma,
        cap: u32,
    ) -> Self {
        let o = nq_stride(idx, ten_queue);
        Device {
            win,
            mem,
            head: base.add(0x10C + o),
            tail: base.add(0x110 + o),
            idx,
            cap: u64::from(cap),
            written: 0,
            seq: 1000,
        }
    }

    /// Post up to `n` entries (fewer when the ring is full); returns how many.
    pub fn post(&mut self, n: u32) -> Result<u32> {
        self.post_with(n, true)
    }

    /// Post `n` entries whose phase byte never lands (a stalled DMA): the
    /// payload and the tail move, the phase bytes stay old.
    pub fn post_stalled(&mut self, n: u32) -> Result<u32> {
        self.post_with(n, false)
    }

    /// Land the phase bytes of the last `n` entries written (the stalled DMA completes).
    pub fn land(&mut self, n: u32) -> Result<()> {
        for k in (0..u64::from(n)).rev() {
            let w = self.written - 1 - k;
            self.mem
                .write(self.offset(w) + 3, &[Self::phase_byte(w, self.cap)])?;
        }
        Ok(())
    }

    fn offset(&self, w: u64) -> usize {
        ((w % self.cap) * 16) as usize
    }

    fn phase_byte(w: u64, cap: u64) -> u8 {
        if (w / cap).is_multiple_of(2) {
            0x80
        } else {
            0x00
        }
    }

    fn post_with(&mut self, n: u32, land: bool) -> Result<u32> {
        let head_slot = u64::from(self.win.read32(self.head)? / 16);
        let mut done = 0;
        for _ in 0..n {
            let slot = self.written % self.cap;
            let pending = (slot + self.cap - head_slot % self.cap) % self.cap;
            if pending >= self.cap - 1 {
                break; // back-pressure: the ring is full
            }
            let mut e = [0u8; 16];
            e[0] = self.idx as u8;
            e[SEQ].copy_from_slice(&self.seq.to_le_bytes());
            let off = self.offset(self.written);
            // Everything but the phase byte first, the phase byte last [FACTS §11].
            self.mem.write(off, &e[..3])?;
            self.mem.write(off + 4, &e[4..])?;
            if land {
                self.mem
                    .write(off + 3, &[Self::phase_byte(self.written, self.cap)])?;
            }
            self.written += 1;
            self.seq += 1;
            self.set_tail(((self.written % self.cap) * 16) as u32)?;
            done += 1;
        }
        Ok(done)
    }

    /// Write the tail register (a fault: any value).
    pub fn set_tail(&self, v: u32) -> Result<()> {
        self.win.write32(self.tail, v)
    }

    /// The head register (the consumer's cursor, a byte offset).
    pub fn head(&self) -> Result<u32> {
        self.win.read32(self.head)
    }
}
