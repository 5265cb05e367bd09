//! One search across the processes of an MPI job (`mpirun -np P twirl bfs ...`).
//!
//! The search itself is the engine's ([`crate::bfs`]), run with the processes of the job
//! ([`Mpi`]): the ranks are dealt to the `P` processes in units, round-robin ([`RankDeal`]),
//! process `p` keeps the table of its units (in memory, or in its own table file with the
//! job's record beside them, [`crate::job`]) and expands its own boards with the engine's steps,
//! sending the neighbours other processes hold to them in rounds ([`crate::bfs::exchange`]).
//! Every process holds the same [`crate::bfs::Outcome`] as the local engine would.
//!
//! With a ranking of classes, units hold whole classes: the moves that keep the key cells
//! (a class's entries lie together) stay inside a process, and so do the twins of a class
//! that a symmetric representative repeats. With XOR runs, units hold whole runs.

pub use crate::bfs::processes::{Mpi, Processes, RankDeal, agree};

/// The MPI environment, when this process was started by `mpirun` (or another launcher
/// that sets the Open MPI or PMI variables); `None` otherwise, so a plain run never touches
/// MPI. Keep it alive until the end of `main`: dropping it finalizes MPI.
pub fn init_if_launched() -> Option<mpi::environment::Universe> {
    let launched = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some());
    if !launched {
        return None;
    }
    prefer_shared_memory_on_one_machine();
    // Only the main thread calls MPI; the search's worker threads never do.
    mpi::initialize_with_threading(mpi::Threading::Funneled).map(|(universe, _)| universe)
}

/// When Open MPI says every process of the job runs on this machine and the user chose no
/// point-to-point layer, takes `ob1` (shared memory between the processes). Left to
/// choose, Open MPI tries UCX first, which on this machine spends 0.2 s of every start
/// failing before `ob1` is taken anyway (`mpirun -np 2 twirl bfs spin:2x2`: 0.33 s, 0.12 s
/// with `ob1`); UCX serves a cluster's network, which one machine does not use.
fn prefer_shared_memory_on_one_machine() {
    let var = |name| std::env::var_os(name);
    let one_machine = var("OMPI_COMM_WORLD_SIZE").is_some()
        && var("OMPI_COMM_WORLD_SIZE") == var("OMPI_COMM_WORLD_LOCAL_SIZE");
    if one_machine && var("OMPI_MCA_pml").is_none() {
        // SAFETY: called first thing in `main`, before any other thread exists.
        unsafe { std::env::set_var("OMPI_MCA_pml", "ob1") };
    }
}

/// The processes of the job, when MPI runs with more than one.
pub fn world_of_many() -> Option<Mpi> {
    if !mpi::environment::is_initialized() {
        return None;
    }
    let world = Mpi::world();
    (world.count() > 1).then_some(world)
}
