//! Tokens: a JWT signed with HMAC-SHA256 (`HS256`) naming the tenant (`tenant`) and the
//! user (`sub`), with an expiry (`exp`, required). Any JWT library can mint one; the
//! origin derives the user of every request from the token alone, never from the request.

use jsonwebtoken::{decode, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use engram_core::UserKey;

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

/// Signs and checks tokens with one secret.
#[derive(Clone)]
pub struct Auth {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
}

impl Auth {
    /// Tokens signed with `secret`.
    pub fn new(secret: &[u8]) -> Result<Auth, ApiError> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 5;
        validation.set_required_spec_claims(&["exp", "sub"]);
        let bad = |e: jsonwebtoken::errors::Error| ApiError::BadRequest(format!("token secret: {e}"));
        Ok(Auth { encoding: EncodingKey::from_secret(secret).map_err(bad)?, decoding: DecodingKey::from_secret(secret).map_err(bad)?, validation })
    }

    /// A token for `user` valid until `exp` (seconds since the epoch).
    pub fn mint(&self, user: &UserKey, exp: u64) -> Result<String, ApiError> {
        let claims = Claims { tenant: user.tenant.clone(), sub: user.user.clone(), exp };
        encode(&Header::new(Algorithm::HS256), &claims, &self.encoding).map_err(|e| ApiError::BadRequest(e.to_string()))
    }

    /// The user a bearer `Authorization` header value names, if it is valid.
    pub fn check(&self, header: Option<&str>) -> Result<UserKey, ApiError> {
        let header = header.ok_or_else(|| ApiError::Unauthorized("missing Authorization header".into()))?;
        let token = header.strip_prefix("Bearer ").ok_or_else(|| ApiError::Unauthorized("Authorization must be `Bearer <token>`".into()))?;
        let data = decode::<Claims>(token.trim(), &self.decoding, &self.validation).map_err(|e| ApiError::Unauthorized(e.to_string()))?;
        let c = data.claims;
        let user = UserKey { tenant: c.tenant, user: c.sub };
        engram_core::Scope::user(user.tenant.clone(), user.user.clone()).validate().map_err(|e| ApiError::Unauthorized(format!("token names an invalid user: {e}")))?;
        Ok(user)
    }
}
