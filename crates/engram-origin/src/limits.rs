//! Per-user rate limiting: a token bucket per (tenant, user). Keyed by the token's user
//! rather than the client address, so clients behind one NAT do not throttle each other
//! and one user cannot exhaust another's budget.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use engram_core::UserKey;

/// Token buckets for every user seen recently.
pub struct RateLimiter {
    per_sec: f64,
    burst: f64,
    buckets: Mutex<HashMap<UserKey, (f64, Instant)>>,
}

impl RateLimiter {
    /// `per_sec` sustained requests per user, `burst` at once.
    pub fn new(per_sec: f64, burst: f64) -> Self {
        RateLimiter { per_sec, burst, buckets: Mutex::default() }
    }

    /// Take one request from the user's bucket: `Ok` or how long to wait, in ms.
    pub fn take(&self, user: &UserKey, now: Instant) -> Result<(), u64> {
        let Ok(mut buckets) = self.buckets.lock() else { return Ok(()) };
        if buckets.len() > 100_000 {
            // Forget users whose bucket has refilled; they are indistinguishable from new ones.
            let full = self.burst / self.per_sec;
            buckets.retain(|_, (_, at)| now.duration_since(*at).as_secs_f64() < full);
        }
        let (tokens, at) = buckets.entry(user.clone()).or_insert((self.burst, now));
        *tokens = (*tokens + now.duration_since(*at).as_secs_f64() * self.per_sec).min(self.burst);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            Err((((1.0 - *tokens) / self.per_sec) * 1000.0).ceil() as u64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_user_gets_the_burst_then_waits_and_others_are_unaffected() {
        let rl = RateLimiter::new(10.0, 3.0);
        let a = UserKey { tenant: "t".into(), user: "a".into() };
        let b = UserKey { tenant: "t".into(), user: "b".into() };
        let t0 = Instant::now();
        for _ in 0..3 {
            assert!(rl.take(&a, t0).is_ok());
        }
        let wait = rl.take(&a, t0).unwrap_err();
        assert_eq!(wait, 100);
        assert!(rl.take(&b, t0).is_ok(), "another user has its own bucket");
        assert!(rl.take(&a, t0 + Duration::from_millis(100)).is_ok(), "refilled after 100 ms");
        assert!(rl.take(&a, t0 + Duration::from_millis(100)).is_err());
    }
}
