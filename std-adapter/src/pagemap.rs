//! `/proc/self/pagemap` bus-address translation for real hosts (filled by the DMA work).
