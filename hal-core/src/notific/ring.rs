//! The NQ ring lifecycle: configure → init → queue config; enable / reset; available count [004 §3].
//!
//! An [`NqRing`] is the consumer side of one notification queue: its memory
//! (a [`DmaMemory`] view of the ring), the queue's [`NqQueue`] token (handed
//! out once by [`NotificEngine::queue`]: the index, the engine's MMIO handle
//! and the queue's register addresses), the software cursor (`next` slot) and
//! phase, and how it consumes (tail register or phase bit). Operations on the
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
//! Device input is hostile until checked: a tail that reads all ones, is not a
//! multiple of 16, or lies outside the ring is a typed [`Fault`], never a count.

use core::num::NonZeroUsize;

use embedded_hal::delay::DelayNs;

use crate::dma::DmaMemory;
#[cfg(target_os = "none")]
use crate::dma::TakeOne;
use crate::error::{Error, Fault, Result};
use crate::mmio::Mmio;
use crate::wait::{poll_until, Budget};

use super::engine::{NotificEngine, NqQueue};
use super::entry::{phase_of, NqEntry, NQ_ENTRY_BYTES, PHASE_BYTE, PHASE_DWORD_BIT, PHASE_MASK};
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

/// What `nq_init` validates and keeps [004 §3]. The queue (the notes'
/// `queue_index`) is the [`NqQueue`] token the ring is built on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct NqConfig {
    /// Ring size in bytes (`nq_f_size`): a non-zero multiple of 16, at most
    /// the memory's length. Capacity = size / 16 [004 §3].
    pub size_bytes: u32,
    /// Tail or phase-bit consumption.
    pub mode: ConsumeMode,
    /// Budget of the waits (tail drain in reset, arrival of the last entry);
    /// the notes' `100 µs × 10000` by default [004 §3].
    pub budget: Budget,
    /// Most entries one drain call consumes; `None` = `clamp(capacity / 4, 1, 128)`
    /// (the SPDK cap: the device sees the head move at least four times a ring).
    pub max_batch: Option<u32>,
}

impl NqConfig {
    /// A config with the default budget and batch cap.
    pub const fn new(size_bytes: u32, mode: ConsumeMode) -> NqConfig {
        NqConfig {
            size_bytes,
            mode,
            budget: Budget::NQ_DEFAULT,
            max_batch: None,
        }
    }

    /// The same config with another wait budget.
    pub const fn with_budget(mut self, budget: Budget) -> NqConfig {
        self.budget = budget;
        self
    }

    /// The same config with another batch cap.
    pub const fn with_max_batch(mut self, max_batch: u32) -> NqConfig {
        self.max_batch = Some(max_batch);
        self
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

/// The [`DeviceZero`] of a host-memory ring: none (uninhabited).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostZero {}

impl DeviceZero for HostZero {
    fn zero(&mut self, _: u64, _: usize) -> Result<()> {
        match *self {}
    }
}

/// Where the ring lives: host memory (zeroed directly) or device memory
/// (zeroed through a callback) [004 §3].
#[derive(Debug)]
enum Placement<Z> {
    Host,
    Device(Z),
}

/// The consumer side of one NQ: its memory `R`, its queue token over the
/// engine's MMIO handle `M`, and how a device-memory ring is zeroed `Z`.
#[derive(Debug)]
pub struct NqRing<R: DmaMemory, M: Mmio, Z: DeviceZero = HostZero> {
    mem: R,
    placement: Placement<Z>,
    queue: NqQueue<M>,
    /// Entries the ring holds: its size / 16 (the size is not kept: the
    /// firmware's 96-byte `NqRing` has no room for it next to `batch_from`).
    capacity: u32,
    /// The least `out.len()` [`NqRing::drain`] takes through the phase
    /// path: 1 in phase mode, `usize::MAX` in tail mode (no `out` is that
    /// long: a slice of 16-byte entries holds fewer). Non-zero, so that a
    /// length at or above it is known non-empty (issue 12).
    phase_from: NonZeroUsize,
    /// The phase path looks past the first new entry (`out` having room for
    /// two) only when `next` is below this: `capacity - 1` when
    /// `max_batch > 1`, 0 otherwise. One compare tells both limits apart
    /// (the ring's last slot, whose next entry is past the wrap, and a
    /// batch of one), computed once per ring (issue 12).
    multi_below: u32,
    budget: Budget,
    /// Two things in one word (the firmware's ring has room for no more
    /// than 96 bytes, see `firmware/src/lib.rs`): bits 0..31 are the most
    /// entries one drain call consumes (`max_batch`, at most the capacity,
    /// below 2^28); bit 31 is the consumer phase, completed wraps mod 2 (0
    /// after reset) [FACTS §11], in the phase byte's place of a dword
    /// ([`PHASE_DWORD_BIT`]), so that the idle test is one xor with the
    /// loaded word and a sign test (the other bits do not reach bit 31).
    batch_phase: u32,
    /// Next slot to consume.
    next: u32,
    /// Tail mode: entries known pending from the last tail read and not yet
    /// consumed, so a capped drain does not read the tail again.
    known: u32,
}

/// The bits of [`NqRing`]'s `batch_phase` that hold `max_batch`.
const BATCH_MASK: u32 = !PHASE_DWORD_BIT;

fn validate(len: usize, cfg: &NqConfig) -> Result<(u32, u32)> {
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
/// `size_bytes` [004 §3]. Inlined: out of line its `Result` came back
/// through memory to each constructor (firmware size, issue 12).
#[inline(always)]
fn write_queue_config<M: Mmio>(queue: &NqQueue<M>, base: u64, size_bytes: u32) -> Result<()> {
    queue.write(regs::NQ_BASE_ADDR_LO, base as u32)?;
    queue.write(regs::NQ_BASE_ADDR_HI, (base >> 32) as u32)?;
    queue.write(regs::NQ_F_SIZE, size_bytes)
}

/// A constructor's refusal, with its parts.
fn refuse<R, M: Mmio, Z>(
    error: Error,
    mem: R,
    placement: Placement<Z>,
    queue: NqQueue<M>,
) -> RefusedRing<R, M, Z> {
    let zero = match placement {
        Placement::Device(z) => Some(z),
        Placement::Host => None,
    };
    RefusedRing::new(error, mem, queue, zero)
}

impl NqConfig {
    /// The checks [`NqRing::host`] and [`NqRing::device`] make on a ring of
    /// `mem_len` bytes, without memory or a token (a refused constructor
    /// gives both back in its [`RefusedRing`]).
    pub fn check(&self, mem_len: usize) -> Result<()> {
        validate(mem_len, self).map(|_| ())
    }
}

impl<R: DmaMemory, M: Mmio> NqRing<R, M, HostZero> {
    /// `nq_init` for a ring in host memory on `queue`: validate `cfg`,
    /// capacity = size / 16 [004 §3]. Errors: size zero, not a multiple of 16
    /// or larger than `mem` → [`Error::InvalidArgument`], in a
    /// [`RefusedRing`] that gives `mem` and `queue` back (the token can then
    /// build a ring with another config). Writes nothing.
    pub fn host(mem: R, queue: NqQueue<M>, cfg: NqConfig) -> Result<Self, RefusedRing<R, M>> {
        NqRing::build(mem, Placement::Host, queue, cfg, false)
    }

    /// `nq_configure` for a host ring: [`NqRing::host`], then
    /// [`NqRing::queue_config`] [004 §3]. A refused config writes nothing; a
    /// refused register write gives the parts back too (the writes before it
    /// stay: the next `configure_host` on the token writes all three again).
    // Inlined (issue 12, firmware size): out of line, the 96-byte ring
    // comes back inside the `Result` through memory and each caller moved it
    // twice more (about 120 bytes a call on thumbv7em); inlined, it is built
    // where it stays, and the three writes are one shared function
    // (`write_queue_config`).
    #[inline(always)]
    pub fn configure_host(
        mem: R,
        queue: NqQueue<M>,
        cfg: NqConfig,
    ) -> Result<Self, RefusedRing<R, M>> {
        NqRing::build(mem, Placement::Host, queue, cfg, true)
    }
}

impl<R: DmaMemory, M: Mmio, Z: DeviceZero> NqRing<R, M, Z> {
    /// `nq_init` for a ring in device memory (HBM) on `queue`: `view` reads
    /// the ring, `zero` zeroes it on reset. Phase-bit mode is refused
    /// ([`Error::InvalidArgument`]): the notes allow it on host memory only.
    /// The other errors as [`NqRing::host`]; a refusal gives `view`, `zero`
    /// and `queue` back ([`RefusedRing::into_device_parts`]).
    pub fn device(
        view: R,
        zero: Z,
        queue: NqQueue<M>,
        cfg: NqConfig,
    ) -> Result<Self, RefusedRing<R, M, Z>> {
        NqRing::build(view, Placement::Device(zero), queue, cfg, false)
    }

    /// `nq_configure` for a device ring: [`NqRing::device`], then
    /// [`NqRing::queue_config`] [004 §3]; refusals as [`NqRing::configure_host`].
    pub fn configure_device(
        view: R,
        zero: Z,
        queue: NqQueue<M>,
        cfg: NqConfig,
    ) -> Result<Self, RefusedRing<R, M, Z>> {
        NqRing::build(view, Placement::Device(zero), queue, cfg, true)
    }

    /// The four constructors: check `cfg` (phase mode on host memory only),
    /// then, if `configure`, the queue config's writes, and only then the
    /// ring (built once, in the caller's result: no copy of it on success).
    #[inline(always)]
    fn build(
        mem: R,
        placement: Placement<Z>,
        queue: NqQueue<M>,
        cfg: NqConfig,
        configure: bool,
    ) -> Result<Self, RefusedRing<R, M, Z>> {
        let on_device = matches!(placement, Placement::Device(_));
        let checked = if on_device && cfg.mode == ConsumeMode::Phase {
            Err(Error::InvalidArgument(
                "phase-bit mode needs a host-memory ring",
            ))
        } else {
            validate(mem.len(), &cfg)
        };
        let checked = match checked {
            Ok(sizes) if configure => {
                write_queue_config(&queue, mem.bus_addr(), cfg.size_bytes).map(|()| sizes)
            }
            other => other,
        };
        let (capacity, max_batch) = match checked {
            Ok(sizes) => sizes,
            Err(error) => return Err(refuse(error, mem, placement, queue)),
        };
        Ok(NqRing {
            mem,
            placement,
            queue,
            capacity,
            phase_from: if cfg.mode == ConsumeMode::Phase {
                NonZeroUsize::MIN
            } else {
                NonZeroUsize::MAX
            },
            multi_below: if max_batch > 1 { capacity - 1 } else { 0 },
            budget: cfg.budget,
            // `max_batch <= capacity < 2^28`: bit 31 is free for the phase.
            batch_phase: max_batch,
            next: 0,
            known: 0,
        })
    }

    /// The queue index.
    pub const fn index(&self) -> u32 {
        self.queue.index()
    }

    /// The queue token the ring owns.
    pub const fn queue(&self) -> &NqQueue<M> {
        &self.queue
    }

    /// Give the ring up: its memory and its queue token (the queue can then
    /// carry a new ring). A device ring's zero callback is dropped. Writes
    /// nothing: the queue's registers and enable bit stay as they are.
    pub fn into_parts(self) -> (R, NqQueue<M>) {
        (self.mem, self.queue)
    }

    /// Entries the ring holds (size / 16).
    pub const fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Ring size in bytes.
    pub const fn size_bytes(&self) -> u32 {
        // `capacity` is the validated size / 16, the size a multiple of 16:
        // the product is that size (no overflow).
        self.capacity * NQ_ENTRY_BYTES as u32
    }

    /// Tail or phase consumption.
    pub const fn mode(&self) -> ConsumeMode {
        // Phase mode is what the phase path is taken for (see the field).
        if self.phase_from.get() == 1 {
            ConsumeMode::Phase
        } else {
            ConsumeMode::Tail
        }
    }

    /// Whether [`NqRing::drain`] takes an `out` of `len` entries through the
    /// phase path: phase mode and `len > 0` (see the field).
    #[inline(always)]
    pub(super) const fn phase_path(&self, len: usize) -> bool {
        len >= self.phase_from.get()
    }

    /// The next slot the consumer reads.
    pub const fn next_index(&self) -> u32 {
        self.next
    }

    /// The consumer phase: completed wraps mod 2 [FACTS §11].
    pub const fn phase(&self) -> bool {
        self.batch_phase & PHASE_DWORD_BIT != 0
    }

    /// Most entries one drain consumes.
    pub const fn max_batch(&self) -> u32 {
        self.batch_phase & BATCH_MASK
    }

    /// The wait budget.
    pub const fn budget(&self) -> Budget {
        self.budget
    }

    /// The ring memory.
    pub fn memory(&self) -> &R {
        &self.mem
    }

    /// `nq_queue_config`: write `nq_base_addr_lo`, `nq_base_addr_hi`,
    /// `nq_f_size` of this queue (stride per the engine's flavour, applied
    /// when the token was handed out) [004 §3].
    pub fn queue_config(&self) -> Result<()> {
        write_queue_config(&self.queue, self.mem.bus_addr(), self.size_bytes())
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
    #[inline(always)]
    pub fn reset<D: DelayNs + ?Sized>(
        &mut self,
        engine: &mut NotificEngine<M>,
        delay: &mut D,
    ) -> Result<()> {
        self.reset_then(engine, delay, false)
    }

    /// [`NqRing::reset`], then, if `enable`, the enable write of
    /// [`NqRing::enable`]: one function for both (issue 12, firmware size:
    /// the enable write is not repeated at each `enable` call).
    #[inline(never)]
    fn reset_then<D: DelayNs + ?Sized>(
        &mut self,
        engine: &mut NotificEngine<M>,
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
        self.next = 0;
        self.batch_phase &= BATCH_MASK;
        self.known = 0;
        self.queue.write_head(0)?;
        let size = self.size_bytes() as usize;
        match &mut self.placement {
            Placement::Device(z) => z.zero(self.mem.bus_addr(), size),
            // The ring's entries (`size_bytes / 16`), one store per word on
            // the word backends.
            Placement::Host => self.mem.zero_entries(0, self.capacity as usize),
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
    // Inlined: one call of the reset's function, which ends with the enable
    // write (firmware size, issue 12).
    #[inline(always)]
    pub fn enable<D: DelayNs + ?Sized>(
        &mut self,
        engine: &mut NotificEngine<M>,
        delay: &mut D,
    ) -> Result<()> {
        self.reset_then(engine, delay, true)
    }

    /// The phase bit a new entry `k` slots past `next` carries: the opposite of
    /// the consumer phase, flipped once more past the wrap [FACTS §11].
    #[inline(always)]
    pub(super) fn expected_phase(&self, k: u32) -> bool {
        // `next < capacity` and `k < capacity <= 2^28` (size / 16): the sum
        // fits a u32 (32-bit arithmetic: one add on the 32-bit targets).
        let wrapped = self.next + k >= self.capacity;
        !self.phase() ^ wrapped
    }

    /// Byte offset of the entry `k` slots past `next` (`k < capacity`).
    #[inline(always)]
    pub(super) fn offset_of(&self, k: u32) -> usize {
        // No overflow, as in `expected_phase`; one subtraction wraps it.
        let mut slot = self.next + k;
        if slot >= self.capacity {
            slot -= self.capacity;
        }
        slot as usize * NQ_ENTRY_BYTES
    }

    /// Phase mode's drain into a non-empty `out` ([`NqRing::drain`]).
    ///
    /// One [`DmaMemory::take_new_at`] from `next`: the idle test is one load
    /// of the word holding the entry's phase byte (the entry bounds-checked),
    /// and an empty poll costs that load and nothing else (no fence, no
    /// copy, no register access). When more than one entry may be taken,
    /// the entry after a new one is tested the same way before any run is
    /// set up: one entry per poll (the firmware's trickle) costs two tests
    /// and one copy. Then one head write; at the ring's end, the run after
    /// the wrap too ([`NqRing::drain_wrapped`]).
    #[cfg(not(target_os = "none"))]
    #[inline(always)]
    pub(super) fn drain_phase(&mut self, out: &mut [NqEntry]) -> Result<usize> {
        let next = self.next;
        let len = out.len();
        let n = self.mem.take_new_at(
            // An entry index: no byte offset to overflow on 32-bit targets.
            next as usize,
            // Only its bit 31 (the phase) is tested.
            self.batch_phase,
            // A second entry may be taken (`out` has room for two):
            // `max_batch > 1` and `next` not the ring's last slot.
            || next < self.multi_below,
            || self.run_limit(next, len),
            out,
        )?;
        if n == 0 {
            return Ok(0);
        }
        // `n <= cap - next`: no overflow, `pos <= cap`.
        let pos = next + n as u32;
        if pos < self.capacity {
            self.queue.write_head(pos * NQ_ENTRY_BYTES as u32)?;
            self.next = pos;
            return Ok(n);
        }
        // Tested here, so that its `Result` does not go through memory on
        // the other paths.
        let n = self.drain_wrapped(n, out)?;
        Ok(n)
    }

    /// Phase mode's quick step on bare metal ([`NqRing::drain`] into a
    /// non-empty `out`), which calls nothing: [`DmaMemory::take_one_at`]
    /// from `next` (the idle poll: `Some(0)`), and one or two new entries
    /// (the trickle; a small burst, the entry after them not new),
    /// committed through a head slot the backend writes directly
    /// ([`Mmio::write32`]): the head written once, then the
    /// cursor moved (at the ring's end: the head written 0, the cursor to
    /// slot 0, the phase flipped), `Some(n)`. Anything else is `None`, with
    /// nothing consumed and nothing written but maybe `out`: the general
    /// path ([`NqRing::drain_phase`]) then drains from `next`, as if this
    /// step had not run.
    #[cfg(target_os = "none")]
    #[inline(always)]
    pub(super) fn drain_quick(&mut self, out: &mut [NqEntry]) -> Option<usize> {
        let next = self.next;
        let more = || next < self.multi_below;
        // The entry after the second before the ring's end (`next + 2 <
        // capacity`, as `more` says of the second).
        let third = || next + 1 < self.multi_below;
        match self
            .mem
            .take_one_at(next as usize, self.batch_phase, more, third, out)
        {
            TakeOne::Idle => Some(0),
            TakeOne::Other => None,
            // `next + 2 <= capacity <= 2^28`: no overflow.
            TakeOne::One => self.commit_quick(next + 1).then_some(1),
            TakeOne::Two => self.commit_quick(next + 2).then_some(2),
        }
    }

    /// [`NqRing::drain_quick`]'s commit of the entries before `pos`
    /// (`<= capacity`): the head written through a slot the backend writes
    /// directly, then the cursor moved (at the ring's end: the head written
    /// 0 [FACTS §11], the cursor to slot 0, the phase flipped); `false`,
    /// with nothing written or moved, when the backend does not write it
    /// directly.
    #[cfg(target_os = "none")]
    #[inline(always)]
    fn commit_quick(&mut self, pos: u32) -> bool {
        if pos < self.capacity {
            if !self.queue.write_head_direct(pos * NQ_ENTRY_BYTES as u32) {
                return false;
            }
            self.next = pos;
        } else {
            if !self.queue.write_head_direct(0) {
                return false;
            }
            self.next = 0;
            self.batch_phase ^= PHASE_DWORD_BIT;
        }
        true
    }

    /// Phase mode's drain on bare metal when [`NqRing::drain_quick`] took
    /// nothing (three or more new entries, a head slot the backend does not
    /// write directly, an entry outside the memory): [`NqRing::take_new`]
    /// (the runs before and after the wrap, the copies' phases checked, the
    /// copy shared with tail mode), then the one head write
    /// ([`NqRing::commit`], the phase flipped at the wrap). Firmware size:
    /// with the hosts' phase drain here (`take_new_at`, two entries tested
    /// before the run, `drain_wrapped`) fw-cayman's `.text` was 8036 bytes
    /// instead of 7640.
    #[cfg(target_os = "none")]
    #[inline(always)]
    pub(super) fn drain_phase(&mut self, out: &mut [NqEntry]) -> Result<usize> {
        let n = self.take_new(self.drain_limit(out.len()), out)?;
        self.commit(n)?;
        Ok(n as usize)
    }

    /// Phase mode's commit of the entries up to the ring's end: the head
    /// written 0 [FACTS §11], then the cursor to slot 0 and the phase
    /// flipped; a refused write consumes nothing.
    #[cfg(not(target_os = "none"))]
    #[inline(always)]
    pub(super) fn commit_wrap(&mut self) -> Result<()> {
        self.queue.write_head(0)?;
        self.next = 0;
        self.batch_phase ^= PHASE_DWORD_BIT;
        Ok(())
    }

    /// Most entries a phase-mode drain from `next` takes before the wrap
    /// for an `out` of `len`: `len`, at most `max_batch`, at most to the
    /// ring's end.
    #[cfg(not(target_os = "none"))]
    #[inline(always)]
    fn run_limit(&self, next: u32, len: usize) -> usize {
        // `next < capacity`.
        len.min(self.max_batch() as usize)
            .min((self.capacity - next) as usize)
    }

    /// The entries one drain call may take for an `out` of `len`: `len`, at
    /// most `max_batch`.
    #[inline(always)]
    pub(super) fn drain_limit(&self, len: usize) -> u32 {
        u32::try_from(len).unwrap_or(u32::MAX).min(self.max_batch())
    }

    /// Tail mode's copy: the new entries from `next` on, at most `limit`
    /// (`<= capacity`), into `out[..]` (`out.len() >= limit`), in order, and
    /// return how many (the run stops at the first entry that is not new).
    /// At most two runs, before and after the wrap, each with one expected
    /// phase, each one [`DmaMemory::read_new_entries`]: the phase scan, the
    /// Acquire fence that orders the entry loads after it, the bulk copy
    /// straight into the caller's slots, and the copies' phase bits checked
    /// (an entry the device rewrote after the scan is not handed out, nor
    /// anything past it). Out of line on bare metal: one copy for tail mode
    /// and phase mode's general path (firmware size).
    #[cfg_attr(not(target_os = "none"), inline(always))]
    #[cfg_attr(target_os = "none", inline(never))]
    pub(super) fn take_new(&self, limit: u32, out: &mut [NqEntry]) -> Result<u32> {
        let want = !self.phase();
        // `next < capacity`, so the run before the wrap is `capacity - next
        // >= 1` long.
        let first = limit.min(self.capacity - self.next) as usize;
        let (a, b) = out
            .split_at_mut_checked(first)
            .ok_or(Error::InvalidArgument("nq drain buffer"))?;
        let n = self
            .mem
            .read_new_entries(self.next as usize * NQ_ENTRY_BYTES, a, want)?;
        // The run after the wrap, only if the run before it was new to its
        // end and the limit reaches past it (two tests, not one `||`: the
        // compiler then branches on each instead of combining flags).
        if n < first {
            return Ok(n as u32);
        }
        if limit as usize <= first {
            return Ok(n as u32);
        }
        let m = self.take_after_wrap(limit as usize - first, b, !want)?;
        // `n + m <= limit <= capacity`: fits a u32.
        Ok((n + m) as u32)
    }

    /// The run of [`NqRing::take_new`] after the wrap: up to `limit` new
    /// entries from slot 0 into `out`. Out of line: it runs once per pass
    /// over the ring, and inlined it costs every drain call registers.
    #[inline(never)]
    pub(super) fn take_after_wrap(
        &self,
        limit: usize,
        out: &mut [NqEntry],
        want: bool,
    ) -> Result<usize> {
        let out = out
            .get_mut(..limit)
            .ok_or(Error::InvalidArgument("nq drain buffer"))?;
        self.mem.read_new_entries(0, out, want)
    }

    /// Phase mode: entries pending, walking from `next` while the phase bit
    /// says new, at most `limit` (≤ capacity: never past one ring). No register read.
    pub(super) fn walk_phase(&self, limit: u32) -> Result<u32> {
        let limit = limit.min(self.capacity);
        // At most two contiguous runs (before and after the wrap), each with
        // one expected phase: the inner loop is one volatile byte load and a
        // compare per entry. One loop over the two (start, length, phase)
        // triples, kept in registers (an array of them was built on the stack).
        let first = limit.min(self.capacity - self.next);
        let (mut start, mut len, mut want) = (self.next, first, !self.phase());
        let mut n = 0;
        loop {
            let off = start as usize * NQ_ENTRY_BYTES + PHASE_BYTE;
            let run =
                self.mem
                    .scan_flag_run(off, NQ_ENTRY_BYTES, len as usize, PHASE_MASK, want)?;
            // `run <= len <= capacity`, so it fits a u32.
            n += run as u32;
            // Done when the run stopped short, or when it started at slot 0:
            // then it was the run after the wrap, or (`next == 0`) the only
            // one (`first == limit`).
            if run < len as usize || start == 0 {
                return Ok(n);
            }
            (start, len, want) = (0, limit - first, !want);
        }
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

    /// The slot a tail value read at `addr` names (`tail / 16`), checked as
    /// in [`NqRing::tail_offset`]. On hosts by one compare (issue 12: tail
    /// mode's per-call check): rotated right by 4, a tail that is a
    /// multiple of 16 is its slot, and any other (all ones among them) has
    /// a low bit rotated into bits 28..31, at or above `2^28 > capacity`; a
    /// failed check names its fault out of line. On bare metal, the three
    /// tests of [`NqRing::check_tail`] (firmware size: no second copy of
    /// the faults).
    #[inline(always)]
    fn tail_slot(&self, tail: u32, addr: u64) -> Result<u32> {
        #[cfg(target_os = "none")]
        {
            self.check_tail(tail, addr)?;
            Ok(tail / NQ_ENTRY_BYTES as u32)
        }
        #[cfg(not(target_os = "none"))]
        {
            // `NQ_ENTRY_BYTES` is 16 = 2^4 [004 §3].
            let slot = tail.rotate_right(NQ_ENTRY_BYTES.trailing_zeros());
            if slot >= self.capacity {
                return Err(self.tail_fault(tail, addr));
            }
            Ok(slot)
        }
    }

    /// The fault of a tail value whose one-compare check failed
    /// ([`NqRing::tail_slot`]): [`NqRing::check_tail`]'s. Out of line.
    #[cfg(not(target_os = "none"))]
    #[cold]
    #[inline(never)]
    fn tail_fault(&self, tail: u32, addr: u64) -> Error {
        // A tail whose rotation is at or above the capacity fails one of the
        // three tests: the fallback is never taken (no panic is linked).
        self.check_tail(tail, addr)
            .err()
            .unwrap_or(Error::DeviceFault(Fault::TailOutOfRing {
                tail,
                ring_bytes: self.size_bytes(),
            }))
    }

    /// Tail mode: read `nq_tail_ptr` once, check it, and return it with
    /// the slot it names (`tail / 16`) [004 §3].
    #[inline(always)]
    pub(super) fn read_tail_slot(&self) -> Result<(u32, u32)> {
        let tail = self.queue.read_tail()?;
        let slot = self.tail_slot(tail, self.queue.tail_addr().get())?;
        Ok((tail, slot))
    }

    /// Tail mode: the entries from `next` up to `slot` (`< capacity`),
    /// `(slot - next) mod capacity` [004 §3].
    #[inline(always)]
    pub(super) fn count_to(&self, slot: u32) -> u32 {
        // `slot, next < capacity <= 2^28`: no overflow.
        if slot >= self.next {
            slot - self.next
        } else {
            slot + self.capacity - self.next
        }
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
        let (tail, slot) = self.read_tail_slot()?;
        let count = self.count_to(slot);
        let known = self.known();
        if count < known {
            // The slot the previous read showed: `next + known`, wrapped
            // once (`known < capacity`; a subtraction, so no division).
            // `next + known < 2 * capacity <= 2^29`: fits a u32.
            let mut previous = self.next + known;
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

    /// Tail mode: whether the entry `k` slots past `next` (`k < capacity`)
    /// has landed, by one load of its phase (the first test of
    /// [`NqRing::wait_arrival`]'s wait, which is the whole wait when the
    /// DMA is done).
    #[cfg(not(target_os = "none"))]
    #[inline(always)]
    pub(super) fn landed(&self, k: u32) -> Result<bool> {
        let peek = self.mem.peek_entry(self.offset_of(k))?;
        // New past the wrap in the opposite phase [FACTS §11]: the consumer
        // phase `expected_phase` tests against, as a dword's bit 31.
        let old = if self.next + k >= self.capacity {
            self.batch_phase ^ PHASE_DWORD_BIT
        } else {
            self.batch_phase
        };
        Ok(peek.is_new(old))
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
        let off = self.offset_of(last) + PHASE_BYTE;
        let want = self.expected_phase(last);
        // TIMEOUT: the notes' 10000 × usleep(100) [004 §3], configurable.
        poll_until(delay, self.budget, "nq notification arrival", || {
            Ok(phase_of(self.mem.load_u8(off)?) == want)
        })?;
        Ok(())
    }

    /// `nq_available_count` [004 §3]: entries pending, without consuming them.
    ///
    /// Tail mode: one tail read (checked as in [`Fault`]), then the bounded
    /// wait for the last entry's phase. Phase mode: the walk, no register read.
    // Inlined (issue 12, firmware size): a match on the mode and one or
    // two calls; out of line its caller tested and copied the `Result` once
    // more, and the tail path's `Result`s were copied in it.
    #[inline(always)]
    pub fn available_count<D: DelayNs + ?Sized>(&mut self, delay: &mut D) -> Result<u32> {
        match self.mode() {
            ConsumeMode::Phase => self.walk_phase(self.capacity),
            ConsumeMode::Tail => {
                let count = self.read_tail_count()?;
                self.wait_arrival(delay, count)?;
                self.set_known(count);
                Ok(count)
            }
        }
    }

    /// The consumer phase as bit 31 of a word (the other bits are not
    /// meaningful): what [`crate::dma::EntryPeek`]'s new test takes.
    #[inline(always)]
    pub(super) const fn phase_word(&self) -> u32 {
        self.batch_phase
    }

    /// Tail mode: consume every entry up to the `tail` just read (checked),
    /// none of them kept known: write the head once with that tail (the
    /// slot after the last entry taken, as a byte offset [FACTS §11]), then
    /// move the cursor to it, flipping the phase when it is slot 0 (the
    /// entries taken reached the ring's end). A refused write consumes
    /// nothing, as in [`NqRing::commit`].
    #[cfg(not(target_os = "none"))]
    #[inline(always)]
    pub(super) fn commit_to_tail(&mut self, tail: u32) -> Result<()> {
        self.queue.write_head(tail)?;
        // A checked tail is a multiple of 16 below the ring's size.
        let slot = tail / NQ_ENTRY_BYTES as u32;
        if slot == 0 {
            self.batch_phase ^= PHASE_DWORD_BIT;
        }
        self.next = slot;
        Ok(())
    }

    /// Tail mode: entries known pending without a register read.
    pub(super) fn known(&self) -> u32 {
        self.known
    }

    /// Tail mode: `n` of the entries known pending are being consumed.
    #[inline(always)]
    pub(super) fn consume_known(&mut self, n: u32) {
        self.known = self.known.saturating_sub(n);
    }

    /// Tail mode: remember entries known pending.
    pub(super) fn set_known(&mut self, n: u32) {
        self.known = n;
    }

    /// Consume `n` entries: write the head once, as a byte offset
    /// [FACTS §11], then move the cursor (flipping the phase at the wrap).
    /// Nothing is written for `n == 0`. Tail mode's callers first drop the
    /// entries known pending by `n` ([`NqRing::consume_known`]), so the phase
    /// path does not test the mode here.
    ///
    /// The head is written before the cursor moves, so a refused write (an
    /// access the window refuses) consumes nothing: the entries stay pending
    /// for the next call.
    #[inline(always)]
    pub(super) fn commit(&mut self, n: u32) -> Result<()> {
        // One implementation of the head write and the cursor move: the
        // drain iterator commits through the same `Consumer` (split borrow).
        self.split().1.commit(n)
    }
}

// The drain iterator's split borrow (drain.rs, issue 12): the iterator reads
// entries straight from the ring's memory while it holds the ring, so it
// borrows the memory shared and the consumer state mutable, apart.

/// An [`NqRing`] but its memory: what the drain iterator commits through
/// while it holds a view of the memory ([`NqRing::split`]).
#[derive(Debug)]
pub(super) struct Consumer<'a, M: Mmio> {
    queue: &'a NqQueue<M>,
    next: &'a mut u32,
    batch_phase: &'a mut u32,
    known: &'a mut u32,
    capacity: u32,
    mode: ConsumeMode,
}

impl<R: DmaMemory, M: Mmio, Z: DeviceZero> NqRing<R, M, Z> {
    /// The ring borrowed in two: its memory (shared) and the rest.
    #[inline(always)]
    pub(super) fn split(&mut self) -> (&R, Consumer<'_, M>) {
        let mode = self.mode();
        (
            &self.mem,
            Consumer {
                queue: &self.queue,
                next: &mut self.next,
                batch_phase: &mut self.batch_phase,
                known: &mut self.known,
                capacity: self.capacity,
                mode,
            },
        )
    }
}

impl<M: Mmio> Consumer<'_, M> {
    /// The same borrow, for a shorter while (to hand to a call by value: a
    /// call given its address would keep the whole iterator in memory).
    #[cfg(not(target_os = "none"))]
    #[inline(always)]
    pub(super) fn reborrow(&mut self) -> Consumer<'_, M> {
        Consumer {
            queue: self.queue,
            next: &mut *self.next,
            batch_phase: &mut *self.batch_phase,
            known: &mut *self.known,
            capacity: self.capacity,
            mode: self.mode,
        }
    }

    /// Tail or phase consumption.
    #[inline(always)]
    pub(super) fn mode(&self) -> ConsumeMode {
        self.mode
    }

    /// Entries the ring holds.
    #[inline(always)]
    pub(super) fn capacity(&self) -> u32 {
        self.capacity
    }

    /// The next slot the consumer reads.
    #[inline(always)]
    pub(super) fn next_index(&self) -> u32 {
        *self.next
    }

    /// The consumer phase [FACTS §11].
    #[inline(always)]
    pub(super) fn phase(&self) -> bool {
        *self.batch_phase & PHASE_DWORD_BIT != 0
    }

    /// [`NqRing::consume_known`].
    #[inline(always)]
    pub(super) fn consume_known(&mut self, n: u32) {
        *self.known = self.known.saturating_sub(n);
    }

    /// [`NqRing::set_known`].
    #[inline(always)]
    pub(super) fn set_known(&mut self, n: u32) {
        *self.known = n;
    }

    /// [`NqRing::commit`] (the same steps, on the split borrow): for `n > 0`
    /// the head written once, as a byte offset [FACTS §11], then the cursor
    /// moved (the phase flipped at the wrap); a refused write consumes nothing.
    #[inline(always)]
    pub(super) fn commit(&mut self, n: u32) -> Result<()> {
        if n == 0 {
            return Ok(());
        }
        // `next < capacity` and `n <= capacity <= 2^28`: no overflow.
        let pos = *self.next + n;
        if pos < self.capacity {
            self.queue.write_head(pos * NQ_ENTRY_BYTES as u32)?;
            *self.next = pos;
        } else {
            let next = pos - self.capacity;
            self.queue.write_head(next * NQ_ENTRY_BYTES as u32)?;
            *self.next = next;
            *self.batch_phase ^= PHASE_DWORD_BIT;
        }
        Ok(())
    }
}
