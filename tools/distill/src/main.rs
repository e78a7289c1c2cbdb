//! Builds a model2vec-style static embedding table from all-MiniLM-L6-v2,
//! and measures the full transformer beside it. See data/embed/README.md.
//!
//!   distill --model DIR --out FILE [--pool mean|middle]   (also writes tokenizer.json beside FILE)
//!   embed   --model DIR --in FILE.jsonl --out FILE.f32
//!   check   --model DIR [--table FILE]

use anyhow::{Context, Result, anyhow, bail, ensure};
use candle_core::{D, DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use linfa_linalg::{
    Order,
    eigh::{EigSort, Eigh},
};
use ndarray::{Array2, Axis, s};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;
use tokenizers::{Tokenizer, TruncationParams};

const MAGIC: &[u8; 8] = b"DMLEMB01";
const PCA_DIMS: usize = 256;
const SIF_COEFF: f64 = 1e-4;
/// Tokens per forward pass when distilling; every sequence is 3 long, so
/// large batches keep the matmuls big enough to use both cores well.
const DISTILL_BATCH: usize = 1024;
const EMBED_BATCH: usize = 32;
const MAX_TOKENS: usize = 256;

fn main() -> Result<()> {
    // glibc gives each large tensor (attention scores: ~80 MB a batch) a fresh
    // mmap, and faulting those pages in cost a third of embed's CPU time.
    // Keeping freed memory in the heap instead removes that.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 30);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((cmd, rest)) = args.split_first() else {
        bail!("usage: distill <distill|embed|check> [--flag value]...");
    };
    let flags = parse_flags(rest)?;
    let get = |k: &str| {
        flags
            .get(k)
            .map(PathBuf::from)
            .ok_or_else(|| anyhow!("missing --{k}"))
    };
    match cmd.as_str() {
        "distill" => {
            let pool = flags.get("pool").map_or("mean", String::as_str);
            distill(&get("model")?, &get("out")?, pool)
        }
        "embed" => embed(&get("model")?, &get("in")?, &get("out")?),
        "check" => {
            let table = get("table").unwrap_or_else(|_| "data/embed/static-minilm.bin".into());
            check(&get("model")?, &table)
        }
        _ => bail!("unknown subcommand {cmd}"),
    }
}

fn parse_flags(rest: &[String]) -> Result<HashMap<String, String>> {
    ensure!(
        rest.len().is_multiple_of(2),
        "flags come in --name value pairs"
    );
    rest.chunks(2)
        .map(|kv| {
            let k = kv[0]
                .strip_prefix("--")
                .context("flag must start with --")?;
            Ok((k.to_string(), kv[1].clone()))
        })
        .collect()
}

fn tok_err(e: tokenizers::Error) -> anyhow::Error {
    anyhow!("tokenizer: {e}")
}

struct Encoder {
    model: BertModel,
    tok: Tokenizer,
    dev: Device,
}

impl Encoder {
    fn load(dir: &Path) -> Result<Self> {
        let dev = Device::Cpu;
        let cfg: Config = serde_json::from_slice(&std::fs::read(dir.join("config.json"))?)?;
        // SAFETY: the weights file is not modified while mapped.
        let vb = unsafe {
            VarBuilder::from_mmaped_safetensors(&[dir.join("model.safetensors")], DType::F32, &dev)?
        };
        let model = BertModel::load(vb, &cfg)?;
        let mut tok = Tokenizer::from_file(dir.join("tokenizer.json")).map_err(tok_err)?;
        // The shipped tokenizer pads and truncates everything to 128; we pad per
        // batch ourselves and allow longer inputs.
        tok.with_padding(None);
        tok.with_truncation(Some(TruncationParams {
            max_length: MAX_TOKENS,
            ..Default::default()
        }))
        .map_err(tok_err)?;
        ensure!(
            tok.get_vocab_size(true) == cfg.vocab_size,
            "vocab size mismatch"
        );
        Ok(Self { model, tok, dev })
    }

    /// Runs the encoder on right-padded rows; returns the last hidden state
    /// (batch, len, hidden) and the mask as f32 (batch, len).
    fn forward(&self, rows: &[&[u32]]) -> Result<(Tensor, Tensor)> {
        let len = rows.iter().map(|r| r.len()).max().unwrap_or(0);
        let (mut ids, mut mask) = (vec![0u32; rows.len() * len], vec![0u32; rows.len() * len]);
        for (i, r) in rows.iter().enumerate() {
            ids[i * len..i * len + r.len()].copy_from_slice(r);
            mask[i * len..i * len + r.len()].fill(1);
        }
        let ids = Tensor::from_vec(ids, (rows.len(), len), &self.dev)?;
        let mask = Tensor::from_vec(mask, (rows.len(), len), &self.dev)?;
        let hidden = self.model.forward(&ids, &ids.zeros_like()?, Some(&mask))?;
        Ok((hidden, mask.to_dtype(DType::F32)?))
    }

    /// Mean-pools over real (unpadded) positions, as sentence-transformers does.
    fn mean_pooled(&self, rows: &[&[u32]]) -> Result<Tensor> {
        let (h, m) = self.forward(rows)?;
        let m3 = m.unsqueeze(2)?;
        Ok(h.broadcast_mul(&m3)?
            .sum(1)?
            .broadcast_div(&m.sum_keepdim(1)?)?)
    }

    /// Sentence embeddings, L2-normalized, in input order.
    fn embed_texts(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let encs = self
            .tok
            .encode_batch(texts.to_vec(), true)
            .map_err(tok_err)?;
        // Batch texts of similar length together so little compute goes to padding.
        let mut order: Vec<usize> = (0..encs.len()).collect();
        order.sort_by_key(|&i| encs[i].get_ids().len());
        let mut out = vec![Vec::new(); encs.len()];
        for chunk in order.chunks(EMBED_BATCH) {
            let rows: Vec<&[u32]> = chunk.iter().map(|&i| encs[i].get_ids()).collect();
            let pooled = l2_normalize(&self.mean_pooled(&rows)?)?;
            for (&i, v) in chunk.iter().zip(pooled.to_vec2::<f32>()?) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

fn l2_normalize(t: &Tensor) -> Result<Tensor> {
    Ok(t.broadcast_div(&t.sqr()?.sum_keepdim(D::Minus1)?.sqrt()?)?)
}

/// Tokens that never occur in real text, or only as structure; their rows are zeroed.
fn is_special(token: &str) -> bool {
    matches!(token, "[PAD]" | "[CLS]" | "[SEP]" | "[MASK]")
        || (token.starts_with("[unused") && token.ends_with(']'))
}

fn distill(model_dir: &Path, out: &Path, pool: &str) -> Result<()> {
    let start = Instant::now();
    let enc = Encoder::load(model_dir)?;
    let vocab = enc.tok.get_vocab_size(true);
    let id = |t: &str| enc.tok.token_to_id(t).with_context(|| format!("no {t}"));
    let (cls, sep) = (id("[CLS]")?, id("[SEP]")?);

    // 1. Every token through the encoder as [CLS] token [SEP].
    let seqs: Vec<[u32; 3]> = (0..vocab as u32).map(|t| [cls, t, sep]).collect();
    let mut rows: Vec<f32> = Vec::new();
    for (n, chunk) in seqs.chunks(DISTILL_BATCH).enumerate() {
        let batch: Vec<&[u32]> = chunk.iter().map(|s| &s[..]).collect();
        let v = match pool {
            "mean" => enc.mean_pooled(&batch)?,
            "middle" => enc.forward(&batch)?.0.narrow(1, 1, 1)?.squeeze(1)?,
            _ => bail!("--pool must be mean or middle"),
        };
        rows.extend(v.flatten_all()?.to_vec1::<f32>()?);
        eprint!("\rencoded {}/{vocab}", (n * DISTILL_BATCH + chunk.len()));
    }
    eprintln!();
    let hidden = rows.len() / vocab;
    let encode_secs = start.elapsed().as_secs_f64();

    // 2. PCA to 256 dims, fitted on all rows (as model2vec does). Exact:
    // eigendecomposition of the 384x384 covariance. linfa-reduction's Pca was
    // tried and rejected: its LOBPCG solver is meant for a few components and,
    // asked for 256 of 384, kept only 66% of the variance instead of 96%.
    let x = Array2::from_shape_vec((vocab, hidden), rows)?.mapv(f64::from);
    let xc = &x - &x.mean_axis(Axis(0)).context("empty")?;
    let (vals, vecs) = xc.t().dot(&xc).eigh()?.sort_eig(Order::Largest);
    let mut y = xc.dot(&vecs.slice(s![.., ..PCA_DIMS]));
    eprintln!(
        "PCA {hidden}->{PCA_DIMS}: explained variance {:.4}",
        vals.slice(s![..PCA_DIMS]).sum() / vals.sum()
    );

    // 3. SIF weights under a Zipf assumption on vocabulary order: rank i has
    // probability ∝ 1/(i+2); frequent tokens are damped towards zero.
    let inv_rank: Vec<f64> = (0..vocab).map(|i| 1.0 / (i as f64 + 2.0)).collect();
    let total: f64 = inv_rank.iter().sum();
    for (i, mut row) in y.rows_mut().into_iter().enumerate() {
        let proba = inv_rank[i] / total;
        row *= SIF_COEFF / (SIF_COEFF + proba);
        if enc
            .tok
            .id_to_token(i as u32)
            .is_some_and(|t| is_special(&t))
        {
            row.fill(0.0);
        }
    }

    // 4. Symmetric int8 per row: row ≈ q * scale.
    let mut w = BufWriter::new(std::fs::File::create(out)?);
    w.write_all(MAGIC)?;
    w.write_all(&(vocab as u32).to_le_bytes())?;
    w.write_all(&(PCA_DIMS as u32).to_le_bytes())?;
    let scales: Vec<f32> = y
        .rows()
        .into_iter()
        .map(|r| (r.fold(0.0f64, |m, v| m.max(v.abs())) / 127.0) as f32)
        .collect();
    for s in &scales {
        w.write_all(&s.to_le_bytes())?;
    }
    for (row, &s) in y.rows().into_iter().zip(&scales) {
        let inv = if s > 0.0 { 1.0 / f64::from(s) } else { 0.0 };
        let q: Vec<u8> = row
            .iter()
            .map(|v| (v * inv).round().clamp(-127.0, 127.0) as i8 as u8)
            .collect();
        w.write_all(&q)?;
    }
    w.flush()?;

    // The runtime tokenizer goes beside the table, without the 128-token
    // truncation and padding of the shipped one: the table wants every token.
    let mut tok = enc.tok.clone();
    tok.with_padding(None);
    tok.with_truncation(None).map_err(tok_err)?;
    tok.save(out.with_file_name("tokenizer.json"), false)
        .map_err(tok_err)?;
    println!(
        "wrote {} ({vocab}x{PCA_DIMS}) and tokenizer.json beside it; encoder {encode_secs:.1}s, total {:.1}s",
        out.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(())
}

fn embed(model_dir: &Path, input: &Path, out: &Path) -> Result<()> {
    let enc = Encoder::load(model_dir)?;
    let mut texts = Vec::new();
    for line in BufReader::new(std::fs::File::open(input)?).lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let v: serde_json::Value = serde_json::from_str(&line)?;
        texts.push(
            v["text"]
                .as_str()
                .context("line without \"text\"")?
                .to_string(),
        );
    }
    let start = Instant::now();
    let vecs = enc.embed_texts(&texts)?;
    let secs = start.elapsed().as_secs_f64();
    let mut w = BufWriter::new(std::fs::File::create(out)?);
    for x in vecs.iter().flatten() {
        w.write_all(&x.to_le_bytes())?;
    }
    w.flush()?;
    println!(
        "{} texts in {secs:.2}s: {:.1} texts/s",
        texts.len(),
        texts.len() as f64 / secs
    );
    Ok(())
}

/// The int8 table as written by `distill`, dequantized on lookup.
struct Table {
    dims: usize,
    scales: Vec<f32>,
    q: Vec<i8>,
}

impl Table {
    fn load(path: &Path) -> Result<Self> {
        let b = std::fs::read(path)?;
        ensure!(b.len() >= 16 && &b[..8] == MAGIC, "not a DMLEMB01 file");
        let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap()) as usize;
        let (vocab, dims) = (u32_at(8), u32_at(12));
        ensure!(b.len() == 16 + vocab * 4 + vocab * dims, "truncated table");
        let scales =
            (0..vocab).map(|i| f32::from_le_bytes(b[16 + i * 4..20 + i * 4].try_into().unwrap()));
        let q = b[16 + vocab * 4..].iter().map(|&x| x as i8).collect();
        Ok(Self {
            dims,
            scales: scales.collect(),
            q,
        })
    }

    /// Sum of the token rows, L2-normalized (normalizing makes sum and mean equal).
    fn embed(&self, ids: &[u32]) -> Vec<f32> {
        let mut v = vec![0f32; self.dims];
        for &id in ids {
            let (s, row) = (
                self.scales[id as usize],
                &self.q[id as usize * self.dims..][..self.dims],
            );
            v.iter_mut()
                .zip(row)
                .for_each(|(a, &q)| *a += f32::from(q) * s);
        }
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
        v.iter().map(|x| x / n).collect()
    }
}

fn cos(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn check(model_dir: &Path, table_path: &Path) -> Result<()> {
    // (query, related, unrelated)
    const TRIPLES: [[&str; 3]; 4] = [
        [
            "pipeline parallelism for training large models",
            "splitting layers across GPUs in stages",
            "a recipe for chocolate cake",
        ],
        [
            "gradient compression to reduce communication in data-parallel training",
            "quantizing gradients to save network bandwidth between workers",
            "the history of the Roman empire",
        ],
        [
            "parameter server for asynchronous SGD",
            "workers push updates to a central server that holds the weights",
            "tips for growing tomatoes in your garden",
        ],
        [
            "checkpointing to recover from node failures during training",
            "fault tolerance when a machine crashes mid-run",
            "mixture of experts routing tokens to experts",
        ],
    ];
    let enc = Encoder::load(model_dir)?;
    let table = Table::load(table_path)?;
    // The runtime tokenizer shipped beside the table, without special tokens.
    let tok_path = table_path.with_file_name("tokenizer.json");
    let stok = Tokenizer::from_file(&tok_path).map_err(tok_err)?;
    let texts: Vec<String> = TRIPLES.iter().flatten().map(|s| s.to_string()).collect();
    let full = enc.embed_texts(&texts)?;
    let stat: Vec<Vec<f32>> = texts
        .iter()
        .map(|t| Ok(table.embed(stok.encode(t.as_str(), false).map_err(tok_err)?.get_ids())))
        .collect::<Result<_>>()?;
    println!("{:>6} {:>6}  pair", "full", "static");
    let mut agree = 0;
    for k in 0..TRIPLES.len() {
        let (q, r, u) = (3 * k, 3 * k + 1, 3 * k + 2);
        for j in [r, u] {
            println!(
                "{:6.3} {:6.3}  {:?} ~ {:?}",
                cos(&full[q], &full[j]),
                cos(&stat[q], &stat[j]),
                texts[q],
                texts[j]
            );
        }
        agree += usize::from(cos(&stat[q], &stat[r]) > cos(&stat[q], &stat[u]));
    }
    // Rank agreement over all pairs tells whether the table orders similarities like the model.
    let (mut f, mut s) = (Vec::new(), Vec::new());
    for i in 0..texts.len() {
        for j in i + 1..texts.len() {
            f.push(cos(&full[i], &full[j]));
            s.push(cos(&stat[i], &stat[j]));
        }
    }
    println!(
        "static ranks related above unrelated in {agree}/{} triples",
        TRIPLES.len()
    );
    println!(
        "Spearman(full, static) over all {} pairs: {:.3}",
        f.len(),
        spearman(&f, &s)
    );
    Ok(())
}

fn spearman(a: &[f32], b: &[f32]) -> f64 {
    let rank = |x: &[f32]| {
        let mut idx: Vec<usize> = (0..x.len()).collect();
        idx.sort_by(|&i, &j| x[i].total_cmp(&x[j]));
        let mut r = vec![0f64; x.len()];
        idx.iter().enumerate().for_each(|(k, &i)| r[i] = k as f64);
        r
    };
    let (ra, rb) = (rank(a), rank(b));
    let n = a.len() as f64;
    let d2: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - y).powi(2)).sum();
    1.0 - 6.0 * d2 / (n * (n * n - 1.0))
}
