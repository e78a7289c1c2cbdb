//! Embeds the shipped catalog so that the binary can search from any folder,
//! names the sources it is built from, and links the binary for a fast start.

use std::fmt::Write;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

fn main() {
    source_hash();
    link_at_a_fixed_address();
    let dir = Path::new("catalog");
    println!("cargo::rerun-if-changed=catalog");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "toml" || x == "json"));
    files.sort();
    let mut code = String::from(
        "/// The catalog files shipped with this build: (file name, contents).\npub static BUILTIN_CATALOG: &[(&str, &str)] = &[\n",
    );
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy();
        let abs = std::fs::canonicalize(&path).unwrap();
        writeln!(
            code,
            "    ({name:?}, include_str!({:?})),",
            abs.display().to_string()
        )
        .unwrap();
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("builtin_catalog.rs");
    std::fs::write(out, code).unwrap();
}

/// `SOURCE_HASH`: a hash of every file under `src/` and of
/// `Cargo.lock`, which changes with any change to the code or its
/// dependencies. What a build keeps for the next (`catalog::compiled`) is
/// read back only by a build of the same sources.
fn source_hash() {
    println!("cargo::rerun-if-changed=src");
    println!("cargo::rerun-if-changed=Cargo.lock");
    let mut files = vec![PathBuf::from("Cargo.lock")];
    let mut folders = vec![PathBuf::from("src")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut hasher = DefaultHasher::new();
    for path in files {
        path.hash(&mut hasher);
        std::fs::read(&path).unwrap_or_default().hash(&mut hasher);
    }
    println!("cargo::rustc-env=SOURCE_HASH={:016x}", hasher.finish());
}

/// On Linux (glibc) the binary is linked as a fixed-address executable, not a
/// position-independent one: a PIE's loader writes some 53,000 relocated
/// pointers into its tables (vtables, string slices) before `main`, a page
/// fault for each page written, which was a sixth of a one-off search's
/// time. The binary's own code then loses address randomization (its
/// libraries, heap and stack keep it); `DISTML_PIE=1` at build time keeps
/// the platform's default.
fn link_at_a_fixed_address() {
    println!("cargo::rerun-if-env-changed=DISTML_PIE");
    let target = |key: &str, value: &str| std::env::var(key).is_ok_and(|v| v == value);
    // glibc targets only: a musl build links a static PIE, whose flags
    // this would contradict.
    let linux_gnu = target("CARGO_CFG_TARGET_OS", "linux") && target("CARGO_CFG_TARGET_ENV", "gnu");
    if linux_gnu && std::env::var_os("DISTML_PIE").is_none() {
        println!("cargo::rustc-link-arg-bins=-no-pie");
    }
}
