//! `generate RECORDS [SEED] > corpus.jsonl`: the synthetic snapshot corpus.

use std::io::{BufWriter, Write};

fn main() {
    let mut args = std::env::args().skip(1);
    let count: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(42);
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 20, stdout.lock());
    if let Err(e) = distml_search_scale::generate(seed, count, &mut out).and_then(|()| out.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("generate: {e}");
        std::process::exit(2);
    }
}
