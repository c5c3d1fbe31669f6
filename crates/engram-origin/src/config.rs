//! Configuration from the environment.

use std::net::SocketAddr;
use std::time::Duration;

/// Everything the origin needs to run.
#[derive(Debug, Clone)]
pub struct Config {
    /// `MONGODB_URI`: any MongoDB connection string; TLS options (`tls=true`,
    /// `tlsCAFile=…`, `tlsCertificateKeyFile=…`) go in the URI and are honoured by the driver.
    pub mongodb_uri: String,
    /// `ENGRAM_DB` (default `ai_agent_memory`).
    pub database: String,
    /// `ENGRAM_SECRET`: the HMAC key tokens are signed with (at least 32 bytes).
    pub secret: Vec<u8>,
    /// `ENGRAM_BIND` (default `127.0.0.1:8787`).
    pub bind: SocketAddr,
    /// `ENGRAM_MAX_BODY` bytes (default 8 MiB).
    pub max_body: usize,
    /// `ENGRAM_RATE_PER_SEC` sustained requests per user (default 50).
    pub rate_per_sec: f64,
    /// `ENGRAM_RATE_BURST` requests a user may send at once (default 200).
    pub rate_burst: f64,
    /// `ENGRAM_PULL_LIMIT`: most op batches one pull returns (default 200).
    pub pull_limit: i64,
    /// `ENGRAM_REPLICA`: this origin's replica id for the ops it makes itself (forget).
    pub replica: u64,
    /// `ENGRAM_SERVER_SELECTION_MS`: how long to wait for MongoDB per operation (default 5000).
    pub server_selection: Duration,
    /// `ENGRAM_CORS_ORIGINS`: comma-separated origins (`https://app.example`) whose pages may
    /// call the API from a browser (default none).
    pub cors_origins: Vec<String>,
    /// `ENGRAM_HEADER_TIMEOUT_MS`: how long a client may take to send a request's headers,
    /// from its first byte (or from connecting, for the first request), before the origin
    /// closes the connection (default 10000).
    pub header_timeout: Duration,
    /// `ENGRAM_REQUEST_TIMEOUT_MS`: how long one request may take once its headers are in —
    /// reading the body, MongoDB, the answer — before it is answered `503 TIMEOUT` (default 30000).
    pub request_timeout: Duration,
    /// `ENGRAM_IDLE_TIMEOUT_MS`: how long a keep-alive connection may sit between requests,
    /// or an answer may wait for the client to read it, before it is closed (default 60000).
    pub idle_timeout: Duration,
    /// `ENGRAM_MAX_CONNECTIONS`: connections served at once (default 1024); more wait in the
    /// kernel's accept queue, costing the origin no memory, until one closes.
    pub max_connections: usize,
    /// `ENGRAM_PRESSURE_TIMEOUT_MS`: the header and idle timeouts while every connection slot
    /// is taken and another connection waits for one (default 1000).
    pub pressure_timeout: Duration,
}

/// Every setting the origin reads, in the order `--help` prints them: the environment
/// variable, its default as the variable would spell it (`""`: none; `ENGRAM_SECRET` has
/// none and is required), and what it does. A test holds this list to what
/// [`Config::from_lookup`] reads and to the defaults it applies.
pub const OPTIONS: &[(&str, &str, &str)] = &[
    ("ENGRAM_SECRET", "", "required: the HMAC key the HS256 tokens are signed with, at least 32 bytes"),
    ("MONGODB_URI", "mongodb://127.0.0.1:27017/", "any MongoDB connection string; TLS options (tls=true, tlsCAFile=...) go in the URI"),
    ("ENGRAM_DB", "ai_agent_memory", "the database"),
    ("ENGRAM_BIND", "127.0.0.1:8787", "the address to listen on (port 0: any free port, logged as \"addr\")"),
    ("ENGRAM_CORS_ORIGINS", "", "comma-separated origins (https://app.example) whose pages may call the API from a browser"),
    ("ENGRAM_MAX_BODY", "8388608", "largest request body in bytes (8 MiB); larger is 413"),
    ("ENGRAM_RATE_PER_SEC", "50", "sustained requests per second per user; more is 429 with retry-after"),
    ("ENGRAM_RATE_BURST", "200", "requests a user may send at once"),
    ("ENGRAM_PULL_LIMIT", "200", "most op batches one pull returns"),
    ("ENGRAM_REPLICA", "1", "this origin's replica id for the ops it makes itself (forget)"),
    ("ENGRAM_SERVER_SELECTION_MS", "5000", "how long to wait for MongoDB per operation"),
    ("ENGRAM_MAX_CONNECTIONS", "1024", "connections served at once; more wait in the kernel's accept queue"),
    ("ENGRAM_HEADER_TIMEOUT_MS", "10000", "time a client may take to send a request's headers"),
    ("ENGRAM_REQUEST_TIMEOUT_MS", "30000", "time one request may take once its headers are in (then 503 TIMEOUT)"),
    ("ENGRAM_IDLE_TIMEOUT_MS", "60000", "time a keep-alive connection may sit between requests"),
    ("ENGRAM_PRESSURE_TIMEOUT_MS", "1000", "the header and idle timeouts while every connection slot is taken"),
];

/// What `engram-origin --help` prints: the commands and every option with its variable.
pub fn usage() -> String {
    let mut out = String::from(
        "engram-origin: the server every engram replica syncs through (HTTP API over MongoDB)\n\
         \n\
         Usage:\n  \
           engram-origin                                      run the server, configured by the environment below\n  \
           engram-origin token <tenant> <user> [ttl-seconds]  print a token for that user, signed with ENGRAM_SECRET\n                                                     \
           (an HS256 JWT {tenant, sub, exp}; ttl default 3600; for development)\n  \
           engram-origin --help                               print this text\n\
         \n\
         Options (environment variables):\n",
    );
    let width = OPTIONS.iter().map(|(name, ..)| name.len()).max().unwrap_or(0);
    for (name, default, what) in OPTIONS {
        let default = if default.is_empty() { String::new() } else { format!(" (default {default})") };
        out.push_str(&format!("  {name:<width$}  {what}{default}\n"));
    }
    out.push_str(
        "\nExample:\n  \
         ENGRAM_SECRET=a-development-secret-of-32-bytes-or-more MONGODB_URI=mongodb://127.0.0.1:27017/ engram-origin\n",
    );
    out
}

/// A required variable is missing or a value does not parse.
#[derive(Debug, thiserror::Error)]
#[error("configuration: {0}")]
pub struct ConfigError(pub String);

impl Config {
    /// Read the configuration from the process environment.
    pub fn from_env() -> Result<Config, ConfigError> {
        Config::from_lookup(|k| std::env::var(k).ok())
    }

    /// Read the configuration through `get` (tests pass a map).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
        let secret = get("ENGRAM_SECRET").ok_or_else(|| ConfigError("ENGRAM_SECRET is not set".into()))?;
        if secret.len() < 32 {
            return Err(ConfigError("ENGRAM_SECRET must be at least 32 bytes".into()));
        }
        let num = |k: &str, default: f64| -> Result<f64, ConfigError> {
            match get(k) {
                None => Ok(default),
                Some(v) => v.parse::<f64>().ok().filter(|x| x.is_finite() && *x > 0.0).ok_or_else(|| ConfigError(format!("{k} must be a positive number, got {v:?}"))),
            }
        };
        let ms = |k: &str, default: f64| num(k, default).map(|v| Duration::from_millis((v as u64).max(1)));
        let bind = get("ENGRAM_BIND").unwrap_or_else(|| "127.0.0.1:8787".into());
        Ok(Config {
            mongodb_uri: get("MONGODB_URI").unwrap_or_else(|| "mongodb://127.0.0.1:27017/".into()),
            database: get("ENGRAM_DB").unwrap_or_else(|| "ai_agent_memory".into()),
            secret: secret.into_bytes(),
            bind: bind.parse().map_err(|_| ConfigError(format!("ENGRAM_BIND is not an address: {bind:?}")))?,
            max_body: num("ENGRAM_MAX_BODY", 8.0 * 1024.0 * 1024.0)? as usize,
            rate_per_sec: num("ENGRAM_RATE_PER_SEC", 50.0)?,
            rate_burst: num("ENGRAM_RATE_BURST", 200.0)?,
            pull_limit: num("ENGRAM_PULL_LIMIT", 200.0)? as i64,
            replica: num("ENGRAM_REPLICA", 1.0)? as u64,
            server_selection: Duration::from_millis(num("ENGRAM_SERVER_SELECTION_MS", 5000.0)? as u64),
            cors_origins: get("ENGRAM_CORS_ORIGINS")
                .map(|v| v.split(',').map(|o| o.trim().trim_end_matches('/').to_owned()).filter(|o| !o.is_empty()).collect())
                .unwrap_or_default(),
            header_timeout: ms("ENGRAM_HEADER_TIMEOUT_MS", 10_000.0)?,
            request_timeout: ms("ENGRAM_REQUEST_TIMEOUT_MS", 30_000.0)?,
            idle_timeout: ms("ENGRAM_IDLE_TIMEOUT_MS", 60_000.0)?,
            max_connections: (num("ENGRAM_MAX_CONNECTIONS", 1024.0)? as usize).clamp(1, 1 << 20),
            pressure_timeout: ms("ENGRAM_PRESSURE_TIMEOUT_MS", 1000.0)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::BTreeSet;

    const SECRET: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn options_name_every_variable_the_config_reads() {
        let asked = RefCell::new(BTreeSet::new());
        let config = Config::from_lookup(|k| {
            asked.borrow_mut().insert(k.to_owned());
            (k == "ENGRAM_SECRET").then(|| SECRET.to_owned())
        });
        assert!(config.is_ok(), "{config:?}");
        let listed: BTreeSet<String> = OPTIONS.iter().map(|(name, ..)| (*name).to_owned()).collect();
        assert_eq!(listed.len(), OPTIONS.len(), "an option is listed twice");
        assert_eq!(*asked.borrow(), listed);
    }

    #[test]
    fn the_listed_defaults_are_the_defaults() {
        let unset = Config::from_lookup(|k| (k == "ENGRAM_SECRET").then(|| SECRET.to_owned())).map(|c| format!("{c:?}"));
        let unset = unset.unwrap_or_else(|e| panic!("{e}"));
        for (name, default, _) in OPTIONS.iter().filter(|(_, d, _)| !d.is_empty()) {
            let set = Config::from_lookup(|k| match k {
                "ENGRAM_SECRET" => Some(SECRET.to_owned()),
                k if k == *name => Some((*default).to_owned()),
                _ => None,
            });
            assert_eq!(set.map(|c| format!("{c:?}")).ok().as_deref(), Some(unset.as_str()), "{name}={default} is not its default");
        }
    }

    #[test]
    fn usage_prints_every_option_and_its_default() {
        let text = usage();
        for (name, default, what) in OPTIONS {
            let line = text.lines().find(|l| l.trim_start().starts_with(name)).unwrap_or_else(|| panic!("{name} missing:\n{text}"));
            assert!(line.contains(what), "{line}");
            if !default.is_empty() {
                assert!(line.contains(&format!("(default {default})")), "{line}");
            }
        }
        assert!(text.contains("engram-origin token <tenant> <user> [ttl-seconds]"));
    }
}
