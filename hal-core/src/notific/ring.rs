//! The NQ ring lifecycle: configure → init → queue config; enable / reset; available count [004 §3].
//!
//! An [`NqRing`] is the consumer side of one notification queue: its memory
//! (a [`DmaMemory`] view of the ring), the queue's [`NqQueue`] token (handed
//! out once by [`NotificEngine::queue`]: the index, the engine's MMIO handle
//! and the queue's register addresses), the software cursor (`next` slot) and
//! phase, and how it consumes (its kind, below). Operations on the
//! queue's own registers (queue config, tail, head, drain) need no engine;
//! those that change the engine's shadows (reset, enable) take it `&mut` and
//! refuse any engine but the token's ([`Error::WrongEngine`]).
//!
//! Conventions ([FACTS §11], graded MED):
//! - tail and head registers hold byte offsets into the ring;
//! - the consumer's phase is the number of completed wraps mod 2, 0 after a
//!   reset; an entry is new when its phase bit differs from it (the device
//!   writes phase 1 on its first pass over a zeroed ring, 0 on the second, …).
//!
//! How a ring consumes is its type, the kind `K`: [`Phase`] (the default) or
//! [`Tail`], the two [`ConsumeKind`]s. The config names it ([`NqConfig::phase`],
//! [`NqConfig::tail`]) and the ring built from it has it, so a phase ring's
//! drains take no delay (they never wait), a tail ring's take one (they wait
//! for the last pending entry to land), the async drain takes phase rings
//! only, and a device-memory ring takes a tail config only (the notes assert
//! `!on_hbm` for phase mode) [004 §3]. The kind's [`ConsumeKind::MODE`] picks
//! the drain's paths: one body serves both kinds.
//!
//! Device input is hostile until checked: a tail that reads all ones, is not a
//! multiple of 16, or lies outside the ring is a typed [`Fault`], never a count.

use core::marker::PhantomData;

use embedded_hal::delay::DelayNs;

use crate::dma::DmaMemory;
use crate::error::{Error, Fault, Result};
use crate::wait::{poll_until, Budget};
use crate::Mmio;

use super::engine::{NotificEngine, NqQueue};
use super::entry::NQ_ENTRY_BYTES;
use super::refused::RefusedRing;
use super::regs;

/// How the consumer learns that entries are pending [004 §3].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ConsumeMode {
    /// Read the `nq_tail_ptr` register, then wait for the last entry's phase
    /// to land (host or device memory).
    Tail,
    /// Walk the ring while the entries' phase bits say "new"; no register
    /// read at all. Host memory only (the notes assert `!on_hbm`).
    Phase,
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Phase {}
    impl Sealed for super::Tail {}
}

/// How a ring consumes, as a type: [`Phase`] or [`Tail`] (sealed: there is
/// no other) [004 §3].
pub trait ConsumeKind: sealed::Sealed {
    /// The kind as a value.
    const MODE: ConsumeMode;
}

/// Phase-bit consumption ([`ConsumeMode::Phase`]): the entries' phase bits
/// say what is new, no register read, no wait; host memory only [004 §3].
/// Its drains take no delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {}

/// Tail-register consumption ([`ConsumeMode::Tail`]): one `nq_tail_ptr`
/// read, then a bounded wait for the last entry's phase to land [004 §3].
/// Its drains take the delay of that wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tail {}

impl ConsumeKind for Phase {
    const MODE: ConsumeMode = ConsumeMode::Phase;
}

impl ConsumeKind for Tail {
    const MODE: ConsumeMode = ConsumeMode::Tail;
}

/// What `nq_init` validates and keeps [004 §3], for a ring of kind `K`. The
/// queue (the notes' `queue_index`) is the [`NqQueue`] token the ring is
/// built on.
///
/// ```
/// use khal_core::notific::{ConsumeKind, ConsumeMode, NqConfig, Tail};
///
/// let phase = NqConfig::phase(64 * 16).with_max_batch(8);
/// assert_eq!((phase.size_bytes, phase.max_batch), (1024, Some(8)));
/// let tail: NqConfig<Tail> = NqConfig::tail(256);
/// assert_eq!(Tail::MODE, ConsumeMode::Tail);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NqConfig<K: ConsumeKind = Phase> {
    /// Ring size in bytes (`nq_f_size`): a non-zero multiple of 16, at most
    /// the memory's length. Capacity = size / 16 [004 §3].
    pub size_bytes: u32,
    /// Budget of the waits (tail drain in reset, arrival of the last entry);
    /// the notes' `100 µs × 10000` by default [004 §3].
    pub budget: Budget,
    /// Most entries one drain call consumes; `None` = `clamp(capacity / 4, 1, 128)`
    /// (the SPDK cap: the device sees the head move at least four times a ring).
    pub max_batch: Option<u32>,
    kind: PhantomData<fn() -> K>,
}

impl NqConfig<Phase> {
    /// A phase-mode config of `size_bytes`, the default budget and batch cap.
    pub const fn phase(size_bytes: u32) -> NqConfig<Phase> {
        NqConfig::of_size(size_bytes)
    }
}

impl NqConfig<Tail> {
    /// A tail-mode config of `size_bytes`, the default budget and batch cap.
    pub const fn tail(size_bytes: u32) -> NqConfig<Tail> {
        NqConfig::of_size(size_bytes)
    }
}

impl<K: ConsumeKind> NqConfig<K> {
    /// A config of `size_bytes` with the default budget and batch cap.
    const fn of_size(size_bytes: u32) -> Self {
        NqConfig {
            size_bytes,
            budget: Budget::NQ_DEFAULT,
            max_batch: None,
            kind: PhantomData,
        }
    }

    /// The same config with another wait budget.
    pub const fn with_budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// The same config with another batch cap.
    pub const fn with_max_batch(mut self, max_batch: u32) -> Self {
        self.max_batch = Some(max_batch);
        self
    }
}

/// As the derived `Debug` prints it, the kind as its mode.
#[cfg(feature = "defmt")]
impl<K: ConsumeKind> defmt::Format for NqConfig<K> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "NqConfig {{ size_bytes: {=u32}, mode: {}, budget: {}, max_batch: {} }}",
            self.size_bytes,
            K::MODE,
            self.budget,
            self.max_batch
        )
    }
}

/// Zeroes a device-memory ring on reset (the notes' HBM-zero callback at
/// `nq + 0x150`) [004 §3]. Any `FnMut(bus_addr, len) -> Result<()>` is one.
pub trait DeviceZero {
    /// Zero `len` bytes of device memory at bus address `bus_addr`.
    fn zero(&mut self, bus_addr: u64, len: usize) -> Result<()>;
}

impl<F: FnMut(u64, usize) -> Result<()>> DeviceZero for F {
    fn zero(&mut self, bus_addr: u64, len: usize) -> Result<()> {
        self(bus_addr, len)
    }
}

/// The [`DeviceZero`] of a host-memory ring: none (uninhabited). Not
/// nameable outside khal: it is the default of the rings' zero parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostZero {}

impl DeviceZero for HostZero {
    fn zero(&mut self, _: u64, _: usize) -> Result<()> {
        match *self {}
    }
}

/// The consumer side of one NQ: its memory `R`, its queue token over the
/// engine's MMIO handle `M`, how it consumes `K` ([`Phase`] or [`Tail`]),
/// and how a device-memory ring is zeroed `Z`.
///
/// The kind comes before the zero callback: a host tail ring is
/// `NqRing<'d, R, M, Tail>`, and a device ring (tail only) names both.
#[derive(Debug)]
pub struct NqRing<'d, R: DmaMemory, M: Mmio, K: ConsumeKind = Phase, Z: DeviceZero = HostZero> {
    pub(super) mem: R,
    /// A device-memory ring's zero callback; `None` for host memory, zeroed
    /// directly [004 §3].
    zero: Option<Z>,
    pub(super) queue: NqQueue<'d, M>,
    /// Entries the ring holds (size / 16), and the most one drain consumes.
    pub(super) capacity: u32,
    pub(super) max_batch: u32,
    budget: Budget,
    /// Next slot to hand out.
    pub(super) next: u32,
    /// Tail mode: entries known pending from the last tail read and not yet
    /// consumed, so a capped drain does not read the tail again.
    pub(super) known: u32,
    kind: PhantomData<fn() -> K>,
    /// The consumer phase (completed wraps mod 2, 0 after a reset
    /// [FACTS §11]) as the phase bit of an entry's first word (`PHASE_WORD`
    /// or 0), so that the new test is one mask and compare of the loaded word.
    pub(super) phase: u32,
    /// The head register lags `next`: entries were handed out (by a drain
    /// iterator) and the head write that hands them back was refused. The
    /// next drain writes it before it hands out anything else.
    pub(super) head_behind: bool,
}

fn validate<K: ConsumeKind>(len: usize, cfg: &NqConfig<K>) -> Result<(u32, u32)> {
    let entry = NQ_ENTRY_BYTES as u32;
    if cfg.size_bytes == 0 || !cfg.size_bytes.is_multiple_of(entry) {
        return Err(Error::InvalidArgument(
            "nq size (a non-zero multiple of 16 bytes)",
        ));
    }
    if cfg.size_bytes as usize > len {
        return Err(Error::InvalidArgument("nq size larger than its memory"));
    }
    let capacity = cfg.size_bytes / entry;
    let max_batch = match cfg.max_batch {
        None => (capacity / 4).clamp(1, 128),
        Some(0) => return Err(Error::InvalidArgument("nq max_batch (must be > 0)")),
        Some(b) => b.min(capacity),
    };
    Ok((capacity, max_batch))
}

/// `nq_queue_config`'s three writes for a ring at bus address `base` of
/// `size_bytes` [004 §3].
fn write_queue_config<M: Mmio>(queue: &NqQueue<'_, M>, base: u64, size_bytes: u32) -> Result<()> {
    queue.write(regs::NQ_BASE_ADDR_LO, base as u32)?;
    queue.write(regs::NQ_BASE_ADDR_HI, (base >> 32) as u32)?;
    queue.write(regs::NQ_F_SIZE, size_bytes)
}

impl<'d, R: DmaMemory, M: Mmio, K: ConsumeKind> NqRing<'d, R, M, K> {
    /// `nq_init` for a ring in host memory on `queue`, of the config's kind:
    /// validate `cfg`, capacity = size / 16 [004 §3]. Errors: size zero, not a multiple of 16
    /// or larger than `mem` → [`Error::InvalidArgument`], in a
    /// [`RefusedRing`] that gives `mem` and `queue` back (the token can then
    /// build a ring with another config). Writes nothing, so it also adopts a
    /// ring whose base and size registers someone else programmed (the vendor
    /// driver's `NOTIFICATIONS_INIT_V2` [FACTS §14.5]): enable, the drains and
    /// reset never write those three; only [`NqRing::configure_host`] does.
    pub fn host(
        mem: R,
        queue: NqQueue<'d, M>,
        cfg: NqConfig<K>,
    ) -> Result<Self, RefusedRing<'d, R, M>> {
        NqRing::build(mem, None, queue, cfg, false)
    }

    /// `nq_configure` for a host ring: [`NqRing::host`], then
    /// `nq_queue_config`: `nq_base_addr_lo`, `nq_base_addr_hi` and `nq_f_size`
    /// of this queue written (the stride of the engine's flavour applied when
    /// the token was handed out) [004 §3]. A refused config writes nothing; a
    /// refused register write gives the parts back too (the writes before it
    /// stay: the next `configure_host` on the token writes all three again).
    pub fn configure_host(
        mem: R,
        queue: NqQueue<'d, M>,
        cfg: NqConfig<K>,
    ) -> Result<Self, RefusedRing<'d, R, M>> {
        NqRing::build(mem, None, queue, cfg, true)
    }
}

impl<'d, R: DmaMemory, M: Mmio, Z: DeviceZero> NqRing<'d, R, M, Tail, Z> {
    /// `nq_init` for a ring in device memory (HBM) on `queue`: `view` reads
    /// the ring, `zero` zeroes it on reset. A tail config only: the notes
    /// allow phase-bit mode on host memory only (they assert `!on_hbm`)
    /// [004 §3]. The errors as [`NqRing::host`]; a refusal gives `view`,
    /// `zero` and `queue` back ([`RefusedRing::into_device_parts`]).
    pub fn device(
        view: R,
        zero: Z,
        queue: NqQueue<'d, M>,
        cfg: NqConfig<Tail>,
    ) -> Result<Self, RefusedRing<'d, R, M, Z>> {
        NqRing::build(view, Some(zero), queue, cfg, false)
    }

    /// `nq_configure` for a device ring: [`NqRing::device`], then the queue
    /// config's three writes of [`NqRing::configure_host`] [004 §3]; refusals
    /// as there.
    pub fn configure_device(
        view: R,
        zero: Z,
        queue: NqQueue<'d, M>,
        cfg: NqConfig<Tail>,
    ) -> Result<Self, RefusedRing<'d, R, M, Z>> {
        NqRing::build(view, Some(zero), queue, cfg, true)
    }
}

impl<'d, R: DmaMemory, M: Mmio, K: ConsumeKind, Z: DeviceZero> NqRing<'d, R, M, K, Z> {
    /// The constructors: check `cfg`, then, if `configure`, the queue
    /// config's writes, and only then the ring.
    fn build(
        mem: R,
        zero: Option<Z>,
        queue: NqQueue<'d, M>,
        cfg: NqConfig<K>,
        configure: bool,
    ) -> Result<Self, RefusedRing<'d, R, M, Z>> {
        let checked = match validate(mem.len(), &cfg) {
            Ok(sizes) if configure => {
                write_queue_config(&queue, mem.bus_addr(), cfg.size_bytes).map(|()| sizes)
            }
            other => other,
        };
        let (capacity, max_batch) = match checked {
            Ok(sizes) => sizes,
            Err(error) => return Err(RefusedRing::new(error, mem, queue, zero)),
        };
        Ok(NqRing {
            mem,
            zero,
            queue,
            capacity,
            max_batch,
            budget: cfg.budget,
            next: 0,
            known: 0,
            kind: PhantomData,
            phase: 0,
            head_behind: false,
        })
    }

    /// The queue token the ring owns.
    pub const fn queue(&self) -> &NqQueue<'d, M> {
        &self.queue
    }

    /// Give the ring up: its memory and its queue token (the queue can then
    /// carry a new ring). A device ring's zero callback is dropped. Writes
    /// nothing: the queue's registers and enable bit stay as they are.
    pub fn into_parts(self) -> (R, NqQueue<'d, M>) {
        (self.mem, self.queue)
    }

    /// Entries the ring holds (size / 16).
    pub const fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Ring size in bytes.
    pub(crate) const fn size_bytes(&self) -> u32 {
        // The validated size / 16, times 16: that size (no overflow).
        self.capacity * NQ_ENTRY_BYTES as u32
    }

    /// The next slot the consumer reads.
    pub const fn next_index(&self) -> u32 {
        self.next
    }

    /// The consumer phase (completed wraps mod 2, 0 after reset) [FACTS §11].
    pub const fn phase(&self) -> bool {
        self.phase != 0
    }

    /// Most entries one drain call consumes.
    pub const fn max_batch(&self) -> u32 {
        self.max_batch
    }

    /// The ring memory (shared with the device).
    pub fn memory(&self) -> &R {
        &self.mem
    }

    /// `nq_reset` [004 §3]: clear this queue's overflow and enable bits in the
    /// engine's shadows and write them (`sw_overflow` +0x18, then `nq_enable`
    /// +0x14); for `idx <= 3` pulse `coal_ctrl.clr` (set, then clear); wait,
    /// within the ring's budget, for `nq_tail_ptr` to read 0
    /// ([`Error::Timeout`] otherwise); cursor and phase to 0; write the head (0
    /// after a reset [FACTS §11]); zero the ring (host memory directly, device
    /// memory through the callback).
    ///
    /// Every tail read of the wait is checked as in [`NqRing::tail_offset`]: a
    /// tail that reads all ones (the device is gone), is not a multiple of 16
    /// or lies outside the ring ends the wait at once with its typed
    /// [`Fault`], not with a [`Error::Timeout`] after the whole budget (the
    /// notes' loop only compares with 0). An engine other than the one that
    /// handed out the ring's queue is refused before any write
    /// ([`Error::WrongEngine`]).
    pub fn reset<D: DelayNs + ?Sized>(
        &mut self,
        engine: &mut NotificEngine<'_, M>,
        delay: &mut D,
    ) -> Result<()> {
        self.reset_then(engine, delay, false)
    }

    /// [`NqRing::reset`], then, if `enable`, the enable write of [`NqRing::enable`].
    fn reset_then<D: DelayNs + ?Sized>(
        &mut self,
        engine: &mut NotificEngine<'_, M>,
        delay: &mut D,
        enable: bool,
    ) -> Result<()> {
        engine.check_owns(&self.queue)?;
        let index = self.queue.index();
        let tail_addr = self.queue.tail_addr().get();
        engine.disable_queue(1u32 << index)?;
        if index <= 3 {
            engine.coalescer_flush_pulse()?;
        }
        // TIMEOUT: the notes poll every 100 µs with no bound; khal bounds it
        // with the ring's budget (default 100 µs × 10000) [004 §3].
        poll_until(delay, self.budget, "nq tail drain", || {
            let t = self.queue.read_tail()?;
            self.check_tail(t, tail_addr)?;
            Ok(t == 0)
        })?;
        (self.next, self.phase, self.known) = (0, 0, 0);
        self.head_behind = false;
        self.queue.write_head(0)?;
        let size = self.size_bytes() as usize;
        match &mut self.zero {
            Some(z) => z.zero(self.mem.bus_addr(), size),
            None => zero_bytes(&self.mem, size),
        }?;
        if enable {
            engine.enable_queue(1u32 << index)?;
        }
        Ok(())
    }

    /// `nq_enable`: the reset above, then this queue's bit set in the enable
    /// shadow and `nq_enable` written.
    ///
    /// Interpretation (MED, listed in `docs/coverage.md`): the notes only say
    /// that enable calls the private reset [004 §3]; setting the queue's
    /// enable bit after it is khal's reading, not a traced write.
    /// [`Error::WrongEngine`] as for the reset, before any write.
    pub fn enable<D: DelayNs + ?Sized>(
        &mut self,
        engine: &mut NotificEngine<'_, M>,
        delay: &mut D,
    ) -> Result<()> {
        self.reset_then(engine, delay, true)
    }

    /// One read of this queue's `nq_tail_ptr`, checked: the byte offset the
    /// device will write next. Consumes nothing and changes no state.
    ///
    /// Phase mode reads no register while draining; this is its liveness
    /// probe (a gone device shows here at once, on the first read).
    ///
    /// Faults: all ones (the device is gone) → [`Fault::AllOnes`]; not a
    /// multiple of 16 → [`Fault::MisalignedTail`]; at or past the ring's end →
    /// [`Fault::TailOutOfRing`].
    pub fn tail_offset(&self) -> Result<u32> {
        let tail = self.queue.read_tail()?;
        self.check_tail(tail, self.queue.tail_addr().get())?;
        Ok(tail)
    }

    /// The checks of a tail value read at `addr` (see [`NqRing::tail_offset`]).
    pub(super) fn check_tail(&self, tail: u32, addr: u64) -> Result<()> {
        if tail == u32::MAX {
            return Err(Error::DeviceFault(Fault::all_ones(addr)));
        }
        if !tail.is_multiple_of(NQ_ENTRY_BYTES as u32) {
            return Err(Error::DeviceFault(Fault::MisalignedTail { tail }));
        }
        if tail >= self.size_bytes() {
            return Err(Error::DeviceFault(Fault::TailOutOfRing {
                tail,
                ring_bytes: self.size_bytes(),
            }));
        }
        Ok(())
    }

    /// Tail mode: read `nq_tail_ptr` once, check it, and return
    /// `(tail / 16 - next) mod capacity` [004 §3].
    ///
    /// Faults: those of [`NqRing::tail_offset`], and
    /// [`Fault::TailMovedBackwards`] when the count is below the entries a
    /// previous read showed and the consumer has not taken yet (a device only
    /// moves its tail forward; the count would otherwise wrap to almost a
    /// full ring and end in a [`Error::Timeout`] after the whole budget).
    pub(super) fn read_tail_count(&self) -> Result<u32> {
        let tail = self.tail_offset()?;
        let slot = tail / NQ_ENTRY_BYTES as u32;
        // `slot, next < capacity <= 2^28`: no overflow.
        let count = if slot >= self.next {
            slot - self.next
        } else {
            slot + self.capacity - self.next
        };
        if count < self.known {
            // The slot the previous read showed: `next + known`, wrapped once
            // (`known < capacity`).
            let mut previous = self.next + self.known;
            if previous >= self.capacity {
                previous -= self.capacity;
            }
            return Err(Error::DeviceFault(Fault::TailMovedBackwards {
                tail,
                previous: previous * NQ_ENTRY_BYTES as u32,
            }));
        }
        Ok(count)
    }

    /// Wait, within the budget, for the phase of the last of `count` pending
    /// entries to land (the DMA may still be in flight when the tail moves)
    /// [004 §3]. [`Error::Timeout`] otherwise.
    ///
    /// Deviation from the C (listed in `docs/coverage.md`): the C code logs
    /// "Failed to wait for notifs to arrive" and returns the count anyway;
    /// khal returns [`Error::Timeout`] and consumes nothing, because a count
    /// of entries that have not landed would hand the caller ring bytes the
    /// device has not written (stale entries of the previous pass).
    pub(super) fn wait_arrival<D: DelayNs + ?Sized>(
        &self,
        delay: &mut D,
        count: u32,
    ) -> Result<()> {
        let Some(last) = count.checked_sub(1) else {
            return Ok(());
        };
        // TIMEOUT: the notes' 10000 × usleep(100) [004 §3], configurable.
        poll_until(delay, self.budget, "nq notification arrival", || {
            self.is_new(last)
        })?;
        Ok(())
    }

    /// `nq_available_count` [004 §3] of either kind (`delay` as in
    /// [`NqRing::drain_with`]): entries pending, without consuming them.
    ///
    /// Tail mode: one tail read (checked as in [`Fault`]), then the bounded
    /// wait for the last entry's phase. Phase mode: the entries from the
    /// cursor while their phase says new (at most one ring), no register
    /// read, and no wait (`delay` is never asked to sleep).
    // Inlined: out of line at opt-level "s" its error came back through a
    // `memcpy` of the `Result`.
    #[inline(always)]
    pub(crate) fn available_count_with<D: DelayNs + ?Sized>(
        &mut self,
        delay: &mut D,
    ) -> Result<u32> {
        match K::MODE {
            ConsumeMode::Phase => {
                let mut n = 0;
                while n < self.capacity && self.is_new(n)? {
                    n += 1;
                }
                Ok(n)
            }
            ConsumeMode::Tail => {
                let count = self.read_tail_count()?;
                self.wait_arrival(delay, count)?;
                self.known = count;
                Ok(count)
            }
        }
    }
}

/// Zero the first `len` bytes of `mem` (a host ring's reset [004 §3]);
/// `len` is the ring's validated size, a multiple of 16 within `mem`.
///
/// A backend that hands out its words gets one zero store per word: what
/// its provided [`DmaMemory::write`] stores for these bytes, without the
/// partial-word merge a write of arbitrary bytes needs. Any other backend
/// gets its own `write`, 64 bytes at a time.
fn zero_bytes<R: DmaMemory>(mem: &R, len: usize) -> Result<()> {
    if let Some(words) = mem.words() {
        let run =
            words
                .get(..len / 4)
                .ok_or(Error::out_of_range("dma offset", 0, mem.len() as u64))?;
        for w in run {
            w.store(0, core::sync::atomic::Ordering::Relaxed);
        }
        return Ok(());
    }
    const ZEROS: [u8; 64] = [0; 64];
    let mut off = 0;
    while off < len {
        let n = (len - off).min(ZEROS.len());
        mem.write(off, ZEROS.get(..n).unwrap_or_default())?;
        off += n;
    }
    Ok(())
}
