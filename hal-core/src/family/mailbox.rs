//! The INTC NQ-id → mailbox base map [004 §4], [FACTS §7].
//!
//! MARIANA indexes its 16-entry map `[8 * (block > 3) + queue]`; the upper half
//! carries the mesh bit, so the high die's blocks land on the high die
//! [004 §4 QUIRK]. SUNDA and CAYMAN INTC are NOT TRACED.

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::ids::Bounded;

/// An NQ block index (`block_idx < 8`).
pub type NqBlock = Bounded<8>;
/// A queue id within a block (`queue_id < 8`).
pub type NqQueue = Bounded<8>;

/// The mailbox-map family.
pub trait NqMailboxMap {
    /// The 16-entry map, or `Err(NotTraced)`.
    const NQ_MAILBOX_MAP: Result<&'static [DeviceAddr; 16]>;

    /// The mailbox base of queue `queue` of block `block`:
    /// `map[8 * (block > 3) + queue]` [004 §4].
    fn nq_mailbox_base(block: NqBlock, queue: NqQueue) -> Result<DeviceAddr> {
        let map = Self::NQ_MAILBOX_MAP?;
        let i = 8 * usize::from(block.get() > 3) + queue.as_usize();
        map.get(i)
            .copied()
            .ok_or(Error::out_of_range("nq mailbox map index", i as u64, 16))
    }
}
