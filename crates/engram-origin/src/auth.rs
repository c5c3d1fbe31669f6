//! Tokens: a JWT signed with HMAC-SHA256 (`HS256`) naming the tenant (`tenant`) and the
//! user (`sub`), with a required expiry (`exp`, seconds since the epoch). Any JWT library
//! can mint one. The origin derives the user of every request from the token alone, never
//! from the request. Only `HS256` is accepted (no `none`, no algorithm from the token).

use std::time::{SystemTime, UNIX_EPOCH};

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::error::ApiError;
use engram_core::UserKey;

type HmacSha256 = Hmac<Sha256>;

/// Seconds of clock skew tolerated on `exp`.
const LEEWAY: u64 = 5;

/// The claims of an engram token.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// The tenant.
    pub tenant: String,
    /// The user.
    pub sub: String,
    /// Expiry, seconds since the Unix epoch.
    pub exp: u64,
}

#[derive(Deserialize)]
struct Header {
    alg: String,
}

/// Signs and checks tokens with one secret.
#[derive(Clone)]
pub struct Auth {
    secret: Vec<u8>,
}

impl Auth {
    /// Tokens signed with `secret`.
    pub fn new(secret: &[u8]) -> Result<Auth, ApiError> {
        if secret.is_empty() {
            return Err(ApiError::BadRequest("token secret is empty".into()));
        }
        Ok(Auth { secret: secret.to_vec() })
    }

    fn mac(&self) -> HmacSha256 {
        // HMAC takes keys of any length; this cannot fail.
        <HmacSha256 as Mac>::new_from_slice(&self.secret).unwrap_or_else(|_| unreachable!("HMAC accepts any key length"))
    }

    /// A token for `user` valid until `exp` (seconds since the epoch).
    pub fn mint(&self, user: &UserKey, exp: u64) -> Result<String, ApiError> {
        let claims = Claims { tenant: user.tenant.clone(), sub: user.user.clone(), exp };
        let body = serde_json::to_vec(&claims).map_err(|e| ApiError::BadRequest(e.to_string()))?;
        let signed = format!("{}.{}", b64url(br#"{"alg":"HS256","typ":"JWT"}"#), b64url(&body));
        let mut mac = self.mac();
        mac.update(signed.as_bytes());
        Ok(format!("{signed}.{}", b64url(&mac.finalize().into_bytes())))
    }

    /// The user a bearer `Authorization` header value names, if it is valid.
    pub fn check(&self, header: Option<&str>) -> Result<UserKey, ApiError> {
        let bad = |why: &str| ApiError::Unauthorized(why.to_owned());
        let header = header.ok_or_else(|| bad("missing Authorization header"))?;
        let token = header.strip_prefix("Bearer ").ok_or_else(|| bad("Authorization must be `Bearer <token>`"))?.trim();
        let mut parts = token.split('.');
        let (Some(h), Some(p), Some(s), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
            return Err(bad("token is not a JWT (three dot-separated parts)"));
        };
        let head: Header = serde_json::from_slice(&un_b64url(h).ok_or_else(|| bad("token header is not base64url"))?).map_err(|_| bad("token header is not JSON"))?;
        if head.alg != "HS256" {
            return Err(bad("token algorithm must be HS256"));
        }
        let sig = un_b64url(s).ok_or_else(|| bad("token signature is not base64url"))?;
        let mut mac = self.mac();
        mac.update(h.as_bytes());
        mac.update(b".");
        mac.update(p.as_bytes());
        mac.verify_slice(&sig).map_err(|_| bad("token signature does not match"))?;
        let c: Claims = serde_json::from_slice(&un_b64url(p).ok_or_else(|| bad("token claims are not base64url"))?).map_err(|_| bad("token claims need tenant, sub and a numeric exp"))?;
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        if c.exp.saturating_add(LEEWAY) < now {
            return Err(bad("token expired"));
        }
        let user = UserKey { tenant: c.tenant, user: c.sub };
        engram_core::Scope::user(user.tenant.clone(), user.user.clone()).validate_partition().map_err(|e| ApiError::Unauthorized(format!("token names an invalid user: {e}")))?;
        Ok(user)
    }
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Base64url without padding.
fn b64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// Decode base64url without padding; `None` on any other character or a bad length.
fn un_b64url(s: &str) -> Option<Vec<u8>> {
    if s.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    for chunk in s.as_bytes().chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            let v = ALPHABET.iter().position(|a| a == c)? as u32;
            n |= v << (18 - 6 * i);
        }
        for i in 0..chunk.len() - 1 {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64url_round_trips_every_length() {
        for len in 0..40 {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 37 + 11) as u8).collect();
            assert_eq!(un_b64url(&b64url(&bytes)).unwrap(), bytes);
        }
        assert_eq!(b64url(b"hi?"), "aGk_");
        assert!(un_b64url("a+b=").is_none());
    }

    #[test]
    fn a_token_checks_only_with_its_secret_its_algorithm_and_before_expiry() {
        let auth = Auth::new(b"0123456789abcdef0123456789abcdef").unwrap();
        let alice = UserKey { tenant: "t".into(), user: "alice".into() };
        let far = 4_000_000_000;
        let t = auth.mint(&alice, far).unwrap();
        assert_eq!(auth.check(Some(&format!("Bearer {t}"))).unwrap(), alice);
        let other = Auth::new(b"another secret, another secret!!").unwrap();
        assert_eq!(other.check(Some(&format!("Bearer {t}"))).unwrap_err().code(), "UNAUTHORIZED");
        let expired = auth.mint(&alice, 1_000).unwrap();
        assert!(auth.check(Some(&format!("Bearer {expired}"))).is_err());
        // alg "none" with the same claims and no signature is refused.
        let parts: Vec<&str> = t.split('.').collect();
        let none = format!("{}.{}.", b64url(br#"{"alg":"none"}"#), parts[1]);
        assert!(auth.check(Some(&format!("Bearer {none}"))).is_err());
        // A tampered payload fails the signature.
        let forged = format!("{}.{}.{}", parts[0], b64url(br#"{"tenant":"t","sub":"bob","exp":4000000000}"#), parts[2]);
        assert!(auth.check(Some(&format!("Bearer {forged}"))).is_err());
        assert!(auth.check(Some(&t)).is_err(), "no Bearer prefix");
    }
}
