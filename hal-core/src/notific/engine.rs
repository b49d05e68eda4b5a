//! The per-engine notification block: init and the config operations, with their shadows [004 §2].
//!
//! A [`NotificEngine`] owns the engine's MMIO handle (pass `&M` to share one
//! window), its base, its register [`Flavour`] and the shadows the notes keep
//! in the C engine object: write-buffer enable (64-bit), hardware
//! back-pressure (64-bit), NQ enable, NQ overflow and coalescer stream enable.
//! The shadows are authoritative: masked updates are computed from them, never
//! from a register read [004 §2 GOTCHA]. The same code serves all three arches
//! (the register window is arch-invariant [004 §2]).
//!
//! Configuration is typed: [`NotificEngine::init`] takes a base and an
//! [`EngineConfig`] (flavour and queue count, [`BpMode`], [`UartMode`]);
//! [`EngineConfig::from_raw`] and [`NotificEngine::init_raw`] keep the C
//! numbers and the C NULL base for callers that have them (the `khal trace`
//! flags, the golden tests of the C error codes).
//!
//! Ownership: a notification block is a [`NotificBlock`], taken once from the
//! device's [`NotificBlocks`](super::NotificBlocks) and lent to one engine at
//! a time (`&'d mut`, embassy's `Peri<'d, T>` idea); the engine hands out
//! each of its NQs once, as an [`NqQueue`] token ([`NotificEngine::queue`]);
//! a ring owns its token, so ring operations need no engine and cannot be
//! given the wrong one. The engine, its tokens and its rings carry the
//! block's loan `'d`: while any of them lives the block cannot be lent to a
//! second engine (a compile error), and when the last of them is gone the
//! block is free for a new init.

use core::marker::PhantomData;
use core::sync::atomic::{AtomicU32, Ordering};

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::regs::{AccessType, Readable, Reg, RegArray, Writable};
use crate::Mmio;

use super::block::NotificBlock;
use super::regs::{self, coal_ctrl, wob_ctrl};

/// The register flavour of one engine, chosen at run time [004 §3 QUIRK].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
// A word: the records that hold it (the engine, `EnsNq`) have no padding
// then, so they are built and moved as whole words.
#[repr(u32)]
pub enum Flavour {
    /// `notific_1_queue` (a TopSP): per-NQ registers at fixed offsets, no stride;
    /// no coalescer timer at init.
    SingleQueue,
    /// `notific_10_queue` (a NeuronCore TPB): per-NQ registers at `+40 * idx`,
    /// `idx < 10`.
    TenQueue,
}

impl Flavour {
    /// The C selector: `num_queues == 1` is the single-queue flavour, anything
    /// else the 10-queue one (`*(obj + 8) == 1`) [004 §2, §3].
    pub(crate) const fn from_num_queues(num_queues: u32) -> Flavour {
        if num_queues == 1 {
            Flavour::SingleQueue
        } else {
            Flavour::TenQueue
        }
    }
}

/// The software back-pressure mode of `set_bp_config` [004 §2].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum BpMode {
    /// Mode 0: every queue back-pressured (`sw_backpressure = 0x3FF`).
    All,
    /// Mode 1: no back-pressure (`sw_backpressure = 0`).
    None,
}

impl BpMode {
    /// The C mode number: 0 → [`BpMode::All`], 1 → [`BpMode::None`], any other
    /// → [`Error::UnknownMode`] (-1) [004 §2].
    pub const fn from_raw(mode: u32) -> Result<BpMode> {
        match mode {
            0 => Ok(BpMode::All),
            1 => Ok(BpMode::None),
            m => Err(Error::UnknownMode(m)),
        }
    }

    /// The `sw_backpressure` value of the mode [004 §2].
    pub(crate) const fn sw_backpressure(self) -> u32 {
        match self {
            BpMode::All => regs::SW_BP_ALL,
            BpMode::None => 0,
        }
    }
}

/// The value init writes to `nq_uart_mode` (`+0x28`) [004 §2].
///
/// A newtype over the raw register value: the notes name the register and
/// its write, not what its values mean (NOT TRACED, listed in
/// `docs/coverage.md`), so khal names no values. The default is 0, the value
/// `sp_init` passes [002 §2].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct UartMode(pub u32);

/// What [`NotificEngine::init`] brings the engine up with: the queue count
/// (which selects the register [`Flavour`] and bounds the coalescer streams),
/// the back-pressure mode and the UART mode [004 §2].
///
/// ```
/// use khal_core::notific::{BpMode, EngineConfig, Flavour, UartMode};
/// let tpb = EngineConfig::tpb(BpMode::None);
/// assert_eq!(tpb.flavour(), Flavour::TenQueue);
/// let top_sp = EngineConfig::top_sp(BpMode::All).with_uart_mode(UartMode(7));
/// assert_eq!(top_sp.flavour(), Flavour::SingleQueue);
/// // The C numbers, refused as the C refuses them (bp mode 2 → -1).
/// assert_eq!(EngineConfig::from_raw(10, 1, 0), Ok(tpb));
/// assert_eq!(EngineConfig::from_raw(10, 2, 0).map_err(|e| e.c_code()), Err(Some(-1)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EngineConfig {
    num_queues: u32,
    bp_mode: BpMode,
    uart_mode: UartMode,
}

impl EngineConfig {
    /// A NeuronCore TPB's engine: the 10-queue flavour with 10 queues (the
    /// count `sp_init` passes [002 §2]), `bp_mode`, UART mode 0.
    pub const fn tpb(bp_mode: BpMode) -> EngineConfig {
        EngineConfig {
            num_queues: regs::NQ_COUNT,
            bp_mode,
            uart_mode: UartMode(0),
        }
    }

    /// A TopSP's engine: the single-queue flavour (`num_queues == 1`)
    /// [004 §3 QUIRK], `bp_mode`, UART mode 0.
    pub const fn top_sp(bp_mode: BpMode) -> EngineConfig {
        EngineConfig {
            num_queues: 1,
            bp_mode,
            uart_mode: UartMode(0),
        }
    }

    /// The C's `(num_queues, bp_mode, uart_mode)` of `aws_hal_notific_init`:
    /// `num_queues` 0 or above 10 → [`Error::InvalidArgument`] (khal's check,
    /// the C code has none), `bp_mode` other than 0 or 1 →
    /// [`Error::UnknownMode`] (-1) [004 §2]. Checked here, so an engine is
    /// never half brought up by a bad number.
    pub const fn from_raw(num_queues: u32, bp_mode: u32, uart_mode: u32) -> Result<EngineConfig> {
        let cfg = match EngineConfig::tpb(BpMode::All).with_num_queues(num_queues) {
            Ok(cfg) => cfg,
            Err(e) => return Err(e),
        };
        match BpMode::from_raw(bp_mode) {
            Ok(mode) => Ok(cfg.with_bp_mode(mode).with_uart_mode(UartMode(uart_mode))),
            Err(e) => Err(e),
        }
    }

    /// The same config with `num_queues` queues: 1 is the single-queue
    /// flavour, 2..=10 the 10-queue flavour with that many coalescer streams
    /// allowed (`stream < num_queues`) [004 §2]. 0 or above 10 →
    /// [`Error::InvalidArgument`].
    pub const fn with_num_queues(mut self, num_queues: u32) -> Result<EngineConfig> {
        if num_queues == 0 || num_queues > regs::NQ_COUNT {
            return Err(Error::InvalidArgument("num_queues (1..=10)"));
        }
        self.num_queues = num_queues;
        Ok(self)
    }

    /// The same config with another back-pressure mode.
    pub const fn with_bp_mode(mut self, bp_mode: BpMode) -> EngineConfig {
        self.bp_mode = bp_mode;
        self
    }

    /// The same config with another UART mode.
    pub const fn with_uart_mode(mut self, uart_mode: UartMode) -> EngineConfig {
        self.uart_mode = uart_mode;
        self
    }

    /// The queue count (the C's `num_queues`).
    pub(crate) const fn num_queues(self) -> u32 {
        self.num_queues
    }

    /// The register flavour the queue count selects.
    pub const fn flavour(self) -> Flavour {
        Flavour::from_num_queues(self.num_queues)
    }

    /// The back-pressure mode.
    pub(crate) const fn bp_mode(self) -> BpMode {
        self.bp_mode
    }

    /// The UART mode.
    pub(crate) const fn uart_mode(self) -> UartMode {
        self.uart_mode
    }
}

/// Number of coalescer streams the `coal_ctrl.stream_en` field has (bits 13:10) [004 §2].
const MAX_COALESCER_STREAMS: u32 = 4;

/// The standard masked update `old ^ (mask & (old ^ val))`: bits of `mask`
/// take `val`, the others keep `old` [004 §2].
const fn masked_update(old: u64, val: u64, mask: u64) -> u64 {
    old ^ (mask & (old ^ val))
}

/// `shadow` with bit `bit` set (`on`) or cleared.
const fn with_bit(shadow: u32, bit: u32, on: bool) -> u32 {
    if on {
        shadow | 1 << bit
    } else {
        shadow & !(1 << bit)
    }
}

/// Source of engine identities: each [`NotificEngine`] takes the next value,
/// so a ring can tell its own engine from another on the same base.
static NEXT_ENGINE_ID: AtomicU32 = AtomicU32::new(0);

/// One engine's notification block, brought up by [`NotificEngine::init`] on
/// a [`NotificBlock`] it keeps borrowed for `'d`.
#[derive(Debug)]
pub struct NotificEngine<'d, M: Mmio> {
    mmio: M,
    base: DeviceAddr,
    /// The loan of the block: no second engine on it while this one, a
    /// token or a ring of it lives.
    block: PhantomData<&'d mut ()>,
    /// This engine's identity (see [`NqQueue`]); unique per process up to
    /// 2^32 inits.
    id: u32,
    /// One bit per NQ handed out by [`NotificEngine::queue`].
    taken: u32,
    flavour: Flavour,
    num_queues: u32,
    wr_buf_shadow: u64,
    hw_bp_shadow: u64,
    nq_enable_shadow: u32,
    overflow_shadow: u32,
    stream_shadow: u32,
}

impl<'d, M: Mmio> NotificEngine<'d, M> {
    /// `aws_hal_notific_init`: bring up the notification block `block` with
    /// `cfg` [004 §1, §2]. The block stays lent to the engine, its queue
    /// tokens and their rings.
    ///
    /// A `base` whose block does not fit below 2^64 is refused with
    /// [`Error::InvalidArgument`] before any write (its extent is
    /// [`BlockDesc::extent`](crate::regs::BlockDesc::extent) of
    /// [`regs::NOTIFIC`]).
    ///
    /// Write order [004 §2]: `nq_uart_mode = uart_mode`; `wob_ctrl = 1`; on the
    /// 10-queue flavour only `coal_timer = 0xAAE60` (and the stream shadow
    /// seeded to 15); write-buffer enable of every lane (masked update from the
    /// shadow, `lo` then `hi`); `set_bp_config(bp_mode)`.
    ///
    /// The config's numbers were checked when it was built
    /// ([`EngineConfig::from_raw`]), so init cannot refuse one half way.
    /// Deviation from the C (listed in `docs/coverage.md`): the C code writes
    /// `nq_uart_mode`, `wob_ctrl`, `coal_timer` and the write-buffer enables
    /// first and only then returns -1 from `set_bp_config` for a bad mode.
    /// khal refuses it before any write: a refused call leaves the device
    /// untouched everywhere in khal, and the engine is init's return value,
    /// so a caller could neither finish nor undo a half-written bring-up.
    ///
    /// One engine per block: `block` is borrowed until the engine, its
    /// tokens and their rings are gone, so a second init on it meanwhile
    /// does not compile; after that it brings the block up afresh (new
    /// shadows, every queue free again).
    pub fn init(mmio: M, block: &'d mut NotificBlock<'_>, cfg: EngineConfig) -> Result<Self> {
        NotificEngine::init_at(mmio, block.base(), cfg)
    }

    /// [`NotificEngine::init`] at `base`, whose ownership the caller answers
    /// for: `sp_init`, whose C handle carries the ENS base as a number
    /// [002 §2].
    pub(crate) fn init_at(mmio: M, base: DeviceAddr, cfg: EngineConfig) -> Result<Self> {
        crate::regs::check_block_base(base, regs::NOTIFIC_EXTENT)?;
        let mut e = NotificEngine {
            mmio,
            base,
            block: PhantomData,
            id: NEXT_ENGINE_ID.fetch_add(1, Ordering::Relaxed),
            taken: 0,
            flavour: cfg.flavour(),
            num_queues: cfg.num_queues(),
            wr_buf_shadow: 0,
            hw_bp_shadow: 0,
            nq_enable_shadow: 0,
            overflow_shadow: 0,
            stream_shadow: 0,
        };
        e.write(regs::NQ_UART_MODE, cfg.uart_mode().0)?;
        e.write(regs::WOB_CTRL, 1)?;
        if e.flavour == Flavour::TenQueue {
            // [004 §2 QUIRK]: a single-NQ engine has no coalescer timer.
            e.write(regs::COAL_TIMER, regs::COAL_TIMER_INIT)?;
            e.stream_shadow = regs::STREAM_SHADOW_SEED;
        }
        e.set_wr_buf_enable(u64::MAX)?;
        e.set_bp_config(cfg.bp_mode())?;
        Ok(e)
    }

    /// `aws_hal_notific_init` with the C's arguments: `block` `None` is the C
    /// NULL base → [`Error::NoContext`] (-14) [004 §1]; the numbers as
    /// [`EngineConfig::from_raw`] checks them. Nothing is written on a
    /// refusal. For callers that hold the C numbers (`khal trace`, the golden
    /// tests of the C codes); typed callers use [`NotificEngine::init`]. The
    /// block is lent as in [`NotificEngine::init`].
    pub fn init_raw(
        mmio: M,
        block: Option<&'d mut NotificBlock<'_>>,
        num_queues: u32,
        bp_mode: u32,
        uart_mode: u32,
    ) -> Result<Self> {
        NotificEngine::init_raw_at(
            mmio,
            block.map(|b| b.base()),
            num_queues,
            bp_mode,
            uart_mode,
        )
    }

    /// [`NotificEngine::init_raw`] at `base`, whose ownership the caller
    /// answers for (see [`NotificEngine::init_at`]).
    pub(crate) fn init_raw_at(
        mmio: M,
        base: Option<DeviceAddr>,
        num_queues: u32,
        bp_mode: u32,
        uart_mode: u32,
    ) -> Result<Self> {
        let base = base.ok_or(Error::NoContext)?;
        let cfg = EngineConfig::from_raw(num_queues, bp_mode, uart_mode)?;
        NotificEngine::init_at(mmio, base, cfg)
    }

    /// Hand out NQ `idx` of this engine, once: the [`NqQueue`] token a ring
    /// is built on. A second call for the same `idx` is
    /// [`Error::QueueTaken`] (until the engine is brought up again); an index
    /// the flavour does not have is [`Error::OutOfRange`] (`idx >= 10`, or
    /// not 0 on the single-queue flavour). Nothing
    /// is written.
    ///
    /// The token carries a clone of the engine's MMIO handle (`&window` for a
    /// shared window) and this queue's register addresses, computed here for
    /// the flavour: a ring's head write and tail read are one access each.
    pub fn queue(&mut self, idx: u32) -> Result<NqQueue<'d, M>>
    where
        M: Clone,
    {
        if idx >= regs::NQ_COUNT {
            return Err(Error::out_of_range(
                "nq index",
                idx as u64,
                regs::NQ_COUNT as u64,
            ));
        }
        let window = self.nq_window(idx)?;
        let bit = 1u32 << idx;
        if self.taken & bit != 0 {
            return Err(Error::QueueTaken(idx));
        }
        self.taken |= bit;
        Ok(NqQueue {
            mmio: self.mmio.clone(),
            engine: self.id,
            base: self.base,
            index: idx,
            window,
            block: PhantomData,
        })
    }

    /// `Ok` if `queue` was handed out by this engine, [`Error::WrongEngine`]
    /// otherwise (another engine, even on the same base).
    pub(super) fn check_owns(&self, queue: &NqQueue<'_, M>) -> Result<()> {
        if queue.engine == self.id && queue.base == self.base {
            Ok(())
        } else {
            Err(Error::WrongEngine)
        }
    }

    /// The base of NQ `idx`'s register window: `base + 40 * idx` (10-queue,
    /// `idx < 10`), `base` (single-queue, `idx == 0`) [004 §3].
    fn nq_window(&self, idx: u32) -> Result<DeviceAddr> {
        let first = regs::NQ_HEAD_PTR.flat().offset();
        let reg = self.nq_reg(regs::NQ_HEAD_PTR, idx)?;
        Ok(self.base.add(reg.offset() - first))
    }

    fn write<A: Writable>(&self, reg: Reg<A>, value: u32) -> Result<()> {
        reg.write(&self.mmio, self.base, value)
    }

    /// A 64-bit value to its `lo` register, then its `hi` one [004 §2].
    fn write_pair<A: Writable>(&self, lo: Reg<A>, hi: Reg<A>, value: u64) -> Result<()> {
        self.write(lo, value as u32)?;
        self.write(hi, (value >> 32) as u32)
    }

    fn read<A: Readable>(&self, reg: Reg<A>) -> Result<u32> {
        reg.read(&self.mmio, self.base)
    }

    /// The MMIO handle.
    pub fn mmio(&self) -> &M {
        &self.mmio
    }

    /// The engine's notific base.
    pub(crate) const fn base(&self) -> DeviceAddr {
        self.base
    }

    /// The register flavour.
    pub(crate) const fn flavour(&self) -> Flavour {
        self.flavour
    }

    /// The `num_queues` given to init (also the number of coalescer streams).
    pub const fn num_queues(&self) -> u32 {
        self.num_queues
    }

    /// The write-buffer-enable shadow.
    #[cfg(test)]
    pub(crate) const fn wr_buf_shadow(&self) -> u64 {
        self.wr_buf_shadow
    }

    /// The hardware back-pressure shadow.
    #[cfg(test)]
    pub(crate) const fn hw_bp_shadow(&self) -> u64 {
        self.hw_bp_shadow
    }

    /// `update_wr_buf_enable`: `new = old ^ (mask & (old ^ val))` from the
    /// shadow, write `wr_buf_enable_lo` then `_hi`, store the shadow [004 §2].
    pub fn update_wr_buf_enable(&mut self, val: u64, mask: u64) -> Result<()> {
        let new = masked_update(self.wr_buf_shadow, val, mask);
        self.write_pair(regs::WR_BUF_ENABLE_LO, regs::WR_BUF_ENABLE_HI, new)?;
        self.wr_buf_shadow = new;
        Ok(())
    }

    /// `set_wr_buf_enable`: every lane takes `val` (the masked update with an
    /// all-ones mask) [004 §2]. Init calls it with all ones.
    pub fn set_wr_buf_enable(&mut self, val: u64) -> Result<()> {
        self.update_wr_buf_enable(val, u64::MAX)
    }

    /// `update_hw_bp`: the same masked idiom on `hw_backpressure_lo/hi` from
    /// the hw-bp shadow [004 §2].
    pub fn update_hw_bp(&mut self, val: u64, mask: u64) -> Result<()> {
        let new = masked_update(self.hw_bp_shadow, val, mask);
        self.write_pair(regs::HW_BACKPRESSURE_LO, regs::HW_BACKPRESSURE_HI, new)?;
        self.hw_bp_shadow = new;
        Ok(())
    }

    /// `set_bp_config`: `sw_backpressure` = `0x3FF` ([`BpMode::All`], mode 0)
    /// or `0` ([`BpMode::None`], mode 1), then both hw-bp words all ones and
    /// the hw-bp shadow all ones [004 §2]. (The C's other modes, -1 with
    /// nothing written, are refused by [`BpMode::from_raw`].)
    pub fn set_bp_config(&mut self, mode: BpMode) -> Result<()> {
        self.write(regs::SW_BACKPRESSURE, mode.sw_backpressure())?;
        // Every lane: the masked update of all 64 bits to ones.
        self.update_hw_bp(u64::MAX, u64::MAX)
    }

    /// `set_axi_id`: write `nq_axi_id`, then read-modify-write bit 0 of
    /// `wob_ctrl` (axi_id_rotate) only [004 §2].
    pub fn set_axi_id(&mut self, axi_id: u32, rotate: bool) -> Result<()> {
        self.write(regs::NQ_AXI_ID, axi_id)?;
        regs::WOB_CTRL.modify(&self.mmio, self.base, |r| {
            wob_ctrl::AXI_ID_ROTATE.set(r, rotate as u32)
        })?;
        Ok(())
    }

    /// `set_coalescer_stream`: set or clear stream `stream`'s bit of the
    /// stream shadow, then read-modify-write `coal_ctrl` bits 13:10 from the
    /// shadow. `stream >= 4 || stream >= num_queues` → [`Error::InvalidArgument`]
    /// (-22) with nothing written [004 §2].
    pub fn set_coalescer_stream(&mut self, stream: u32, enable: bool) -> Result<()> {
        if stream >= MAX_COALESCER_STREAMS || stream >= self.num_queues {
            return Err(Error::InvalidArgument("coalescer stream"));
        }
        let shadow = with_bit(self.stream_shadow, stream, enable);
        regs::COAL_CTRL.modify(&self.mmio, self.base, |r| {
            coal_ctrl::STREAM_EN.set(r, shadow)
        })?;
        self.stream_shadow = shadow;
        Ok(())
    }

    /// `set_coalescer_bypass`: read-modify-write of `coal_ctrl` bit 8 [004 §2].
    pub fn set_coalescer_bypass(&mut self, bypass: bool) -> Result<()> {
        regs::COAL_CTRL.modify(&self.mmio, self.base, |r| {
            coal_ctrl::BYPASS.set(r, bypass as u32)
        })?;
        Ok(())
    }

    /// Set or clear queue `idx`'s bit of `sw_overflow.ignore_full_en`
    /// (`+0x18`): update the overflow shadow, then write the register from it.
    ///
    /// khal's own: the notes keep this shadow and clear a queue's bit in the
    /// NQ reset (before its enable bit, [004 §3]) but show no function that
    /// sets it. Without a setter the shadow is always 0 and the reset's `+0x18`
    /// write cannot show whether it clears the right bit. The bit is
    /// `1 << idx`, the one the reset clears. `idx` is checked as every per-NQ
    /// access is (`idx < 10`, or 0 on the
    /// single-queue flavour) before anything is written.
    pub fn set_nq_ignore_full(&mut self, idx: u32, enable: bool) -> Result<()> {
        self.nq_reg(regs::NQ_TAIL_PTR, idx)?;
        let shadow = with_bit(self.overflow_shadow, idx, enable);
        self.write(regs::SW_OVERFLOW, shadow)?;
        self.overflow_shadow = shadow;
        Ok(())
    }

    /// `get_timestamp_inc`: one read of `+0xCC` [004 §2].
    pub fn timestamp_inc(&self) -> Result<u32> {
        self.read(regs::TIMESTAMP_INC)
    }

    /// The per-NQ register `reg` of queue `idx` in this engine's flavour:
    /// `+40 * idx` with `idx < 10` (10-queue), or no stride (single-queue) [004 §3].
    ///
    /// The single-queue flavour has one queue: an `idx` other than 0 is
    /// [`Error::OutOfRange`] (limit 1). Deviation from the C (listed in
    /// `docs/coverage.md`): the C code accepts any index there, whose
    /// registers then alias queue 0's while the enable and overflow shadows
    /// take bit `1 << idx`, a bit of a queue that does not exist.
    pub(crate) fn nq_reg<A: AccessType>(&self, reg: RegArray<A>, idx: u32) -> Result<Reg<A>> {
        match self.flavour {
            Flavour::TenQueue => reg.at(idx),
            Flavour::SingleQueue if idx == 0 => Ok(reg.flat()),
            Flavour::SingleQueue => Err(Error::out_of_range(
                "nq index (single-queue flavour)",
                idx as u64,
                1,
            )),
        }
    }

    /// Clear queue `idx`'s overflow then enable bits in the shadows and write
    /// them, `sw_overflow` (+0x18) first, then `nq_enable` (+0x14), the order
    /// of the notes' reset [004 §3].
    pub(super) fn disable_queue(&mut self, bit: u32) -> Result<()> {
        let overflow = self.overflow_shadow & !bit;
        self.write(regs::SW_OVERFLOW, overflow)?;
        self.overflow_shadow = overflow;
        let enable = self.nq_enable_shadow & !bit;
        self.write(regs::NQ_ENABLE, enable)?;
        self.nq_enable_shadow = enable;
        Ok(())
    }

    /// Set queue `idx`'s enable bit in the shadow and write `nq_enable`.
    pub(super) fn enable_queue(&mut self, bit: u32) -> Result<()> {
        let enable = self.nq_enable_shadow | bit;
        self.write(regs::NQ_ENABLE, enable)?;
        self.nq_enable_shadow = enable;
        Ok(())
    }

    /// The coalescer flush pulse of the reset: read `coal_ctrl`, write it with
    /// bit 9 set, then with bit 9 clear [004 §3 GOTCHA].
    pub(super) fn coalescer_flush_pulse(&mut self) -> Result<()> {
        let r = self.read(regs::COAL_CTRL)?;
        self.write(regs::COAL_CTRL, r | coal_ctrl::CLR.mask())?;
        self.write(regs::COAL_CTRL, r & !coal_ctrl::CLR.mask())
    }
}

/// One NQ of a [`NotificEngine`], handed out once by [`NotificEngine::queue`].
///
/// Not `Clone`: a token is one queue's ownership. A ring takes it by value
/// ([`NqRing::host`](super::NqRing::host), [`NqRing::device`](super::NqRing::device))
/// and gives it back with [`NqRing::into_parts`](super::NqRing::into_parts)
/// (a refused constructor with [`RefusedRing::into_parts`](super::RefusedRing::into_parts)),
/// so the queue can be configured again. It holds a clone of the engine's
/// MMIO handle, the engine's identity and base, the index and this queue's
/// register addresses (the flavour's stride applied once, here). It keeps the
/// engine's [`NotificBlock`] borrowed for `'d`, as its ring does.
#[derive(Debug)]
pub struct NqQueue<'d, M: Mmio> {
    mmio: M,
    engine: u32,
    base: DeviceAddr,
    index: u32,
    /// The queue's register window: `nq_base_addr_lo` is at `window + 0x100`;
    /// the head and tail registers are at constant offsets of it.
    window: DeviceAddr,
    /// The loan of the engine's block.
    block: PhantomData<&'d ()>,
}

impl<M: Mmio> NqQueue<'_, M> {
    /// The queue index (the bit of the engine's enable and overflow shadows).
    pub const fn index(&self) -> u32 {
        self.index
    }

    /// The address of this queue's `nq_tail_ptr`.
    pub(crate) const fn tail_addr(&self) -> DeviceAddr {
        regs::NQ_TAIL_PTR.flat().addr(self.window)
    }

    /// The address of this queue's `nq_head_ptr`.
    pub(crate) const fn head_addr(&self) -> DeviceAddr {
        regs::NQ_HEAD_PTR.flat().addr(self.window)
    }

    /// Write a per-NQ register of this queue (its window, no stride lookup).
    pub(super) fn write<A: Writable>(&self, reg: RegArray<A>, value: u32) -> Result<()> {
        reg.flat().write(&self.mmio, self.window, value)
    }

    /// One write of `nq_head_ptr` (a byte offset [FACTS §11]).
    pub(super) fn write_head(&self, value: u32) -> Result<()> {
        self.mmio.write32(self.head_addr(), value)
    }

    /// One read of `nq_tail_ptr`, unchecked.
    pub(super) fn read_tail(&self) -> Result<u32> {
        self.mmio.read32(self.tail_addr())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masked_update_is_the_notes_idiom() {
        assert_eq!(masked_update(0, u64::MAX, u64::MAX), u64::MAX);
        assert_eq!(masked_update(0xF0F0, 0x0F0F, 0x00FF), 0xF00F);
        assert_eq!(masked_update(0xFFFF, 0, 0), 0xFFFF);
        assert_eq!(masked_update(u64::MAX, 0, 1 << 40), !(1 << 40));
    }

    #[test]
    fn bp_modes_are_the_c_sw_backpressure_values() {
        assert_eq!(BpMode::from_raw(0).map(BpMode::sw_backpressure), Ok(0x3FF));
        assert_eq!(BpMode::from_raw(1).map(BpMode::sw_backpressure), Ok(0));
    }

    #[test]
    fn the_queue_count_selects_the_flavour() {
        assert_eq!(Flavour::from_num_queues(1), Flavour::SingleQueue);
        assert_eq!(Flavour::from_num_queues(2), Flavour::TenQueue);
        assert_eq!(Flavour::from_num_queues(10), Flavour::TenQueue);
    }
}
