//! The DVE dynamic-config loader [000 §4] (filled by the DVE work).
