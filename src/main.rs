// Documents are built on the import's workers and freed on tantivy's
// indexing threads; glibc's allocator spends a tenth of an import on that.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(distml_search::run(std::env::args_os()));
}
