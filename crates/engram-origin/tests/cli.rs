//! The `engram-origin` binary's command line: `--help` works with no configuration at all,
//! and lists every option with its environment variable.

use std::process::Command;

use engram_origin::config::OPTIONS;

fn origin(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_engram-origin")).args(args).env_clear().output();
    out.unwrap_or_else(|e| panic!("cannot run engram-origin: {e}"))
}

#[test]
fn help_prints_usage_and_every_option_with_its_variable() {
    for flag in ["--help", "-h"] {
        let out = origin(&[flag]);
        assert!(out.status.success(), "{flag}: {:?} {}", out.status, String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("Usage:"), "{text}");
        assert!(text.contains("engram-origin token <tenant> <user> [ttl-seconds]"), "{text}");
        for (name, default, _) in OPTIONS {
            let line = text.lines().find(|l| l.trim_start().starts_with(name));
            let line = line.unwrap_or_else(|| panic!("{name} is not in --help:\n{text}"));
            if !default.is_empty() {
                assert!(line.contains(default), "{line}");
            }
        }
        assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn an_unknown_argument_is_a_usage_error_and_a_missing_secret_points_to_help() {
    let out = origin(&["--bind"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown argument \"--bind\"") && err.contains("ENGRAM_SECRET"), "{err}");

    let out = origin(&[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ENGRAM_SECRET is not set") && err.contains("--help"), "{err}");
}
