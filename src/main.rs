//! The `twirl` command line. All logic lives in the library; `cli` parses arguments, draws
//! progress and formats results.

mod cli;

fn main() {
    std::process::exit(cli::main());
}
