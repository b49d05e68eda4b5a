//! Engine bring-up and dispatch [002] (filled by the engine work).
