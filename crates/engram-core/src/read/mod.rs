//! Where a memory is found: [`recall`] fuses the channels — the indexes (`crate::index`),
//! exact keys, the graph and dates ([`channels`], [`dated`]) — weighs what they found by
//! importance and age ([`decay`]), and reorders the best ([`rerank`]); small talk never
//! gets here (`crate::router`). [`cues`], [`spread`], [`timeline`] and [`feedback`] are what
//! a query says beyond its words, and what was said around a match.

pub mod channels;
pub mod cues;
pub mod dated;
pub mod decay;
pub mod feedback;
pub mod ranks;
pub mod recall;
pub mod rerank;
pub mod spread;
pub mod timeline;
