//! Embeds the shipped catalog so that the binary can search from any folder.

use std::fmt::Write;
use std::path::Path;

fn main() {
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
