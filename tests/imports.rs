//! Imports flow one way: no module of `src/` reaches itself through the
//! modules it imports. Each file is parsed (syn); every path that starts
//! with `crate::`, `super::` or `self::` (in a `use`, in code, or in a
//! macro's tokens) is an arrow to the deepest module file it names; a
//! strongly connected component of more than one file (petgraph's Tarjan)
//! is a circle, listed with the arrows that tie it.
//!
//! Test code (`#[cfg(test)]`) is left out: it may import anything of
//! what it tests. Like any reading of paths, it follows no re-export:
//! `super::Name` points at the parent's file even when the parent only
//! re-exports it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};

/// A module's path below the crate root (`["serve", "app"]`), and its file.
type Modules = BTreeMap<Vec<String>, PathBuf>;

#[test]
fn no_module_imports_itself_through_others() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = modules(&src);
    assert!(modules.len() > 100, "src/ holds {} modules", modules.len());
    let arrows = arrows(&modules);
    let circles = circles(&arrows);
    if circles.is_empty() {
        return;
    }
    let mut report = format!("{} import circle(s):\n", circles.len());
    for circle in &circles {
        writeln!(report, "- {}", circle.join(", ")).unwrap();
        for ((from, to), names) in &arrows {
            if circle.contains(from) && circle.contains(to) {
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                writeln!(report, "    {from} -> {to}: {}", names.join(", ")).unwrap();
            }
        }
    }
    panic!("{report}");
}

/// Search's folders are its pipeline, in order: a stage may read the
/// stages before it, never one after (`search/mod.rs` runs them; the
/// shared floor, `signals.rs` and `statistics.rs`, reads none).
const SEARCH_STAGES: [&str; 5] = ["understand", "plan", "retrieve", "rank", "present"];

#[test]
fn search_stages_read_only_the_stages_before_them() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let stage_of = |file: &str| {
        let rest = file.strip_prefix("src/search/")?;
        let folder = rest.split('/').next()?;
        SEARCH_STAGES.iter().position(|s| *s == folder)
    };
    let mut backwards = Vec::new();
    for ((from, to), names) in arrows(&modules(&src)) {
        let floor = ["src/search/signals.rs", "src/search/statistics.rs"].contains(&from.as_str());
        let later = match (stage_of(&from), stage_of(&to)) {
            (Some(a), Some(b)) => b > a,
            (None, Some(_)) => floor,
            _ => false,
        };
        if later {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            backwards.push(format!("{from} -> {to}: {}", names.join(", ")));
        }
    }
    assert!(
        backwards.is_empty(),
        "search stages read a later stage:\n{}",
        backwards.join("\n")
    );
}

/// Every module file of the library (`main.rs` is another crate).
fn modules(src: &Path) -> Modules {
    let mut found = Modules::new();
    let mut folders = vec![src.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || path == src.join("main.rs") {
                continue;
            }
            let relative = path.strip_prefix(src).unwrap().with_extension("");
            let mut module: Vec<String> = (relative.iter())
                .map(|part| part.to_string_lossy().into_owned())
                .collect();
            // `lib.rs` is the root; `a/mod.rs` is `a`, as `a.rs` would be.
            if matches!(module.last().map(String::as_str), Some("lib" | "mod")) {
                module.pop();
            }
            found.insert(module, path);
        }
    }
    found
}

/// `from -> to` (files relative to the crate) with the paths that make
/// each arrow, self-references left out.
fn arrows(modules: &Modules) -> BTreeMap<(String, String), BTreeSet<String>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let name = |path: &Path| path.strip_prefix(root).unwrap().display().to_string();
    let mut read = Vec::new();
    let mut tests = BTreeSet::new();
    for (module, path) in modules {
        let text = std::fs::read_to_string(path).unwrap();
        let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut paths = Paths {
            here: module.clone(),
            found: Vec::new(),
            tests: Vec::new(),
        };
        paths.visit_file(&file);
        tests.extend(paths.tests);
        read.push((module, path, paths.found));
    }
    let mut arrows: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for (module, path, found) in read {
        if tests.contains(module) {
            continue;
        }
        for (absolute, written) in found {
            let Some(target) = deepest_module(modules, &absolute) else {
                continue;
            };
            if target != path {
                let key = (name(path), name(target));
                arrows.entry(key).or_default().insert(written);
            }
        }
    }
    arrows
}

/// The file of the longest prefix of `path` that is a module.
fn deepest_module<'m>(modules: &'m Modules, path: &[String]) -> Option<&'m PathBuf> {
    (0..=path.len())
        .rev()
        .find_map(|len| modules.get(&path[..len]))
}

/// The circles among `arrows`: each strongly connected component of two
/// files or more, its files sorted.
fn circles(arrows: &BTreeMap<(String, String), BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut graph: DiGraph<&str, ()> = DiGraph::new();
    let mut nodes: BTreeMap<&str, NodeIndex> = BTreeMap::new();
    for (from, to) in arrows.keys() {
        let [a, b] =
            [from, to].map(|file| *(nodes.entry(file)).or_insert_with(|| graph.add_node(file)));
        graph.add_edge(a, b, ());
    }
    let mut circles: Vec<Vec<String>> = tarjan_scc(&graph)
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            let mut files: Vec<String> = component.iter().map(|&i| graph[i].to_string()).collect();
            files.sort();
            files
        })
        .collect();
    circles.sort();
    circles
}

/// The crate-relative paths of one file: each made absolute (from the
/// crate root) and as written.
struct Paths {
    /// The module being read: the file's, then any inline `mod` inside it.
    here: Vec<String>,
    found: Vec<(Vec<String>, String)>,
    /// Modules of test code in files of their own (`#[cfg(test)] mod tests;`).
    tests: Vec<Vec<String>>,
}

/// Whether `attrs` hold `#[cfg(test)]`: test code may import anything of
/// what it tests, and is no part of the layout.
fn is_test(attrs: &[syn::Attribute]) -> bool {
    (attrs.iter()).any(|attr| {
        attr.path().is_ident("cfg")
            && attr
                .parse_args::<syn::Ident>()
                .is_ok_and(|ident| ident == "test")
    })
}

impl Paths {
    /// `segments` as written here, made absolute; none unless they start
    /// with `crate`, `super` or `self`.
    fn record(&mut self, segments: Vec<String>) {
        let mut absolute = match segments.first().map(String::as_str) {
            Some("crate") => Vec::new(),
            Some("super" | "self") => self.here.clone(),
            _ => return,
        };
        let mut rest = segments.iter().peekable();
        if rest.peek().is_some_and(|s| *s == "crate") {
            rest.next();
        }
        for segment in rest {
            match segment.as_str() {
                "super" => {
                    absolute.pop();
                }
                "self" => {}
                name => absolute.push(name.to_string()),
            }
        }
        self.found.push((absolute, segments.join("::")));
    }

    /// Every path a `use` tree names, each whole (`a::{b, c::d}`: `a::b`
    /// and `a::c::d`).
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                self.use_tree(prefix, &path.tree);
                prefix.pop();
            }
            syn::UseTree::Name(name) => self.record(with(prefix, &name.ident)),
            syn::UseTree::Rename(rename) => self.record(with(prefix, &rename.ident)),
            syn::UseTree::Glob(_) => self.record(prefix.clone()),
            syn::UseTree::Group(group) => {
                for tree in &group.items {
                    self.use_tree(prefix, tree);
                }
            }
        }
    }

    /// Paths in a macro's tokens (`format!`, `json!`, ...), which syn
    /// leaves unparsed: runs of `word :: word ...`.
    fn tokens(&mut self, tokens: TokenStream) {
        let mut run: Vec<String> = Vec::new();
        let mut colons = 0;
        for token in tokens {
            match token {
                TokenTree::Ident(ident) if run.is_empty() || colons == 2 => {
                    run.push(ident.to_string());
                    colons = 0;
                }
                TokenTree::Punct(punct) if punct.as_char() == ':' && !run.is_empty() => {
                    colons += 1;
                }
                other => {
                    self.record(std::mem::take(&mut run));
                    colons = 0;
                    match other {
                        TokenTree::Group(group) => self.tokens(group.stream()),
                        TokenTree::Ident(ident) => run.push(ident.to_string()),
                        _ => {}
                    }
                }
            }
        }
        self.record(run);
    }
}

fn with(prefix: &[String], last: &syn::Ident) -> Vec<String> {
    let mut path = prefix.to_vec();
    path.push(last.to_string());
    path
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.record(segments);
        visit::visit_path(self, path);
    }

    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Fn(item) => &item.attrs,
            syn::Item::Impl(item) => &item.attrs,
            syn::Item::Use(item) => &item.attrs,
            syn::Item::Mod(item) => &item.attrs,
            _ => return visit::visit_item(self, item),
        };
        if !is_test(attrs) {
            visit::visit_item(self, item);
        } else if let syn::Item::Mod(item) = item {
            self.tests.push(with(&self.here, &item.ident));
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.here.push(item.ident.to_string());
        visit::visit_item_mod(self, item);
        self.here.pop();
    }

    /// `pub(super)` and `pub(in crate::a)` say who may see an item, not
    /// what it uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        visit::visit_macro(self, mac);
    }
}
