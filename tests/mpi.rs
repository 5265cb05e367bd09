//! One search across MPI processes (`cargo test --release --features mpi --test mpi`, with
//! Open MPI's `mpirun` on the path): 1 to 4 processes on this machine print and write
//! exactly what the local engine does, through forward and backward steps.
#![cfg(feature = "mpi")]

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};

use common::{stderr, stdout, twirl};

/// `twirl ARGS` under `mpirun -np NP`, one worker thread per process.
fn under_mpirun(np: usize, args: &[&str]) -> Output {
    Command::new("mpirun")
        // CI runs as root; a test machine may have fewer cores than processes.
        .args(["--allow-run-as-root", "--oversubscribe", "-np", &np.to_string()])
        .arg(env!("CARGO_BIN_EXE_twirl"))
        .args(args)
        .args(["--threads", "1"])
        .output()
        .expect("run mpirun (Open MPI's launcher must be installed)")
}

/// `twirl ARGS` under `mpirun -np 2`, one worker thread per process, running on until
/// process 0 writes a line starting with `prefix` on stderr; the job and the rest of its
/// stderr lines.
fn two_processes_until(
    args: &[&str],
    prefix: &str,
) -> (Child, impl Iterator<Item = std::io::Result<String>>) {
    let mut child = Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-np", "2"])
        .arg(env!("CARGO_BIN_EXE_twirl"))
        .args(args)
        .args(["--threads", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run mpirun");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    for line in lines.by_ref() {
        if line.unwrap().starts_with(prefix) {
            break;
        }
    }
    (child, lines)
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The distance table and summary lines of a run, without its timings.
fn histogram_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with("# ") || l.starts_with("# God") || l.starts_with("# antipode"))
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn processes_find_the_histogram_of_the_local_engine() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [&[&str]; 11] = [
        &["nrp:3x3:2"],
        &["nrp:3x3:2", "--metric", "cw"],
        &["nrp:3x3:2", "--symmetry", "off"],
        // By classes (`auto`), with more antipode entries than the ten a search samples: the
        // processes list the smallest boards of every entry of the last distance (26 here);
        // spin:2x4's last distance (27,486 entries) is more than a level keeps, so there
        // they gather the whole table to scan it, as the local engine scans its own.
        &["nrp:2x4:2:orient"],
        &["nrp:2x4:2:orient", "--symmetry", "off"],
        &["spin:2x4"],
        &["spin:2x3", "--symmetry", "on"],
        // Twin classes compacted: classes of unequal sizes, split between processes.
        &["def:data/definitions/cube2.tws", "--symmetry", "on"],
        // Identical pieces searched by digit tables: their runs (1,680 ranks) shape the deal.
        &["def:data/definitions/rings.tws"],
        // Identical pieces by classes of their digits: whole classes (2,187 entries) dealt.
        &["def:data/definitions/cube2_halves.tws"],
        // Unseen flips: classes of the named flips' XOR runs (64 entries a class) dealt.
        &["def:data/definitions/flip_ring.tws"],
    ];
    for case in cases {
        let local_json = dir.path().join("local.json");
        let mut args = case.to_vec();
        args.splice(0..0, ["bfs"]);
        // Each case writes the same files again: --force replaces them.
        let local = twirl(
            &[&args[..], &["-q", "--force", "--json", local_json.to_str().unwrap()]].concat(),
        );
        assert!(local.status.success(), "{case:?}: {}", stderr(&local));
        for np in 1..=4 {
            let out_json = dir.path().join(format!("np{np}.json"));
            let o = under_mpirun(
                np,
                &[&args[..], &["--force", "--json", out_json.to_str().unwrap()]].concat(),
            );
            assert!(o.status.success(), "{case:?} np={np}: {}", stderr(&o));
            assert_eq!(
                histogram_lines(&stdout(&o)),
                histogram_lines(&stdout(&local)),
                "{case:?} np={np}"
            );
            let (a, b) = (json(&local_json), json(&out_json));
            for key in
                ["histogram", "states", "gods_number", "antipodes", "antipode_boards", "symmetry"]
            {
                assert_eq!(a[key], b[key], "{case:?} np={np}: {key}");
            }
            if np > 1 {
                // Both steps ran: forward at first, backward once the frontier is wide.
                let err = stderr(&o);
                assert!(err.contains("(forward): "), "{case:?}: {err}");
                assert!(err.contains("(backward): "), "{case:?}: {err}");
                assert!(err.contains("ranks sent between processes"), "{case:?}");
            }
        }
    }
}

/// With room for its table but not for a copy of the frontier (one bit per rank), each
/// process asks the owners of remote neighbours in backward steps, board by board and by XOR
/// runs, and finds the local engine's histogram.
#[test]
fn processes_without_room_for_a_frontier_copy_ask_the_owners() {
    // nrp:3x3:2 by boards: 362880 ranks, 89 KiB of table, a copy of 44 KiB per process;
    // spin:2x4 by boards: 10321920 ranks, 2.5 MiB of table, a copy of 1.2 MiB (of 630 KiB to 1.3 MiB of table a process).
    for (case, max) in
        [(["nrp:3x3:2", "--symmetry", "off"], "64K"), (["spin:2x4", "--symmetry", "off"], "1800K")]
    {
        let local = twirl(&[&["bfs"][..], &case[..], &["-q"]].concat());
        assert!(local.status.success(), "{case:?}: {}", stderr(&local));
        for np in 2..=4 {
            let o = under_mpirun(np, &[&["bfs"][..], &case[..], &["--max-memory", max]].concat());
            assert!(o.status.success(), "{case:?} np={np}: {}", stderr(&o));
            let err = stderr(&o);
            assert!(
                err.contains("backward steps ask the other processes"),
                "{case:?} np={np}: {err}"
            );
            let asked = err.lines().any(|l| l.contains("(backward): ") && !l.contains(": 0 ranks"));
            assert!(asked, "{case:?} np={np}: {err}");
            assert_eq!(
                histogram_lines(&stdout(&o)),
                histogram_lines(&stdout(&local)),
                "{case:?} np={np}"
            );
        }
    }
}

/// A search by classes in table files lists the smallest antipodes as boards, as the local
/// engine does from its whole table: the processes gather the parts at the end, and again
/// when a finished job is reported by `resume`.
#[test]
fn processes_in_table_files_list_the_smallest_antipode_boards() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let local = twirl(&["bfs", "spin:2x4", "-q", "--json", &path("local.json")]);
    assert!(local.status.success(), "{}", stderr(&local));
    let expected = json(Path::new(&path("local.json")))["antipode_boards"].clone();
    assert!(expected.as_array().is_some_and(|a| a.len() == 10), "{expected}");
    let t = path("t.tbl");
    let o = under_mpirun(2, &["bfs", "spin:2x4", "--table", &t, "--json", &path("np2.json")]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(json(Path::new(&path("np2.json")))["antipode_boards"], expected);
    let o = under_mpirun(2, &["resume", &t, "--json", &path("again.json")]);
    assert!(o.status.success() && stderr(&o).contains("already complete"), "{}", stderr(&o));
    assert_eq!(json(Path::new(&path("again.json")))["antipode_boards"], expected);
}

#[test]
fn processes_keep_a_table_each_and_refuse_what_does_not_fit() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.tbl");
    let t = table.to_str().unwrap();
    let local = twirl(&["bfs", "nrp:3x3:2", "-q"]);
    for np in [2, 3] {
        let o = under_mpirun(np, &["bfs", "nrp:3x3:2", "--table", t, "--force"]);
        assert!(o.status.success(), "np={np}: {}", stderr(&o));
        assert_eq!(histogram_lines(&stdout(&o)), histogram_lines(&stdout(&local)), "np={np}");
        for p in 0..np {
            assert!(dir.path().join(format!("t.tbl.part-{p}-of-{np}")).exists());
        }
        // Finished: the record is gone, and a resume reports the sealed parts.
        assert!(!dir.path().join("t.tbl.checkpoint").exists());
        let again = under_mpirun(np, &["resume", t]);
        assert!(again.status.success(), "np={np}: {}", stderr(&again));
        assert!(stderr(&again).contains("already complete"));
        assert_eq!(histogram_lines(&stdout(&again)), histogram_lines(&stdout(&local)));
    }
    // An existing part is not replaced without --force; one part is not a whole table.
    let o = under_mpirun(3, &["bfs", "nrp:3x3:2", "--table", t]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("twirl resume"), "{}", stderr(&o));
    let part = dir.path().join("t.tbl.part-1-of-3");
    let o = twirl(&["distance", part.to_str().unwrap(), "1 2 3 / 4 5 6 / 7 8 9"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("found part 1 of 3"), "{}", stderr(&o));
}

/// Unique solutions are counted under mpirun as by the local engine: in memory through
/// forward and backward steps with 2 to 4 processes, and in table files.
#[test]
fn processes_count_unique_solutions() {
    let dir = tempfile::tempdir().unwrap();
    for case in [&["nrp:3x3:2"][..], &["nrp:3x3:2", "--metric", "cw"], &["spin:2x3"]] {
        let args = [&["bfs"], case, &["--unique"]].concat();
        let local = twirl(&[&args[..], &["-q"]].concat());
        assert!(local.status.success(), "{case:?}: {}", stderr(&local));
        let unique = |text: &str| -> Vec<String> {
            text.lines().filter(|l| l.starts_with("# unique")).map(str::to_string).collect()
        };
        assert_eq!(unique(&stdout(&local)).len(), 1);
        for np in 2..=4 {
            let o = under_mpirun(np, &args);
            assert!(o.status.success(), "{case:?} np={np}: {}", stderr(&o));
            assert_eq!(histogram_lines(&stdout(&o)), histogram_lines(&stdout(&local)));
            assert_eq!(unique(&stdout(&o)), unique(&stdout(&local)), "{case:?} np={np}");
        }
        let table = dir.path().join("u.tbl");
        let t = table.to_str().unwrap();
        let o = under_mpirun(2, &[&args[..], &["--table", t, "--force"]].concat());
        assert!(o.status.success(), "{case:?}: {}", stderr(&o));
        assert_eq!(unique(&stdout(&o)), unique(&stdout(&local)), "{case:?}");
    }
}

#[test]
fn a_killed_process_loses_nothing_finished_and_the_resume_ends_alike() {
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.tbl");
    let t = table.to_str().unwrap();
    let case = ["spin:2x4", "--symmetry", "off"];
    let local_json = dir.path().join("local.json");
    let local =
        twirl(&[&["bfs"], &case[..], &["-q", "--json", local_json.to_str().unwrap()]].concat());
    assert!(local.status.success());
    // Each process holds 5 million ranks, 5 rounds a level; every process pauses after the
    // first round of distance 6, with part of that level marked.
    let bfs = ["bfs", case[0], case[1], case[2], "--table", t, "--test-pause-after", "5"];
    let (mut child, lines) = two_processes_until(&bfs, "distance 5 ");
    std::thread::sleep(std::time::Duration::from_millis(500));
    let ranks = Command::new("pgrep").args(["-P", &child.id().to_string()]).output().unwrap();
    let last: u32 = stdout(&ranks).lines().last().expect("a process of the job").parse().unwrap();
    assert!(Command::new("kill").args(["-KILL", &last.to_string()]).status().unwrap().success());
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    let status = child.wait().unwrap();
    assert!(!status.success(), "{rest:?}");
    // Resumed with another number of processes, or without mpirun: refused, nothing changed.
    let o = under_mpirun(3, &["resume", t]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("found a search split over 2 processes"), "{}", stderr(&o));
    let o = twirl(&["resume", t]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("mpirun -np 2 twirl resume"), "{}", stderr(&o));
    // `info` names the job by the name its parts share, with how far it got.
    let info = stdout(&twirl(&["info", t]));
    assert!(info.contains("part 0 of 2 of an MPI job"), "{info}");
    assert!(info.contains("not finished: distances 0-5 done"), "{info}");
    assert!(info.contains(&format!("`mpirun -np 2 twirl resume {t}`")), "{info}");
    // With the same two: distances 0..5 were kept, and the result is the local engine's.
    let out_json = dir.path().join("resumed.json");
    let o = under_mpirun(2, &["resume", t, "--json", out_json.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("distances 0..5 finished"), "{err}");
    // The first round of distance 6 had marked boards on both processes before the kill.
    let before: u64 = err
        .split("; ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(before > 0 && err.contains("of distance 6 were found before the stop"), "{err}");
    assert_eq!(histogram_lines(&stdout(&o)), histogram_lines(&stdout(&local)));
    let (a, b) = (json(&local_json), json(&out_json));
    for key in ["histogram", "states", "gods_number", "antipodes", "antipode_boards"] {
        assert_eq!(a[key], b[key], "{key}");
    }
}

/// A group smaller than its invariants (the definition of `tests/definitions.rs`: 5,598,720
/// boards searched in the 33,592,320 the invariants allow) under mpirun: in memory with 2
/// and 3 processes, and in table files stopped inside distance 13 and resumed, as the local
/// engine finds it.
#[test]
fn processes_search_a_group_smaller_than_its_invariants() {
    let spec = format!(
        "def:{}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/data/definitions/smaller_group.tws")
    );
    let local = twirl(&["bfs", &spec, "-q"]);
    assert!(local.status.success(), "{}", stderr(&local));
    for np in [2, 3] {
        let o = under_mpirun(np, &["bfs", &spec]);
        assert!(o.status.success(), "np={np}: {}", stderr(&o));
        assert_eq!(histogram_lines(&stdout(&o)), histogram_lines(&stdout(&local)), "np={np}");
    }
    let dir = tempfile::tempdir().unwrap();
    let table = dir.path().join("t.tbl");
    let t = table.to_str().unwrap();
    let bfs = ["bfs", &spec, "--table", t, "--test-pause-after", "12"];
    let (mut child, lines) = two_processes_until(&bfs, "distance 12 ");
    let ranks = Command::new("pgrep").args(["-P", &child.id().to_string()]).output().unwrap();
    let first: u32 = stdout(&ranks).lines().next().expect("a process of the job").parse().unwrap();
    assert!(Command::new("kill").args(["-TERM", &first.to_string()]).status().unwrap().success());
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    assert_eq!(child.wait().unwrap().code(), Some(130), "{rest:?}");
    let o = under_mpirun(2, &["resume", t]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("distances 0..12 finished"), "{}", stderr(&o));
    assert_eq!(histogram_lines(&stdout(&o)), histogram_lines(&stdout(&local)));
}

#[test]
fn a_signal_to_one_process_stops_them_all() {
    // Wait until the search is under way (a minute of work is left), then stop one process.
    let (mut child, lines) = two_processes_until(&["bfs", "nrp:3x4:2"], "distance 4 ");
    let ranks = Command::new("pgrep").args(["-P", &child.id().to_string()]).output().unwrap();
    let first: u32 = stdout(&ranks).lines().next().expect("a process of the job").parse().unwrap();
    assert!(Command::new("kill").args(["-TERM", &first.to_string()]).status().unwrap().success());
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{rest:?}");
    assert!(rest.iter().any(|l| l.contains("nothing is saved")), "{rest:?}");
}

/// `twirl join` makes one table of a finished job's parts, the local engine's table byte for
/// byte after the header, which `distance` and `resume` read; it refuses a job still
/// searching, a damaged or missing part and a table already there.
#[test]
fn the_parts_of_a_finished_job_join_into_one_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    let (local, t) = (path("local.tbl"), path("t.tbl"));
    let o = twirl(&["bfs", "nrp:3x3:2", "--table", &local, "-q", "--json", &path("local.json")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = under_mpirun(3, &["bfs", "nrp:3x3:2", "--table", &t, "-q"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let info = stdout(&twirl(&["info", &t]));
    assert!(info.contains("part 0 of 3 of an MPI job: "), "{info}");
    assert!(info.contains(&format!("(`twirl join {t}` makes one table")), "{info}");
    assert!(info.contains("search: complete in"), "{info}");
    assert!(info.contains("boards: 362880; God's number 11 (20 antipodes)"), "{info}");
    let o = twirl(&["join", &t]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("3 parts joined, God's number 11"), "{}", stdout(&o));
    let body = |p: &str| std::fs::read(p).unwrap().split_off(1 << 16);
    assert!(body(&t) == body(&local), "the joined body differs from the local table's");
    for board in ["9 8 7 / 6 5 4 / 3 2 1", "2 1 3 / 4 5 6 / 7 8 9", "1 2 3 / 4 5 6 / 7 8 9"] {
        let (a, b) = (twirl(&["distance", &t, board]), twirl(&["distance", &local, board]));
        assert!(a.status.success(), "{}", stderr(&a));
        assert_eq!(stdout(&a), stdout(&b), "{board}");
    }
    let o = twirl(&["resume", &t, "-q", "--json", &path("again.json")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (want, got) = (json(Path::new(&path("local.json"))), json(Path::new(&path("again.json"))));
    for key in ["histogram", "states", "gods_number", "antipodes", "antipode_boards", "symmetry"] {
        assert_eq!(got[key], want[key], "{key}");
    }
    // Refused, exit 2, one line each: a table already there; a damaged part (nothing is left
    // beside the parts); a job still searching; a missing part.
    let refused = |needle: &str| {
        let o = twirl(&["join", &t]);
        assert_eq!(o.status.code(), Some(2), "{needle}: {}", stderr(&o));
        assert!(stderr(&o).contains(needle) && stderr(&o).lines().count() == 1, "{}", stderr(&o));
    };
    refused("--force");
    std::fs::remove_file(&t).unwrap();
    let part = path("t.tbl.part-1-of-3");
    let mut bytes = std::fs::read(&part).unwrap();
    bytes[(1 << 16) + 5] ^= 1;
    std::fs::write(&part, &bytes).unwrap();
    refused("corrupted");
    assert!(!Path::new(&t).exists() && !Path::new(&path("t.tbl.partial")).exists());
    bytes[(1 << 16) + 5] ^= 1;
    std::fs::write(&part, &bytes).unwrap();
    std::fs::write(path("t.tbl.checkpoint"), "{}").unwrap();
    refused("not done");
    std::fs::remove_file(path("t.tbl.checkpoint")).unwrap();
    std::fs::remove_file(path("t.tbl.part-2-of-3")).unwrap();
    refused("t.tbl.part-2-of-3");
    assert!(!Path::new(&t).exists());
}

/// A search from goals (`--goals`) and a longer list of antipodes (`--antipodes N`): each
/// process marks the goals it holds and the processes merge their antipodes; 1 to 3
/// processes give the local engine's lines and JSON, in memory and in table files.
#[test]
fn processes_search_from_goals_and_list_antipodes_as_asked() {
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name).to_str().unwrap().to_string();
    std::fs::write(path("goals.txt"), "R1C1\n4 5 6 / 1 2 3 / 7 8 9\nR2C2 R1C2'\n").unwrap();
    let goals = path("goals.txt");
    let cases: [&[&str]; 4] = [
        &["nrp:3x3:2", "--goals", &goals],
        &["nrp:3x3:2", "--metric", "cw", "--goals", &goals],
        &["nrp:3x4:3", "--metric", "htm", "--antipodes", "300"],
        &["spin:2x3", "--antipodes", "40"],
    ];
    for case in cases {
        let args = [&["bfs"], case].concat();
        let local = twirl(&[&args[..], &["-q", "--force", "--json", &path("local.json")]].concat());
        assert!(local.status.success(), "{case:?}: {}", stderr(&local));
        for np in 1..=3 {
            for table in [None, Some(path(&format!("t{np}.tbl")))] {
                let mut a = args.clone();
                let t = table.clone().unwrap_or_default();
                if table.is_some() {
                    a.extend(["--table", &t]);
                }
                let out = path(&format!("np{np}.json"));
                let o = under_mpirun(np, &[&a[..], &["--force", "--json", &out]].concat());
                assert!(o.status.success(), "{case:?} np={np} {table:?}: {}", stderr(&o));
                assert_eq!(
                    histogram_lines(&stdout(&o)),
                    histogram_lines(&stdout(&local)),
                    "{case:?} np={np} {table:?}"
                );
                let (x, y) = (json(Path::new(&path("local.json"))), json(Path::new(&out)));
                for key in ["histogram", "antipodes", "antipode_boards", "goals"] {
                    assert_eq!(x[key], y[key], "{case:?} np={np} {table:?}: {key}");
                }
            }
        }
    }
}
