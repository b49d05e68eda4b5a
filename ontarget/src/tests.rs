//! The tests, each against a zeroed RAM window: golden register programs, NQ
//! drains over three wraps with the device stand-in, every fault's typed error,
//! and (MARIANA) the MSI-X INTC [004 §2, §3, §4].

use embedded_hal::delay::DelayNs;
use khal::dma::{DmaBuffer, DmaMemory, StaticDma};
use khal::mmio::VolatileWindow;
use khal::notific::{
    BpMode, ConsumeKind, ConsumeMode, EngineConfig, NotificBlocks, NotificEngine, NqConfig,
    NqEntry, NqRing, UartMode,
};
use khal::wait::Budget;
use khal::Fault;
use khal::{DeviceAddr, Error, Mmio};

use crate::device::{entry_seq, Device};
use crate::golden;
use crate::harness::{Outcome, Runner};
use crate::rec::{block_after, Rec};
use crate::{check, check_eq, ok};

/// The notification engine's block in the window (the host golden tests' base).
const NOTIFIC: DeviceAddr = DeviceAddr(0x3053_5000);
/// Its size [FACTS §6].
const NOTIFIC_BYTES: u64 = khal::notific::NOTIFIC_BLOCK_BYTES;
/// Ring size used by the drain tests: 16 entries.
const RING: u32 = 256;

/// Every test of this image, in order.
pub fn all(r: &mut Runner<'_>) {
    r.run("arch_bound", arch_bound);
    r.run("static_dma_handed_out_once", static_dma_handed_out_once);
    r.run(
        "volatile_window_address_checks",
        volatile_window_address_checks,
    );
    r.run(
        "notific_init_ten_queue_golden",
        notific_init_ten_queue_golden,
    );
    r.run(
        "notific_init_single_queue_golden",
        notific_init_single_queue_golden,
    );
    r.run(
        "notific_init_errors_write_nothing",
        notific_init_errors_write_nothing,
    );
    r.run("nq_configure_golden", nq_configure_golden);
    r.run("nq_enable_and_reset_golden", nq_enable_and_reset_golden);
    r.run("nq_single_queue_golden", nq_single_queue_golden);
    r.run("nq_phase_mode_three_wraps", nq_phase_mode_three_wraps);
    r.run("nq_tail_mode_three_wraps", nq_tail_mode_three_wraps);
    r.run(
        "nq_phase_mode_three_wraps_out1",
        nq_phase_mode_three_wraps_out1,
    );
    r.run(
        "nq_phase_mode_three_wraps_out1_unslotted",
        nq_phase_mode_three_wraps_out1_unslotted,
    );
    r.run("nq_phase_owned_memory_bursts", nq_phase_owned_memory_bursts);
    r.run("nq_drain_iter_commits_once", nq_drain_iter_commits_once);
    r.run(
        "static_dma_translated_bus_address",
        static_dma_translated_bus_address,
    );
    r.run("fault_stalled_dma_times_out", fault_stalled_dma_times_out);
    r.run(
        "fault_stalled_tail_reset_times_out",
        fault_stalled_tail_reset_times_out,
    );
    r.run("fault_all_ones_tail", fault_all_ones_tail);
    r.run("fault_misaligned_tail", fault_misaligned_tail);
    r.run("fault_tail_out_of_ring", fault_tail_out_of_ring);
    r.run(
        "nq_config_errors_write_nothing",
        nq_config_errors_write_nothing,
    );
    #[cfg(feature = "mariana")]
    intc::all(r);
}

/// A delay that sleeps not at all and adds up what it was asked (QEMU is not
/// cycle-accurate: the budget is checked in simulated nanoseconds).
#[derive(Default)]
struct CountingDelay {
    ns: u64,
}

impl DelayNs for CountingDelay {
    fn delay_ns(&mut self, ns: u32) {
        self.ns += u64::from(ns);
    }
}

/// The notific block as words, to compare after an operation.
fn snapshot(win: &VolatileWindow) -> Result<[u32; 1024], Error> {
    let mut s = [0u32; 1024];
    for (i, w) in s.iter_mut().enumerate() {
        *w = win.read32(NOTIFIC.add(4 * i as u64))?;
    }
    Ok(s)
}

/// Every dword of the notific block: the snapshot with `program`'s writes applied.
macro_rules! block_is {
    ($win:expr, $before:expr, $program:expr) => {
        check!(ok!(block_after(
            $win,
            NOTIFIC,
            NOTIFIC_BYTES,
            $before,
            $program
        )))
    };
}

fn arch_bound(_: &VolatileWindow) -> Outcome {
    use khal::family::Arch;
    #[cfg(feature = "sunda")]
    let (id, name) = (2u8, "sunda");
    #[cfg(feature = "cayman")]
    let (id, name) = (3u8, "cayman");
    #[cfg(feature = "mariana")]
    let (id, name) = (4u8, "mariana");
    check_eq!(khal::Selected::ID as u8, id);
    check_eq!(khal::Selected::ID.name(), name);
    Ok(())
}

fn static_dma_handed_out_once(_: &VolatileWindow) -> Outcome {
    fn site() -> Option<&'static mut DmaBuffer<128>> {
        khal::static_dma!(128)
    }
    let Some(buf) = site() else {
        semihosting::println!("  first take returned None");
        return Err(crate::harness::Fail);
    };
    check!(site().is_none());
    check!(site().is_none());
    let addr = &*buf as *const DmaBuffer<128> as usize as u64;
    let mem = StaticDma::identity(buf);
    check_eq!(mem.bus_addr(), addr);
    check_eq!(addr % 64, 0);
    check_eq!(mem.len(), 128);
    let mut out = [0xFFu8; 128];
    ok!(mem.read(0, &mut out));
    check!(out.iter().all(|&b| b == 0));
    // Word-sized copies at every byte offset read back what was written.
    let data: [u8; 23] = core::array::from_fn(|i| i as u8 ^ 0x5A);
    for off in 0..9 {
        ok!(mem.zero());
        ok!(mem.write(off, &data));
        let mut back = [0u8; 23];
        ok!(mem.read(off, &mut back));
        check_eq!(back, data);
        check_eq!(ok!(mem.load_u8(off + 23)), 0);
    }
    check!(mem.read(120, &mut [0u8; 9]).is_err());
    Ok(())
}

/// The address-based accesses of the window on bare metal (the out-of-line
/// `store` / `load` of `VolatileWindow`): the first and last dwords are
/// reached; below, past the end, misaligned, a high word set (the 64-bit
/// test) and the last address are each refused with `OutOfWindow` at that
/// address, writing nothing.
fn volatile_window_address_checks(win: &VolatileWindow) -> Outcome {
    let base = crate::WINDOW_BASE;
    let last = base.add(crate::WINDOW_BYTES as u64 - 4);
    ok!(win.write32(base, 0x1234_5678));
    ok!(win.write32(last, 0x9ABC_DEF0));
    check_eq!(win.read32(base), Ok(0x1234_5678));
    check_eq!(win.read32(last), Ok(0x9ABC_DEF0));
    let refused = [
        base.get() - 4,
        base.get() + crate::WINDOW_BYTES as u64,
        base.get() + 2,
        last.get() + 1,
        base.get() + (1 << 32),
        u64::MAX,
    ];
    for a in refused {
        check_eq!(
            win.write32(DeviceAddr(a), 0xFFFF_FFFF),
            Err(Error::out_of_window(a))
        );
        check_eq!(win.read32(DeviceAddr(a)), Err(Error::out_of_window(a)));
    }
    // The refused writes touched neither end (a misaligned or wrapped
    // address never reaches a neighbouring dword).
    check_eq!(win.read32(base), Ok(0x1234_5678));
    check_eq!(win.read32(last), Ok(0x9ABC_DEF0));
    Ok(())
}

fn notific_init_ten_queue_golden(win: &VolatileWindow) -> Outcome {
    let rec = Rec::new(win, NOTIFIC);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let mut e = ok!(NotificEngine::init(
        &rec,
        &mut block,
        EngineConfig::tpb(BpMode::All).with_uart_mode(UartMode(5))
    ));
    check!(rec.matches(&golden::INIT_TEN_BP0_UART5));
    block_is!(win, None, &golden::INIT_TEN_BP0_UART5);
    // The shadows init left, as the next masked updates write them: every
    // lane, the four coalescer streams seeded.
    use crate::golden::Op::{Read as R, Write as W};
    rec.clear();
    ok!(e.update_wr_buf_enable(0, 0));
    ok!(e.update_hw_bp(0, 0));
    ok!(e.set_coalescer_stream(0, true));
    check!(rec.matches(&[
        (W, 0x30, 0xFFFF_FFFF),
        (W, 0x34, 0xFFFF_FFFF),
        (W, 0x0C, 0xFFFF_FFFF),
        (W, 0x10, 0xFFFF_FFFF),
        (R, 0xB8, 0),
        (W, 0xB8, 0xF << 10),
    ]));
    Ok(())
}

fn notific_init_single_queue_golden(win: &VolatileWindow) -> Outcome {
    let rec = Rec::new(win, NOTIFIC);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let mut e = ok!(NotificEngine::init(
        &rec,
        &mut block,
        EngineConfig::top_sp(BpMode::None).with_uart_mode(UartMode(7))
    ));
    check!(rec.matches(&golden::INIT_SINGLE_BP1_UART7));
    block_is!(win, None, &golden::INIT_SINGLE_BP1_UART7);
    // No stream seeded: enabling stream 0 sets its bit alone.
    use crate::golden::Op::{Read as R, Write as W};
    rec.clear();
    ok!(e.set_coalescer_stream(0, true));
    check!(rec.matches(&[(R, 0xB8, 0), (W, 0xB8, 1 << 10)]));
    Ok(())
}

fn notific_init_errors_write_nothing(win: &VolatileWindow) -> Outcome {
    let rec = Rec::new(win, NOTIFIC);
    check_eq!(
        NotificEngine::init_raw(&rec, None, 10, 0, 0).map(|_| ()),
        Err(Error::NoContext)
    );
    check_eq!(
        NotificEngine::init_raw(
            &rec,
            Some(&mut NotificBlocks::new().take(NOTIFIC).unwrap()),
            10,
            2,
            0
        )
        .map(|_| ()),
        Err(Error::UnknownMode(2))
    );
    check_eq!(
        NotificEngine::init_raw(
            &rec,
            Some(&mut NotificBlocks::new().take(NOTIFIC).unwrap()),
            0,
            0,
            0
        )
        .map(|_| ()),
        Err(Error::InvalidArgument("num_queues (1..=10)"))
    );
    check_eq!(
        NotificEngine::init_raw(
            &rec,
            Some(&mut NotificBlocks::new().take(NOTIFIC).unwrap()),
            11,
            0,
            0
        )
        .map(|_| ()),
        Err(Error::InvalidArgument("num_queues (1..=10)"))
    );
    check_eq!(rec.counts(), (0, 0));
    block_is!(win, None, &[]);
    Ok(())
}

fn nq_configure_golden(win: &VolatileWindow) -> Outcome {
    let rec = Rec::new(win, NOTIFIC);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let mut e = ok!(NotificEngine::init(
        &rec,
        &mut block,
        EngineConfig::tpb(BpMode::All)
    ));
    let mem = StaticDma::identity(ok!(khal::static_dma!(256).ok_or(Error::OutOfMemory)));
    let before = ok!(snapshot(win));
    rec.clear();
    let ring = ok!(NqRing::configure_host(
        &mem,
        ok!(e.queue(3)),
        NqConfig::tail(RING)
    ));
    let program = golden::queue_config(3, true, mem.bus_addr(), RING);
    check!(rec.matches(&program));
    block_is!(win, Some(&before), &program);
    check_eq!(ring.capacity(), 16);
    Ok(())
}

fn nq_enable_and_reset_golden(win: &VolatileWindow) -> Outcome {
    let rec = Rec::new(win, NOTIFIC);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let mut e = ok!(NotificEngine::init(
        &rec,
        &mut block,
        EngineConfig::tpb(BpMode::All)
    ));
    ok!(win.write32(NOTIFIC.add(0xB8), 0x3C00)); // coal_ctrl: every stream on
    let m2 = StaticDma::identity(ok!(khal::static_dma!(256).ok_or(Error::OutOfMemory)));
    let m7 = StaticDma::identity(ok!(khal::static_dma!(256).ok_or(Error::OutOfMemory)));
    let mut d = CountingDelay::default();
    let mut r2 = ok!(NqRing::host(&m2, ok!(e.queue(2)), NqConfig::phase(RING)));
    let mut r7 = ok!(NqRing::host(&m7, ok!(e.queue(7)), NqConfig::tail(RING)));
    ok!(m2.write(0, &[0xAB; 256]));

    // Enable 2 (flush pulse, idx <= 3), then 7 (none), then reset 2.
    let before = ok!(snapshot(win));
    rec.clear();
    ok!(r2.enable(&mut e, &mut d));
    let p = golden::enable(2, true, 0, 0x3C00);
    check!(rec.matches(p.as_slice()));
    block_is!(win, Some(&before), p.as_slice());
    let mut back = [1u8; 256];
    ok!(m2.read(0, &mut back));
    check!(back.iter().all(|&b| b == 0));

    let before = ok!(snapshot(win));
    rec.clear();
    ok!(r7.enable(&mut e, &mut d));
    let p = golden::enable(7, true, 0x4, 0x3C00);
    check!(rec.matches(p.as_slice()));
    block_is!(win, Some(&before), p.as_slice());

    let before = ok!(snapshot(win));
    rec.clear();
    ok!(r2.reset(&mut e, &mut d));
    let p = golden::reset(2, true, 0x84, 0x3C00);
    check!(rec.matches(p.as_slice()));
    block_is!(win, Some(&before), p.as_slice());
    check_eq!((r2.next_index(), r2.phase()), (0, false));
    check_eq!(d.ns, 0); // the tail read 0 at once: no wait
    Ok(())
}

fn nq_single_queue_golden(win: &VolatileWindow) -> Outcome {
    let rec = Rec::new(win, NOTIFIC);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let mut e = ok!(NotificEngine::init(
        &rec,
        &mut block,
        EngineConfig::top_sp(BpMode::All)
    ));
    let mem = StaticDma::identity(ok!(khal::static_dma!(256).ok_or(Error::OutOfMemory)));
    let before = ok!(snapshot(win));
    rec.clear();
    let mut r = ok!(NqRing::configure_host(
        &mem,
        ok!(e.queue(0)),
        NqConfig::tail(RING)
    ));
    ok!(r.enable(&mut e, &mut CountingDelay::default()));
    // No stride on the single-queue flavour [004 §3 QUIRK].
    let config = golden::queue_config(0, false, mem.bus_addr(), RING);
    let enable = golden::enable(0, false, 0, 0);
    let mut program = [(golden::Op::Read, 0, 0); 12];
    let n = config.len() + enable.as_slice().len();
    for (slot, a) in program
        .iter_mut()
        .zip(config.iter().chain(enable.as_slice()))
    {
        *slot = *a;
    }
    let program = program.get(..n).unwrap_or(&[]);
    check!(rec.matches(program));
    block_is!(win, Some(&before), program);
    Ok(())
}

/// Post and drain `3 * capacity + 5` entries on queue `idx` in `mode`,
/// through an `out` of `len` (1 to 8) entries: every entry once, in order,
/// with the phase of its pass; one head write per non-empty drain (the
/// cursor as a byte offset), none per empty poll; phase mode reads no
/// register, tail mode at most one per drain.
fn three_wraps<K: ConsumeKind>(
    win: &VolatileWindow,
    idx: u32,
    kind: fn(u32) -> NqConfig<K>,
    len: usize,
) -> Outcome {
    three_wraps_over(&Rec::new(win, NOTIFIC), win, idx, kind, len)
}

/// [`three_wraps`] through `rec` (with the window's slots, or without).
fn three_wraps_over<K: ConsumeKind>(
    rec: &Rec<'_>,
    win: &VolatileWindow,
    idx: u32,
    kind: fn(u32) -> NqConfig<K>,
    len: usize,
) -> Outcome {
    let mode = K::MODE;
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let mut e = ok!(NotificEngine::init(
        rec,
        &mut block,
        EngineConfig::tpb(BpMode::None)
    ));
    // One static buffer per caller (each hands its buffer out once; the
    // two runs through an `out` of one are queues 5 and 4).
    let mem = match (mode, len) {
        (ConsumeMode::Phase, 1) if idx == 5 => khal::static_dma!(256),
        (ConsumeMode::Phase, 1) => khal::static_dma!(256),
        (ConsumeMode::Phase, _) => khal::static_dma!(256),
        (ConsumeMode::Tail, _) => khal::static_dma!(256),
    };
    let mem = StaticDma::identity(ok!(mem.ok_or(Error::OutOfMemory)));
    let mut ring = ok!(NqRing::configure_host(&mem, ok!(e.queue(idx)), kind(RING)));
    let mut d = CountingDelay::default();
    ok!(ring.enable(&mut e, &mut d));
    let mut dev = Device::new(win, NOTIFIC, true, idx, &mem, RING / 16);
    let cap = u64::from(ring.capacity());
    let total = 3 * cap + 5;
    let seq0 = dev.seq;
    let (mut posted, mut got, mut flips) = (0u64, 0u64, 0u64);
    let mut all = [NqEntry::default(); 8];
    let out = ok!(all.get_mut(..len).ok_or(Error::InvalidArgument("out")));
    let mut step = 0u32;
    while got < total {
        step += 1;
        let want = ((step * 5) % ring.capacity())
            .max(1)
            .min((total - posted) as u32);
        posted += u64::from(ok!(dev.post(want)));
        loop {
            rec.clear();
            let phase = ring.phase();
            let n = ok!(ring.drain_with(&mut d, out));
            let (reads, writes) = rec.counts();
            match mode {
                ConsumeMode::Phase => check_eq!(reads, 0),
                ConsumeMode::Tail => check!(reads <= 1),
            }
            check_eq!(writes, u32::from(n > 0));
            if ring.phase() != phase {
                flips += 1;
            }
            for entry in out.get(..n).unwrap_or(&[]) {
                check_eq!(entry_seq(entry.bytes()), seq0 + got);
                check_eq!(u32::from(entry.bytes()[0]), idx);
                check_eq!(entry.phase(), (got / cap).is_multiple_of(2));
                got += 1;
            }
            check_eq!(ok!(dev.head()), ring.next_index() * 16);
            if n == 0 {
                break;
            }
        }
        check_eq!(got, posted); // nothing lost, nothing duplicated
    }
    check_eq!(got, total);
    check_eq!(flips, 3);
    check_eq!(u64::from(ring.next_index()), total % cap);
    check_eq!(ring.phase(), true);
    check_eq!(d.ns, 0);
    Ok(())
}

fn nq_phase_mode_three_wraps(win: &VolatileWindow) -> Outcome {
    three_wraps(win, 2, NqConfig::phase, 8)
}

fn nq_tail_mode_three_wraps(win: &VolatileWindow) -> Outcome {
    three_wraps(win, 6, NqConfig::tail, 8)
}

/// One entry per call: each pass ends with the call whose one entry is the
/// ring's last (the wrap's commit alone, the `out` filled).
fn nq_phase_mode_three_wraps_out1(win: &VolatileWindow) -> Outcome {
    three_wraps(win, 5, NqConfig::phase, 1)
}

/// The same through a backend without slots: the head cannot be written
/// directly, so every call that takes an entry leaves the quick step for
/// the general path (issue 12, bare metal's `drain`).
/// Phase mode over a ring that owns its memory (the firmware's
/// `NqRing<StaticDma, _>`: its backend takes one or two new entries in bare
/// metal's quick step, where a ring over `&StaticDma` keeps the trait's
/// one-entry default): bursts of 1, 2, 3 and 2 entries drained through an
/// `out` of 16 and of 2, over three wraps. Every entry once and in order
/// with its pass's phase, no register read, one head write per non-empty
/// drain, the head register at the cursor after each.
fn nq_phase_owned_memory_bursts(win: &VolatileWindow) -> Outcome {
    let rec = Rec::new(win, NOTIFIC);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let mut e = ok!(NotificEngine::init(
        &rec,
        &mut block,
        EngineConfig::tpb(BpMode::None)
    ));
    let buf = ok!(khal::static_dma!(256).ok_or(Error::OutOfMemory));
    let idx = 6;
    let mut ring = ok!(NqRing::configure_host(
        StaticDma::identity(buf),
        ok!(e.queue(idx)),
        NqConfig::phase(RING)
    ));
    let mut d = CountingDelay::default();
    ok!(ring.enable(&mut e, &mut d));
    let head = NOTIFIC.add(0x10C + golden::nq_stride(idx, true));
    let cap = u64::from(ring.capacity());
    let total = 3 * cap + 5;
    let (mut written, mut got, mut flips) = (0u64, 0u64, 0u64);
    let mut all = [NqEntry::default(); 16];
    let mut step = 0usize;
    while got < total {
        let burst = [1u64, 2, 3, 2][step % 4].min(total - written);
        let len = if step % 3 == 2 { 2 } else { 16 };
        step += 1;
        for _ in 0..burst {
            ok!(post_entry(ring.memory(), written, cap));
            written += 1;
        }
        let out = ok!(all.get_mut(..len).ok_or(Error::InvalidArgument("out")));
        loop {
            rec.clear();
            let phase = ring.phase();
            let n = ok!(ring.drain(out));
            check_eq!(rec.counts(), (0, u32::from(n > 0)));
            if ring.phase() != phase {
                flips += 1;
            }
            for entry in out.get(..n).unwrap_or(&[]) {
                check_eq!(entry_seq(entry.bytes()), got);
                check_eq!(entry.phase(), (got / cap).is_multiple_of(2));
                got += 1;
            }
            check_eq!(win.read32(head), Ok(ring.next_index() * 16));
            if n == 0 {
                break;
            }
        }
        check_eq!(got, written);
    }
    check_eq!(flips, 3);
    check_eq!(u64::from(ring.next_index()), total % cap);
    check_eq!(d.ns, 0);
    Ok(())
}

/// Entry `k` of a stream into a ring of `cap` entries, as the device writes
/// it [FACTS §11]: the sequence number in bytes 4..12, the phase byte (1 on
/// even passes) last.
fn post_entry(mem: &StaticDma, k: u64, cap: u64) -> Result<(), Error> {
    let mut e = [0u8; 16];
    e[crate::device::SEQ].copy_from_slice(&k.to_le_bytes());
    let off = ((k % cap) * 16) as usize;
    mem.write(off, &e[..3])?;
    mem.write(off + 4, &e[4..])?;
    let phase = if (k / cap).is_multiple_of(2) { 0x80 } else { 0 };
    mem.write(off + 3, &[phase])
}

fn nq_phase_mode_three_wraps_out1_unslotted(win: &VolatileWindow) -> Outcome {
    three_wraps_over(&Rec::unslotted(win, NOTIFIC), win, 4, NqConfig::phase, 1)
}

fn nq_drain_iter_commits_once(win: &VolatileWindow) -> Outcome {
    let rec = Rec::new(win, NOTIFIC);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let mut e = ok!(NotificEngine::init(
        &rec,
        &mut block,
        EngineConfig::tpb(BpMode::None)
    ));
    let mem = StaticDma::identity(ok!(khal::static_dma!(256).ok_or(Error::OutOfMemory)));
    let cfg = NqConfig::phase(RING).with_max_batch(16);
    let mut ring = ok!(NqRing::configure_host(&mem, ok!(e.queue(8)), cfg));
    let mut d = CountingDelay::default();
    ok!(ring.enable(&mut e, &mut d));
    let mut dev = Device::new(win, NOTIFIC, true, 8, &mem, RING / 16);
    let seq0 = dev.seq;
    check_eq!(ok!(dev.post(5)), 5);
    rec.clear();
    let mut it = ok!(ring.drain_iter(16));
    for (k, item) in (0u64..).zip(it.by_ref()) {
        let entry = ok!(item);
        check_eq!(entry_seq(entry.bytes()), seq0 + k);
    }
    check_eq!(ok!(it.finish()), 5);
    // `finish` borrows the iterator: release it, and the ring with it.
    drop(it);
    // Phase mode: no register read; the head written once, as a byte offset.
    check!(rec.matches(&[(golden::Op::Write, 0x10C + 8 * 40, 5 * 16)]));
    check_eq!(ring.next_index(), 5);
    Ok(())
}

fn static_dma_translated_bus_address(win: &VolatileWindow) -> Outcome {
    let rec = Rec::new(win, NOTIFIC);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let mut e = ok!(NotificEngine::init(
        &rec,
        &mut block,
        EngineConfig::tpb(BpMode::All)
    ));
    let buf = ok!(khal::static_dma!(256).ok_or(Error::OutOfMemory));
    // The device reaches this RAM through a window at another address.
    let mem = ok!(StaticDma::new(buf, 0x8_0000_0040));
    check_eq!(mem.bus_addr(), 0x8_0000_0040);
    rec.clear();
    ok!(NqRing::configure_host(
        &mem,
        ok!(e.queue(4)),
        NqConfig::phase(RING)
    ));
    check!(rec.matches(&golden::queue_config(4, true, 0x8_0000_0040, RING)));
    let other = ok!(khal::static_dma!(64).ok_or(Error::OutOfMemory));
    check_eq!(
        StaticDma::new(other, 0x20).map(|_| ()),
        Err(Error::InvalidArgument(
            "static dma: bus address not 64-byte aligned"
        ))
    );
    Ok(())
}

/// The wait budget of the fault tests: 50 polls of 100 µs.
const BUDGET: Budget = Budget {
    period_us: 100,
    polls: 50,
};

fn fault_stalled_dma_times_out(win: &VolatileWindow) -> Outcome {
    let rec = Rec::new(win, NOTIFIC);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let mut e = ok!(NotificEngine::init(
        &rec,
        &mut block,
        EngineConfig::tpb(BpMode::None)
    ));
    let mem = StaticDma::identity(ok!(khal::static_dma!(256).ok_or(Error::OutOfMemory)));
    let cfg = NqConfig::tail(RING).with_budget(BUDGET);
    let mut ring = ok!(NqRing::configure_host(&mem, ok!(e.queue(4)), cfg));
    let mut d = CountingDelay::default();
    ok!(ring.enable(&mut e, &mut d));
    let mut dev = Device::new(win, NOTIFIC, true, 4, &mem, RING / 16);
    let seq0 = dev.seq;
    // The tail says 3 are pending; their phase bytes never land.
    check_eq!(ok!(dev.post_stalled(3)), 3);
    let mut out = [NqEntry::default(); 8];
    check_eq!(
        ring.drain(&mut d, &mut out),
        Err(Error::Timeout("nq notification arrival"))
    );
    // The whole budget, exactly, and nothing consumed: no head write.
    check_eq!(d.ns, BUDGET.total_us() * 1000);
    check_eq!((ring.next_index(), ok!(dev.head())), (0, 0));
    // The DMA completes: the same three arrive, once, in order.
    ok!(dev.land(3));
    let n = ok!(ring.drain(&mut d, &mut out));
    check_eq!(n, 3);
    for (k, entry) in out.iter().take(3).enumerate() {
        check_eq!(entry_seq(entry.bytes()), seq0 + k as u64);
    }
    check_eq!(ok!(dev.head()), 48);
    Ok(())
}

fn fault_stalled_tail_reset_times_out(win: &VolatileWindow) -> Outcome {
    let rec = Rec::new(win, NOTIFIC);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let mut e = ok!(NotificEngine::init(
        &rec,
        &mut block,
        EngineConfig::tpb(BpMode::None)
    ));
    let mem = StaticDma::identity(ok!(khal::static_dma!(256).ok_or(Error::OutOfMemory)));
    let cfg = NqConfig::tail(RING).with_budget(BUDGET);
    let mut ring = ok!(NqRing::configure_host(&mem, ok!(e.queue(5)), cfg));
    let dev = Device::new(win, NOTIFIC, true, 5, &mem, RING / 16);
    // A stalled device never drains its tail back to 0.
    ok!(dev.set_tail(0x40));
    let mut d = CountingDelay::default();
    rec.clear();
    check_eq!(
        ring.enable(&mut e, &mut d),
        Err(Error::Timeout("nq tail drain"))
    );
    check_eq!(d.ns, BUDGET.total_us() * 1000);
    // 51 tail reads (the first and one per poll), no head write, not enabled.
    check_eq!(rec.reads_of(0x110 + 5 * 40), 51);
    check_eq!(rec.writes_to(0x10C + 5 * 40), 0);
    check_eq!(ok!(win.read32(NOTIFIC.add(0x14))), 0);
    Ok(())
}

/// Queue 1 enabled in tail mode with 2 entries posted, then the tail set to
/// `tail`: the drain and the available count must both fail with `want`,
/// consuming nothing.
fn tail_fault(
    win: &VolatileWindow,
    buf: Option<&'static mut DmaBuffer<256>>,
    tail: u32,
    want: Error,
) -> Outcome {
    let rec = Rec::new(win, NOTIFIC);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let mut e = ok!(NotificEngine::init(
        &rec,
        &mut block,
        EngineConfig::tpb(BpMode::None)
    ));
    let mem = StaticDma::identity(ok!(buf.ok_or(Error::OutOfMemory)));
    let cfg = NqConfig::tail(RING).with_budget(BUDGET);
    let mut ring = ok!(NqRing::configure_host(&mem, ok!(e.queue(1)), cfg));
    let mut d = CountingDelay::default();
    ok!(ring.enable(&mut e, &mut d));
    let mut dev = Device::new(win, NOTIFIC, true, 1, &mem, RING / 16);
    check_eq!(ok!(dev.post(2)), 2);
    ok!(dev.set_tail(tail));
    let mut out = [NqEntry::default(); 8];
    rec.clear();
    check_eq!(ring.drain(&mut d, &mut out), Err(want));
    check_eq!(ring.available_count(&mut d), Err(want));
    // One tail read each, nothing written, nothing consumed, no wait.
    check_eq!(rec.counts(), (2, 0));
    check_eq!((ring.next_index(), ok!(dev.head())), (0, 0));
    check_eq!(d.ns, 0);
    // The device recovers: the two entries are still there.
    ok!(dev.set_tail(32));
    check_eq!(ok!(ring.drain(&mut d, &mut out)), 2);
    Ok(())
}

fn fault_all_ones_tail(win: &VolatileWindow) -> Outcome {
    let addr = NOTIFIC.add(0x110 + 40).get();
    tail_fault(
        win,
        khal::static_dma!(256),
        u32::MAX,
        Error::DeviceFault(Fault::all_ones(addr)),
    )
}

fn fault_misaligned_tail(win: &VolatileWindow) -> Outcome {
    tail_fault(
        win,
        khal::static_dma!(256),
        0x18,
        Error::DeviceFault(Fault::MisalignedTail { tail: 0x18 }),
    )
}

fn fault_tail_out_of_ring(win: &VolatileWindow) -> Outcome {
    tail_fault(
        win,
        khal::static_dma!(256),
        RING,
        Error::DeviceFault(Fault::TailOutOfRing {
            tail: RING,
            ring_bytes: RING,
        }),
    )
}

fn nq_config_errors_write_nothing(win: &VolatileWindow) -> Outcome {
    let rec = Rec::new(win, NOTIFIC);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let mut e = ok!(NotificEngine::init(
        &rec,
        &mut block,
        EngineConfig::tpb(BpMode::All)
    ));
    let mem = StaticDma::identity(ok!(khal::static_dma!(256).ok_or(Error::OutOfMemory)));
    let before = ok!(snapshot(win));
    rec.clear();
    let cfg = |size| NqConfig::tail(size);
    check_eq!(
        e.queue(10).map(|_| ()),
        Err(Error::OutOfRange {
            what: "nq index",
            value: 10,
            limit: 10
        })
    );
    // A refusal gives its token back: one token through both refusals.
    let q = ok!(e.queue(1));
    let refused = ok!(NqRing::configure_host(&mem, q, cfg(24))
        .map(|_| ())
        .err()
        .ok_or("accepted"));
    check_eq!(
        refused.error(),
        Error::InvalidArgument("nq size (a non-zero multiple of 16 bytes)")
    );
    let (_, q) = refused.into_parts();
    let refused = ok!(NqRing::configure_host(&mem, q, cfg(512))
        .map(|_| ())
        .err()
        .ok_or("accepted"));
    check_eq!(
        refused.error(),
        Error::InvalidArgument("nq size larger than its memory")
    );
    check_eq!(e.queue(1).map(|_| ()), Err(Error::QueueTaken(1)));
    check_eq!(rec.counts(), (0, 0));
    block_is!(win, Some(&before), &[]);
    // The token given back builds a ring: its three queue-config writes.
    let (_, q) = refused.into_parts();
    let ring = ok!(NqRing::configure_host(&mem, q, cfg(256)));
    check_eq!(ring.queue().index(), 1);
    check_eq!(rec.counts(), (0, 3));
    Ok(())
}

/// The MARIANA MSI-X interrupt controller [004 §4], [FACTS §7].
#[cfg(feature = "mariana")]
mod intc {
    use super::*;
    use khal::intc::{EnsNq, ErrtrigLine, Intc};
    use khal::Mariana;

    use crate::golden::Op::{Read as R, Write as W};
    use crate::WINDOW_BASE;

    const MSIX: DeviceAddr = WINDOW_BASE.add(0x1000);
    const ERRTRIG3: DeviceAddr = WINDOW_BASE.add(0x8000);

    pub fn all(r: &mut Runner<'_>) {
        r.run("intc_vector_masks", intc_vector_masks);
        r.run("intc_errtrig_line_masks", intc_errtrig_line_masks);
        r.run(
            "intc_nq_base_through_the_mailbox",
            intc_nq_base_through_the_mailbox,
        );
        r.run("intc_refusals_write_nothing", intc_refusals_write_nothing);
    }

    fn intc() -> Result<Intc<Mariana>, Error> {
        let mut i = Intc::new(MSIX)?;
        i.set_errtrig_base(3, ERRTRIG3)?;
        Ok(i)
    }

    fn intc_vector_masks(win: &VolatileWindow) -> Outcome {
        let rec = Rec::new(win, MSIX);
        let i = ok!(intc());
        ok!(i.mask_vector(&rec, 3));
        ok!(i.mask_vector(&rec, 7));
        ok!(i.unmask_vector(&rec, 3));
        let program = [
            (W, 16, 0b1000),       // set_mask = shadow
            (W, 2060 + 16 * 3, 1), // vector 3 ctrl: masked
            (W, 16, 0b1000_1000),
            (W, 2060 + 16 * 7, 1),
            (W, 24, 0b1000_0000), // clear_mask = shadow after unmask
            (W, 2060 + 16 * 3, 0),
        ];
        check!(rec.matches(&program));
        check!(ok!(block_after(win, MSIX, 0x1000, None, &program)));
        Ok(())
    }

    fn intc_errtrig_line_masks(win: &VolatileWindow) -> Outcome {
        // errtrig_base[3] + (2 << 12) + (5 << 6) + REG, bit 9.
        let line = ok!(ErrtrigLine::new(3, 2, 5, 9));
        let unit: u64 = (2 << 12) + (5 << 6);
        let rec = Rec::new(win, ERRTRIG3);
        ok!(win.write32(ERRTRIG3.add(unit + 16), 0x1));
        ok!(win.write32(ERRTRIG3.add(unit + 56), 0xFFFF_FFFF));
        let i = ok!(intc());
        ok!(i.set_cause(&rec, line));
        check_eq!(i.read_cause(&rec, line), Ok(0)); // RAM: cause_set does not latch
        ok!(i.mask_interrupt(&rec, line));
        ok!(i.unmask_interrupt(&rec, line));
        ok!(i.unmask_notification(&rec, line));
        ok!(i.mask_notification(&rec, line));
        let program = [
            (W, unit + 8, 1 << 9),
            (R, unit, 0),
            (R, unit + 16, 0x1),
            (W, unit + 16, 0x201),
            (W, unit + 24, !(1 << 9)),
            (R, unit + 56, 0xFFFF_FFFF),
            (W, unit + 56, 0xFFFF_FDFF),
            (R, unit + 56, 0xFFFF_FDFF),
            (W, unit + 56, 0xFFFF_FFFF),
        ];
        check!(rec.matches(&program));
        let mut before = [0u32; 0x1000];
        if let Some(w) = before.get_mut(((unit + 16) / 4) as usize) {
            *w = 0x1;
        }
        if let Some(w) = before.get_mut(((unit + 56) / 4) as usize) {
            *w = 0xFFFF_FFFF;
        }
        check!(ok!(block_after(
            win,
            ERRTRIG3,
            0x4000,
            Some(&before),
            &program
        )));
        Ok(())
    }

    fn intc_nq_base_through_the_mailbox(win: &VolatileWindow) -> Outcome {
        let rec = Rec::new(win, NOTIFIC);
        let blocks = NotificBlocks::new();
        let mut block = blocks.take(NOTIFIC).unwrap();
        let ens = ok!(NotificEngine::init(
            &rec,
            &mut block,
            EngineConfig::tpb(BpMode::All)
        ));
        // The NQ comes from the handle's ENS of the block [004 §4], [FACTS §12.3].
        let mut i = ok!(Intc::<Mariana>::new(MSIX));
        ok!(EnsNq::of(&ens, 2).and_then(|nq| i.set_ens_nq(3, nq)));
        ok!(EnsNq::of(&ens, 0).and_then(|nq| i.set_ens_nq(7, nq)));
        let before = ok!(snapshot(win));
        rec.clear();
        // Low die: map[queue] = 0x85_8000_0400 + 0x200 * queue; high die: the mesh bit.
        check_eq!(
            i.set_notific_queue_base(&rec, 3, 3),
            Ok(DeviceAddr(0x85_8000_0A00))
        );
        check_eq!(
            i.set_notific_queue_base(&rec, 7, 7),
            Ok(DeviceAddr(0x8085_8000_1200))
        );
        let program = [
            (W, 0x100 + 80, 0x8000_0A00),
            (W, 0x104 + 80, 0x85),
            (W, 0x100, 0x8000_1200),
            (W, 0x104, 0x8085),
        ];
        check!(rec.matches(&program));
        block_is!(win, Some(&before), &program);
        Ok(())
    }

    fn intc_refusals_write_nothing(win: &VolatileWindow) -> Outcome {
        let rec = Rec::new(win, MSIX);
        let i = ok!(intc());
        for v in [8, 9, u32::MAX] {
            check_eq!(
                i.mask_vector(&rec, v),
                Err(Error::InvalidArgument("msi-x vector > 7"))
            );
            check_eq!(
                i.unmask_vector(&rec, v),
                Err(Error::InvalidArgument("msi-x vector > 7"))
            );
        }
        check_eq!(
            i.set_mod_timer_period(&rec, 16),
            Err(Error::OutOfRange {
                what: "moderation timer period",
                value: 16,
                limit: 16
            })
        );
        // A block whose errtrig base was never recorded.
        let line = ok!(ErrtrigLine::new(4, 0, 0, 0));
        check_eq!(
            i.mask_interrupt(&rec, line),
            Err(Error::InvalidArgument("errtrig base of this block not set"))
        );
        check_eq!(rec.counts(), (0, 0));
        check!(ok!(block_after(
            win,
            WINDOW_BASE,
            crate::WINDOW_BYTES as u64,
            None,
            &[]
        )));
        Ok(())
    }
}
