// The system's allocator for short commands, mimalloc for those that build
// indexes or serve (see `distml_search::allocator`).
#[global_allocator]
static ALLOCATOR: distml_search::allocator::Allocator = distml_search::allocator::Allocator;

fn main() {
    std::process::exit(distml_search::run(std::env::args_os()));
}
