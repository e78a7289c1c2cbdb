fn main() {
    std::process::exit(distml_search::run(std::env::args_os()));
}
