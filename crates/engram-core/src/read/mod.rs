//! Where a memory is found: [`recall`] fuses the channels — the indexes (`crate::index`),
//! exact keys, the graph and dates ([`channels`], [`dated`]) — weighs what they found by
//! importance and age ([`decay`]), and reorders the best ([`rerank`]); small talk never
//! gets here (`crate::router`). [`cues`], [`spread`], [`timeline`] and [`feedback`] are what
//! a query says beyond its words, and what was said around a match.

/// `$value`, one of recall's constants fitted on LoCoMo's development split, or the test
/// kit's override of it (`testing::fitted::Fitted::$knob`) in a build with the `testing`
/// feature; the shipped build reads `$value` and nothing else.
macro_rules! fitted {
    ($knob:ident, $value:expr) => {{
        #[cfg(any(test, feature = "testing"))]
        let value = crate::testing::fitted::get(crate::testing::fitted::Fitted::$knob).unwrap_or($value);
        #[cfg(not(any(test, feature = "testing")))]
        let value = $value;
        value
    }};
}

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
