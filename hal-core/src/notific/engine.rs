//! The per-engine notification block: init and the config operations, with their shadows [004 §2].
//!
//! A [`NotificEngine`] owns the engine's MMIO handle (pass `&M` to share one
//! window), its base, its register [`Flavour`] and the shadows the notes keep
//! in the C engine object: write-buffer enable (64-bit), hardware
//! back-pressure (64-bit), NQ enable, NQ overflow and coalescer stream enable.
//! The shadows are authoritative: masked updates are computed from them, never
//! from a register read [004 §2 GOTCHA]. The same code serves all three arches
//! (the register window is arch-invariant [004 §2]).

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::mmio::Mmio;
use crate::regs::Reg;

use super::regs::{self, coal_ctrl, wob_ctrl};

/// The register flavour of one engine, chosen at run time [004 §3 QUIRK].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
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
    pub const fn from_num_queues(num_queues: u32) -> Flavour {
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
    pub const fn sw_backpressure(self) -> u32 {
        match self {
            BpMode::All => regs::SW_BP_ALL,
            BpMode::None => 0,
        }
    }
}

/// Number of coalescer streams the `coal_ctrl.stream_en` field has (bits 13:10) [004 §2].
pub const MAX_COALESCER_STREAMS: u32 = 4;

/// The standard masked update `old ^ (mask & (old ^ val))`: bits of `mask`
/// take `val`, the others keep `old` [004 §2].
#[inline(always)]
pub const fn masked_update(old: u64, val: u64, mask: u64) -> u64 {
    old ^ (mask & (old ^ val))
}

/// One engine's notification block, brought up by [`NotificEngine::init`].
#[derive(Debug)]
pub struct NotificEngine<M: Mmio> {
    mmio: M,
    base: DeviceAddr,
    flavour: Flavour,
    num_queues: u32,
    wr_buf_shadow: u64,
    hw_bp_shadow: u64,
    nq_enable_shadow: u32,
    overflow_shadow: u32,
    stream_shadow: u32,
}

impl<M: Mmio> NotificEngine<M> {
    /// `aws_hal_notific_init`: bring up the engine's notification block [004 §1, §2].
    ///
    /// `base` is the engine's notific base (`None` = the C NULL base → [`Error::NoContext`], -14).
    /// `num_queues` selects the flavour (1 → single-queue, else 10-queue) and is
    /// the number of coalescer streams the engine accepts; `0` or more than 10
    /// is refused with [`Error::InvalidArgument`] (a khal choice: the C code does
    /// not check it). `bp_mode` is 0 or 1, anything else is
    /// [`Error::UnknownMode`] (-1), checked BEFORE any write.
    ///
    /// Deviation from the C (listed in `docs/coverage.md`): the C code writes
    /// `nq_uart_mode`, `wob_ctrl`, `coal_timer` and the write-buffer enables
    /// first and only then returns -1 from `set_bp_config`. khal writes
    /// nothing: a refused call leaves the device untouched everywhere in khal,
    /// and the engine is init's return value, so a caller could neither
    /// finish nor undo a half-written bring-up.
    ///
    /// Write order [004 §2]: `nq_uart_mode = uart_mode`; `wob_ctrl = 1`; on the
    /// 10-queue flavour only `coal_timer = 0xAAE60` (and the stream shadow
    /// seeded to 15); write-buffer enable of every lane (masked update from the
    /// shadow, `lo` then `hi`); `set_bp_config(bp_mode)`.
    pub fn init(
        mmio: M,
        base: Option<DeviceAddr>,
        num_queues: u32,
        bp_mode: u32,
        uart_mode: u32,
    ) -> Result<Self> {
        let base = base.ok_or(Error::NoContext)?;
        if num_queues == 0 || num_queues > regs::NQ_COUNT {
            return Err(Error::InvalidArgument("num_queues (1..=10)"));
        }
        let mode = BpMode::from_raw(bp_mode)?;
        let mut e = NotificEngine {
            mmio,
            base,
            flavour: Flavour::from_num_queues(num_queues),
            num_queues,
            wr_buf_shadow: 0,
            hw_bp_shadow: 0,
            nq_enable_shadow: 0,
            overflow_shadow: 0,
            stream_shadow: 0,
        };
        e.write(regs::NQ_UART_MODE, uart_mode)?;
        e.write(regs::WOB_CTRL, 1)?;
        if e.flavour == Flavour::TenQueue {
            // [004 §2 QUIRK]: a single-NQ engine has no coalescer timer.
            e.write(regs::COAL_TIMER, regs::COAL_TIMER_INIT)?;
            e.stream_shadow = regs::STREAM_SHADOW_SEED;
        }
        e.set_wr_buf_enable(u64::MAX)?;
        e.apply_bp_config(mode)?;
        Ok(e)
    }

    #[inline(always)]
    fn write(&self, reg: Reg, value: u32) -> Result<()> {
        reg.write(&self.mmio, self.base, value)
    }

    #[inline(always)]
    fn read(&self, reg: Reg) -> Result<u32> {
        reg.read(&self.mmio, self.base)
    }

    /// The MMIO handle.
    pub fn mmio(&self) -> &M {
        &self.mmio
    }

    /// The engine's notific base.
    pub const fn base(&self) -> DeviceAddr {
        self.base
    }

    /// The register flavour.
    pub const fn flavour(&self) -> Flavour {
        self.flavour
    }

    /// The `num_queues` given to init (also the number of coalescer streams).
    pub const fn num_queues(&self) -> u32 {
        self.num_queues
    }

    /// The write-buffer-enable shadow.
    pub const fn wr_buf_shadow(&self) -> u64 {
        self.wr_buf_shadow
    }

    /// The hardware back-pressure shadow.
    pub const fn hw_bp_shadow(&self) -> u64 {
        self.hw_bp_shadow
    }

    /// The NQ enable shadow (one bit per queue).
    pub const fn nq_enable_shadow(&self) -> u32 {
        self.nq_enable_shadow
    }

    /// The NQ overflow (`ignore_full_en`) shadow.
    pub const fn overflow_shadow(&self) -> u32 {
        self.overflow_shadow
    }

    /// The coalescer stream-enable shadow.
    pub const fn stream_shadow(&self) -> u32 {
        self.stream_shadow
    }

    /// `update_wr_buf_enable`: `new = old ^ (mask & (old ^ val))` from the
    /// shadow, write `wr_buf_enable_lo` then `_hi`, store the shadow [004 §2].
    pub fn update_wr_buf_enable(&mut self, val: u64, mask: u64) -> Result<()> {
        let new = masked_update(self.wr_buf_shadow, val, mask);
        self.write(regs::WR_BUF_ENABLE_LO, new as u32)?;
        self.write(regs::WR_BUF_ENABLE_HI, (new >> 32) as u32)?;
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
        self.write(regs::HW_BACKPRESSURE_LO, new as u32)?;
        self.write(regs::HW_BACKPRESSURE_HI, (new >> 32) as u32)?;
        self.hw_bp_shadow = new;
        Ok(())
    }

    /// `set_bp_config`: `sw_backpressure` = `0x3FF` (mode 0) or `0` (mode 1),
    /// then both hw-bp words all ones and the hw-bp shadow all ones. Any other
    /// mode is [`Error::UnknownMode`] (-1) with nothing written [004 §2].
    pub fn set_bp_config(&mut self, mode: u32) -> Result<()> {
        let mode = BpMode::from_raw(mode)?;
        self.apply_bp_config(mode)
    }

    fn apply_bp_config(&mut self, mode: BpMode) -> Result<()> {
        self.write(regs::SW_BACKPRESSURE, mode.sw_backpressure())?;
        self.write(regs::HW_BACKPRESSURE_LO, u32::MAX)?;
        self.write(regs::HW_BACKPRESSURE_HI, u32::MAX)?;
        self.hw_bp_shadow = u64::MAX;
        Ok(())
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
        let bit = 1u32 << stream;
        let shadow = if enable {
            self.stream_shadow | bit
        } else {
            self.stream_shadow & !bit
        };
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
    /// access is ([`NotificEngine::nq_reg`]: `idx < 10`, or 0 on the
    /// single-queue flavour) before anything is written.
    pub fn set_nq_ignore_full(&mut self, idx: u32, enable: bool) -> Result<()> {
        self.nq_reg(regs::NQ_TAIL_PTR, idx)?;
        let bit = 1u32 << idx;
        let shadow = if enable {
            self.overflow_shadow | bit
        } else {
            self.overflow_shadow & !bit
        };
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
    #[inline(always)]
    pub fn nq_reg(&self, reg: crate::regs::RegArray, idx: u32) -> Result<Reg> {
        match self.flavour {
            Flavour::TenQueue => reg.at(idx),
            Flavour::SingleQueue if idx == 0 => Ok(reg.flat()),
            Flavour::SingleQueue => Err(Error::OutOfRange {
                what: "nq index (single-queue flavour)",
                value: idx as u64,
                limit: 1,
            }),
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

    /// Write a per-NQ register of queue `idx`.
    #[inline(always)]
    pub(super) fn write_nq(&self, reg: crate::regs::RegArray, idx: u32, value: u32) -> Result<()> {
        self.nq_reg(reg, idx)?.write(&self.mmio, self.base, value)
    }
}

/// `nq_get_notification_size`: 16 bytes on every arch, no gate [004 §1 GOTCHA].
pub const fn nq_get_notification_size() -> u32 {
    super::entry::NQ_ENTRY_BYTES as u32
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
    fn bp_modes_and_flavours() {
        assert_eq!(BpMode::from_raw(0).map(BpMode::sw_backpressure), Ok(0x3FF));
        assert_eq!(BpMode::from_raw(1).map(BpMode::sw_backpressure), Ok(0));
        assert_eq!(BpMode::from_raw(2), Err(Error::UnknownMode(2)));
        assert_eq!(Error::UnknownMode(2).c_code(), Some(-1));
        assert_eq!(Flavour::from_num_queues(1), Flavour::SingleQueue);
        assert_eq!(Flavour::from_num_queues(10), Flavour::TenQueue);
        assert_eq!(nq_get_notification_size(), 16);
    }
}
