//! The DVE dynamic-config loader: stage the tables, DMA them, remember the config.
//!
//! `dve_dynamic_config_init_<arch>` [000 §4], in khal's shape:
//! 1. fingerprint the tables (SHA-256 in the notes' order, SUNDA without
//!    control_slow) — if that config is already resident at the same
//!    destinations, return at once: **no DMA** (the fingerprint dedups configs
//!    across NEFF loads [000 §4 NOTE]);
//! 2. per table: `dmem_alloc(TONGA_DRAM)` ([`MemLocation::DeviceDram`]),
//!    `dmem_buf_copyin`, `vring_add_desc_transfer(buf.pa, axi + off, size)`;
//! 3. the completion (event) descriptor, submit on the queue, wait within the
//!    caller's budget ([`run_one_shot`]);
//! 4. fill the state (`dve_config_dma_state_t`): each table's buffer (SUNDA's
//!    control_slow slot empty), the fingerprint, the queue.
//!
//! Residency is recorded only after the completion: from the moment a new
//! config starts to overwrite the device, the previous one is forgotten, so a
//! fault (timeout, short transfer, allocation failure) leaves nothing resident.
//! Validation errors happen before anything is allocated or forgotten.

use embedded_hal::delay::DelayNs;

use crate::addr::DeviceAddr;
use crate::dma::{
    run_one_shot, DmaAllocator, DmaMemory, DmaQueue, MemLocation, OneShotRing, QueueInfo,
};
use crate::error::{Error, Result};
use crate::wait::Budget;

use super::placement::DvePlacement;
use super::tables::{DveTableSet, Fingerprint, TableId};

/// The name the C gives the DVE loader's queue bundle
/// (`model_dma_engine_and_queue_bundle_alloc("qDveTable")`) [000 §4]: a name
/// for the caller's [`DmaQueue`] (khal takes the caller's queue and checks no
/// name; the state reports the queue's own [`QueueInfo`]). The C names the
/// ring on that queue `qDveTbl` (`vring_set_allocate("qDveTbl")`, the
/// `0x6C625465764471` of [000 §4 NOTE]); khal's one-shot ring has no name.
pub const DVE_QUEUE_NAME: &str = "qDveTable";

/// Alignment of the staging buffers. The notes transfer from `buf.pa_aligned`
/// without naming the alignment (NOT TRACED); khal asks for 64 bytes, a cache
/// line, which every DMA engine accepts.
const STAGING_ALIGN: usize = 64;

/// Descriptors of one DVE ring: at most five transfers and the completion.
const RING_SLOTS: usize = 6;

/// What the loader holds for the resident config: the notes'
/// `dve_config_dma_state_t` plus the fingerprint and the destinations.
#[derive(Debug)]
pub struct DveConfigDmaState<B> {
    /// The staged opcode table.
    pub opcode_table: B,
    /// The staged control-fast table.
    pub control_fast_table: B,
    /// The staged control-slow table; `None` on SUNDA (the C slot is 0) [000 §4].
    pub control_slow_table: Option<B>,
    /// The staged datapath table.
    pub datapath_table: B,
    /// The staged parameter RAM (`bn_param_ram`).
    pub bn_param_ram: B,
    /// The config's SHA-256 fingerprint (`dve_tbl_hash`).
    pub fingerprint: Fingerprint,
    /// The queue the ring went through.
    pub queue: QueueInfo,
    /// Where the tables were written.
    pub placement: DvePlacement,
}

impl<B> DveConfigDmaState<B> {
    /// The staged buffer of table `id`; `None` for SUNDA's control_slow.
    pub fn table(&self, id: TableId) -> Option<&B> {
        match id {
            TableId::Opcode => Some(&self.opcode_table),
            TableId::ControlFast => Some(&self.control_fast_table),
            TableId::ControlSlow => self.control_slow_table.as_ref(),
            TableId::Datapath => Some(&self.datapath_table),
            TableId::ParamRam => Some(&self.bn_param_ram),
        }
    }
}

/// What a [`DveLoader::load`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum LoadOutcome {
    /// The tables were DMA'd; the wait slept `sleeps` budget periods.
    Loaded {
        /// The new fingerprint.
        fingerprint: Fingerprint,
        /// Tables written (4 on SUNDA, 5 otherwise).
        tables: usize,
        /// Bytes moved by the ring.
        bytes: u32,
        /// Sleeps of the completion wait.
        sleeps: u32,
    },
    /// The same config was already resident at the same destinations: no DMA.
    AlreadyResident {
        /// The resident fingerprint.
        fingerprint: Fingerprint,
    },
}

/// The loader of one DVE tile: it remembers the resident config.
#[derive(Debug)]
pub struct DveLoader<B> {
    resident: Option<DveConfigDmaState<B>>,
}

impl<B> Default for DveLoader<B> {
    fn default() -> Self {
        DveLoader { resident: None }
    }
}

impl<B: DmaMemory> DveLoader<B> {
    /// A loader with nothing resident.
    pub const fn new() -> Self {
        DveLoader { resident: None }
    }

    /// The resident config's state, if one completed.
    pub fn resident(&self) -> Option<&DveConfigDmaState<B>> {
        self.resident.as_ref()
    }

    /// Forget the resident config (e.g. after a device reset), handing back
    /// its buffers.
    pub fn forget(&mut self) -> Option<DveConfigDmaState<B>> {
        self.resident.take()
    }

    /// Load `tables` to `placement` through `queue`, staging in device DRAM
    /// from `alloc`, waiting at most `budget` for the completion.
    ///
    /// Errors, all typed, none leaving a config recorded as resident unless it
    /// completed:
    /// - [`Error::InvalidArgument`]: an empty table; a table above `u32::MAX`
    ///   bytes; a parameter RAM whose size is not the arch's (0x400); a
    ///   control_slow table given where the placement has none (SUNDA) or
    ///   missing where it has one; two destination ranges that overlap.
    ///   Nothing is allocated, the resident config is kept. An empty table is
    ///   refused where the C skips a table whose source is NULL
    ///   [FACTS §13.9]: a deviation, since every table of the state holds a
    ///   buffer.
    /// - the allocator's errors ([`Error::OutOfMemory`], …), the queue's, and
    ///   [`run_one_shot`]'s ([`crate::dma::RunError::error`]): [`Error::Timeout`]
    ///   within `budget`, [`Error::DeviceFault`] for a short transfer. The
    ///   previous resident config is forgotten (the device may hold part of
    ///   the new one). Every failure after the submit aborts the queue first;
    ///   if that abort fails, the staging buffers are leaked, never dropped,
    ///   since the engine may still read them.
    pub fn load<A, Q, D>(
        &mut self,
        alloc: &mut A,
        queue: &mut Q,
        delay: &mut D,
        budget: Budget,
        placement: &DvePlacement,
        tables: &DveTableSet<'_>,
    ) -> Result<LoadOutcome>
    where
        A: DmaAllocator<Buffer = B> + ?Sized,
        Q: DmaQueue + ?Sized,
        D: DelayNs + ?Sized,
    {
        validate(placement, tables)?;
        let fingerprint = tables.fingerprint();
        if let Some(r) = &self.resident {
            if r.fingerprint == fingerprint && r.placement == *placement {
                debug!("dve config already resident; no dma");
                return Ok(LoadOutcome::AlreadyResident { fingerprint });
            }
        }
        // From here on the device is (about to be) overwritten.
        self.resident = None;

        // One slot per table in `TableId` order; SUNDA's control_slow stays empty.
        let mut staged: [Option<B>; 5] = [None, None, None, None, None];
        let mut ring = OneShotRing::<RING_SLOTS>::new();
        for (id, slot) in TableId::ALL.into_iter().zip(staged.iter_mut()) {
            let Some(bytes) = tables.get(id) else {
                continue;
            };
            let dst = dest(placement, id)?;
            let buf = alloc.alloc(MemLocation::DeviceDram, bytes.len(), STAGING_ALIGN)?;
            buf.write(0, bytes)?;
            ring.add_transfer(buf.bus_addr(), dst, len_u32(bytes)?)?;
            *slot = Some(buf);
        }
        ring.add_completion()?;
        let sleeps = match run_one_shot(queue, &ring, delay, budget) {
            Ok(s) => s,
            Err(e) => {
                if !e.engine_stopped() {
                    // The abort failed: the engine may still read the staged
                    // tables. Leak them rather than free them under its feet.
                    warn!("dma engine not stopped; leaking the dve staging buffers");
                    core::mem::forget(staged);
                }
                return Err(e.into());
            }
        };

        let [opcode, control_fast, control_slow_table, datapath, param_ram] = staged;
        let missing = || Error::InvalidArgument("DVE table buffer missing");
        self.resident = Some(DveConfigDmaState {
            opcode_table: opcode.ok_or_else(missing)?,
            control_fast_table: control_fast.ok_or_else(missing)?,
            control_slow_table,
            datapath_table: datapath.ok_or_else(missing)?,
            bn_param_ram: param_ram.ok_or_else(missing)?,
            fingerprint,
            queue: queue.info(),
            placement: *placement,
        });
        info!("dve config loaded");
        Ok(LoadOutcome::Loaded {
            fingerprint,
            tables: placement.table_count(),
            bytes: ring.total_bytes(),
            sleeps,
        })
    }
}

fn len_u32(t: &[u8]) -> Result<u32> {
    u32::try_from(t.len()).map_err(|_| Error::InvalidArgument("DVE table larger than 4 GiB"))
}

/// The destination of table `id` in `p`.
fn dest(p: &DvePlacement, id: TableId) -> Result<DeviceAddr> {
    p.dest(id)
        .ok_or(Error::InvalidArgument("DVE table without a destination"))
}

/// Every check that needs no device: see [`DveLoader::load`].
fn validate(p: &DvePlacement, t: &DveTableSet<'_>) -> Result<()> {
    if p.control_slow.is_some() != t.control_slow.is_some() {
        return Err(Error::InvalidArgument(if t.control_slow.is_none() {
            "control_slow table missing (this arch loads five DVE tables)"
        } else {
            "control_slow table given on an arch without one (SUNDA)"
        }));
    }
    if t.param_ram.len() as u64 != p.param_ram_size {
        return Err(Error::InvalidArgument(
            "param_ram size differs from the arch's parameter-RAM size (0x400)",
        ));
    }
    let mut ranges: [(u64, u64); 5] = [(0, 0); 5];
    let mut n = 0;
    for ((id, bytes), r) in t.iter().zip(ranges.iter_mut()) {
        if bytes.is_empty() {
            return Err(Error::InvalidArgument("empty DVE table"));
        }
        let len = u64::from(len_u32(bytes)?);
        let start = dest(p, id)?;
        let end = start.checked_add(len, "DVE table wraps the address space")?;
        *r = (start.get(), end.get());
        n += 1;
    }
    // The table sizes are known (FACTS §12.1 MED, §13.9), but whether the C
    // loader bounds a table by its size is not: no per-table limit here. A
    // table running into another's destination would corrupt it: refuse
    // overlaps.
    let used = ranges.get(..n).unwrap_or(&[]);
    for (i, &(s1, e1)) in used.iter().enumerate() {
        for &(s2, e2) in used.iter().skip(i + 1) {
            if s1 < e2 && s2 < e1 {
                return Err(Error::InvalidArgument("DVE table destinations overlap"));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dma::{Descriptor, RingStatus};
    use crate::family::Offset;
    use core::cell::RefCell;
    use std::rc::Rc;
    use std::vec::Vec;

    /// Host memory standing in for device DRAM.
    #[derive(Debug, Clone)]
    struct Mem {
        bus: u64,
        bytes: Rc<RefCell<Vec<u8>>>,
    }
    impl DmaMemory for Mem {
        fn bus_addr(&self) -> u64 {
            self.bus
        }
        fn len(&self) -> usize {
            self.bytes.borrow().len()
        }
        fn load_u8(&self, o: usize) -> Result<u8> {
            self.bytes.borrow().get(o).copied().ok_or(Error::NoContext)
        }
        fn read(&self, o: usize, out: &mut [u8]) -> Result<()> {
            let b = self.bytes.borrow();
            out.copy_from_slice(b.get(o..o + out.len()).ok_or(Error::NoContext)?);
            Ok(())
        }
        fn write(&self, o: usize, d: &[u8]) -> Result<()> {
            let mut b = self.bytes.borrow_mut();
            b.get_mut(o..o + d.len())
                .ok_or(Error::NoContext)?
                .copy_from_slice(d);
            Ok(())
        }
        fn zero(&self) -> Result<()> {
            self.bytes.borrow_mut().fill(0);
            Ok(())
        }
    }

    struct Alloc {
        next: u64,
        given: Vec<(MemLocation, usize, usize)>,
    }
    impl DmaAllocator for Alloc {
        type Buffer = Mem;
        fn alloc(&mut self, loc: MemLocation, len: usize, align: usize) -> Result<Mem> {
            self.given.push((loc, len, align));
            let bus = self.next;
            self.next += 0x1_0000;
            Ok(Mem {
                bus,
                bytes: Rc::new(RefCell::new(std::vec![0; len])),
            })
        }
    }

    /// Records the ring; completes at once with every byte, or refuses the submit.
    struct Queue {
        ring: Vec<Descriptor>,
        refuse: bool,
    }
    impl DmaQueue for Queue {
        fn info(&self) -> QueueInfo {
            QueueInfo {
                name: DVE_QUEUE_NAME,
                index: 3,
            }
        }
        fn submit(&mut self, ring: &[Descriptor]) -> Result<()> {
            if self.refuse {
                return Err(Error::NoContext);
            }
            self.ring = ring.to_vec();
            Ok(())
        }
        fn status(&mut self) -> Result<RingStatus> {
            let moved = self
                .ring
                .iter()
                .map(|d| match d {
                    Descriptor::Transfer { len, .. } => u64::from(*len),
                    Descriptor::Completion => 0,
                })
                .sum();
            Ok(RingStatus::Complete { moved })
        }
    }

    struct NoDelay;
    impl DelayNs for NoDelay {
        fn delay_ns(&mut self, _: u32) {}
    }

    const PR: [u8; 0x400] = [7; 0x400];

    fn placement(control_slow: bool) -> DvePlacement {
        DvePlacement::from_parts(
            DeviceAddr(0x20_0000_0000),
            [Offset(0x2B8_2000), Offset(0x2B8_0000)],
            control_slow.then_some(Offset(0x2B8_1000)),
            Offset(0x2B8_6000),
            Offset(0x2B8_7000),
            0x400,
        )
        .unwrap()
    }

    fn rig() -> (Alloc, Queue, DveLoader<Mem>) {
        (
            Alloc {
                next: 0x1000_0000,
                given: Vec::new(),
            },
            Queue {
                ring: Vec::new(),
                refuse: false,
            },
            DveLoader::new(),
        )
    }

    #[test]
    fn the_ring_is_one_transfer_per_table_in_order_then_the_completion() {
        let (mut a, mut q, mut l) = rig();
        let t = DveTableSet::five(b"op", b"cf", b"cs", b"dp").with_param_ram(&PR);
        let p = placement(true);
        l.load(&mut a, &mut q, &mut NoDelay, Budget::NQ_DEFAULT, &p, &t)
            .unwrap();
        let dsts = [
            0x2B8_2000u64,
            0x2B8_0000,
            0x2B8_1000,
            0x2B8_6000,
            0x2B8_7000,
        ];
        assert_eq!(q.ring.len(), 6);
        for (i, (d, off)) in q.ring.iter().zip(dsts).enumerate() {
            assert_eq!(
                *d,
                Descriptor::Transfer {
                    src: 0x1000_0000 + 0x1_0000 * i as u64,
                    dst: DeviceAddr(0x20_0000_0000 + off),
                    len: if i == 4 { 0x400 } else { 2 },
                }
            );
        }
        assert_eq!(q.ring[5], Descriptor::Completion);
        assert!(a
            .given
            .iter()
            .all(|&(loc, _, al)| loc == MemLocation::DeviceDram && al == STAGING_ALIGN));
        let st = l.resident().unwrap();
        assert_eq!(st.queue.index, 3);
        assert_eq!(
            *st.control_slow_table.as_ref().unwrap().bytes.borrow(),
            b"cs"
        );
        assert_eq!(*st.bn_param_ram.bytes.borrow(), PR);
    }

    #[test]
    fn four_tables_fill_the_state_without_control_slow() {
        let (mut a, mut q, mut l) = rig();
        let t = DveTableSet::four(b"op", b"cf", b"dp").with_param_ram(&PR);
        l.load(
            &mut a,
            &mut q,
            &mut NoDelay,
            Budget::NQ_DEFAULT,
            &placement(false),
            &t,
        )
        .unwrap();
        assert_eq!(q.ring.len(), 5);
        let st = l.resident().unwrap();
        assert!(st.control_slow_table.is_none());
        assert_eq!(*st.datapath_table.bytes.borrow(), b"dp");
        assert_eq!(*st.bn_param_ram.bytes.borrow(), PR);
    }

    #[test]
    fn a_refused_submit_leaves_nothing_resident() {
        let (mut a, mut q, mut l) = rig();
        let p = placement(false);
        let t = DveTableSet::four(b"op", b"cf", b"dp").with_param_ram(&PR);
        l.load(&mut a, &mut q, &mut NoDelay, Budget::NQ_DEFAULT, &p, &t)
            .unwrap();
        q.refuse = true;
        let t2 = DveTableSet::four(b"op", b"cf", b"dq").with_param_ram(&PR);
        assert_eq!(
            l.load(&mut a, &mut q, &mut NoDelay, Budget::NQ_DEFAULT, &p, &t2),
            Err(Error::NoContext)
        );
        assert!(l.resident().is_none());
    }
}
