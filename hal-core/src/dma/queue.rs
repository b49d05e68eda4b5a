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
    pub const fn engine_stopped(&self) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::addr::DeviceAddr;

    struct NoDelay(u64);
    impl DelayNs for NoDelay {
        fn delay_ns(&mut self, ns: u32) {
            self.0 += u64::from(ns);
        }
    }

    /// A scripted queue: completes after `after` polls with `moved` bytes;
    /// optionally its submit, its `bad_poll`-th status read or its abort fails.
    struct Scripted {
        submitted: usize,
        polls: u32,
        after: Option<u32>,
        moved: u64,
        aborted: bool,
        submit_fails: bool,
        bad_poll: Option<u32>,
        abort_fails: bool,
    }
    impl DmaQueue for Scripted {
        fn info(&self) -> QueueInfo {
            QueueInfo {
                name: "test",
                index: 0,
            }
        }
        fn submit(&mut self, ring: &[Descriptor]) -> Result<()> {
            self.submitted = ring.len();
            if self.submit_fails {
                return Err(Error::out_of_window(0xD00));
            }
            Ok(())
        }
        fn status(&mut self) -> Result<RingStatus> {
            self.polls += 1;
            if self.bad_poll == Some(self.polls) {
                return Err(BAD_RECORD);
            }
            Ok(match self.after {
                Some(a) if self.polls > a => RingStatus::Complete { moved: self.moved },
                _ => RingStatus::Pending,
            })
        }
        fn abort(&mut self) -> Result<()> {
            self.aborted = true;
            if self.abort_fails {
                return Err(ABORT_REFUSED);
            }
            Ok(())
        }
    }

    fn ring() -> OneShotRing<4> {
        let mut r = OneShotRing::new();
        r.add_transfer(0x100, DeviceAddr(0x200), 10).unwrap();
        r.add_transfer(0x300, DeviceAddr(0x400), 6).unwrap();
        r.add_completion().unwrap();
        r
    }

    fn scripted(after: Option<u32>, moved: u64) -> Scripted {
        Scripted {
            submitted: 0,
            polls: 0,
            after,
            moved,
            aborted: false,
            submit_fails: false,
            bad_poll: None,
            abort_fails: false,
        }
    }

    const BAD_RECORD: Error = Error::DeviceFault(Fault::Other("bad record"));
    const ABORT_REFUSED: Error = Error::Timeout("abort");
    const TIMEOUT: Error = Error::Timeout("dma ring completion");

    const B: Budget = Budget {
        period_us: 10,
        polls: 50,
    };

    /// A `&mut` queue forwards every call to its queue, errors included
    /// (the loader hands `run_one_shot` a borrowed queue).
    #[test]
    fn a_borrowed_queue_forwards_submit_status_and_abort() {
        let mut q = scripted(None, 0);
        q.submit_fails = true;
        q.abort_fails = true;
        let mut d = NoDelay(0);
        let mut borrowed = &mut q;
        assert_eq!(borrowed.info().name, "test");
        assert_eq!(
            run_one_shot(&mut borrowed, &ring(), &mut d, B),
            Err(RunError {
                error: Error::out_of_window(0xD00),
                abort: Abort::Failed(ABORT_REFUSED)
            })
        );
        assert!(q.aborted);
        let mut q = scripted(Some(1), 16);
        let mut borrowed = &mut q;
        assert_eq!(run_one_shot(&mut borrowed, &ring(), &mut d, B), Ok(1));
        assert_eq!((q.submitted, q.polls), (3, 2));
    }

    #[test]
    fn completes_and_counts_sleeps() {
        let mut q = scripted(Some(3), 16);
        let mut d = NoDelay(0);
        assert_eq!(run_one_shot(&mut q, &ring(), &mut d, B), Ok(3));
        assert_eq!(q.submitted, 3);
        assert!(!q.aborted);
    }

    #[test]
    fn never_completing_times_out_within_budget_and_aborts() {
        let mut q = scripted(None, 0);
        let mut d = NoDelay(0);
        assert_eq!(
            run_one_shot(&mut q, &ring(), &mut d, B),
            Err(RunError {
                error: TIMEOUT,
                abort: Abort::Stopped
            })
        );
        assert_eq!(d.0, B.total_us() * 1000);
        assert!(q.aborted);
    }

    #[test]
    fn a_failed_status_read_aborts_the_queue_at_once() {
        let mut q = scripted(None, 0);
        q.bad_poll = Some(2);
        let mut d = NoDelay(0);
        let e = run_one_shot(&mut q, &ring(), &mut d, B).unwrap_err();
        assert_eq!(
            e,
            RunError {
                error: BAD_RECORD,
                abort: Abort::Stopped
            }
        );
        assert!(q.aborted && e.engine_stopped());
        assert_eq!((q.polls, d.0), (2, 10_000)); // no more polls, one sleep
        assert_eq!(Error::from(e), BAD_RECORD);
    }

    #[test]
    fn a_failed_submit_aborts_the_queue() {
        let mut q = scripted(Some(0), 16);
        q.submit_fails = true;
        let mut d = NoDelay(0);
        assert_eq!(
            run_one_shot(&mut q, &ring(), &mut d, B),
            Err(RunError {
                error: Error::out_of_window(0xD00),
                abort: Abort::Stopped
            })
        );
        assert!(q.aborted);
        assert_eq!(q.polls, 0);
    }

    #[test]
    fn a_failed_abort_is_reported_with_the_error_it_followed() {
        for bad_poll in [None, Some(1)] {
            let mut q = scripted(None, 0);
            q.bad_poll = bad_poll;
            q.abort_fails = true;
            let mut d = NoDelay(0);
            let e = run_one_shot(&mut q, &ring(), &mut d, B).unwrap_err();
            let cause = if bad_poll.is_some() {
                BAD_RECORD
            } else {
                TIMEOUT
            };
            assert_eq!(
                e,
                RunError {
                    error: cause,
                    abort: Abort::Failed(ABORT_REFUSED)
                }
            );
            assert!(!e.engine_stopped());
        }
    }

    #[test]
    fn short_transfer_is_a_device_fault() {
        let mut q = scripted(Some(0), 12);
        let mut d = NoDelay(0);
        assert_eq!(
            run_one_shot(&mut q, &ring(), &mut d, B),
            Err(RunError {
                error: Error::DeviceFault(Fault::ShortTransfer {
                    expected: 16,
                    moved: 12
                }),
                abort: Abort::NotNeeded
            })
        );
        // The engine completed the ring: nothing to stop.
        assert!(!q.aborted);
    }

    #[test]
    fn an_open_ring_is_not_submitted() {
        let mut q = scripted(Some(0), 0);
        let mut r = OneShotRing::<4>::new();
        r.add_transfer(1, DeviceAddr(2), 3).unwrap();
        let mut d = NoDelay(0);
        assert!(matches!(
            run_one_shot(&mut q, &r, &mut d, B),
            Err(RunError {
                error: Error::InvalidArgument(_),
                abort: Abort::NotNeeded
            })
        ));
        assert_eq!(q.submitted, 0);
        assert!(!q.aborted);
    }
}
