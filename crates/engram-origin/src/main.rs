//! `engram-origin` — run the server (configuration from the environment, see
//! [`engram_origin::Config`]), or `engram-origin token <tenant> <user> [ttl-seconds]` to
//! print a token signed with `ENGRAM_SECRET`; `engram-origin --help` lists every option.

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use engram_origin::{auth::Auth, config::usage, Config};

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--help" | "-h" | "help") => {
            print!("{}", usage());
            return ExitCode::SUCCESS;
        }
        None | Some("token") => {}
        Some(other) => {
            eprintln!("engram-origin: unknown argument {other:?}\n\n{}", usage());
            return ExitCode::from(2);
        }
    }
    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("{e} (engram-origin --help lists every option)");
            return ExitCode::from(2);
        }
    };
    if args.first().map(String::as_str) == Some("token") {
        let (Some(tenant), Some(user)) = (args.get(1), args.get(2)) else {
            eprintln!("usage: engram-origin token <tenant> <user> [ttl-seconds]");
            return ExitCode::from(2);
        };
        let ttl: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(3600);
        let now = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
        let key = engram_core::UserKey { tenant: tenant.clone(), user: user.clone() };
        return match Auth::new(&config.secret).and_then(|a| a.mint(&key, now + ttl)) {
            Ok(t) => {
                println!("{t}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        };
    }
    let state = match engram_origin::state(config.clone(), engram_origin::stderr_log()).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{{\"level\":\"error\",\"op\":\"start\",\"code\":\"{}\"}}", e.code());
            return ExitCode::FAILURE;
        }
    };
    // A deeper accept queue than the default 128: past ENGRAM_MAX_CONNECTIONS, connections
    // wait there (in the kernel) for a slot.
    let listen = || -> std::io::Result<tokio::net::TcpListener> {
        let socket = if config.bind.is_ipv4() { tokio::net::TcpSocket::new_v4()? } else { tokio::net::TcpSocket::new_v6()? };
        socket.set_reuseaddr(true)?;
        socket.bind(config.bind)?;
        socket.listen(1024)
    };
    let listener = match listen() {
        Ok(l) => l,
        Err(e) => {
            eprintln!("cannot bind {}: {e}", config.bind);
            return ExitCode::FAILURE;
        }
    };
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    match engram_origin::serve(listener, state, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("server error: {e}");
            ExitCode::FAILURE
        }
    }
}
