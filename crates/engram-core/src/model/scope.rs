//! Who a memory belongs to. A user's data is one partition: `(tenant, user)`.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The longest tenant, user, agent or session id accepted.
pub const MAX_ID_LEN: usize = crate::model::limits::MAX_SCOPE_ID;

/// The user id of a tenant's procedures partition (see [`crate::procedures`]):
/// reserved, so no user's scope can name it and no user write path can reach it.
pub const PROCEDURES_USER: &str = "~procedures";

/// The user id of a tenant's library partition, the documents the operator shares with
/// every user of the tenant (see [`crate::archive::library`]): reserved like
/// [`PROCEDURES_USER`].
pub const LIBRARY_USER: &str = "~library";

/// The partition key: every read and write names exactly one of these.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct UserKey {
    pub tenant: String,
    pub user: String,
}

impl UserKey {
    /// The partition of `tenant`'s operator-written procedures.
    pub fn procedures(tenant: impl Into<String>) -> Self {
        UserKey { tenant: tenant.into(), user: PROCEDURES_USER.to_owned() }
    }

    /// True for a tenant's procedures partition (not a user's).
    pub fn is_procedures(&self) -> bool {
        self.user == PROCEDURES_USER
    }

    /// The partition of the documents `tenant`'s operator shares with every user.
    pub fn library(tenant: impl Into<String>) -> Self {
        UserKey { tenant: tenant.into(), user: LIBRARY_USER.to_owned() }
    }

    /// True for a tenant's library partition (not a user's).
    pub fn is_library(&self) -> bool {
        self.user == LIBRARY_USER
    }

    /// True for a partition of the whole tenant, written by the operator and read by every
    /// user's replica (procedures, library), never a user's own.
    pub fn is_tenant_partition(&self) -> bool {
        self.is_procedures() || self.is_library()
    }
}

/// Where a memory lives: a user of a tenant, optionally narrowed to an agent and a session.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scope {
    pub tenant: String,
    pub user: String,
    pub agent: Option<String>,
    pub session: Option<String>,
}

impl Scope {
    /// A scope for `user` of `tenant`, with no agent or session.
    pub fn user(tenant: impl Into<String>, user: impl Into<String>) -> Self {
        Scope { tenant: tenant.into(), user: user.into(), agent: None, session: None }
    }

    /// The same scope narrowed to `session`.
    pub fn with_session(mut self, session: impl Into<String>) -> Self {
        self.session = Some(session.into());
        self
    }

    /// The same scope narrowed to `agent`.
    pub fn with_agent(mut self, agent: impl Into<String>) -> Self {
        self.agent = Some(agent.into());
        self
    }

    /// The partition this scope reads and writes.
    pub fn user_key(&self) -> UserKey {
        UserKey { tenant: self.tenant.clone(), user: self.user.clone() }
    }

    /// The scope of `tenant`'s procedures partition. Only the procedure API and sync use it:
    /// [`Scope::validate`] refuses it, so `remember`, `recall`, `forget_user`… cannot.
    pub fn procedures(tenant: impl Into<String>) -> Self {
        Scope::user(tenant, PROCEDURES_USER)
    }

    /// The scope of `tenant`'s library partition. Only the library API and sync use it:
    /// [`Scope::validate`] refuses it.
    pub fn library(tenant: impl Into<String>) -> Self {
        Scope::user(tenant, LIBRARY_USER)
    }

    /// Refuse empty or oversized ids, control characters in them, and the reserved user ids
    /// of a tenant's procedures ([`PROCEDURES_USER`]) and library ([`LIBRARY_USER`]): a
    /// user's scope never names them.
    pub fn validate(&self) -> Result<()> {
        if self.user == PROCEDURES_USER {
            return Err(Error::invalid("scope.user", format!("{PROCEDURES_USER:?} is reserved for the tenant's procedures (put_procedure, procedures)")));
        }
        if self.user == LIBRARY_USER {
            return Err(Error::invalid("scope.user", format!("{LIBRARY_USER:?} is reserved for the tenant's library (put_library_document, library_documents)")));
        }
        self.validate_partition()
    }

    /// [`Scope::validate`] without refusing the tenant's partitions: for ops and tokens,
    /// which may name them (an operator's replica syncs them).
    pub fn validate_partition(&self) -> Result<()> {
        check_id("scope.tenant", &self.tenant)?;
        check_id("scope.user", &self.user)?;
        if let Some(a) = &self.agent {
            check_id("scope.agent", a)?;
        }
        if let Some(s) = &self.session {
            check_id("scope.session", s)?;
        }
        Ok(())
    }

    /// The session id, or an error naming the operation that needs one.
    pub fn require_session(&self) -> Result<&str> {
        self.session.as_deref().ok_or_else(|| Error::invalid("scope.session", "this operation needs a session id"))
    }
}

fn check_id(field: &'static str, v: &str) -> Result<()> {
    crate::model::limits::check_id(field, v, MAX_ID_LEN)
}
