//! A DMA queue: hand a one-shot ring to an engine and wait for its completion.
//!
//! [`DmaQueue`] is what a backend implements (khal-std's device-model engine, a
//! firmware UDMA driver); [`run_one_shot`] is the generic submit-and-wait the
//! DVE loader uses: submit the closed ring, poll the status through
//! [`poll_until`] (the only polling loop of khal) within the caller's
//! [`Budget`], and check that the engine moved every byte. A queue that never
//! completes gives [`Error::Timeout`]; one that completes short gives
//! [`Error::DeviceFault`] with [`Fault::ShortTransfer`]. Every failure after
//! the ring reached the engine aborts the queue, so that the ring's buffers
//! can be freed; a [`RunError`] says whether that abort stopped the engine.

use embedded_hal::delay::DelayNs;

use super::ring::{Descriptor, OneShotRing};
use crate::error::{Error, Fault, Result};
use crate::wait::{poll_until, Budget};

/// Which queue a ring went to: the loader's state reports it [000 §4].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct QueueInfo {
    /// The queue's name (the DVE loader's is `"qDveTbl"` [000 §4]).
    pub name: &'static str,
    /// The engine's queue index, as the backend numbers it.
    pub index: u32,
}

/// The status of the last ring submitted to a queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RingStatus {
    /// The completion has not been raised yet.
    Pending,
    /// The completion was raised; the engine reports `moved` bytes transferred.
    Complete {
        /// Bytes the engine says it moved for the whole ring.
        moved: u64,
    },
}

/// A DMA queue of one engine.
pub trait DmaQueue {
    /// The queue's identity.
    fn info(&self) -> QueueInfo;

    /// Hand a closed ring to the engine (the notes' `vring_dump_to_pring` and
    /// doorbell). Returns once the engine owns the ring; completion is reported
    /// by [`DmaQueue::status`].
    fn submit(&mut self, ring: &[Descriptor]) -> Result<()>;

    /// The status of the last submitted ring. Device data that fails validation
    /// is an [`Error::DeviceFault`].
    fn status(&mut self) -> Result<RingStatus>;

    /// Stop the engine from processing the last ring (after a timeout, before
    /// its buffers are freed). The default has nothing to stop.
    fn abort(&mut self) -> Result<()> {
        Ok(())
    }
}

impl<Q: DmaQueue + ?Sized> DmaQueue for &mut Q {
    fn info(&self) -> QueueInfo {
        (**self).info()
    }
    fn submit(&mut self, ring: &[Descriptor]) -> Result<()> {
        (**self).submit(ring)
    }
    fn status(&mut self) -> Result<RingStatus> {
        (**self).status()
    }
    fn abort(&mut self) -> Result<()> {
        (**self).abort()
    }
}

/// What became of the engine after a failed [`run_one_shot`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Abort {
    /// No abort was needed: nothing was submitted (the ring was refused
    /// first), or the engine completed the ring (a short transfer).
    NotNeeded,
    /// [`DmaQueue::abort`] succeeded: the engine no longer touches the ring.
    Stopped,
    /// [`DmaQueue::abort`] failed with this error: the engine may still read
    /// the ring's sources and write its destinations, so their buffers must
    /// not be freed or reused.
    Failed(Error),
}

/// Why a [`run_one_shot`] failed, and whether the engine was stopped: both
/// errors when the abort after a failure fails too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RunError {
    /// What went wrong (the submit, a status read, the timeout, the byte count).
    pub error: Error,
    /// The abort that followed it.
    pub abort: Abort,
}

impl RunError {
    /// `false` when the engine may still be using the ring's buffers (the
    /// abort failed): they must then be leaked, never freed.
    pub(crate) const fn engine_stopped(&self) -> bool {
        !matches!(self.abort, Abort::Failed(_))
    }
}

/// The ring's failure, [`RunError::error`]; a caller that needs to know
/// whether the engine stopped keeps the [`RunError`] (the DVE loader does).
impl From<RunError> for Error {
    fn from(e: RunError) -> Error {
        e.error
    }
}

/// Submit `ring` on `queue` and wait for its completion within `budget`.
///
/// Returns the sleeps taken. Errors ([`RunError::error`]):
/// - the ring has no completion descriptor: [`Error::InvalidArgument`], nothing
///   submitted ([`Abort::NotNeeded`]);
/// - the submit fails: its error (the engine may hold part of the ring, so it
///   is aborted);
/// - a status read fails: its error, at once (e.g. a corrupt completion
///   record, [`Error::DeviceFault`]);
/// - no completion within the budget: [`Error::Timeout`]`("dma ring completion")`;
/// - completion with fewer (or more) bytes than the ring asked:
///   [`Error::DeviceFault`]`(`[`Fault::ShortTransfer`]`)` ([`Abort::NotNeeded`]:
///   the engine is done with the ring).
///
/// Every failure from the submit on until a completion is seen asks the queue
/// to [`DmaQueue::abort`]; [`RunError::abort`] says whether that worked
/// ([`Abort::Stopped`]) or failed ([`Abort::Failed`], with the abort's error:
/// the engine may still use the ring's buffers).
pub fn run_one_shot<Q, D, const N: usize>(
    queue: &mut Q,
    ring: &OneShotRing<N>,
    delay: &mut D,
    budget: Budget,
) -> Result<u32, RunError>
where
    Q: DmaQueue + ?Sized,
    D: DelayNs + ?Sized,
{
    if !ring.is_closed() {
        return Err(RunError {
            error: Error::InvalidArgument("ring without its completion descriptor"),
            abort: Abort::NotNeeded,
        });
    }
    let expected = ring.total_bytes();
    let mut moved = None;
    let waited = queue.submit(ring.descriptors()).and_then(|()| {
        // TIMEOUT: the caller's budget; the notes give no DMA wait of their own.
        poll_until(delay, budget, "dma ring completion", || {
            match queue.status()? {
                RingStatus::Pending => Ok(false),
                RingStatus::Complete { moved: m } => {
                    moved = Some(m);
                    Ok(true)
                }
            }
        })
    });
    let sleeps = match waited {
        Ok(s) => s,
        Err(error) => {
            warn!("dma ring failed before its completion; aborting the queue");
            let abort = match queue.abort() {
                Ok(()) => Abort::Stopped,
                Err(e) => {
                    warn!("dma queue abort failed: the engine may still run");
                    Abort::Failed(e)
                }
            };
            return Err(RunError { error, abort });
        }
    };
    let error = match moved {
        Some(m) if m == u64::from(expected) => return Ok(sleeps),
        Some(m) => Error::DeviceFault(Fault::ShortTransfer {
            expected,
            moved: u32::try_from(m).unwrap_or(u32::MAX),
        }),
        // poll_until returned Ok only after the closure saw Complete.
        None => Error::DeviceFault(Fault::Other("dma completion seen without a byte count")),
    };
    Err(RunError {
        error,
        abort: Abort::NotNeeded,
    })
}
