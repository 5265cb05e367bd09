//! The `twirl` command line. All logic lives in the library; `cli` parses arguments, draws
//! progress and formats results.

mod cli;

#[global_allocator]
static ALLOC: twirl::huge_alloc::HugePageAlloc = twirl::huge_alloc::HugePageAlloc;

fn main() {
    // Under mpirun: MPI lives until the command is done, and is finalized before exit.
    #[cfg(feature = "mpi")]
    let universe = twirl::distributed::init_if_launched();
    let code = cli::main();
    #[cfg(feature = "mpi")]
    drop(universe);
    std::process::exit(code);
}
