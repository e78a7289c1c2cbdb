//! A deterministic synthetic corpus in the format of arXiv's metadata
//! snapshot: the same seed gives the same bytes on every machine, so anyone
//! can rerun the scale benchmark without downloading anything.
//!
//! Words follow a Zipf-like law over a vocabulary of the field; ids are
//! `YYMM.NNNNN` with `YYMM` before 2015, when arXiv ids had four digits, so
//! no generated id can be a real paper's.

use std::fmt::Write;

/// One benchmark query, as each engine writes it: (distml-search query, FTS5
/// MATCH, FTS5 year range, minimal tantivy query).
pub type Query = (&'static str, &'static str, Option<(i64, i64)>, &'static str);

pub const QUERIES: &[Query] = &[
    ("training", "training", None, "training"),
    ("memory", "memory", None, "memory"),
    ("gpu", "gpu", None, "gpu"),
    ("fragmentation", "fragmentation", None, "fragmentation"),
    ("carbon", "carbon", None, "carbon"),
    ("infiniband", "infiniband", None, "infiniband"),
    ("pipeline bubble", "pipeline OR bubble", None, "pipeline bubble"),
    ("expert sharding", "expert OR sharding", None, "expert sharding"),
    ("speculative decoding", "speculative OR decoding", None, "speculative decoding"),
    ("gradient checkpointing", "gradient OR checkpointing", None, "gradient checkpointing"),
    ("load balancing straggler", "load OR balancing OR straggler", None, "load balancing straggler"),
    ("\"kv cache\"", "\"kv cache\"", None, "\"kv cache\""),
    ("\"memory efficient\"", "\"memory efficient\"", None, "\"memory efficient\""),
    ("\"tensor parallel\"", "\"tensor parallel\"", None, "\"tensor parallel\""),
    ("author:placeholder", "authors:placeholder", None, "authors:placeholder"),
    ("author:fictus offloading", "authors:fictus AND offloading", None, "+authors:fictus offloading"),
    ("year:2020..2022 quantization", "quantization", Some((2020, 2022)), "+year:[2020 TO 2022] quantization"),
    ("year:2015 allreduce", "allreduce", Some((2015, 2015)), "+year:2015 allreduce"),
    ("compiler kernel fusion", "compiler OR kernel OR fusion", None, "compiler kernel fusion"),
    ("elastic preemptible recovery", "elastic OR preemptible OR recovery", None, "elastic preemptible recovery"),
];

/// SplitMix64: tiny, fast, and stable forever (unlike library RNGs).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Words of the field, most common first (their rank drives the Zipf law).
pub const VOCABULARY: &str = "training model parallelism distributed memory gpu data pipeline communication \
performance large models system tensor deep learning scale parallel neural network inference efficient \
throughput latency cluster nodes devices computation layer batch gradient optimizer transformer language \
attention sequence expert mixture sparse dense activation parameters weights accuracy scheduling overhead \
bandwidth collective allreduce all-to-all sharding partition placement strategy search cost simulator \
framework runtime compiler graph operator kernel fusion overlap stage micro-batch bubble recomputation \
checkpointing offloading cpu nvme host swapping compression quantization precision mixed fp16 bf16 int8 \
serving request cache kv decoding speculative prefill batching tokens context long heads ring ulysses \
zero fsdp hybrid 3d tensor-parallel data-parallel pipeline-parallel expert-parallel auto-parallel spmd \
annotation xla jax pytorch megatron deepspeed fault tolerance elastic preemptible spot failure recovery \
redundancy heterogeneous edge federated topology nvlink pcie infiniband rdma network switch hierarchical \
gnn graph-neural sampling aggregation reinforcement rlhf reward policy rollout actor critic hyperparameter \
tuning neural-architecture supernet protein folding scientific workload analysis study evaluation benchmark \
speedup improvement reduction times faster existing approaches state-of-the-art novel propose present \
demonstrate achieve show results experiments baseline compared techniques method design implementation \
challenges problem solution key insight observation trade-off memory-efficient scalable adaptive dynamic \
static optimal heuristic planner profiler estimate predict workload-aware load balancing straggler \
synchronization asynchronous stale consistency convergence loss accuracy-preserving lossless lossy rank \
low-rank adapter fine-tuning pretraining foundation multimodal vision diffusion recommendation embedding \
table lookup retrieval vector database index storage io disk prefetching eviction policy fragmentation \
allocator chunk block paged virtual unified address space interconnect accelerator tpu npu fpga asic \
energy power carbon cost-efficient cloud datacenter multi-tenant cluster-scheduler job placement queue";

const GIVEN: &[&str] = &["Ada", "Bo", "Chen", "Dara", "Eli", "Fang", "Gita", "Hugo", "Ines", "Jun", "Kofi", "Lena", "Mira", "Nils", "Oren", "Pia", "Qiu", "Rafa", "Sana", "Tomas", "Uma", "Vik", "Wen", "Xia", "Yuki", "Zoe"];
const FAMILY: &[&str] = &["Example", "Placeholder", "Sample", "Invented", "Madeup", "Fable", "Notreal", "Pretend", "Fictus", "Imaginary", "Dummy", "Mock", "Stub", "Phantom", "Figment", "Myth", "Legend", "Yarn", "Tale", "Dream"];
const CATEGORIES: &[&str] = &["cs.DC", "cs.LG", "cs.AI", "cs.CL", "cs.CV", "cs.PF", "cs.NI", "cs.AR", "stat.ML", "math.OC"];
const MONTHS: &[&str] = &["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const DAYS: &[&str] = &["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];

/// Samples words with probability proportional to 1 / rank^1.07.
pub struct Zipf {
    words: Vec<&'static str>,
    cumulative: Vec<f64>,
}

impl Zipf {
    pub fn new() -> Zipf {
        let words: Vec<&'static str> = VOCABULARY.split_whitespace().collect();
        let mut total = 0.0;
        let cumulative = (0..words.len())
            .map(|rank| {
                total += 1.0 / ((rank + 1) as f64).powf(1.07);
                total
            })
            .collect();
        Zipf { words, cumulative }
    }

    pub fn sample(&self, rng: &mut Rng) -> &'static str {
        let target = rng.unit() * self.cumulative[self.cumulative.len() - 1];
        let i = self.cumulative.partition_point(|&c| c < target);
        self.words[i.min(self.words.len() - 1)]
    }
}

impl Default for Zipf {
    fn default() -> Self {
        Zipf::new()
    }
}

fn words(zipf: &Zipf, rng: &mut Rng, n: usize) -> String {
    (0..n).map(|_| zipf.sample(rng)).collect::<Vec<_>>().join(" ")
}

/// A made-up system name: two syllables, capitalized.
fn system_name(rng: &mut Rng) -> String {
    const SYLLABLES: &[&str] = &["zar", "pip", "mox", "tel", "qua", "vor", "lin", "dex", "fen", "gal", "hor", "kin", "rho", "sul", "tor", "wex"];
    let name = format!("{}{}", SYLLABLES[rng.below(SYLLABLES.len())], SYLLABLES[rng.below(SYLLABLES.len())]);
    let mut chars = name.chars();
    chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
}

/// The `index`-th record of the corpus with `seed`, as one JSON line.
pub fn record(zipf: &Zipf, rng: &mut Rng, index: u64) -> String {
    // 93 months of 2007-2014 times 100 000 five-digit numbers: ids no paper has.
    let month = index / 100_000 % 93;
    let (yy, mm) = (7 + month / 12, 1 + month % 12);
    let id = format!("{yy:02}{mm:02}.{:05}", index % 100_000);
    let name = system_name(rng);
    let title_words = 5 + rng.below(9);
    let title = format!("{name}: {}", capitalize(&words(zipf, rng, title_words)));
    let abstract_words = 80 + rng.below(140);
    let abstract_text = words(zipf, rng, abstract_words);
    let n_authors = 1 + rng.below(6);
    let parsed: Vec<[String; 3]> = (0..n_authors)
        .map(|_| [FAMILY[rng.below(FAMILY.len())].to_string(), GIVEN[rng.below(GIVEN.len())].to_string(), String::new()])
        .collect();
    let authors = parsed.iter().map(|p| format!("{} {}", p[1], p[0])).collect::<Vec<_>>().join(", ");
    let mut categories = vec![CATEGORIES[rng.below(3)]];
    if rng.below(2) == 0 {
        categories.push(CATEGORIES[rng.below(CATEGORIES.len())]);
    }
    categories.dedup();
    let year = 2008 + rng.below(18);
    let created = format!("{}, {} {} {year} {:02}:{:02}:{:02} GMT", DAYS[rng.below(7)], 1 + rng.below(28), MONTHS[rng.below(12)], rng.below(24), rng.below(60), rng.below(60));
    let doi = (rng.below(3) == 0).then(|| format!("10.1000/synthetic.{index}"));
    let journal = (rng.below(4) == 0).then(|| format!("Synthetic Proceedings {} ({year})", 1 + rng.below(40)));
    let mut line = String::with_capacity(2048);
    let value = serde_json::json!({
        "id": id,
        "submitter": format!("{} {}", parsed[0][1], parsed[0][0]),
        "authors": authors,
        "title": title,
        "comments": format!("{} pages", 4 + rng.below(20)),
        "journal-ref": journal,
        "doi": doi,
        "report-no": null,
        "categories": categories.join(" "),
        "license": null,
        "abstract": format!("  {abstract_text}\n"),
        "versions": [{"version": "v1", "created": created}],
        "update_date": format!("{year}-{:02}-{:02}", 1 + rng.below(12), 1 + rng.below(28)),
        "authors_parsed": parsed,
    });
    let _ = write!(line, "{value}");
    line
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().collect::<String>() + chars.as_str()).unwrap_or_default()
}

/// Writes `count` records with `seed` to `out`.
pub fn generate(seed: u64, count: u64, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let zipf = Zipf::new();
    let mut rng = Rng::new(seed);
    for i in 0..count {
        out.write_all(record(&zipf, &mut rng, i).as_bytes())?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_corpus() {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        generate(7, 50, &mut a).unwrap();
        generate(7, 50, &mut b).unwrap();
        assert_eq!(a, b);
        let text = String::from_utf8(a).unwrap();
        for line in text.lines() {
            distml_search::snapshot::parse_line(line).unwrap();
        }
    }
}
