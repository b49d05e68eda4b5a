//! What the firmware images (fw-sunda, fw-cayman, fw-mariana) share: the
//! board (register window geometry, delay, panic handler, runtime glue) and
//! the bring-up of everything khal has that makes each image khal's
//! panic-freedom proof ([`run`]). Also [`generic`], the bring-up the host
//! example runs (`common/bring_up.rs`), compiled and linted here for the
//! firmware targets, with and without `defmt`; the images do not call it
//! (their `.text` is the proof's, gated in `.ci/proof`).
//!
//! # The panic-never technique
//!
//! The `#[panic_handler]` below calls a function that is declared but defined
//! nowhere (`_khal_panic_is_reachable`). If any panic path survives
//! optimisation (an index out of bounds, an `unwrap`, an overflowing
//! division, a `copy_from_slice` length mismatch… in khal or here), the
//! handler is referenced and the link FAILS with an undefined symbol. So
//! "the image links" proves that no panic is reachable from the code it
//! runs. The examples workspace's release profile (`lto`, `codegen-units = 1`,
//! `panic = "abort"`) gives the optimiser the whole program, so checks it can
//! prove redundant are removed and the remaining ones are real. The proof is
//! the release build without `defmt`: defmt-rtt itself panics on a re-entrant
//! log, so a `defmt` build halts on panic (`panic-halt`) instead.
//!
//! # What each image runs ([`run`])
//!
//! Against the image's [`VolatileWindow`] at a fixed address ([`WINDOW_ADDR`]),
//! its geometry and every base and length laundered through `black_box` so
//! the optimiser cannot fold the accesses away: the CSR region layer
//! (`csr_write`/`csr_read`, an array write, an `axi_write` burst),
//! `stpb_init` (pooling, ACT, DVE, PE, SP with its notification block), the
//! notification engine init and config ops, NQ configure / enable (reset:
//! the bounded tail wait) in phase mode and in tail mode, a drain into a
//! buffer, a drain iterator, an available count; and on MARIANA the MSI-X INTC (mask / unmask of a vector and of an errtrig
//! line, cause read, NQ base through the mailbox map).
#![no_std]

use core::hint::black_box;
use core::ptr::NonNull;

use embedded_hal::delay::DelayNs;
use khal::csr::{Csr, CsrRegion};
use khal::dma::StaticDma;
use khal::engine::{
    stpb_init, EngineParams, PeParams, PoolingParams, SpHandle, StpbConfig, StpbOps,
};
use khal::intc::{EnsNq, ErrtrigLine, Intc, IntcOps};
use khal::mmio::VolatileWindow;
use khal::notific::{
    BpMode, EngineConfig, NotificBlocks, NotificEngine, NqConfig, NqEntry, NqRing,
};
use khal::{DeviceAddr, Error, Mmio, Result};

// defmt frames leave through RTT when the `defmt` feature is on.
#[cfg(feature = "defmt")]
use defmt_rtt as _;
// The single-core critical-section implementation khal's INTC shadows use.
#[cfg(target_arch = "arm")]
use cortex_m as _;
// Halt on panic: a `defmt` build (see the module doc) or `find-panics`.
#[cfg(any(feature = "defmt", feature = "find-panics"))]
use panic_halt as _;
#[cfg(target_arch = "riscv32")]
use riscv as _;

/// The generic bring-up of the host example, checked for the firmware targets.
#[path = "../../common/bring_up.rs"]
pub mod generic;

#[cfg(not(any(feature = "defmt", feature = "find-panics")))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    extern "Rust" {
        /// Defined nowhere: referencing it makes the link fail.
        fn _khal_panic_is_reachable() -> !;
    }
    // SAFETY: never executed in a binary that links: the symbol does not
    // exist, so a binary in which this call survives does not link at all.
    unsafe { _khal_panic_is_reachable() }
}

/// Where the register window is mapped (a peripheral-region address).
pub const WINDOW_ADDR: usize = 0x4000_0000;

/// The window's length: 16 MiB of device address space from device address 0.
pub const WINDOW_BYTES: usize = 0x100_0000;

/// The device address the window's first byte answers.
pub const WINDOW_BASE: DeviceAddr = DeviceAddr(0);

/// The device's notification blocks: one set for the device, each block
/// taken once at a time (a `static`, all zeros: in `.bss`).
static BLOCKS: NotificBlocks = NotificBlocks::new();

/// Device addresses of the blocks the bring-up touches (inside the window).
pub mod map {
    use khal::DeviceAddr;
    /// ACT / DVE engine windows.
    pub const ENG: DeviceAddr = DeviceAddr(0x10_0000);
    /// Pooling engine window.
    pub const POOL: DeviceAddr = DeviceAddr(0x20_0000);
    /// PE engine window.
    pub const PE: DeviceAddr = DeviceAddr(0x30_0000);
    /// SP memory window.
    pub const SP_MEM: DeviceAddr = DeviceAddr(0x40_0000);
    /// SP register window.
    pub const SP_REGS: DeviceAddr = DeviceAddr(0x50_0000);
    /// SP notification (ENS) block.
    pub const SP_ENS: DeviceAddr = DeviceAddr(0x60_0000);
    /// The NeuronCore's notification block.
    pub const NOTIFIC: DeviceAddr = DeviceAddr(0x70_0000);
    /// MSI-X block (MARIANA).
    pub const MSIX: DeviceAddr = DeviceAddr(0x80_0000);
    /// Errtrig block 0 (MARIANA).
    pub const ERRTRIG0: DeviceAddr = DeviceAddr(0x90_0000);
    /// The TPB memory handle the XT/NX windows are offsets from.
    pub const TPB_MEM: DeviceAddr = DeviceAddr(0x0);
}

/// A busy-wait delay for a 64 MHz core: every khal wait is bounded by a budget
/// of these (`poll_until`), so a dead device ends in `Timeout`, never a hang.
pub struct CycleDelay;

impl DelayNs for CycleDelay {
    fn delay_ns(&mut self, ns: u32) {
        // 64 cycles per µs; at least one cycle.
        let cycles = (ns / 16).max(1);
        #[cfg(target_arch = "arm")]
        cortex_m::asm::delay(cycles);
        #[cfg(target_arch = "riscv32")]
        riscv::asm::delay(cycles);
    }
}

/// What an image's `main.rs` hands to `VolatileWindow::new`: the first dword
/// at [`WINDOW_ADDR`] (`NoContext` if the board's address is null), the length
/// [`WINDOW_BYTES`] and the base [`WINDOW_BASE`], hidden from the optimiser
/// (so no access is folded into a compile-time refusal).
pub fn window_parts() -> Result<(NonNull<u32>, usize, DeviceAddr)> {
    let ptr = NonNull::new(black_box(WINDOW_ADDR) as *mut u32).ok_or(Error::NoContext)?;
    Ok((
        ptr,
        black_box(WINDOW_BYTES),
        DeviceAddr(black_box(WINDOW_BASE.get())),
    ))
}

/// Bytes of each NQ ring (64 entries).
pub const RING_BYTES: usize = 64 * 16;

// A ring is moved by value (out of its constructor's `Result`): at 104 bytes
// and more (with the `Result`, 112) thumbv7em moves it by a `memcpy` call,
// which costs each image ~900 bytes of `.text`. Keep it at 96.
const _: () = assert!(
    core::mem::size_of::<NqRing<StaticDma, &VolatileWindow>>() <= 96,
    "NqRing grew past 96 bytes: its moves become memcpy calls (see the comment)"
);

/// The two NQ rings (phase-mode, tail-mode): khal's static-buffer backend
/// ([`StaticDma`]) over two `static_dma!` buffers, handed out once each (no
/// `unsafe` here). The device sees the core's addresses (identity).
pub fn rings() -> Result<(StaticDma, StaticDma)> {
    let phase = khal::static_dma!(RING_BYTES).ok_or(Error::OutOfMemory)?;
    let tail = khal::static_dma!(RING_BYTES).ok_or(Error::OutOfMemory)?;
    Ok((StaticDma::identity(phase), StaticDma::identity(tail)))
}

/// The CSR layer over the window: two registered regions, a write, a read, an
/// array write and a burst [000 §1].
pub fn csr_demo(w: &VolatileWindow) -> Result<u32> {
    // The table is built inside the `Csr` (`regions_mut`), never moved: a
    // moved table is a `memcpy` call the image would otherwise link.
    let mut csr = Csr::<_, 4>::with_empty_table(w);
    let t = csr.regions_mut().ok_or(Error::NoRegionTable)?;
    t.insert(CsrRegion::identity(
        black_box(map::ENG),
        map::ENG.add(0x1_0000),
        0,
    )?)?;
    t.insert(CsrRegion::identity(
        black_box(map::PE),
        map::PE.add(0x1_0000),
        1,
    )?)?;
    csr.write32(black_box(map::ENG.add(0x10)), 0x5A5A)?;
    csr.csr_write_array(&[map::ENG.add(0x20), map::ENG.add(0x24)], &[1, 2])?;
    csr.write_burst(black_box(map::PE), &[1, 2, 3, 4])?;
    let mut buf = [0u32; 4];
    csr.mem_read_buf(map::PE, &mut buf)?;
    Ok(csr.read32(black_box(map::ENG.add(0x10)))? ^ buf[black_box(3) & 3])
}

/// The arch-generic bring-up: engines, notification engine, two NQs, drains.
/// Returns how many notifications were drained.
pub fn bring_up<A: StpbOps>(w: &VolatileWindow, delay: &mut CycleDelay) -> Result<usize> {
    let eng = EngineParams {
        inst_debug_level: black_box(3),
        ..EngineParams::new(black_box(map::ENG), black_box(map::TPB_MEM))
    };
    let pool = PoolingParams {
        inst_debug_level: black_box(0),
        ..PoolingParams::new(black_box(map::POOL), black_box(map::TPB_MEM))
    };
    let pe = PeParams::new(black_box(map::PE), black_box(map::TPB_MEM));
    let sp = SpHandle {
        sp_mem: Some(black_box(map::SP_MEM)),
        sp_regs: Some(black_box(map::SP_REGS)),
        ens_regs: Some(black_box(map::SP_ENS)),
        inst_debug_level: black_box(0),
    };
    let cfg = StpbConfig {
        pooling: &pool,
        act: &eng,
        dve: &eng,
        pe: &pe,
        sp: &sp,
    };
    // On every arch today some engine leaves are NOT TRACED, so `stpb_init`
    // returns `NotTraced` (a typed answer, not a failure of khal): record it
    // and go on, so the rest of the bring-up is linked and checked too.
    let mut not_traced = 0usize;
    match stpb_init::<A, _, _>(w, &cfg, &mut ()) {
        Ok(_) => {}
        Err(Error::NotTraced(_)) => not_traced += 1,
        Err(e) => return Err(e),
    }
    // The TPB's notification engine on the SP's ENS block (the C `sp_init`'s
    // `nt` step: 10 queues), taken once from the device's set.
    let mut block = BLOCKS.take(black_box(map::SP_ENS))?;
    let mut ens = NotificEngine::init(w, &mut block, EngineConfig::tpb(BpMode::All))?;
    ens.set_bp_config(BpMode::from_raw(black_box(1))?)?;
    ens.set_coalescer_stream(black_box(1), true)?;
    ens.set_coalescer_bypass(black_box(false))?;
    ens.set_axi_id(black_box(3), true)?;
    ens.update_hw_bp(black_box(0xF0), black_box(0xFF))?;
    let _ = ens.timestamp_inc()?;

    let (phase_mem, tail_mem) = rings()?;
    // Each ring is used where its constructor left it, inside the `Result`:
    // moved out, it would be copied.
    let mut phase = NqRing::configure_host(
        phase_mem,
        ens.queue(black_box(0))?,
        NqConfig::phase(RING_BYTES as u32),
    );
    let phase = phase.as_mut().map_err(|r| r.error())?;
    phase.enable(&mut ens, delay)?;
    let mut tail = NqRing::configure_host(
        tail_mem,
        ens.queue(black_box(5))?,
        NqConfig::tail(RING_BYTES as u32),
    );
    let tail = tail.as_mut().map_err(|r| r.error())?;
    tail.enable(&mut ens, delay)?;

    let mut out = [NqEntry::default(); 16];
    let mut n = phase.drain(&mut out)?;
    n += tail.available_count(delay)? as usize;
    let mut it = tail.drain_iter(delay, black_box(8))?;
    for e in it.by_ref() {
        let e = e?;
        let dword = e.bytes().as_chunks::<4>().0.get(black_box(1));
        n += dword.map_or(0, |d| (u32::from_le_bytes(*d) & 1) as usize);
    }
    n += it.finish()? as usize;
    phase.reset(&mut ens, delay)?;
    Ok(n + not_traced)
}

/// Keep a result observable (so the whole bring-up is not optimised away).
pub fn publish(r: Result<usize>) {
    static mut LAST: i32 = 0;
    let v = match r {
        Ok(n) => n as i32,
        Err(e) => e.c_code().unwrap_or(-1000),
    };
    // SAFETY: single-threaded firmware, written once here, never read by Rust.
    unsafe { core::ptr::addr_of_mut!(LAST).write_volatile(v) };
}

/// Each image's `main` over its register `window`: the CSR demo,
/// `arch_extra` (what only the image's arch has: MARIANA's
/// [`intc_bring_up`]), the bring-up of `A` ([`bring_up`]); the outcome
/// logged (`defmt`) and published; then sleep. Inlined into each `main`, so each
/// image's code is what it was when `main` wrote this out (its `.text` is
/// gated in `.ci/proof`).
#[inline(always)]
pub fn run<A: StpbOps>(
    window: Result<VolatileWindow>,
    arch_extra: impl FnOnce(&VolatileWindow) -> Result<()>,
) -> ! {
    let r = window.and_then(|w| {
        csr_demo(&w)?;
        arch_extra(&w)?;
        bring_up::<A>(&w, &mut CycleDelay)
    });
    match &r {
        #[cfg(feature = "defmt")]
        Ok(n) => defmt::info!("khal bring-up done: {=usize}", n),
        #[cfg(not(feature = "defmt"))]
        Ok(_) => {}
        Err(e) => generic::log_error("khal bring-up", e),
    }
    publish(r);
    loop {
        core::hint::spin_loop();
    }
}

/// The MSI-X INTC bring-up of an arch that has one (MARIANA) [004 §4]:
/// vector mask / unmask, the moderation timer, an errtrig line's mask, unmask
/// and cause, and an NQ base pointed at the mailbox map.
///
/// Out of line: its frame holds the INTC handle (about 1.4 KiB), and inlined
/// into `main` that frame would push every other local of the bring-up past
/// the short stack-offset encodings.
#[inline(never)]
pub fn intc_bring_up<A: IntcOps>(w: &VolatileWindow) -> Result<u32> {
    // set_notific_queue_base takes its NQ from the handle's ENS of the block
    // [004 §4], [FACTS §12.3]: the engine is set up first and recorded there.
    let mut block = BLOCKS.take(black_box(map::NOTIFIC))?;
    let ens = NotificEngine::init(w, &mut block, EngineConfig::tpb(BpMode::All))?;
    let mut intc = Intc::<A>::new(black_box(map::MSIX))?;
    intc.set_errtrig_base(black_box(0), map::ERRTRIG0)?;
    intc.set_ens_nq(black_box(5), EnsNq::of(&ens, black_box(2))?)?;
    intc.mask_vector(w, black_box(3))?;
    intc.unmask_vector(w, black_box(3))?;
    intc.set_mod_timer_period(w, black_box(5))?;
    intc.set_group_interval(w, black_box(2), 0xFF)?;
    let line = ErrtrigLine::new(black_box(0), black_box(1), black_box(2), black_box(7))?;
    intc.mask_interrupt(w, line)?;
    intc.unmask_interrupt(w, line)?;
    intc.mask_notification(w, line)?;
    intc.unmask_notification(w, line)?;
    intc.set_cause(w, line)?;
    let cause = intc.read_cause(w, line)?;
    let base = intc.set_notific_queue_base(w, black_box(5), black_box(1))?;
    Ok(cause ^ base.get() as u32)
}
