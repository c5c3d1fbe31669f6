//! Where memories are kept: one [`partition`] per user (records by slot and the indexes
//! over them), the working memory of a session ([`session`], [`working`]), and the
//! [`ops`] — the change log every replica exchanges.

pub mod ops;
pub mod partition;
pub mod session;
pub mod validate;
pub mod working;
