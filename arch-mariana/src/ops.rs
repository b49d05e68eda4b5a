//! MARIANA engine, notific and INTC leaf operations (filled by the engine work).
