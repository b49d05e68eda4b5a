//! A DMA queue: hand a one-shot ring to an engine and wait for its completion.
//!
//! [`DmaQueue`] is what a backend implements (khal-std's device-model engine, a
//! firmware UDMA driver); [`run_one_shot`] is the generic submit-and-wait the
//! DVE loader uses: submit the closed ring, poll the status through
//! [`poll_until`] (the only polling loop of khal) within the caller's
//! [`Budget`], and check that the engine moved every byte. A queue that never
//! completes gives [`Error::Timeout`]; one that completes short gives
//! [`Error::DeviceFault`] with [`Fault::ShortTransfer`].

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

/// Submit `ring` on `queue` and wait for its completion within `budget`.
///
/// Returns the sleeps taken. Errors:
/// - the ring has no completion descriptor: [`Error::InvalidArgument`], nothing
///   submitted;
/// - no completion within the budget: [`Error::Timeout`]`("dma ring completion")`,
///   after asking the queue to [`DmaQueue::abort`] (an abort failure is
///   logged; the timeout is what is returned);
/// - completion with fewer (or more) bytes than the ring asked:
///   [`Error::DeviceFault`]`(`[`Fault::ShortTransfer`]`)`;
/// - any error of the queue, as is.
pub fn run_one_shot<Q, D, const N: usize>(
    queue: &mut Q,
    ring: &OneShotRing<N>,
    delay: &mut D,
    budget: Budget,
) -> Result<u32>
where
    Q: DmaQueue + ?Sized,
    D: DelayNs + ?Sized,
{
    if !ring.is_closed() {
        return Err(Error::InvalidArgument(
            "ring without its completion descriptor",
        ));
    }
    let expected = ring.total_bytes();
    queue.submit(ring.descriptors())?;
    let mut moved = None;
    // TIMEOUT: the caller's budget; the notes give no DMA wait of their own.
    let waited = poll_until(delay, budget, "dma ring completion", || {
        match queue.status()? {
            RingStatus::Pending => Ok(false),
            RingStatus::Complete { moved: m } => {
                moved = Some(m);
                Ok(true)
            }
        }
    });
    let sleeps = match waited {
        Ok(s) => s,
        Err(e @ Error::Timeout(_)) => {
            warn!("dma ring did not complete within its budget; aborting the queue");
            // The timeout is the error to report; a failing abort is logged.
            if let Err(_abort) = queue.abort() {
                warn!("dma queue abort failed: {:?}", _abort);
            }
            return Err(e);
        }
        Err(e) => return Err(e),
    };
    match moved {
        Some(m) if m == u64::from(expected) => Ok(sleeps),
        Some(m) => Err(Error::DeviceFault(Fault::ShortTransfer {
            expected,
            moved: u32::try_from(m).unwrap_or(u32::MAX),
        })),
        // poll_until returned Ok only after the closure saw Complete.
        None => Err(Error::DeviceFault(Fault::Other(
            "dma completion seen without a byte count",
        ))),
    }
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

    /// A scripted queue: completes after `after` polls with `moved` bytes.
    struct Scripted {
        submitted: usize,
        polls: u32,
        after: Option<u32>,
        moved: u64,
        aborted: bool,
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
            Ok(())
        }
        fn status(&mut self) -> Result<RingStatus> {
            self.polls += 1;
            Ok(match self.after {
                Some(a) if self.polls > a => RingStatus::Complete { moved: self.moved },
                _ => RingStatus::Pending,
            })
        }
        fn abort(&mut self) -> Result<()> {
            self.aborted = true;
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
        }
    }

    const B: Budget = Budget {
        period_us: 10,
        polls: 50,
    };

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
            Err(Error::Timeout("dma ring completion"))
        );
        assert_eq!(d.0, B.total_us() * 1000);
        assert!(q.aborted);
    }

    #[test]
    fn short_transfer_is_a_device_fault() {
        let mut q = scripted(Some(0), 12);
        let mut d = NoDelay(0);
        assert_eq!(
            run_one_shot(&mut q, &ring(), &mut d, B),
            Err(Error::DeviceFault(Fault::ShortTransfer {
                expected: 16,
                moved: 12
            }))
        );
    }

    #[test]
    fn an_open_ring_is_not_submitted() {
        let mut q = scripted(Some(0), 0);
        let mut r = OneShotRing::<4>::new();
        r.add_transfer(1, DeviceAddr(2), 3).unwrap();
        let mut d = NoDelay(0);
        assert!(matches!(
            run_one_shot(&mut q, &r, &mut d, B),
            Err(Error::InvalidArgument(_))
        ));
        assert_eq!(q.submitted, 0);
    }
}
