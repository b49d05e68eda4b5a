//! Fuzz the NQ consumer [004 §3] against a hostile device: arbitrary ring
//! bytes, tail values and phase patterns, interleaved with every consumer
//! operation (drain, drain iterator, available count, reset/enable).
//!
//! Properties:
//! - the consumer never touches a byte outside the ring (`RingMem` panics if
//!   it does, including a run scan or run copy that would cross the ring's
//!   end; with `DmaBuf`, sized exactly to the ring, AddressSanitizer would
//!   catch an unchecked access), never panics, never hangs (every wait has a
//!   tiny budget);
//! - a drain returns at most `out.len()`, at most `max_batch`, at most the
//!   ring's capacity; an iterator yields no more; a count is below capacity;
//! - the cursor stays below capacity, and every head write is a multiple of
//!   16 inside the ring;
//! - an error consumes nothing (the cursor does not move, no head write).
#![no_main]

use khal_core::dma::DmaMemory;
use khal_core::notific::DeviceZero;
use khal_core::notific::{
    BpMode, ConsumeKind, EngineConfig, NotificBlocks, NotificEngine, NqConfig, NqEntry, NqRing,
};
use khal_core::wait::Budget;
use khal_core::{DeviceAddr, Result};
use khal_fuzz::{Access, Input, NoDelay, RecMmio, RingMem};
use khal_tests::nq::Kind;
use libfuzzer_sys::fuzz_target;

const BASE: u64 = 0x3053_5000;

fuzz_target!(|data: &[u8]| {
    let mut inp = Input::new(data);
    let mmio = RecMmio::new();
    let num_queues = if inp.bool() { 1 } else { 10 };
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(DeviceAddr(BASE)).unwrap();
    let Ok(mut engine) = NotificEngine::init_raw(&mmio, Some(&mut block), num_queues, 0, 0) else {
        return;
    };
    let index = (inp.u8() % 11) as u32;
    let entries = (inp.u8() % 40) as u32 + 1;
    let size_bytes = if inp.u8() < 16 {
        inp.u16() as u32
    } else {
        entries * 16
    };
    let extra = (inp.u8() % 64) as usize;
    let phase = inp.bool();
    // The token: handed out for an index the flavour has, refused (typed,
    // nothing written) otherwise. A ring cannot exist on a refused index.
    let queue = match engine.queue(index) {
        Ok(q) => q,
        Err(e) => {
            let flavour_has = if num_queues == 1 {
                index == 0
            } else {
                index < 10
            };
            assert!(!flavour_has, "queue {index} refused: {e:?}");
            assert!(matches!(e, khal_core::Error::OutOfRange { .. }), "{e:?}");
            return;
        }
    };
    assert_eq!(
        engine.queue(index).map(|_| ()),
        Err(khal_core::Error::QueueTaken(index))
    );
    let mem = RingMem::new(
        size_bytes as usize + extra,
        size_bytes as usize,
        0x1_0000_0000,
    );
    if phase {
        let cfg = configured(&mut inp, NqConfig::phase(size_bytes));
        let dmabuf = dmabuf(&mut inp, size_bytes);
        // The constructor validates; an invalid config is refused, which is fine.
        match &dmabuf {
            Some(b) => {
                if let Ok(ring) = NqRing::host(b, queue, cfg) {
                    exercise(&mut inp, &mmio, &mut engine, b, ring);
                }
            }
            None => {
                if let Ok(ring) = NqRing::host(&mem, queue, cfg) {
                    exercise(&mut inp, &mmio, &mut engine, &mem, ring);
                }
            }
        }
        return;
    }
    let cfg = configured(&mut inp, NqConfig::tail(size_bytes));
    let device = inp.bool();
    let zeroed = std::cell::Cell::new(0usize);
    let zero = |_: u64, len: usize| -> Result<()> {
        zeroed.set(zeroed.get() + len);
        Ok(())
    };
    let dmabuf = dmabuf(&mut inp, size_bytes);
    // Both constructors validate; an invalid config is refused, which is fine.
    match (&dmabuf, device) {
        (Some(b), true) => {
            if let Ok(ring) = NqRing::device(b, zero, queue, cfg) {
                exercise(&mut inp, &mmio, &mut engine, b, ring);
            }
        }
        (Some(b), false) => {
            if let Ok(ring) = NqRing::host(b, queue, cfg) {
                exercise(&mut inp, &mmio, &mut engine, b, ring);
            }
        }
        (None, true) => {
            if let Ok(ring) = NqRing::device(&mem, zero, queue, cfg) {
                exercise(&mut inp, &mmio, &mut engine, &mem, ring);
            }
        }
        (None, false) => {
            if let Ok(ring) = NqRing::host(&mem, queue, cfg) {
                exercise(&mut inp, &mmio, &mut engine, &mem, ring);
            }
        }
    }
});

/// `cfg` with a short budget and, half the runs, a batch cap from `inp`.
fn configured<K: ConsumeKind>(inp: &mut Input, cfg: NqConfig<K>) -> NqConfig<K> {
    let cfg = cfg.with_budget(Budget {
        period_us: 1,
        polls: (inp.u8() % 4) as u32,
    });
    if inp.bool() {
        return cfg.with_max_batch((inp.u8() % 50) as u32);
    }
    cfg
}

/// Half the runs use khal-std's `DmaBuf` (exactly the ring's size) instead
/// of `RingMem`: its atomic-word path (the drain's run copy over `words()`)
/// then runs under the fuzzer's AddressSanitizer.
fn dmabuf(inp: &mut Input, size_bytes: u32) -> Option<khal_std::DmaBuf> {
    if inp.bool() && size_bytes > 0 {
        khal_std::DmaBuf::new(size_bytes as usize, 64).ok()
    } else {
        None
    }
}

fn exercise<'m, R: DmaMemory, K: Kind, Z: DeviceZero>(
    inp: &mut Input,
    mmio: &'m RecMmio,
    engine: &mut NotificEngine<'_, &'m RecMmio>,
    mem: &R,
    mut ring: NqRing<'_, &R, &'m RecMmio, K, Z>,
) {
    let cap = ring.capacity();
    let size_bytes = cap * 16;
    let index = ring.queue().index();
    assert!(ring.max_batch() >= 1 && ring.max_batch() <= cap);

    // The queue's registers: the engine's per-NQ registers of its flavour
    // (`nq_head_ptr` `+0x10C`, `nq_tail_ptr` `+0x110`, `+40 * index` on the
    // ten-queue flavour; one queue: the single-queue flavour, no stride)
    // [004 §3], [FACTS §6].
    let stride = match engine.num_queues() {
        1 => 0,
        _ => 40 * u64::from(index),
    };
    let tail_addr = BASE + 0x110 + stride;
    let head_addr = BASE + 0x10C + stride;
    // Another engine on the same window (the next block): refused, nothing
    // written.
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(DeviceAddr(BASE + 0x1000)).unwrap();
    let mut other =
        NotificEngine::init(mmio, &mut block, EngineConfig::tpb(BpMode::All)).expect("valid init");

    for _ in 0..64 {
        if inp.is_empty() {
            break;
        }
        let before = mmio.len();
        let cursor = ring.next_index();
        let phase = ring.phase();
        match inp.u8() % 8 {
            0 | 1 => {
                let mut out = vec![NqEntry::default(); (inp.u8() % 80) as usize];
                match ring.drain_with(&mut NoDelay, &mut out) {
                    Ok(n) => {
                        assert!(n <= out.len() && n as u32 <= ring.max_batch() && n as u32 <= cap);
                        let heads = head_writes(mmio, before, head_addr);
                        assert_eq!(
                            heads.len(),
                            (n > 0) as usize,
                            "one head write per non-empty drain"
                        );
                    }
                    Err(_) => {
                        assert_eq!((ring.next_index(), ring.phase()), (cursor, phase));
                        assert!(head_writes(mmio, before, head_addr).is_empty());
                    }
                }
            }
            2 => {
                let max = inp.u8() as u32;
                let take = inp.u8() % 8 + 1;
                if let Ok(it) = K::drain_iter(&mut ring, &mut NoDelay, max) {
                    let mut k = 0u32;
                    for item in it.take(take as usize) {
                        if item.is_err() {
                            break;
                        }
                        k += 1;
                    }
                    assert!(k <= max && k <= cap);
                    assert!(head_writes(mmio, before, head_addr).len() <= 1);
                }
            }
            3 => {
                if let Ok(c) = K::available(&mut ring, &mut NoDelay) {
                    assert!(c <= cap, "count {c} > capacity {cap}");
                }
            }
            4 => {
                // The device writes some ring bytes (any pattern of phases).
                let off = inp.u16() as usize % size_bytes.max(1) as usize;
                let n = (inp.u8() % 64) as usize;
                let chunk = inp.bytes(n).to_vec();
                let end = (off + chunk.len()).min(size_bytes as usize);
                mem.write(off, &chunk[..end - off])
                    .expect("device write inside the ring");
            }
            5 => {
                // The device's tail register: a script of raw values.
                let k = inp.u8() % 5 + 1;
                let vals = (0..k)
                    .map(|_| match inp.u8() % 4 {
                        0 => inp.u32(),
                        1 => u32::MAX,
                        _ => (inp.u8() as u32 % (cap + 2)) * 16,
                    })
                    .collect();
                mmio.script(tail_addr, vals);
            }
            6 if inp.bool() => {
                let r = ring.reset(&mut other, &mut NoDelay);
                assert_eq!(r, Err(khal_core::Error::WrongEngine));
                assert_eq!(mmio.len(), before, "a refused reset wrote");
            }
            6 => {
                let _ = ring.reset(engine, &mut NoDelay);
            }
            _ => {
                let _ = ring.enable(engine, &mut NoDelay);
            }
        }
        assert!(
            ring.next_index() < cap,
            "cursor {} past capacity {cap}",
            ring.next_index()
        );
        for h in head_writes(mmio, before, head_addr) {
            assert!(
                h % 16 == 0 && h < size_bytes,
                "head write {h:#x} outside the ring"
            );
        }
    }
}

/// The head values written since `from`.
fn head_writes(m: &RecMmio, from: usize, head: u64) -> Vec<u32> {
    m.since(from)
        .into_iter()
        .filter_map(|a| match a {
            Access::Write(x, v) if x == head => Some(v),
            _ => None,
        })
        .collect()
}
