//! The measured kernels of the bench harness, shared by the callgrind driver
//! (`khal_ir`, instruction counts) and the time bench (`tests/benches/regs.rs`).
//!
//! Every kernel is `#[inline(never)]` with a name starting `ir_`, so callgrind
//! can collect exactly one kernel (`--toggle-collect=*ir_<name>*`) and nothing
//! of the setup. Each runs its operation [`N`] times (or drains a whole ring),
//! so the per-operation figure is the kernel's instruction total divided by the
//! operation count; the few instructions of prologue and epilogue are below
//! 0.1% of the total.
//!
//! Pairs compare the same work at the same address: a typed register access
//! (a `register_block!` handle over the firmware `VolatileWindow`) against a
//! raw `write_volatile` / `read_volatile` of the same dword.

#![allow(dead_code, unused_macros)] // each user (driver, bench) calls a subset

use core::hint::black_box;
use core::ptr::NonNull;

use embedded_hal::delay::DelayNs;
use khal_core::csr::{Csr, CsrRegion, RegionTable};
use khal_core::dma::DmaMemory;
use khal_core::mmio::volatile::VolatileWindow;
use khal_core::notific::ring::NqRing;
use khal_core::notific::NqEntry;
use khal_core::{DeviceAddr, Mmio, Result};

use crate::lcg::Lcg;

/// Operations per register / lookup kernel.
pub const N: u32 = 10_000;

/// Device address of the bench's register window.
pub const BASE: DeviceAddr = DeviceAddr(0x3053_5000);

/// Bytes of the register window (one notific block).
pub const WINDOW_BYTES: usize = 0x1000;

khal_core::register_block! {
    /// The bench's register block: one plain register and one strided array.
    pub BENCH: "bench" {
        /// A plain register.
        CTRL @ 0xB8, rw, "ctrl";
        /// An array register (the NQ head's geometry).
        HEAD @ 0x10C, rw, "head", array "nq" [10; 40];
    }
}

/// A register window's backing store: plain memory standing in for a BAR.
pub struct Regs {
    words: Box<[u32]>,
}

impl Regs {
    /// A zeroed window of [`WINDOW_BYTES`].
    pub fn new() -> Self {
        Regs {
            words: vec![0u32; WINDOW_BYTES / 4].into_boxed_slice(),
        }
    }

    /// The first dword.
    pub fn ptr(&mut self) -> NonNull<u32> {
        NonNull::from(&mut self.words[0])
    }
}

impl Default for Regs {
    fn default() -> Self {
        Regs::new()
    }
}

/// A [`VolatileWindow`] with the firmware's constant geometry over `ptr`.
///
/// `#[inline(always)]`: the window is built inside each kernel from constants,
/// as firmware builds its window at a fixed address and size, so the compiler
/// sees the geometry (this is what lets the bounds check fold away).
#[inline(always)]
pub fn window(ptr: NonNull<u32>) -> Option<VolatileWindow> {
    // SAFETY: `ptr` is the first dword of a live `Regs` buffer of
    // `WINDOW_BYTES`, which the caller keeps alive and does not otherwise
    // touch while the window exists (the kernels only use it through here).
    unsafe { VolatileWindow::new(ptr, WINDOW_BYTES, BASE) }.ok()
}

/// Raw: `N` volatile writes of `ctrl` (offset 0xB8).
#[inline(never)]
pub fn ir_raw_write(ptr: NonNull<u32>) {
    let p = ptr.as_ptr().wrapping_add(0xB8 / 4);
    for i in 0..N {
        // SAFETY: `p` is dword 0xB8/4 of a live WINDOW_BYTES buffer (the caller's).
        unsafe { p.write_volatile(i) };
    }
}

/// Typed: `N` writes of `ctrl` through its `register_block!` handle over a
/// constant-geometry `VolatileWindow`.
#[inline(never)]
pub fn ir_typed_write(ptr: NonNull<u32>) {
    let Some(w) = window(ptr) else { return };
    for i in 0..N {
        let _ = CTRL.write(&w, BASE, i);
    }
}

/// Raw: `N` volatile reads of `ctrl`, summed.
#[inline(never)]
pub fn ir_raw_read(ptr: NonNull<u32>) -> u32 {
    let p = ptr.as_ptr().wrapping_add(0xB8 / 4);
    let mut s = 0u32;
    for _ in 0..N {
        // SAFETY: as in `ir_raw_write`.
        s = s.wrapping_add(unsafe { p.read_volatile() });
    }
    s
}

/// Typed: `N` reads of `ctrl` through its handle, summed.
#[inline(never)]
pub fn ir_typed_read(ptr: NonNull<u32>) -> u32 {
    let Some(w) = window(ptr) else { return 0 };
    let mut s = 0u32;
    for _ in 0..N {
        s = s.wrapping_add(CTRL.read(&w, BASE).unwrap_or(0));
    }
    s
}

/// Raw: `N` writes of `nq[3].head` (array instance, offset 0x10C + 3 * 40).
#[inline(never)]
pub fn ir_raw_array_write(ptr: NonNull<u32>) {
    let p = ptr.as_ptr().wrapping_add((0x10C + 3 * 40) / 4);
    for i in 0..N {
        // SAFETY: inside the live WINDOW_BYTES buffer (the caller's).
        unsafe { p.write_volatile(i) };
    }
}

/// Typed: `N` writes of `nq[3].head` through `HEAD.at(3)` (index checked).
#[inline(never)]
pub fn ir_typed_array_write(ptr: NonNull<u32>) {
    let Some(w) = window(ptr) else { return };
    for i in 0..N {
        if let Ok(r) = HEAD.at(3) {
            let _ = r.write(&w, BASE, i);
        }
    }
}

/// Typed, with a window whose geometry the compiler cannot see (built
/// elsewhere, passed by reference): the per-access bounds check stays.
#[inline(never)]
pub fn ir_typed_write_opaque(w: &VolatileWindow) {
    for i in 0..N {
        let _ = CTRL.write(w, BASE, i);
    }
}

/// A no-op delay: phase-mode drains never wait.
pub struct NoDelay;

impl DelayNs for NoDelay {
    fn delay_ns(&mut self, _: u32) {}
}

/// Ring size of the drain kernels: 4096 entries (64 KiB), as the anchors' goal 5.
pub const RING_ENTRIES: u32 = 4096;

/// Drain the whole (full) ring in phase mode, in `max_batch` calls; returns
/// the number drained. One head write per non-empty call, no register read.
/// The entries land in `out` (the caller's), so the copies cannot be elided;
/// the kernel does nothing else with them, so the count is the drain's own.
#[inline(never)]
pub fn ir_nq_drain<M: Mmio, R: DmaMemory>(ring: &mut NqRing<R, M>, out: &mut [NqEntry]) -> usize {
    let mut total = 0;
    let mut d = NoDelay;
    while let Ok(n) = ring.drain(&mut d, out) {
        if n == 0 {
            break;
        }
        total += n;
    }
    total
}

/// The reference: copy the same ring's bytes with `memcpy`.
#[inline(never)]
pub fn ir_memcpy(src: &[u8], dst: &mut [u8]) {
    dst.copy_from_slice(src);
    black_box(dst);
}

/// A minimal `DmaMemory` over a fixed buffer: only the required methods (a
/// 16-byte entry `read` is one volatile load), so the drain uses the trait's
/// default run scan and run copy. It measures what a backend that does not
/// override those costs, next to `DmaBuf`, which does.
pub struct WordRing {
    words: Box<[u128]>,
}

impl WordRing {
    /// A zeroed ring of `bytes` (a multiple of 16).
    pub fn new(bytes: usize) -> Self {
        WordRing {
            words: vec![0u128; bytes / 16].into_boxed_slice(),
        }
    }

    fn base(&self) -> *mut u8 {
        self.words.as_ptr().cast::<u8>().cast_mut()
    }
}

impl DmaMemory for WordRing {
    fn bus_addr(&self) -> u64 {
        self.base() as u64
    }

    fn len(&self) -> usize {
        self.words.len() * 16
    }

    #[inline(always)]
    fn load_u8(&self, offset: usize) -> Result<u8> {
        if offset >= self.len() {
            return Err(khal_core::Error::out_of_range(
                "ring offset",
                offset as u64,
                self.len() as u64,
            ));
        }
        // SAFETY: `offset < len`, inside the live boxed slice; a byte load has
        // no alignment requirement; the ring is only accessed through `&self`
        // volatile operations, never through a reference to its contents.
        Ok(unsafe { self.base().add(offset).read_volatile() })
    }

    #[inline(always)]
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        let end = offset.checked_add(out.len()).filter(|&e| e <= self.len());
        if end.is_none() {
            return Err(khal_core::Error::out_of_range(
                "ring offset",
                offset as u64,
                self.len() as u64,
            ));
        }
        if out.len() == 16 && offset.is_multiple_of(16) {
            // SAFETY: in bounds (checked) and 16-aligned (the buffer is a
            // `[u128]`, `offset` a multiple of 16): one volatile 16-byte load.
            let v = unsafe { self.base().add(offset).cast::<u128>().read_volatile() };
            out.copy_from_slice(&v.to_ne_bytes());
            return Ok(());
        }
        for (i, o) in out.iter_mut().enumerate() {
            // SAFETY: `offset + i < end <= len`.
            *o = unsafe { self.base().add(offset + i).read_volatile() };
        }
        Ok(())
    }

    fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        let end = offset.checked_add(data.len()).filter(|&e| e <= self.len());
        if end.is_none() {
            return Err(khal_core::Error::out_of_range(
                "ring offset",
                offset as u64,
                self.len() as u64,
            ));
        }
        for (i, &b) in data.iter().enumerate() {
            // SAFETY: in bounds as above; the buffer is owned and writable
            // (interior writes through a raw pointer, never a reference).
            unsafe { self.base().add(offset + i).write_volatile(b) };
        }
        Ok(())
    }

    fn zero(&self) -> Result<()> {
        self.write(0, &vec![0u8; self.len()])
    }
}

/// A backend that answers every access with 0 and touches nothing: the CSR
/// lookup kernels measure the region layer alone.
pub struct NullMmio;

impl Mmio for NullMmio {
    #[inline(always)]
    fn read32(&self, _: DeviceAddr) -> Result<u32> {
        Ok(0)
    }
    #[inline(always)]
    fn write32(&self, _: DeviceAddr, _: u32) -> Result<()> {
        Ok(())
    }
}

/// The CSR cases' inner backend: an access is one volatile load of a 64 KiB buffer at
/// the translated address, masked into it.
pub struct Sink {
    buf: NonNull<u32>,
}

const SINK_MASK: u64 = 0xFFFC;

impl Sink {
    pub fn new() -> Self {
        let b: &'static mut [u32] = Box::leak(vec![0u32; 0x4000].into_boxed_slice());
        Sink {
            buf: NonNull::from(&mut b[0]),
        }
    }

    #[inline(always)]
    fn slot(&self, a: u64) -> *mut u32 {
        // SAFETY: `(a & 0xFFFC) / 4 < 0x4000`, inside the leaked buffer.
        unsafe { self.buf.as_ptr().add(((a & SINK_MASK) / 4) as usize) }
    }

    #[inline(always)]
    pub fn load(&self, a: u64) -> u32 {
        // SAFETY: `slot` is inside the live buffer.
        unsafe { self.slot(a).read_volatile() }
    }

    #[inline(always)]
    pub fn store(&self, a: u64, v: u32) {
        // SAFETY: as `load`.
        unsafe { self.slot(a).write_volatile(v) }
    }
}

impl Mmio for Sink {
    #[inline(always)]
    fn read32(&self, a: DeviceAddr) -> Result<u32> {
        Ok(self.load(a.get()))
    }
    #[inline(always)]
    fn write32(&self, a: DeviceAddr, v: u32) -> Result<()> {
        self.store(a.get(), v);
        Ok(())
    }
}

/// A CSR layer with `n` windows of 64 KiB, 1 MiB apart from 0x20_0000_0000,
/// identity mapped, over a [`Sink`] (each access loads at its translated
/// address, so the translation is computed as a real access computes it);
/// and `N` addresses spread over them (a fixed LCG, so the sequence is the
/// same every run and the branch pattern is not trivial).
pub fn csr_setup<const CAP: usize>(n: usize) -> Option<(Csr<Sink, CAP>, Vec<DeviceAddr>)> {
    let mut t = RegionTable::<CAP>::new();
    for i in 0..n as u64 {
        let s = 0x20_0000_0000 + i * 0x10_0000;
        t.insert(CsrRegion::identity(DeviceAddr(s), DeviceAddr(s + 0x1_0000), 0).ok()?)
            .ok()?;
    }
    let mut rng = Lcg(0x1234_5678);
    let addrs = (0..N)
        .map(|_| {
            let x = rng.step();
            let w = (x >> 33) % n as u64;
            let off = ((x >> 13) % 0x4000) * 4;
            DeviceAddr(0x20_0000_0000 + w * 0x10_0000 + off)
        })
        .collect();
    Some((Csr::new(Sink::new(), t), addrs))
}

/// The second 8-window layout (`csr_lookup_8b`): irregular sizes (1 KiB to
/// 1 MiB), adjacent windows, irregular gaps (from 256 B to 4 MiB), windows
/// not forwarded to their own address (one of them to an address whose
/// window start is not dword-aligned in the inner space), inserted out of
/// order. `(start offset from 0x20_0000_0000, length, device_addr)`.
pub const CSR_IRREGULAR: [(u64, u64, u64); 8] = [
    (0x0000_0000, 0x1000, 0x0),          // 4 KiB
    (0x0000_1000, 0x3_0000, 0x1000),     // 192 KiB, adjacent to the first
    (0x0003_6000, 0x800, 0x9_0000),      // 2 KiB after a 20 KiB gap
    (0x0004_8B40, 0x10_0000, 0x10_0000), // 1 MiB after an irregular gap
    (0x0014_8B40, 0x400, 0x4_0002),      // 1 KiB, adjacent; its translation is offset by 2
    (0x0016_8B40, 0x6_4000, 0x20_0000),  // 400 KiB after 128 KiB
    (0x001C_CC40, 0xC00, 0x30_0000),     // 3 KiB after 256 B
    (0x005C_D840, 0x8000, 0x40_0000),    // 32 KiB after 4 MiB
];

/// The third 8-window layout (`csr_lookup_8m`): two clusters of four 1 MiB
/// windows 16 MiB apart, the second cluster 2^47 above the first (the mesh
/// high bit of [000 §2]: tiles 4..7 in the second mesh half).
pub const CSR_MESH: [(u64, u64, u64); 8] = [
    (0x0000_0000, 0x10_0000, 0x0),
    (0x0100_0000, 0x10_0000, 0x10_0000),
    (0x0200_0000, 0x10_0000, 0x20_0000),
    (0x0300_0000, 0x10_0000, 0x30_0000),
    (0x8000_0000_0000, 0x10_0000, 0x40_0000),
    (0x8000_0100_0000, 0x10_0000, 0x50_0000),
    (0x8000_0200_0000, 0x10_0000, 0x60_0000),
    (0x8000_0300_0000, 0x10_0000, 0x70_0000),
];

/// A CSR layer with the 8 windows of `layout` (`(start offset from
/// 0x20_0000_0000, length, device_addr)`, capacity `CAP`, inserted out of
/// order) and `N` valid addresses in a random order (a fixed LCG): each
/// picks a window uniformly (so the small windows get as many accesses as
/// the large ones), then a dword in it whose translation is aligned.
pub fn csr_setup_layout<const CAP: usize>(
    layout: &[(u64, u64, u64); 8],
) -> Option<(Csr<Sink, CAP>, Vec<DeviceAddr>)> {
    const BASE: u64 = 0x20_0000_0000;
    let mut t = RegionTable::<CAP>::new();
    for k in 0..layout.len() {
        let (s, len, d) = *layout.get((k * 5) % layout.len())?;
        let s = BASE + s;
        t.insert(CsrRegion::new(DeviceAddr(s), DeviceAddr(s + len), DeviceAddr(d), 0).ok()?)
            .ok()?;
    }
    let mut rng = Lcg(0x9E37_79B9);
    let addrs = (0..N)
        .map(|_| {
            let x = rng.step();
            let (s, len, d) = layout[((x >> 33) % 8) as usize];
            // The first offset whose translation is aligned, then a dword
            // step that stays at or below `end - 4`.
            let o = d.wrapping_neg() & 3;
            let off = o + ((x >> 13) % ((len - o) / 4)) * 4;
            DeviceAddr(BASE + s + off)
        })
        .collect();
    Some((Csr::new(Sink::new(), t), addrs))
}

/// `csr_read` of every address (lookup + bounds check + translate + the
/// load at the translated address); returns how many were accepted.
#[inline(never)]
pub fn ir_csr_lookup<const CAP: usize>(csr: &Csr<Sink, CAP>, addrs: &[DeviceAddr]) -> u32 {
    let (mut ok, mut sum) = (0u32, 0u32);
    for &a in addrs {
        if let Ok(v) = csr.csr_read(a) {
            ok += 1;
            sum = sum.wrapping_add(v);
        }
    }
    black_box(sum);
    ok
}

/// The same addresses with only the raw add of a fixed translation and the
/// same load (the anchors' "raw add" reference for region lookup). The
/// compiler unrolls this loop (four accesses per iteration); the per-call
/// figures (`csr.rs`) have no loop.
#[inline(never)]
pub fn ir_raw_translate(sink: &Sink, addrs: &[DeviceAddr], delta: u64) -> u32 {
    let mut sum = 0u32;
    for &a in addrs {
        sum = sum.wrapping_add(sink.load(a.get().wrapping_sub(delta)));
    }
    sum
}

/// Time `f` and `g` interleaved, `reps` times each, and return the ratio of
/// their median durations (`f / g`) with both medians in nanoseconds. The
/// interleaving makes a noisy neighbour slow both sides alike.
pub fn median_ratio(reps: usize, mut f: impl FnMut(), mut g: impl FnMut()) -> (f64, u128, u128) {
    let (mut tf, mut tg) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for _ in 0..reps {
        let t = std::time::Instant::now();
        f();
        tf.push(t.elapsed().as_nanos());
        let t = std::time::Instant::now();
        g();
        tg.push(t.elapsed().as_nanos());
    }
    tf.sort_unstable();
    tg.sort_unstable();
    let (mf, mg) = (tf[reps / 2], tg[reps / 2]);
    (mf as f64 / mg.max(1) as f64, mf, mg)
}

/// Static dispatch: `N` calls of `get_axi_offset::<Cayman>` on tiles 0..8
/// (the tile validated by `Cayman::tile`), summed.
#[inline(never)]
pub fn ir_dispatch_static_axi() -> u64 {
    use khal_core::family::TpbBases;
    let mut s = 0u64;
    for i in 0..N {
        if let Ok(t) = khal::Cayman::tile(black_box(i & 7)) {
            s = s.wrapping_add(khal_core::engine::get_axi_offset(t, 0x2B8_7000).get());
        }
    }
    s
}

/// Run-time dispatch: the same `N` calls through an `AnyArch` bound from a
/// `black_box`ed id 3, so the match is taken at run time.
#[inline(never)]
pub fn ir_dispatch_any_axi(any: khal::AnyArch) -> u64 {
    let mut s = 0u64;
    for i in 0..N {
        if let Ok(a) = any.get_axi_offset(black_box(i & 7), 0x2B8_7000) {
            s = s.wrapping_add(a.get());
        }
    }
    s
}

/// Static dispatch: `N` `EVENTS_SEMAPHORES_NT` read-modify-writes on CAYMAN
/// through a constant-geometry `VolatileWindow`.
#[inline(never)]
pub fn ir_dispatch_static_rmw(ptr: NonNull<u32>) {
    let Some(w) = window(ptr) else { return };
    for i in 0..N {
        let _ =
            khal_core::engine::program::update_events_semaphores_nt::<khal::Cayman, _>(&w, BASE, i);
    }
}

/// Run-time dispatch of the same read-modify-writes through `AnyArch`.
#[inline(never)]
pub fn ir_dispatch_any_rmw(ptr: NonNull<u32>, any: khal::AnyArch) {
    let Some(w) = window(ptr) else { return };
    for i in 0..N {
        let _ = any.update_events_semaphores_nt(&w, BASE, i);
    }
}

/// Byte offset of NQ 0's tail register in the bench's notification block
/// (`nq_tail_ptr`, 10-queue flavour) [004 §3].
pub const NQ0_TAIL_OFF: u64 = 0x110;

/// Byte offset of NQ 0's head register (`nq_head_ptr`) [004 §3].
pub const NQ0_HEAD_OFF: u64 = 0x10C;

/// Drain the whole ring through the iterator, `batch` entries per call
/// (each call: `drain_iter`, every item copied into `out`, `finish`, which
/// writes the head once); returns the number drained.
#[inline(never)]
pub fn ir_nq_iter<M: Mmio, R: DmaMemory>(
    ring: &mut NqRing<R, M>,
    out: &mut [NqEntry],
    batch: u32,
) -> usize {
    let mut total = 0;
    let mut d = NoDelay;
    loop {
        let Ok(mut it) = ring.drain_iter(&mut d, batch) else {
            break;
        };
        let mut k = 0;
        for (slot, e) in out.iter_mut().zip(it.by_ref()) {
            match e {
                Ok(e) => *slot = e,
                Err(_) => break,
            }
            k += 1;
        }
        if it.finish().is_err() || k == 0 {
            break;
        }
        total += k;
    }
    total
}

/// Idle polls: `N` phase-mode drain calls on a ring with nothing new; returns
/// the total drained (0). The cost of asking "anything new?".
#[inline(never)]
pub fn ir_nq_idle<M: Mmio, R: DmaMemory>(ring: &mut NqRing<R, M>, out: &mut [NqEntry]) -> usize {
    let mut total = 0;
    let mut d = NoDelay;
    for _ in 0..N {
        total += ring.drain(&mut d, out).unwrap_or(usize::MAX);
    }
    total
}

/// A checker's khal idle kernel, `$name`: `N` iterations of one or two
/// `drain`s that find nothing (`two`), a failed poll counted as 1. A macro:
/// each checker's kernel keeps its own name, which the bench counts it by,
/// and compiles as the source written out in its file did.
macro_rules! khal_idle_kernel {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[inline(never)]
        pub fn $name<M: Mmio, R: DmaMemory>(
            ring: &mut NqRing<R, M>,
            out: &mut [NqEntry],
            two: bool,
        ) -> usize {
            let mut d = NoDelay;
            let mut total = 0;
            for _ in 0..N {
                total += ring.drain(&mut d, out).unwrap_or(1);
                if two {
                    total += ring.drain(&mut d, out).unwrap_or(1);
                }
            }
            total
        }
    };
}
#[allow(unused_imports)] // the time bench that includes this file uses none
pub(crate) use khal_idle_kernel;

/// [`ir_nq_idle`] with two polls per iteration: the same loop, one more call
/// and add per iteration, so `(idle2 - idle) / N` is one poll's cost alone.
#[inline(never)]
pub fn ir_nq_idle2<M: Mmio, R: DmaMemory>(ring: &mut NqRing<R, M>, out: &mut [NqEntry]) -> usize {
    let mut total = 0;
    let mut d = NoDelay;
    for _ in 0..N {
        total += ring.drain(&mut d, out).unwrap_or(usize::MAX);
        total += ring.drain(&mut d, out).unwrap_or(usize::MAX);
    }
    total
}

/// The C-style reference consumer, as a C driver writes it: per call, ONE
/// tail read through the same `Mmio` the engine uses, then a plain per-entry
/// struct copy out of the ring (masked index, no bounds or phase checks), then
/// ONE head write for the batch. `ring` is the ring's first entry; `cap` a
/// power of two. Returns the number drained.
#[inline(never)]
pub fn ir_c_ref<M: Mmio>(
    mmio: &M,
    base: DeviceAddr,
    ring: *const NqEntry,
    cap: u32,
    out: &mut [NqEntry],
) -> usize {
    let mask = cap - 1;
    let mut head = 0u32;
    let mut total = 0usize;
    while let Some(n) = c_poll(mmio, base, ring, mask, &mut head, out) {
        total += n;
    }
    total
}

/// One poll of the C-style reference: ONE tail read through `mmio`, a
/// plain per-entry struct copy out of the ring (masked index, no bounds or
/// phase checks), ONE head write; the number copied, or `None` when nothing
/// was new or a register access failed (the kernels stop there).
#[inline(always)]
fn c_poll<M: Mmio>(
    mmio: &M,
    base: DeviceAddr,
    ring: *const NqEntry,
    mask: u32,
    head: &mut u32,
    out: &mut [NqEntry],
) -> Option<usize> {
    let tail = mmio.read32(base.add(NQ0_TAIL_OFF)).ok()?;
    let n = (((tail / 16).wrapping_sub(*head) & mask) as usize).min(out.len());
    if n == 0 {
        return None;
    }
    for (k, slot) in out.iter_mut().take(n).enumerate() {
        let idx = (*head + k as u32) & mask;
        // SAFETY: `idx <= mask < cap` and `ring` points to `cap` live entries
        // (the caller's ring buffer); an unaligned-safe plain read of a
        // `Copy` 16-byte entry, as C's `out[k] = ring[idx]`.
        *slot = unsafe { ring.add(idx as usize).read_unaligned() };
    }
    *head = (*head + n as u32) & mask;
    mmio.write32(base.add(NQ0_HEAD_OFF), *head * 16).ok()?;
    Some(n)
}

/// The device of every NQ scenario that has one (the side-by-side's
/// one-arrival-per-call rings, the checkers' rounds): the slot it writes
/// next, its pass, the sequence number of its next entry, and the ring's
/// tail register. Each kernel module calls it through its own
/// `#[inline(never)]` entry point (`ir_nqdev_write` here, `ir_verdev_write`,
/// `ir_chkdev_write`, `ir_k3dev_write`), which the scripts exclude from the
/// count with a second `--toggle-collect`; kept beside its kernels, so they
/// compile as they were measured.
pub struct NqDev {
    next: u32,
    pass: u32,
    seq: u32,
    cap: u32,
    tag: u32,
    tail: NonNull<u32>,
}

impl NqDev {
    /// The device of a ring of `cap` entries whose tail register is `tail`
    /// (`nqsetup::nq_reg`); `tag` is or-ed into every entry's dword 0.
    pub fn new(tail: NonNull<u32>, cap: u32, tag: u32) -> Self {
        NqDev {
            next: 0,
            pass: 0,
            seq: 0,
            cap,
            tag,
            tail,
        }
    }

    /// Write `k` entries (see [`nq_entry`]) at the next slots and publish
    /// the tail: the byte offset of the slot after the last [FACTS §11].
    #[inline(always)]
    pub fn write<R: DmaMemory>(&mut self, mem: &R, k: u32) {
        for _ in 0..k {
            let e = nq_entry(self.next, self.pass, self.seq, self.tag);
            let _ = mem.write(self.next as usize * 16, &e);
            self.seq += 1;
            self.next += 1;
            if self.next == self.cap {
                self.next = 0;
                self.pass += 1;
            }
        }
        // SAFETY: `tail` is a register dword inside the live register buffer
        // (the caller's), written through the raw pointer the window also
        // uses (no reference into the window's memory is created).
        unsafe { self.tail.as_ptr().write_volatile(self.next * 16) };
    }
}

/// The entry the device writes into `slot` on pass `pass` as its `seq`-th:
/// dword 0 is the slot or-ed with `tag`, its bit 31 the phase bit, 1 on
/// even passes (the first) and 0 on odd ones [FACTS §11]; dword 1 is `seq`,
/// dword 2 `pass`. The checks after each run read them back.
#[inline(always)]
pub fn nq_entry(slot: u32, pass: u32, seq: u32, tag: u32) -> [u8; 16] {
    let phase = if pass.is_multiple_of(2) {
        0x8000_0000
    } else {
        0
    };
    let mut e = [0u8; 16];
    e[..4].copy_from_slice(&(slot | tag | phase).to_le_bytes());
    e[4..8].copy_from_slice(&seq.to_le_bytes());
    e[8..12].copy_from_slice(&pass.to_le_bytes());
    e
}

/// The device writes one entry and publishes the tail (the side-by-side's
/// one-arrival-per-call kernels). Not counted: the bench excludes
/// `ir_nqdev_*` with a second `--toggle-collect`.
#[inline(never)]
pub fn ir_nqdev_write<R: DmaMemory>(mem: &R, dev: &mut NqDev) {
    dev.write(mem, 1);
}

/// One arrival per call: `total` times, the device writes one entry and
/// publishes its tail, then ONE `NqRing::drain` (tail mode: its tail read,
/// the entry's arrival, the copy, the head write). Returns the number
/// drained; a call that drains nothing or fails ends the kernel.
#[inline(never)]
pub fn ir_nq_arrive<M: Mmio, R: DmaMemory>(
    ring: &mut NqRing<R, M>,
    dev: &mut NqDev,
    out: &mut [NqEntry],
    total: usize,
) -> usize {
    let mut got = 0;
    let mut d = NoDelay;
    while got < total {
        ir_nqdev_write(ring.memory(), dev);
        match ring.drain(&mut d, out) {
            Ok(n) if n > 0 => got += n,
            _ => break,
        }
    }
    got
}

/// The C-style reference under the same arrivals: per arrival ONE poll as
/// [`ir_c_ref`] makes it (one tail read through the same `Mmio`, a plain
/// per-entry copy with a masked index, one head write). `ring` is the
/// ring's first entry, `cap` a power of two. Returns the number drained.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub fn ir_c_arrive<M: Mmio, R: DmaMemory>(
    mmio: &M,
    base: DeviceAddr,
    mem: &R,
    ring: *const NqEntry,
    cap: u32,
    dev: &mut NqDev,
    out: &mut [NqEntry],
    total: usize,
) -> usize {
    let mask = cap - 1;
    let mut head = 0u32;
    let mut got = 0usize;
    while got < total {
        ir_nqdev_write(mem, dev);
        let Some(n) = c_poll(mmio, base, ring, mask, &mut head, out) else {
            break;
        };
        got += n;
    }
    got
}

/// A memcpy reference that callgrind counts as the CPU runs it: 16-byte
/// SSE2 loads and stores, four per iteration. glibc's `memcpy` of 64 KiB
/// uses `rep movsb` on this machine, which callgrind counts as one
/// instruction per byte moved (16 Ir per entry), although the CPU executes it
/// as a few wide moves: that count is an artifact, this one is not.
#[inline(never)]
pub fn ir_copy_sse(src: &[u8], dst: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_storeu_si128};
        let n = src.len().min(dst.len()) / 64;
        let (s, d) = (
            src.as_ptr().cast::<__m128i>(),
            dst.as_mut_ptr().cast::<__m128i>(),
        );
        for i in 0..n {
            // SAFETY: `4 * i + 3 < 4 * n <= len / 16` for both slices; the
            // unaligned load/store forms have no alignment requirement; SSE2
            // is part of the x86_64 baseline.
            unsafe {
                let a = _mm_loadu_si128(s.add(4 * i));
                let b = _mm_loadu_si128(s.add(4 * i + 1));
                let c = _mm_loadu_si128(s.add(4 * i + 2));
                let e = _mm_loadu_si128(s.add(4 * i + 3));
                _mm_storeu_si128(d.add(4 * i), a);
                _mm_storeu_si128(d.add(4 * i + 1), b);
                _mm_storeu_si128(d.add(4 * i + 2), c);
                _mm_storeu_si128(d.add(4 * i + 3), e);
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    dst.copy_from_slice(src);
    black_box(dst);
}
