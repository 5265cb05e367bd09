//! Worker threads pinned one to a core, where a pool takes every core the process may use.
//!
//! On the 2-core virtual machines this tool is measured on, the scheduler often wakes a
//! worker on its waker's core while the other core idles (seen in `sched_switch` traces):
//! both workers of a pool then share one core, yielding to each other, for milliseconds
//! until the load balancer moves one. lo33's orbit reduction ran on one core so in about
//! half of its runs (2-7 ms against 2.1 ms). A pool given exactly the cores the process may
//! use (the default `--threads`, or as many) gets one worker per core, which is what was
//! asked for; a smaller pool, and the ranks of an MPI job (which share a node), float.

/// A start handler for a pool of `threads` workers pinning worker `i` to the `i`-th core
/// the process may use, or `None` where the pool does not take exactly those cores or an MPI
/// launcher started the process.
pub fn one_per_core(threads: usize) -> Option<impl Fn(usize) + Send + Sync + 'static> {
    let cores = allowed_cores();
    let pin = threads > 1 && cores.len() == threads && !launched_by_mpi();
    pin.then_some(move |i: usize| pin_to(cores[i]))
}

/// Whether an MPI launcher started this process: its ranks share the node's cores.
fn launched_by_mpi() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"].iter().any(|v| std::env::var_os(v).is_some())
}

/// The cores the calling thread may run on, in order (none where that cannot be read).
#[cfg(target_os = "linux")]
fn allowed_cores() -> Vec<usize> {
    // SAFETY: an all-zero cpu_set_t is the empty set; the call fills `set` (its own size
    // given) for this thread (pid 0), and CPU_ISSET reads a core below CPU_SETSIZE.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect()
    }
}

#[cfg(not(target_os = "linux"))]
fn allowed_cores() -> Vec<usize> {
    Vec::new()
}

/// Pins the calling thread to `core`; where that fails it floats as before.
#[cfg(target_os = "linux")]
fn pin_to(core: usize) {
    // SAFETY: as in `allowed_cores`; `core` is one of the cores it listed.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of_val(&set), &set);
    }
}

#[cfg(not(target_os = "linux"))]
fn pin_to(_core: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pool pins only when it takes every allowed core, and a pinned worker runs on its
    /// core alone (read back from the kernel).
    #[test]
    fn workers_pin_one_to_a_core_only_when_they_take_every_core() {
        let cores = allowed_cores();
        assert!(one_per_core(1).is_none());
        assert!(one_per_core(cores.len() + 1).is_none());
        if cfg!(target_os = "linux") && cores.len() > 1 && !launched_by_mpi() {
            let pin = one_per_core(cores.len()).expect("a pool of every core pins");
            let last = cores.len() - 1;
            let seen = std::thread::spawn(move || {
                pin(last);
                allowed_cores()
            });
            assert_eq!(seen.join().unwrap(), vec![cores[last]]);
        }
    }
}
