//! `dma::queue`: handing a one-shot ring to an engine and waiting for it
//! within a budget, over a scripted queue [000 §4].

use embedded_hal::delay::DelayNs;
use khal_core::dma::{
    run_one_shot, Abort, Descriptor, DmaQueue, OneShotRing, QueueInfo, RingStatus, RunError,
};
use khal_core::wait::Budget;
use khal_core::DeviceAddr;
use khal_core::{Error, Fault, Result};

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
    assert!(q.aborted && !matches!(e.abort, Abort::Failed(_)));
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
        assert!(matches!(e.abort, Abort::Failed(_)));
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
