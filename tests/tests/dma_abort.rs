//! Every DMA failure after the submit aborts the engine before the DVE
//! loader lets go of its staging buffers; an abort that fails leaks them
//! (issue 14 item 2) [000 §4].
//!
//! The staging allocator here wraps the model's arena and logs each buffer's
//! drop together with the engine's `BUSY` register at that moment: a buffer
//! dropped while the engine may still read it is the bug.

use std::cell::RefCell;
use std::rc::Rc;

use khal_arch_cayman::Cayman;
use khal_core::dma::{DmaAllocator, DmaMemory, MemLocation};
use khal_core::dve::{DveLoader, DvePlacement, DveTableSet, DVE_QUEUE_NAME};
use khal_core::family::TpbBases;
use khal_core::wait::Budget;
use khal_core::Fault;
use khal_core::{Error, Mmio, Result};
use khal_std::model::dma_engine::{DmaEngineModel, DmaFault, ModelDmaQueue, BUSY};
use khal_std::model::DeviceModel;
use khal_std::Advance;
use khal_std::SimDelay;
use khal_std::{ModelAllocator, ModelBuf};

const BUDGET: Budget = Budget {
    period_us: 100,
    polls: 100,
};
const T: &[u8] = &[0x5A; 256];

/// `BUSY` read at each staging buffer's drop, in drop order.
type DropLog = Rc<RefCell<Vec<u32>>>;

struct Tracked<'m> {
    buf: ModelBuf<'m>,
    model: &'m DeviceModel,
    log: DropLog,
}

impl Drop for Tracked<'_> {
    fn drop(&mut self) {
        let busy = self
            .model
            .read32(DmaEngineModel::DEFAULT_BASE.add(BUSY))
            .unwrap();
        self.log.borrow_mut().push(busy);
    }
}

impl DmaMemory for Tracked<'_> {
    fn bus_addr(&self) -> u64 {
        self.buf.bus_addr()
    }
    fn len(&self) -> usize {
        self.buf.len()
    }
    fn load_u8(&self, offset: usize) -> Result<u8> {
        self.buf.load_u8(offset)
    }
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        self.buf.read(offset, out)
    }
    fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        self.buf.write(offset, data)
    }
    fn zero(&self) -> Result<()> {
        self.buf.zero()
    }
}

struct Staging<'m> {
    arena: ModelAllocator<'m>,
    model: &'m DeviceModel,
    log: DropLog,
}

impl<'m> DmaAllocator for Staging<'m> {
    type Buffer = Tracked<'m>;
    fn alloc(&mut self, location: MemLocation, len: usize, align: usize) -> Result<Tracked<'m>> {
        Ok(Tracked {
            buf: self.arena.alloc(location, len, align)?,
            model: self.model,
            log: self.log.clone(),
        })
    }
}

/// Load the five-table CAYMAN config with the engine set up by `fault`;
/// returns the load's result and the drop log after the loader is gone and
/// the engine's latency has passed.
fn load_with(fault: impl FnOnce(&mut DmaEngineModel)) -> (Result<()>, Vec<u32>, usize) {
    let m = DeviceModel::new();
    let log = DropLog::default();
    let mut alloc = Staging {
        arena: ModelAllocator::with_default_arena(&m),
        model: &m,
        log: log.clone(),
    };
    let mut q = ModelDmaQueue::mount(&m, DmaEngineModel::DEFAULT_BASE, DVE_QUEUE_NAME, 8).unwrap();
    q.with_engine(fault).unwrap();
    let p = DvePlacement::for_tile(Cayman::tile(0).unwrap()).unwrap();
    let t = DveTableSet::five(T, T, T, T);
    let r = {
        let mut loader = DveLoader::new();
        let r = loader.load(&mut alloc, &mut q, &mut SimDelay::new(&m), BUDGET, &p, &t);
        assert!(loader.resident().is_none());
        r.map(|_| ())
    };
    m.advance_ns(10_000_000_000);
    let transfers = q.with_engine(|e| e.transfers().len()).unwrap();
    let drops = log.borrow().clone();
    (r, drops, transfers)
}

#[test]
fn a_failed_status_read_stops_the_engine_before_the_staging_is_freed() {
    let (r, drops, transfers) = load_with(|e| {
        e.fault = DmaFault::GarbageRecord;
        e.latency_ns = 250_000;
    });
    assert_eq!(
        r,
        Err(Error::DeviceFault(Fault::Other(
            "dma completion record corrupt"
        )))
    );
    // All five buffers freed, each with the engine idle (BUSY = 0)…
    assert_eq!(drops, [0; 5]);
    // …and the aborted ring never ran after they were gone.
    assert_eq!(transfers, 0);
}

#[test]
fn an_engine_that_ignores_the_abort_keeps_its_staging_buffers() {
    let (r, drops, _) = load_with(|e| {
        e.ignore_abort = true;
        e.latency_ns = 1_000_000_000; // past the 10 ms budget
    });
    assert_eq!(r, Err(Error::Timeout("dma ring completion")));
    // Leaked, not freed: the engine still held the ring when the load ended.
    assert_eq!(drops, Vec::<u32>::new());
}

#[test]
fn a_timeout_whose_abort_works_frees_the_staging() {
    // The control case: a timeout whose abort works frees the staging at once.
    let (r, drops, transfers) = load_with(|e| e.fault = DmaFault::NeverComplete);
    assert_eq!(r, Err(Error::Timeout("dma ring completion")));
    assert_eq!(drops, [0; 5]);
    assert_eq!(transfers, 5); // NeverComplete copies, then withholds the record
}
