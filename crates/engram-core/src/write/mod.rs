//! Where a memory goes in: the one write pipeline ([`prepare`]: validate, redact, extract,
//! then commit with vectors), the memory side of it ([`remember`]: exact dedup,
//! near-duplicates, supersession), and the rules that settle a conflict between a new
//! value and the current one ([`conflict`], [`resolution`]).

pub mod conflict;
pub mod prepare;
pub mod remember;
pub mod resolution;
