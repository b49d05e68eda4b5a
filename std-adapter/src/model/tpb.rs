//! TPB engine register windows (filled by the engine work).
