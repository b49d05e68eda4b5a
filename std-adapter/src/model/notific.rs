//! The NOTIFIC engine model (filled by the NQ work).
