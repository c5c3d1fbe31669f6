//! Recall's constants that were chosen by measuring on LoCoMo's development split, made
//! settable for the test kit's three-fold check (`locomo-folds`: fit on two of the three
//! conversations, measure on the third). With the `testing` feature only: the shipped
//! module reads the constants themselves (see the `fitted!` macro of `crate::read`).
//!
//! An override is process-wide and unset by default; set it from one thread, between
//! recalls.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::error::{Error, Result};

/// A constant of recall fitted on the development split.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fitted {
    /// The share of a neighbouring turn's lexical score a memory counts as its own
    /// (`read::spread`, 0.4).
    LexicalSpread,
    /// The bonus of a line said by a speaker the query names (`read::rerank`, 0.2).
    SpeakerBonus,
}

/// No override: the bits of a NaN no caller can set (`set` refuses NaN).
const UNSET: u32 = u32::MAX;
static VALUES: [AtomicU32; 2] = [AtomicU32::new(UNSET), AtomicU32::new(UNSET)];

/// Override `knob` with `value` (finite, not negative), or restore its constant with `None`.
pub fn set(knob: Fitted, value: Option<f32>) -> Result<()> {
    if let Some(v) = value {
        if !v.is_finite() || v < 0.0 {
            return Err(Error::invalid("fitted", format!("{knob:?} must be a finite number ≥ 0, not {v}")));
        }
    }
    VALUES[knob as usize].store(value.map_or(UNSET, f32::to_bits), Ordering::Relaxed);
    Ok(())
}

/// The override of `knob`, if one is set.
pub fn get(knob: Fitted) -> Option<f32> {
    let bits = VALUES[knob as usize].load(Ordering::Relaxed);
    (bits != UNSET).then(|| f32::from_bits(bits))
}
