//! What the benchmark bins share: reading `--name value` arguments and percentiles.

/// The value after `--name` on the command line, if given.
pub fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

/// The `p` quantile (0..=1) of `v`, nearest rank. Panics on an empty `v` (bins only).
pub fn pct(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}
