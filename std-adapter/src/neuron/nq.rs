//! NQ rings the driver allocates, adopted by khal's [`NqRing`]; NeuronCore
//! reset [FACTS §14.5].
//!
//! NOTIFICATIONS_INIT_V2 allocates the ring (`size` a power of two in bytes)
//! and writes the queue's base_lo, base_hi and f_size registers itself. khal
//! maps the ring, and an [`NqRing`] adopts it ([`NqRing::host`]: no queue
//! config write) and then enables, drains and resets it through khal's
//! usual BAR writes: enable, overflow, coalescer, head and tail stay the
//! user-space HAL's [004 §2-§3].
//!
//! Which of khal's queues (notific block and index) the kernel's queue id
//! (`nq_type × 16 + engine_index`) is, is not traced: the caller names both,
//! the kernel's [`NqId`] and khal's [`NqQueue`] token.

use embedded_hal::delay::DelayNs;
use khal_core::notific::{ConsumeKind, NqConfig, NqQueue, NqRing};
use khal_core::wait::Budget;
use khal_core::{Error, Mmio};

use super::abi::{self, NcReset, NcResetReady, NotificationsInitV2, NQ_PER_TYPE};
use super::device::Neuron;
use super::dma::NeuronDma;
use super::error::NeuronError;
use super::sys::{Errno, NeuronSys};

/// The kernel's NQ types [FACTS §14.5].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum NqType {
    /// TRACE, 0.
    Trace = 0,
    /// NOTIFY, 1.
    Notify = 1,
    /// EVENT, 2.
    Event = 2,
    /// ERROR, 3.
    Error = 3,
    /// TRACE_DMA, 4.
    TraceDma = 4,
    /// THROTTLE, 5.
    Throttle = 5,
}

impl NqType {
    /// The six, in number order.
    pub const ALL: [NqType; 6] = [
        NqType::Trace,
        NqType::Notify,
        NqType::Event,
        NqType::Error,
        NqType::TraceDma,
        NqType::Throttle,
    ];

    /// The type of number `n`.
    pub fn from_raw(n: u32) -> Option<NqType> {
        NqType::ALL.into_iter().find(|t| *t as u32 == n)
    }

    /// Its name in the kernel's numbering.
    pub const fn name(self) -> &'static str {
        match self {
            NqType::Trace => "TRACE",
            NqType::Notify => "NOTIFY",
            NqType::Event => "EVENT",
            NqType::Error => "ERROR",
            NqType::TraceDma => "TRACE_DMA",
            NqType::Throttle => "THROTTLE",
        }
    }
}

/// Whose NQ: `nq_dev_type` 0 = NeuronCore, 1 = TopSP [FACTS §14.5].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u32)]
pub enum NqDevType {
    /// A NeuronCore, 0.
    NeuronCore = 0,
    /// A TopSP, 1.
    TopSp = 1,
}

/// One NQ in the kernel's numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NqId {
    /// NeuronCore or TopSP.
    pub dev_type: NqDevType,
    /// Which one (`nq_dev_id`).
    pub dev_id: u32,
    /// The type.
    pub nq_type: NqType,
    /// The engine index within the type, below 16.
    pub engine_index: u32,
}

impl NqId {
    /// The kernel's queue id, `nq_type × 16 + engine_index` [FACTS §14.5].
    pub const fn queue_id(&self) -> u32 {
        self.nq_type as u32 * NQ_PER_TYPE + self.engine_index
    }
}

/// Budget of [`Neuron::nc_reset`]'s wait: NC_RESET_READY retried every
/// 100 µs while interrupted, at most 10 000 times (khal's own figure: the
/// facts give none).
pub const RESET_BUDGET: Budget = Budget::NQ_DEFAULT;

impl<S: NeuronSys> Neuron<S> {
    /// NOTIFICATIONS_INIT_V2 of `id`, a host ring of `size` bytes, mapped
    /// whole. Refused before any ioctl: an engine index of 16 or more, a
    /// size not a power of two ([`Error::InvalidArgument`]).
    pub fn notifications_init(&self, id: NqId, size: u32) -> Result<NeuronDma<'_, S>, NeuronError> {
        if id.engine_index >= NQ_PER_TYPE {
            return Err(Error::InvalidArgument("nq engine index (below 16)").into());
        }
        if !size.is_power_of_two() {
            return Err(Error::InvalidArgument("nq size (a power of two in bytes)").into());
        }
        let mut arg = NotificationsInitV2 {
            nq_dev_id: id.dev_id,
            nq_dev_type: id.dev_type as u32,
            nq_type: id.nq_type as u32,
            engine_index: id.engine_index,
            size,
            on_host_memory: 1,
            ..NotificationsInitV2::default()
        };
        self.call(abi::NOTIFICATIONS_INIT_V2, &mut arg)?;
        self.map_chunk(arg.mem_handle, false)
    }

    /// A ring the driver allocated and base-programmed, adopted by khal on
    /// `queue` (the caller's khal queue for the kernel's `id`):
    /// NOTIFICATIONS_INIT_V2 of `cfg.size_bytes`, then [`NqRing::host`],
    /// which writes no register; the ring has the config's kind (phase or
    /// tail). Enable it with [`NqRing::enable`].
    pub fn adopt_ring<'n, 'd, M: Mmio, K: ConsumeKind>(
        &'n self,
        id: NqId,
        queue: NqQueue<'d, M>,
        cfg: NqConfig<K>,
    ) -> Result<NqRing<'d, NeuronDma<'n, S>, M, K>, NeuronError> {
        let mem = self.notifications_init(id, cfg.size_bytes)?;
        NqRing::host(mem, queue, cfg).map_err(|r| NeuronError::Hal(Error::from(r)))
    }

    /// Reset NeuronCores `nc_map` ([`abi::NC_MAP_ALL`] = the whole device):
    /// NC_RESET, then NC_RESET_READY for its request id, retried within
    /// `budget` while interrupted (`EINTR`) [FACTS §14.5]. A non-zero result
    /// is [`NeuronError::ResetFailed`]; an exhausted budget [`Error::Timeout`].
    pub fn nc_reset<D: DelayNs + ?Sized>(
        &self,
        nc_map: u32,
        delay: &mut D,
        budget: Budget,
    ) -> Result<(), NeuronError> {
        let mut req = NcReset {
            nc_map,
            request_id: 0,
        };
        self.call(abi::NC_RESET, &mut req)?;
        let mut tries = 0u32;
        loop {
            let mut ready = NcResetReady {
                request_id: req.request_id,
                result: 0,
            };
            match self.call(abi::NC_RESET_READY, &mut ready) {
                Ok(_) if ready.result == 0 => return Ok(()),
                Ok(_) => {
                    return Err(NeuronError::ResetFailed {
                        result: ready.result,
                    })
                }
                Err(NeuronError::Os { errno, .. }) if errno == Errno::EINTR => {}
                Err(e) => return Err(e),
            }
            if tries >= budget.polls {
                return Err(Error::Timeout("NC_RESET_READY").into());
            }
            tries += 1;
            delay.delay_us(budget.period_us);
        }
    }
}
