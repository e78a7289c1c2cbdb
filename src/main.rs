// Documents are built on the import's workers and freed on tantivy's
// indexing threads; glibc's allocator spends a tenth of an import on that.
// Without transparent huge pages (`no_thp`): with them, the first touch of
// each page of tantivy's indexing arena cleared 2 MB, 5% of an import.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(distml_search::run(std::env::args_os()));
}
