//! Why old memories fade: a memory's weight is its importance times a time decay (seed
//! 002). The weight orders what recall found — it never hides a match — and its time
//! factor stops at [`RANKING_FLOOR`]. Two decay curves from the design notes are offered:
//!
//! - exponential (seed 002): `0.5^(age / half_life)`, default half-life 30 days;
//! - floored linear (seed 003): `max(0.5, 1 − age / (2 × horizon))`, horizon 90 days —
//!   old memories never lose more than half their weight.

use serde::{Deserialize, Serialize};

use crate::hlc::Millis;

/// One day in milliseconds.
pub const DAY_MS: Millis = 86_400_000;

/// The least time factor a memory's ranking weight keeps, however old it is: the default
/// curve reaches it at 52 days. Recall's fused score falls as `1 / (1 + rank)`, so a best
/// match keeping 0.3 of its weight stays ahead of every fresh match ranked 6th or lower
/// (`2 / 7 < 0.3`) — a match from last year is never buried under a page of fresher,
/// weaker ones, while close fresh matches still pass it.
pub const RANKING_FLOOR: f32 = 0.3;

/// How a memory's weight decays with age.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum Decay {
    /// `0.5^(age / half_life)`.
    Exponential { half_life_ms: Millis },
    /// `max(floor, 1 − age / (2 × horizon))`.
    FlooredLinear { horizon_ms: Millis, floor: f32 },
    /// No decay.
    None,
}

impl Default for Decay {
    fn default() -> Self {
        Decay::Exponential { half_life_ms: 30 * DAY_MS }
    }
}

impl Decay {
    /// The seed-003 curve: `max(0.5, 1 − age / 180 days)`.
    pub fn seed003() -> Self {
        Decay::FlooredLinear { horizon_ms: 90 * DAY_MS, floor: 0.5 }
    }

    /// The time factor in [0, 1] for a memory of age `age_ms` (negative ages count as 0).
    pub fn factor(&self, age_ms: Millis) -> f32 {
        let age = age_ms.max(0) as f64;
        match *self {
            Decay::Exponential { half_life_ms } if half_life_ms > 0 => 0.5f64.powf(age / half_life_ms as f64) as f32,
            Decay::Exponential { .. } => 1.0,
            Decay::FlooredLinear { horizon_ms, floor } if horizon_ms > 0 => {
                (1.0 - age / (2.0 * horizon_ms as f64)).max(f64::from(floor)) as f32
            }
            Decay::FlooredLinear { .. } | Decay::None => 1.0,
        }
    }

    /// `importance × max(factor(age), RANKING_FLOOR)`: the weight a memory carries into
    /// ranking. Its time factor stops at the floor: past it, age only breaks ties.
    pub fn weight(&self, importance: f32, age_ms: Millis) -> f32 {
        ranking_weight(importance, self.factor(age_ms))
    }
}

/// `importance × max(factor, RANKING_FLOOR)`, importance clamped to [0, 1]: the weight of
/// a memory whose time factor is `factor` (recall passes 1 for a keyed fact in force).
pub fn ranking_weight(importance: f32, factor: f32) -> f32 {
    importance.clamp(0.0, 1.0) * factor.max(RANKING_FLOOR)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_memory_loses_half_its_weight_per_half_life_down_to_the_ranking_floor() {
        let d = Decay::default();
        assert!((d.factor(30 * DAY_MS) - 0.5).abs() < 1e-6);
        assert!((d.factor(60 * DAY_MS) - 0.25).abs() < 1e-6);
        assert!((d.weight(0.8, 30 * DAY_MS) - 0.4).abs() < 1e-6);
        assert!((d.weight(0.8, 45 * DAY_MS) - 0.8 * 0.5f32.powf(1.5)).abs() < 1e-6);
        assert!((d.weight(0.8, 60 * DAY_MS) - 0.8 * RANKING_FLOOR).abs() < 1e-6, "past 52 days the factor stops at the floor");
        assert!((d.weight(0.8, 3650 * DAY_MS) - 0.8 * RANKING_FLOOR).abs() < 1e-6);
    }

    #[test]
    fn the_seed_003_curve_never_drops_below_half() {
        let d = Decay::seed003();
        assert!((d.factor(0) - 1.0).abs() < 1e-6);
        assert!((d.factor(90 * DAY_MS) - 0.5).abs() < 1e-6);
        assert!((d.factor(400 * DAY_MS) - 0.5).abs() < 1e-6);
        assert!((d.factor(45 * DAY_MS) - 0.75).abs() < 1e-6);
    }

    proptest! {
        #[test]
        fn decay_is_monotonic_in_time(a in 0i64..10_000 * DAY_MS, b in 0i64..10_000 * DAY_MS, hl in 1i64..1000 * DAY_MS) {
            let (young, old) = if a <= b { (a, b) } else { (b, a) };
            for d in [Decay::Exponential { half_life_ms: hl }, Decay::FlooredLinear { horizon_ms: hl, floor: 0.5 }] {
                prop_assert!(d.factor(old) <= d.factor(young));
                prop_assert!((0.0..=1.0).contains(&d.factor(old)));
                prop_assert!(d.weight(0.5, old) <= d.weight(0.5, young));
                prop_assert!(d.weight(0.5, old) >= 0.5 * RANKING_FLOOR);
            }
        }
    }
}
