//! [`RefusedRing`]: a refused [`NqRing`](super::NqRing) constructor gives back what it was handed.
//!
//! The engine hands each queue token out once ([`NotificEngine::queue`](super::NotificEngine::queue);
//! asking again is [`Error::QueueTaken`]), so a constructor that dropped the token on a refused
//! config would lose the queue until the engine is brought up again. Like
//! `std::io::IntoInnerError`, the refusal holds the error and the parts: the ring memory, the
//! token and a device ring's zero callback.

use crate::error::Error;
use crate::Mmio;

use super::engine::NqQueue;
use super::ring::HostZero;

/// Why an [`NqRing`](super::NqRing) constructor refused ([`RefusedRing::error`]), with the
/// memory, the [`NqQueue`] token and (device rings) the zero callback it was given
/// ([`RefusedRing::into_parts`]), so the same token can build a ring with another config.
///
/// `?` turns it into its [`Error`] (dropping the parts) in a function that returns khal's
/// [`Result`](crate::Result), and with the `alloc` feature (on with `khal-std`) into a
/// `Box<dyn core::error::Error>` (or `+ Send + Sync`), as in
/// `fn main() -> Result<(), Box<dyn Error>>`: the box holds the [`Error`] alone, so the
/// borrowed memory of a refused ring does not have to outlive the function. (It is not itself
/// a `core::error::Error`: std's blanket `From` would then take over and demand the parts be
/// `'static`.) `Display` and `defmt::Format` print the error's sentence; `Debug` prints the error
/// and the queue index (it needs no `Debug` of the memory or the MMIO handle).
pub struct RefusedRing<'d, R, M: Mmio, Z = HostZero> {
    error: Error,
    mem: R,
    queue: NqQueue<'d, M>,
    zero: Option<Z>,
}

impl<'d, R, M: Mmio, Z> RefusedRing<'d, R, M, Z> {
    /// The refusal of a ring over `mem` on `queue`; `zero` is a device ring's zero callback.
    pub(super) fn new(error: Error, mem: R, queue: NqQueue<'d, M>, zero: Option<Z>) -> Self {
        RefusedRing {
            error,
            mem,
            queue,
            zero,
        }
    }

    /// Why the constructor refused: an invalid config ([`Error::InvalidArgument`]) or, for
    /// `configure_host` / `configure_device`, the error of the queue config's register writes.
    pub const fn error(&self) -> Error {
        self.error
    }

    /// The memory and the queue token, as [`NqRing::into_parts`](super::NqRing::into_parts)
    /// gives them (a device ring's zero callback is dropped; see
    /// [`RefusedRing::into_device_parts`]).
    pub fn into_parts(self) -> (R, NqQueue<'d, M>) {
        (self.mem, self.queue)
    }

    /// The memory, the zero callback (`Some` for a device ring's constructor, `None` for a host
    /// ring's) and the queue token, in the order `NqRing::device` takes them.
    pub fn into_device_parts(self) -> (R, Option<Z>, NqQueue<'d, M>) {
        (self.mem, self.zero, self.queue)
    }
}

impl<R, M: Mmio, Z> From<RefusedRing<'_, R, M, Z>> for Error {
    /// The error alone; the memory and the token are dropped.
    fn from(refused: RefusedRing<'_, R, M, Z>) -> Error {
        refused.error
    }
}

impl<R, M: Mmio, Z> core::fmt::Debug for RefusedRing<'_, R, M, Z> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RefusedRing")
            .field("error", &self.error)
            .field("queue", &self.queue.index())
            .finish_non_exhaustive()
    }
}

impl<R, M: Mmio, Z> core::fmt::Display for RefusedRing<'_, R, M, Z> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Display::fmt(&self.error, f)
    }
}

#[cfg(feature = "alloc")]
extern crate alloc;

/// `?` in `fn main() -> Result<(), Box<dyn Error>>`: the error alone, boxed.
#[cfg(feature = "alloc")]
impl<R, M: Mmio, Z> From<RefusedRing<'_, R, M, Z>> for alloc::boxed::Box<dyn core::error::Error> {
    fn from(refused: RefusedRing<'_, R, M, Z>) -> Self {
        alloc::boxed::Box::new(refused.error)
    }
}

/// `?` in a function returning `Result<_, Box<dyn Error + Send + Sync>>`: the error alone.
#[cfg(feature = "alloc")]
impl<R, M: Mmio, Z> From<RefusedRing<'_, R, M, Z>>
    for alloc::boxed::Box<dyn core::error::Error + Send + Sync>
{
    fn from(refused: RefusedRing<'_, R, M, Z>) -> Self {
        alloc::boxed::Box::new(refused.error)
    }
}

/// The error's `Display` sentence, as [`Error`]'s `defmt::Format` prints it.
#[cfg(feature = "defmt")]
impl<R, M: Mmio, Z> defmt::Format for RefusedRing<'_, R, M, Z> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::Format::format(&self.error, f)
    }
}
