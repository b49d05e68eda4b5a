//! The executed-instruction counter's image (`khal-tcount`): khal's hot paths
//! and C-style references, each an `#[inline(never)]` probe called through a
//! function pointer, run under QEMU one instruction per translation block by
//! `scripts/target-count.sh`, which counts the instructions each call executes
//! from the emulator's execution trace (the probe's entry to the first
//! instruction back in [`tcount_drive`]: the probe's frame, its body and every
//! function it calls; not the caller's call instruction).
//!
//! Built like the firmware (`--profile tcount`: `opt-level = "s"`, LTO, one
//! codegen unit, `panic = "abort"`) for thumbv7em-none-eabihf (`-M mps2-an386`)
//! and riscv32imac-unknown-none-elf (`-M virt`).
//!
//! A scenario is announced by calling its marker function (`tcm_<name>`, one
//! distinct symbol each); every probe call after it, until the next marker,
//! belongs to it. The device's writes (entries, the tail register) run in the
//! driver between calls and are not counted.
//!
//! The C-style references are written here over raw pointers, as a C driver
//! is: `c_phase` tests the head entry's phase bit, copies it as four words,
//! flips the expected phase at the wrap and writes the head once per non-empty
//! poll (a compiler fence, no barrier instruction: what the bench's reference
//! does); `c_one` is the leanest form of it (at most one entry, no `out`
//! slice); `c_tail` reads the tail register once, copies the new entries, and
//! writes the head; `c_csr_write` scans its region table linearly and stores
//! (no alignment or window test). Their buffers are their own (`[u32; 4]`
//! entries, aligned), their registers and CSR target separate RAM blocks.
#![no_std]
#![no_main]

#[allow(dead_code)]
mod platform;

use core::hint::black_box;
use core::ptr::NonNull;
use core::sync::atomic::{compiler_fence, Ordering};

use embedded_hal::delay::DelayNs;
use khal::csr::{Csr, CsrRegion, CsrWindow};
use khal::dma::{DmaBuffer, DmaMemory, StaticDma};
use khal::mmio::VolatileWindow;
use khal::mmio::{BoundBlock, BoundReg};
use khal::notific::NqRing;
use khal::notific::{
    BpMode, EngineConfig, NotificBlocks, NotificEngine, NqConfig, NqEntry, Phase, Tail,
};
use khal::static_dma;
use khal::{DeviceAddr, Mmio};

// The critical-section implementation khal's INTC shadows use (single core).
#[cfg(target_arch = "arm")]
use cortex_m as _;
#[cfg(target_arch = "riscv32")]
use riscv as _;

/// The device address the RAM register window answers from.
const WINDOW_BASE: DeviceAddr = DeviceAddr(0x3053_4000);
/// The window: two 2 KiB CSR regions, then the notification block.
const WINDOW_BYTES: usize = 0x2000;
/// The notification engine's block.
const NOTIFIC: DeviceAddr = DeviceAddr(0x3053_5000);
/// Queue 2's `nq_tail_ptr`: `+0x110`, plus the ten-queue flavour's `40 * idx`
/// [004 §3 QUIRK], [FACTS §6].
const NQ2_TAIL: DeviceAddr = NOTIFIC.add(0x110 + 2 * 40);
/// Entries of the firmware-sized ring (the firmware's 64) and of the small
/// ring that wraps every 8 entries.
const BIG: u32 = 64;
const SMALL: u32 = 8;
/// Calls per scenario.
const CALLS: u32 = 8;

/// The probed rings' type: the firmware's (a phase ring, and a tail one).
type Ring<'w, K = Phase> = NqRing<'w, StaticDma, &'w VolatileWindow, K>;

/// A delay that does nothing (the tail scenarios' entries have landed: no
/// wait is reached).
struct NoDelay;

impl DelayNs for NoDelay {
    fn delay_ns(&mut self, _: u32) {}
}

// ------------------------------------------------------------------ probes

/// khal: one `drain` poll of a phase ring into `out` (the firmware's call).
#[no_mangle]
#[inline(never)]
pub fn tcp_drain(ring: &mut Ring<'_>, out: &mut [NqEntry]) -> usize {
    ring.drain(out).unwrap_or(usize::MAX)
}

/// khal: one `drain` poll of a tail ring into `out` (the firmware's call).
#[no_mangle]
#[inline(never)]
pub fn tcp_drain_tail(ring: &mut Ring<'_, Tail>, out: &mut [NqEntry]) -> usize {
    ring.drain(&mut NoDelay, out).unwrap_or(usize::MAX)
}

/// khal: `csr_write` through the CSR layer (`Csr<_, 4>`: the binary search
/// of its table, then one compare).
#[no_mangle]
#[inline(never)]
pub fn tcp_csr_write(csr: &Csr<&VolatileWindow, 4>, p: DeviceAddr, v: u32) -> bool {
    csr.write32(p, v).is_ok()
}

/// khal: a write through a `CsrWindow` (`Csr::window`: the region resolved
/// once into a part of the `VolatileWindow` answering the CSR addresses; the
/// access is that part's one check and the store), held by reference.
#[no_mangle]
#[inline(never)]
pub fn tcp_csr_window_write(w: &CsrWindow<'_, &VolatileWindow>, p: DeviceAddr, v: u32) -> bool {
    w.write32(p, v).is_ok()
}

khal::register_block! {
    /// The block the CSR block probe writes (2 KiB: one CSR region).
    CSRBLK: "csrblk" {
        /// A register of it.
        CTRL @ 0x10, rw, "ctrl";
        /// The register the bound-register probe binds in the window.
        BOUND @ 0x30, rw, "bound";
    }
}

/// khal: a write of a constant register through a block bound by
/// `Csr::bind_block` (the region resolved and the block bound in the window
/// once), held by reference.
#[no_mangle]
#[inline(never)]
pub fn tcp_csr_block_write(b: &BoundBlock<'_, 0x800>, v: u32) {
    // The offset check folds (a constant register inside the block).
    let _ = b.write(CTRL, v);
}

/// khal: the address-based `Mmio` write through the window (what the engines
/// and the CSR layer's backend call).
#[no_mangle]
#[inline(never)]
pub fn tcp_window_write(w: &VolatileWindow, p: DeviceAddr, v: u32) -> bool {
    w.write32(p, v).is_ok()
}

/// khal: a bound register held by reference (checked once, at `bind`).
#[no_mangle]
#[inline(never)]
pub fn tcp_bound_write(r: &BoundReg<'_>, v: u32) {
    r.write(v)
}

/// Reference: one raw volatile store.
#[no_mangle]
#[inline(never)]
fn tcp_raw_write(p: *mut u32, v: u32) {
    // SAFETY: called only by the driver with a pointer into the C driver's
    // own register block (a live, aligned RAM word).
    unsafe { p.write_volatile(v) }
}

/// A C driver's state: its ring, head, expected phase and registers.
pub struct CState {
    ring: *const [u32; 4],
    mask: u32,
    head: u32,
    phase: u32,
    /// `regs[0]` the head register, `regs[1]` the tail register (bytes).
    regs: *mut u32,
}

/// Reference: a C-style phase-mode poll.
#[no_mangle]
#[inline(never)]
pub fn tcp_c_phase(s: &mut CState, out: &mut [[u32; 4]]) -> usize {
    let mut n = 0;
    while n < out.len() {
        // SAFETY: head <= mask < the ring's entries; word 0 of a live entry
        // (volatile: the device writes the ring).
        let w0 = unsafe { s.ring.add(s.head as usize).cast::<u32>().read_volatile() };
        if w0 & 0x8000_0000 != s.phase {
            break;
        }
        compiler_fence(Ordering::Acquire);
        // SAFETY: as above.
        out[n] = unsafe { s.ring.add(s.head as usize).read_volatile() };
        n += 1;
        s.head = (s.head + 1) & s.mask;
        if s.head == 0 {
            s.phase ^= 0x8000_0000;
        }
    }
    if n > 0 {
        // SAFETY: regs[0] of the C driver's live register block.
        unsafe { s.regs.write_volatile(s.head * 16) };
    }
    n
}

/// A C driver's CSR region: `{start, end, device_addr}` as the C table
/// holds it [000 §1], `device_addr` the address the core stores to.
pub struct CRegion {
    start: u64,
    end: u64,
    dev: u64,
}

/// A C driver's CSR table: up to 4 regions, `n` of them registered.
pub struct CCsr {
    regions: [CRegion; 4],
    n: usize,
}

/// Reference: a C-style `csr_write`: a linear scan of the registered
/// regions for `start <= p <= end - 4`, then one store to `device_addr + (p -
/// start)` (no alignment test, no window: C trusts the table).
#[no_mangle]
#[inline(never)]
fn tcp_c_csr_write(c: &CCsr, p: u64, v: u32) -> bool {
    for r in c.regions.iter().take(c.n) {
        if p >= r.start && p.wrapping_add(4) <= r.end {
            let a = r.dev.wrapping_add(p - r.start) as usize as *mut u32;
            // SAFETY: the driver registers regions over its own static RAM
            // block only, and writes inside them (a live, aligned word).
            unsafe { a.write_volatile(v) };
            return true;
        }
    }
    false
}

/// Reference: the leanest phase-mode poll, a C driver's "take one": test the
/// head entry's phase bit, copy it, advance (flip the expected phase at the
/// wrap), store the head.
#[no_mangle]
#[inline(never)]
pub fn tcp_c_one(s: &mut CState, out: &mut [u32; 4]) -> bool {
    // SAFETY: head <= mask < the ring's entries; word 0 of a live entry
    // (volatile: the device writes the ring).
    let e = unsafe { s.ring.add(s.head as usize) };
    // SAFETY: as above.
    if unsafe { e.cast::<u32>().read_volatile() } & 0x8000_0000 != s.phase {
        return false;
    }
    compiler_fence(Ordering::Acquire);
    // SAFETY: as above.
    *out = unsafe { e.read_volatile() };
    s.head = (s.head + 1) & s.mask;
    if s.head == 0 {
        s.phase ^= 0x8000_0000;
    }
    // SAFETY: regs[0] of the C driver's live register block.
    unsafe { s.regs.write_volatile(s.head * 16) };
    true
}

/// Reference: a C-style tail-mode poll (one tail read, masked copy, head write).
#[no_mangle]
#[inline(never)]
pub fn tcp_c_tail(s: &mut CState, out: &mut [[u32; 4]]) -> usize {
    // SAFETY: regs[1] of the C driver's live register block.
    let tail = unsafe { s.regs.add(1).read_volatile() };
    let n = (((tail / 16).wrapping_sub(s.head) & s.mask) as usize).min(out.len());
    if n == 0 {
        return 0;
    }
    for (i, o) in out[..n].iter_mut().enumerate() {
        // SAFETY: the index is masked below the ring's entry count.
        *o = unsafe {
            s.ring
                .add(((s.head + i as u32) & s.mask) as usize)
                .read_volatile()
        };
    }
    s.head = (s.head + n as u32) & s.mask;
    // SAFETY: regs[0] of the C driver's live register block.
    unsafe { s.regs.write_volatile(s.head * 16) };
    n
}

/// The fifth checker: an engine holding a block bound through
/// `Csr::bind_block` as a field (not a local the compiler sees whole).
pub struct K5Eng<'w> {
    blk: BoundBlock<'w, 0x800>,
}

/// The fifth checker: a read-modify-write (set bit 0) of a constant
/// register of the engine's bound block.
#[no_mangle]
#[inline(never)]
pub fn tcp_k5_block_rmw(e: &K5Eng<'_>) -> u32 {
    let v = e.blk.read(CTRL).unwrap_or(0) | 1;
    let _ = e.blk.write(CTRL, v);
    v
}

/// The fifth checker: a read of a constant register through a `CsrWindow`
/// (the window's start plus the offset, as a driver holding it writes).
#[no_mangle]
#[inline(never)]
pub fn tcp_k5_window_read(w: &CsrWindow<'_, &VolatileWindow>) -> u32 {
    w.read32(w.start().add(0x10)).unwrap_or(u32::MAX)
}

/// The fifth checker: the same read-modify-write through a `CsrWindow`.
#[no_mangle]
#[inline(never)]
pub fn tcp_k5_window_rmw(w: &CsrWindow<'_, &VolatileWindow>) -> bool {
    let p = w.start().add(0x10);
    w.read32(p).and_then(|v| w.write32(p, v | 1)).is_ok()
}

/// The fifth checker: one `drain` poll of a ring whose engine runs on a
/// `CsrWindow` over the `VolatileWindow` (a driver on a window unchanged).
#[no_mangle]
#[inline(never)]
pub fn tcp_k5_drain_win(
    ring: &mut NqRing<'_, StaticDma, CsrWindow<'_, &VolatileWindow>>,
    out: &mut [NqEntry],
) -> usize {
    ring.drain(out).unwrap_or(usize::MAX)
}

/// The fifth checker's reference: a raw read-modify-write (set bit 0).
#[no_mangle]
#[inline(never)]
fn tcp_k5_raw_rmw(p: *mut u32) -> u32 {
    // SAFETY: called only by the driver with a pointer into the C driver's
    // own register block (a live, aligned RAM word).
    unsafe {
        let v = p.read_volatile() | 1;
        p.write_volatile(v);
        v
    }
}

// ------------------------------------------------------------------ markers

/// One marker function per scenario (distinct bodies, so none is merged).
macro_rules! markers {
    ($($name:ident = $id:expr;)*) => {$(
        #[no_mangle]
        #[inline(never)]
        pub fn $name() {
            black_box($id as u32);
        }
    )*};
}

markers! {
    tcm_none = 0;
    tcm_drain1 = 1;
    tcm_drain1_wrap = 2;
    tcm_idle1 = 3;
    tcm_trickle16 = 4;
    tcm_idle16 = 5;
    tcm_c_phase1 = 6;
    tcm_c_phase1_wrap = 7;
    tcm_c_phase_idle1 = 8;
    tcm_c_phase_trickle16 = 9;
    tcm_c_tail1 = 10;
    tcm_c_tail_idle1 = 11;
    tcm_c_tail_trickle16 = 12;
    tcm_csr_write = 13;
    tcm_window_write = 14;
    tcm_bound_write = 15;
    tcm_raw_write = 16;
    tcm_tail1 = 17;
    tcm_tail_idle1 = 18;
    tcm_c_csr_write = 19;
    tcm_c_one1 = 20;
    tcm_c_one_idle1 = 21;
    tcm_csr_window_write = 23;
    tcm_csr_block_write = 24;
    tcm_k5_block_rmw = 40;
    tcm_k5_window_read = 41;
    tcm_k5_window_rmw = 42;
    tcm_k5_raw_rmw = 43;
    tcm_k5_drain1_win = 44;
    tcm_k5_idle1_win = 45;
    tcm_burst2_16 = 60;
    tcm_c_phase_burst2_16 = 61;
    tcm_c_tail_burst2_16 = 62;
}

/// The CSR layer of the register-write probes: two regions of 2 KiB over
/// the window.
fn csr_of(win: &VolatileWindow) -> Option<Csr<&VolatileWindow, 4>> {
    let mut csr = Csr::<&VolatileWindow, 4>::with_empty_table(win);
    let t = csr.regions_mut()?;
    let r0 = CsrRegion::identity(WINDOW_BASE, WINDOW_BASE.add(0x800), 0).ok()?;
    let r1 = CsrRegion::identity(WINDOW_BASE.add(0x800), WINDOW_BASE.add(0x1000), 1).ok()?;
    t.insert(r0).ok()?;
    t.insert(r1).ok()?;
    Some(csr)
}

/// One scenario: its marker, then [`CALLS`] evaluations of `$call` (the
/// device's writes and one probe call, `true` when all gave what was
/// expected), folded into `$ok`. A macro, not a function: every probe call
/// must return straight into [`tcount_drive`], where the counter stops.
macro_rules! scenario {
    ($ok:ident, $marker:expr, $call:expr) => {
        $marker();
        for _ in 0..CALLS {
            $ok &= $call;
        }
    };
}

// ------------------------------------------------------------------ device

/// The device's side of one ring: its next slot and pass.
struct Dev {
    next: u32,
    pass: u32,
    cap: u32,
}

impl Dev {
    /// The device of a ring of `cap` entries, at slot 0 of its first pass.
    fn new(cap: u32) -> Dev {
        Dev {
            next: 0,
            pass: 0,
            cap,
        }
    }

    /// The entry of the current slot: word 0 the slot | 0x0A00 with the
    /// phase in bit 31 (1 on the first pass [004 §3]), word 2 the pass.
    fn entry(&self) -> [u8; 16] {
        let mut e = [0u8; 16];
        let phase = if self.pass & 1 == 0 { 0x8000_0000 } else { 0 };
        e[..4].copy_from_slice(&(self.next | 0x0A00 | phase).to_le_bytes());
        e[8..12].copy_from_slice(&self.pass.to_le_bytes());
        e
    }

    fn advance(&mut self) {
        self.next += 1;
        if self.next == self.cap {
            self.next = 0;
            self.pass += 1;
        }
    }

    /// Post one entry into khal's ring memory.
    #[inline(never)]
    fn post(&mut self, mem: &StaticDma) -> bool {
        let ok = mem.write(self.next as usize * 16, &self.entry()).is_ok();
        self.advance();
        ok
    }

    /// Post one entry into a C driver's ring and move its tail register.
    #[inline(never)]
    fn post_c(&mut self, c: &CMem) -> bool {
        let ok = c.ring.write(self.next as usize * 16, &self.entry()).is_ok();
        self.advance();
        ok && c.regs.write(4, &(self.next * 16).to_le_bytes()).is_ok()
    }
}

/// A C driver's memory: its ring and its register block (`[head, tail]`).
struct CMem {
    ring: StaticDma,
    regs: StaticDma,
}

impl CMem {
    /// Over two static buffers; `None` when one was handed out already.
    fn new<const R: usize>(
        ring: Option<&'static mut DmaBuffer<R>>,
        regs: Option<&'static mut DmaBuffer<64>>,
    ) -> Option<CMem> {
        Some(CMem {
            ring: StaticDma::identity(ring?),
            regs: StaticDma::identity(regs?),
        })
    }

    /// The C driver over this memory (identity: bus address = address).
    fn state(&self) -> CState {
        let cap = (self.ring.len() / 16) as u32;
        CState {
            ring: self.ring.bus_addr() as usize as *const [u32; 4],
            mask: cap - 1,
            head: 0,
            phase: 0x8000_0000,
            regs: self.regs.bus_addr() as usize as *mut u32,
        }
    }
}

// ------------------------------------------------------------------ driver

type DrainFn = fn(&mut Ring<'_>, &mut [NqEntry]) -> usize;
type TailDrainFn = fn(&mut Ring<'_, Tail>, &mut [NqEntry]) -> usize;
type CFn = fn(&mut CState, &mut [[u32; 4]]) -> usize;

/// Run every scenario; `false` when a probe gave an unexpected answer.
#[no_mangle]
#[inline(never)]
pub fn tcount_drive(win: &VolatileWindow) -> bool {
    let mut ok = true;
    let drain = black_box(tcp_drain as DrainFn);
    let drain_tail = black_box(tcp_drain_tail as TailDrainFn);
    let c_phase = black_box(tcp_c_phase as CFn);
    let c_tail = black_box(tcp_c_tail as CFn);

    // khal's rings: queue 0 (64 entries) and 1 (8), phase mode, default max_batch.
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let Ok(mut eng) = NotificEngine::init(win, &mut block, EngineConfig::tpb(BpMode::All)) else {
        return false;
    };
    let (Some(b64), Some(b8)) = (static_dma!(1024), static_dma!(128)) else {
        return false;
    };
    let (Ok(q0), Ok(q1)) = (eng.queue(0), eng.queue(1)) else {
        return false;
    };
    let (Ok(mut big), Ok(mut small)) = (
        NqRing::configure_host(StaticDma::identity(b64), q0, NqConfig::phase(BIG * 16)),
        NqRing::configure_host(StaticDma::identity(b8), q1, NqConfig::phase(SMALL * 16)),
    ) else {
        return false;
    };
    if big.enable(&mut eng, &mut NoDelay).is_err() || small.enable(&mut eng, &mut NoDelay).is_err()
    {
        return false;
    }
    let mut out1 = [NqEntry::default(); 1];
    let mut out16 = [NqEntry::default(); 16];
    let mut dev = Dev::new(BIG);

    // One new entry per call through an out of 1, mid-ring; then idle polls.
    scenario!(
        ok,
        tcm_drain1,
        dev.post(big.memory()) & (drain(&mut big, &mut out1) == 1)
    );
    scenario!(ok, tcm_idle1, drain(&mut big, &mut out1) == 0);
    // The same through an out of 16 (a trickle), then idle.
    scenario!(
        ok,
        tcm_trickle16,
        dev.post(big.memory()) & (drain(&mut big, &mut out16) == 1)
    );
    scenario!(ok, tcm_idle16, drain(&mut big, &mut out16) == 0);
    // Two new entries per call through an out of 16 (a small burst).
    scenario!(
        ok,
        tcm_burst2_16,
        dev.post(big.memory()) & dev.post(big.memory()) & (drain(&mut big, &mut out16) == 2)
    );
    // The ring of 8: the call that takes slot 7 (the head wraps, the
    // expected phase flips), two passes.
    let mut dev8 = Dev::new(SMALL);
    for _ in 0..2 {
        tcm_none();
        for _ in 0..SMALL - 1 {
            ok &= dev8.post(small.memory());
            ok &= drain(&mut small, &mut out1) == 1;
        }
        tcm_drain1_wrap();
        ok &= dev8.post(small.memory());
        ok &= drain(&mut small, &mut out1) == 1;
    }
    tcm_none();

    // Tail mode (queue 2, 64 entries): the device writes one entry and moves
    // the tail register; one call per entry through an out of 1, then idle.
    let (Some(bt), Ok(q2)) = (static_dma!(1024), eng.queue(2)) else {
        return false;
    };
    let Ok(mut tail) =
        NqRing::configure_host(StaticDma::identity(bt), q2, NqConfig::tail(BIG * 16))
    else {
        return false;
    };
    if tail.enable(&mut eng, &mut NoDelay).is_err() {
        return false;
    }
    let mut devt = Dev::new(BIG);
    scenario!(
        ok,
        tcm_tail1,
        devt.post(tail.memory())
            & win.write32(NQ2_TAIL, devt.next * 16).is_ok()
            & (drain_tail(&mut tail, &mut out1) == 1)
    );
    scenario!(ok, tcm_tail_idle1, drain_tail(&mut tail, &mut out1) == 0);
    tcm_none();

    // The C-style drivers, each over its own ring and registers.
    let (Some(mp), Some(mt), Some(m8)) = (
        CMem::new(static_dma!(1024), static_dma!(64)),
        CMem::new(static_dma!(1024), static_dma!(64)),
        CMem::new(static_dma!(128), static_dma!(64)),
    ) else {
        return false;
    };
    let (mut cp, mut ct, mut cp8) = (mp.state(), mt.state(), m8.state());
    let mut cout1 = [[0u32; 4]; 1];
    let mut cout16 = [[0u32; 4]; 16];
    for (m, s, f, names) in [
        (
            &mp,
            &mut cp,
            c_phase,
            [
                tcm_c_phase1 as fn(),
                tcm_c_phase_idle1,
                tcm_c_phase_trickle16,
                tcm_c_phase_burst2_16,
            ],
        ),
        (
            &mt,
            &mut ct,
            c_tail,
            [
                tcm_c_tail1 as fn(),
                tcm_c_tail_idle1,
                tcm_c_tail_trickle16,
                tcm_c_tail_burst2_16,
            ],
        ),
    ] {
        let mut d = Dev::new(BIG);
        scenario!(ok, names[0], d.post_c(m) & (f(s, &mut cout1) == 1));
        scenario!(ok, names[1], f(s, &mut cout1) == 0);
        scenario!(ok, names[2], d.post_c(m) & (f(s, &mut cout16) == 1));
        scenario!(
            ok,
            names[3],
            d.post_c(m) & d.post_c(m) & (f(s, &mut cout16) == 2)
        );
        tcm_none();
    }
    // The leanest poll ("take one"), over a ring of its own.
    let Some(m1) = CMem::new(static_dma!(1024), static_dma!(64)) else {
        return false;
    };
    let mut c1 = m1.state();
    let c_one = black_box(tcp_c_one as fn(&mut CState, &mut [u32; 4]) -> bool);
    let mut d1 = Dev::new(BIG);
    scenario!(
        ok,
        tcm_c_one1,
        d1.post_c(&m1) & c_one(&mut c1, &mut cout1[0])
    );
    scenario!(ok, tcm_c_one_idle1, !c_one(&mut c1, &mut cout1[0]));
    tcm_none();
    let mut d8 = Dev::new(SMALL);
    for _ in 0..2 {
        tcm_none();
        for _ in 0..SMALL - 1 {
            ok &= d8.post_c(&m8);
            ok &= c_phase(&mut cp8, &mut cout1) == 1;
        }
        tcm_c_phase1_wrap();
        ok &= d8.post_c(&m8);
        ok &= c_phase(&mut cp8, &mut cout1) == 1;
    }
    tcm_none();

    // Register writes: the CSR layer (2 regions), the window, a bound
    // register, a raw store.
    let Some(csr) = csr_of(win) else {
        return false;
    };
    let csr_write =
        black_box(tcp_csr_write as fn(&Csr<&VolatileWindow, 4>, DeviceAddr, u32) -> bool);
    tcm_csr_write();
    for i in 0..CALLS {
        let p = WINDOW_BASE.add(0x10 + 0x800 * u64::from(i & 1));
        ok &= csr_write(&csr, black_box(p), i);
    }
    // The same writes through windows resolved once (`Csr::window`), and a
    // constant register of a block bound through the table.
    let (Ok(w0), Ok(w1)) = (
        csr.window(WINDOW_BASE, 0x800),
        csr.window(WINDOW_BASE.add(0x800), 0x800),
    ) else {
        return false;
    };
    let csr_window_write = black_box(
        tcp_csr_window_write as fn(&CsrWindow<'_, &VolatileWindow>, DeviceAddr, u32) -> bool,
    );
    tcm_csr_window_write();
    for i in 0..CALLS {
        let (w, p) = if i & 1 == 0 {
            (&w0, WINDOW_BASE.add(0x10))
        } else {
            (&w1, WINDOW_BASE.add(0x810))
        };
        ok &= csr_window_write(w, black_box(p), i);
    }
    let Ok(blk) = csr.bind_block::<0x800>(WINDOW_BASE.add(0x800)) else {
        return false;
    };
    let csr_block_write = black_box(tcp_csr_block_write as fn(&BoundBlock<'_, 0x800>, u32));
    tcm_csr_block_write();
    for i in 0..CALLS {
        csr_block_write(&blk, i);
    }
    ok &= win.read32(WINDOW_BASE.add(0x810)) == Ok(CALLS - 1);
    // The C table: the same two regions' layout over its own RAM block.
    let Some(cmem) = static_dma!(0x1000).map(StaticDma::identity) else {
        return false;
    };
    let at = cmem.bus_addr();
    let start = WINDOW_BASE.get();
    let region = |k: u64| CRegion {
        start: start + 0x800 * k,
        end: start + 0x800 * (k + 1),
        dev: at + 0x800 * k,
    };
    let ccsr = CCsr {
        regions: [region(0), region(1), region(0), region(1)],
        n: 2,
    };
    let c_csr_write = black_box(tcp_c_csr_write as fn(&CCsr, u64, u32) -> bool);
    tcm_c_csr_write();
    for i in 0..CALLS {
        let p = start + 0x10 + 0x800 * u64::from(i & 1);
        ok &= c_csr_write(&ccsr, black_box(p), i);
    }
    let window_write = black_box(tcp_window_write as fn(&VolatileWindow, DeviceAddr, u32) -> bool);
    tcm_window_write();
    for i in 0..CALLS {
        ok &= window_write(win, black_box(WINDOW_BASE.add(0x20)), i);
    }
    let Ok(reg) = win.bind(WINDOW_BASE, BOUND) else {
        return false;
    };
    let bound_write = black_box(tcp_bound_write as fn(&BoundReg<'_>, u32));
    tcm_bound_write();
    for i in 0..CALLS {
        bound_write(&reg, i);
    }
    let raw_write = black_box(tcp_raw_write as fn(*mut u32, u32));
    tcm_raw_write();
    for i in 0..CALLS {
        raw_write(cp.regs, i);
    }
    // The fifth checker: a read-modify-write of a constant register of a
    // block bound through the table and held in a struct, a read and a
    // read-modify-write through a window, the raw read-modify-write.
    let Ok(blk) = csr.bind_block::<0x800>(WINDOW_BASE) else {
        return false;
    };
    let k5 = K5Eng { blk };
    let k5_block_rmw = black_box(tcp_k5_block_rmw as fn(&K5Eng<'_>) -> u32);
    tcm_k5_block_rmw();
    for _ in 0..CALLS {
        ok &= k5_block_rmw(&k5) & 1 == 1;
    }
    let k5_window_read =
        black_box(tcp_k5_window_read as fn(&CsrWindow<'_, &VolatileWindow>) -> u32);
    tcm_k5_window_read();
    for _ in 0..CALLS {
        ok &= k5_window_read(&w0) & 1 == 1;
    }
    let k5_window_rmw = black_box(tcp_k5_window_rmw as fn(&CsrWindow<'_, &VolatileWindow>) -> bool);
    tcm_k5_window_rmw();
    for _ in 0..CALLS {
        ok &= k5_window_rmw(&w0);
    }
    let k5_raw_rmw = black_box(tcp_k5_raw_rmw as fn(*mut u32) -> u32);
    tcm_k5_raw_rmw();
    for _ in 0..CALLS {
        ok &= k5_raw_rmw(cp.regs) & 1 == 1;
    }
    // The fifth checker: the notific block behind a CSR region
    // (0x20_0000_0000 forwarded to it), an engine brought up on the window
    // of that region and a phase-mode ring of 64 on its queue 3, drained as
    // `drain1` / `idle1` drain theirs (the earlier rings are done with).
    const K5_CSR: DeviceAddr = DeviceAddr(0x20_0000_0000);
    let mut k5_csr = Csr::<&VolatileWindow, 1>::with_empty_table(win);
    let Some(t) = k5_csr.regions_mut() else {
        return false;
    };
    let Ok(r) = CsrRegion::new(K5_CSR, K5_CSR.add(0x1000), NOTIFIC, 0) else {
        return false;
    };
    if t.insert(r).is_err() {
        return false;
    }
    let Ok(w) = k5_csr.window(K5_CSR, 0x1000) else {
        return false;
    };
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(K5_CSR).unwrap();
    let Ok(mut k5_eng) = NotificEngine::init(w, &mut block, EngineConfig::tpb(BpMode::All)) else {
        return false;
    };
    let (Some(b), Ok(q)) = (static_dma!(1024), k5_eng.queue(3)) else {
        return false;
    };
    let Ok(mut ring) = NqRing::configure_host(StaticDma::identity(b), q, NqConfig::phase(BIG * 16))
    else {
        return false;
    };
    if ring.enable(&mut k5_eng, &mut NoDelay).is_err() {
        return false;
    }
    let k5_drain = black_box(
        tcp_k5_drain_win
            as fn(
                &mut NqRing<'_, StaticDma, CsrWindow<'_, &VolatileWindow>>,
                &mut [NqEntry],
            ) -> usize,
    );
    let mut k5_out1 = [NqEntry::default(); 1];
    let mut k5_dev = Dev::new(BIG);
    scenario!(
        ok,
        tcm_k5_drain1_win,
        k5_dev.post(ring.memory()) & (k5_drain(&mut ring, &mut k5_out1) == 1)
    );
    scenario!(ok, tcm_k5_idle1_win, k5_drain(&mut ring, &mut k5_out1) == 0);
    tcm_none();
    ok
}

fn run() -> ! {
    let Some(buf) = static_dma!(WINDOW_BYTES) else {
        platform::exit(2)
    };
    let ptr = NonNull::from(&mut *buf).cast::<u32>();
    // SAFETY: `buf` is a `'static` RAM buffer of WINDOW_BYTES bytes handed out
    // once by `static_dma!`; from here on it is reached only through this
    // window (the `&mut` is not used again), single-threaded, and plain RAM
    // tolerates a read at any time.
    let Ok(win) = (unsafe { VolatileWindow::new(ptr, WINDOW_BYTES, WINDOW_BASE) }) else {
        platform::exit(2)
    };
    let ok = tcount_drive(&win);
    semihosting::println!(
        "tcount {}: {}",
        platform::IMAGE,
        if ok { "done" } else { "FAILED" }
    );
    platform::exit(if ok { 0 } else { 1 })
}

#[cfg(target_arch = "arm")]
#[cortex_m_rt::entry]
fn main() -> ! {
    run()
}

#[cfg(target_arch = "riscv32")]
#[riscv_rt::entry]
fn main() -> ! {
    run()
}
