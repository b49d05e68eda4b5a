//! khal on a real host: the vendor driver's device node `/dev/neuronN` as
//! register window, DMA memory and NQ rings [FACTS §14].
//!
//! - [`sys`]: the seam ([`NeuronSys`]: ioctl with a raw command number and
//!   argument bytes; mmap / munmap) and its real implementation ([`DevNode`]);
//!   nothing above it calls the OS.
//! - [`abi`]: the command numbers and argument layouts in khal's own words,
//!   checked at compile time against FACTS §14.2.
//! - [`device`]: [`Neuron::open`]: DEVICE_BASIC_INFO, DEVICE_INFO, the arch.
//! - [`window`]: the per-arch BAR0 window table; [`mmio`]: khal's `Mmio`
//!   over BAR_READ / BAR_WRITE.
//! - [`dma`]: host chunks (MEM_ALLOC_V2MT) as `DmaMemory`.
//! - [`nq`]: NQ rings the driver allocates, adopted by `NqRing`; NC reset.
//! - [`fake`]: the in-process fake driver the tests and `khal demo --device
//!   fake` run on.
//!
//! Linux only: the node is Linux's.

pub mod abi;
pub mod device;
pub mod dma;
pub mod error;
pub mod fake;
pub mod mmio;
pub mod nq;
pub mod sys;
pub mod window;

pub use device::Neuron;
pub use dma::{HostAlloc, NeuronDma, SharedPages};
pub use error::NeuronError;
pub use fake::FakeDriver;
pub use nq::{NqDevType, NqId, NqType};
pub use sys::{DevNode, Errno, Mapping, NeuronSys};
pub use window::{Bar0Map, Bar0Window};
