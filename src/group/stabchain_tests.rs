//! Tests of the stabilizer chain: orders of known groups (symmetric, alternating, block
//! turns, spins), the upper-bound and verification paths, membership, and agreement with a
//! closure and a naive Schreier-Sims on small and structured groups.

use super::*;

fn big(x: u64) -> BigUint {
    BigUint::from(x)
}

fn factorial(n: u64) -> BigUint {
    (1..=n).fold(big(1), |a, k| a * k)
}

/// The permutation of `0..n` given by disjoint cycles.
fn from_cycles(n: usize, cycles: &[&[u16]]) -> Perm {
    let mut p = identity(n);
    for c in cycles {
        for k in 0..c.len() {
            p[c[k] as usize] = c[(k + 1) % c.len()];
        }
    }
    p
}

/// Quarter turns (clockwise) of every `b x b` block of an `rows x cols` grid.
fn block_turns(rows: usize, cols: usize, b: usize) -> Vec<Perm> {
    let mut gens = Vec::new();
    for r0 in 0..=rows - b {
        for c0 in 0..=cols - b {
            let mut p = identity(rows * cols);
            for dr in 0..b {
                for dc in 0..b {
                    let from = (r0 + dr) * cols + c0 + dc;
                    let to = (r0 + dc) * cols + c0 + b - 1 - dr;
                    p[from] = to as u16;
                }
            }
            gens.push(p);
        }
    }
    gens
}

/// Block turns acting on (cell, orientation mod 4): point `4 * cell + o`; a turn moves the
/// tiles of the block and turns each by a quarter.
fn oriented_block_turns(rows: usize, cols: usize, b: usize) -> Vec<Perm> {
    block_turns(rows, cols, b)
        .iter()
        .map(|p| {
            let mut q = identity(4 * rows * cols);
            for (c, &d) in p.iter().enumerate() {
                if d as usize != c {
                    for o in 0..4 {
                        q[4 * c + o] = (4 * d as usize + (o + 1) % 4) as u16;
                    }
                }
            }
            q
        })
        .collect()
}

/// Spins of every rectangle of an `rows x cols` board on signed tiles (point `2p + f`).
fn spins(rows: usize, cols: usize) -> Vec<Perm> {
    let mut gens = Vec::new();
    for r1 in 0..rows {
        for r2 in r1..rows {
            for c1 in 0..cols {
                for c2 in c1..cols {
                    let mut p = identity(2 * rows * cols);
                    for r in r1..=r2 {
                        for c in c1..=c2 {
                            let from = r * cols + c;
                            let to = (r1 + r2 - r) * cols + (c1 + c2 - c);
                            for f in 0..2 {
                                p[2 * from + f] = (2 * to + 1 - f) as u16;
                            }
                        }
                    }
                    gens.push(p);
                }
            }
        }
    }
    gens
}

/// A random permutation of `0..n`, sometimes with few moved points: `swaps` transpositions
/// of random points (a point with itself among them).
fn random_swaps(rng: &mut SplitMix64, n: usize, swaps: usize) -> Perm {
    let mut p = identity(n);
    for _ in 0..swaps {
        let a = rng.below(n);
        let b = rng.below(n);
        p.swap(a, b);
    }
    p
}

/// All elements of `<gens>` by breadth-first closure (small groups only).
fn closure(n: usize, gens: &[Perm]) -> std::collections::HashSet<Perm> {
    let mut seen = std::collections::HashSet::new();
    let mut queue = vec![identity(n)];
    seen.insert(identity(n));
    while let Some(p) = queue.pop() {
        for g in gens {
            let q = compose(&p, g);
            if seen.insert(q.clone()) {
                queue.push(q);
            }
        }
    }
    seen
}

/// Textbook deterministic Schreier–Sims (every Schreier generator sifted), for
/// cross-checking on small degrees. Returns the order.
fn naive_order(n: usize, gens: &[Perm]) -> BigUint {
    // levels: (base, gens, orbit -> rep)
    struct L {
        base: usize,
        gens: Vec<Perm>,
        reps: std::collections::BTreeMap<u16, Perm>,
    }
    fn orbit(l: &mut L) {
        let n = l.gens.first().map_or(0, |g| g.len());
        l.reps.clear();
        l.reps.insert(l.base as u16, identity(n.max(l.base + 1)));
        let mut stack = vec![l.base as u16];
        while let Some(p) = stack.pop() {
            let u = l.reps[&p].clone();
            for g in &l.gens {
                let q = g[p as usize];
                if let std::collections::btree_map::Entry::Vacant(e) = l.reps.entry(q) {
                    e.insert(compose(&u, g));
                    stack.push(q);
                }
            }
        }
    }
    fn sift(ls: &[L], g: &Perm) -> (Perm, usize) {
        let mut y = g.clone();
        for (j, l) in ls.iter().enumerate() {
            let p = y[l.base];
            match l.reps.get(&p) {
                None => return (y, j),
                Some(u) => y = compose(&y, &inverse(u)),
            }
        }
        (y, ls.len())
    }
    fn schreier(ls: &mut Vec<L>, n: usize, i: usize) {
        // Make level i correct, assuming nothing below.
        loop {
            let mut bad = None;
            'outer: for (p, u) in ls[i].reps.clone() {
                for g in ls[i].gens.clone() {
                    let q = g[p as usize];
                    let s = compose(&compose(&u, &g), &inverse(&ls[i].reps[&q]));
                    let (y, j) = sift(&ls[i + 1..], &s);
                    if !is_identity(&y) {
                        bad = Some((y, i + 1 + j));
                        break 'outer;
                    }
                }
            }
            let Some((y, j)) = bad else { return };
            if j == ls.len() {
                let b = (0..n).find(|&x| y[x] as usize != x).unwrap();
                ls.push(L { base: b, gens: vec![], reps: Default::default() });
            }
            for l in ls.iter_mut().take(j + 1).skip(i + 1) {
                l.gens.push(y.clone());
                orbit(l);
            }
            for k in (i + 1..=j).rev() {
                schreier(ls, n, k);
            }
        }
    }
    let gens: Vec<Perm> = gens.iter().filter(|g| !is_identity(g)).cloned().collect();
    if gens.is_empty() {
        return big(1);
    }
    let b = (0..n).find(|&x| gens.iter().any(|g| g[x] as usize != x)).unwrap();
    let mut ls = vec![L { base: b, gens, reps: Default::default() }];
    orbit(&mut ls[0]);
    schreier(&mut ls, n, 0);
    ls.iter().fold(big(1), |a, l| a * l.reps.len() as u64)
}

#[test]
fn perm_helpers() {
    let a = from_cycles(4, &[&[0, 1]]);
    let b = from_cycles(4, &[&[1, 2, 3]]);
    // first a then b: 0 -> 1 -> 2
    assert_eq!(compose(&a, &b), vec![2, 0, 3, 1]);
    assert_eq!(compose(&a, &inverse(&a)), identity(4));
    assert_eq!(compose(&inverse(&b), &b), identity(4));
}

#[test]
fn symmetric_and_alternating() {
    let s5 = StabChain::new(5, &[from_cycles(5, &[&[0, 1]]), from_cycles(5, &[&[0, 1, 2, 3, 4]])]);
    assert_eq!(s5.order(), big(120));
    let s6 =
        StabChain::new(6, &[from_cycles(6, &[&[0, 1]]), from_cycles(6, &[&[0, 1, 2, 3, 4, 5]])]);
    assert_eq!(s6.order(), big(720));
    let a5 = StabChain::new(
        5,
        &[
            from_cycles(5, &[&[0, 1, 2]]),
            from_cycles(5, &[&[1, 2, 3]]),
            from_cycles(5, &[&[2, 3, 4]]),
        ],
    );
    assert_eq!(a5.order(), big(60));
    assert!(a5.contains(&from_cycles(5, &[&[0, 4, 2]])));
    assert!(a5.contains(&from_cycles(5, &[&[0, 1], &[2, 3]])));
    assert!(!a5.contains(&from_cycles(5, &[&[0, 1]])));
    assert!(s5.contains(&from_cycles(5, &[&[3, 4]])));
    let s40 = StabChain::new(
        40,
        &[from_cycles(40, &[&[0, 1]]), from_cycles(40, &[&(0..40).collect::<Vec<u16>>()])],
    );
    assert_eq!(s40.order(), factorial(40));
}

#[test]
fn trivial_groups() {
    let c = StabChain::new(7, &[]);
    assert_eq!(c.order(), big(1));
    assert!(c.contains(&identity(7)));
    assert!(!c.contains(&from_cycles(7, &[&[0, 1]])));
    assert!(c.base().is_empty());
    let c = StabChain::new(7, &[identity(7), identity(7)]);
    assert_eq!(c.order(), big(1));
    let c = StabChain::new(0, &[]);
    assert_eq!(c.order(), big(1));
    assert!(c.contains(&[]));
    assert_eq!(c.degree(), 0);
}

#[test]
fn sliding_blocks() {
    assert_eq!(StabChain::new(9, &block_turns(3, 3, 2)).order(), factorial(9));
    assert_eq!(StabChain::new(6, &block_turns(2, 3, 2)).order(), big(120));
    assert_eq!(StabChain::new(12, &block_turns(3, 4, 3)).order(), big(720));
    let g = block_turns(4, 4, 3);
    let c = StabChain::new(16, &g);
    assert_eq!(c.order(), big(812_851_200));
    assert_eq!(c.order(), factorial(8) * factorial(8) / 2u32);
    // Members: generators and products.
    for a in &g {
        assert!(c.contains(a));
        for b in &g {
            assert!(c.contains(&compose(a, b)));
            assert!(c.contains(&compose(&inverse(a), &compose(b, a))));
        }
    }
    // Cells 0 and 2 have the same colour; swapping them alone is odd on that colour class
    // and even (trivial) on the other, but every move is odd on both classes.
    assert!(!c.contains(&from_cycles(16, &[&[0, 2]])));
    // The same swap together with a swap in the other class (cells 1 and 3) is allowed.
    assert!(c.contains(&from_cycles(16, &[&[0, 2], &[1, 3]])));
    // A transposition of cells of different colours leaves the colour classes.
    assert!(!c.contains(&from_cycles(16, &[&[0, 1]])));
    // Non-permutations are rejected.
    assert!(!c.contains(&[0; 16]));
    assert!(!c.contains(&identity(15)));
}

#[test]
fn hyperoctahedral_spins() {
    let g = spins(3, 3);
    assert_eq!(g.len(), 36);
    let c = StabChain::new(18, &g);
    assert_eq!(c.order(), big(185_794_560));
    assert_eq!(c.order(), big(1 << 9) * factorial(9));
    // Flipping one tile and swapping two tiles (keeping orientations) are members.
    assert!(c.contains(&from_cycles(18, &[&[0, 1]])));
    assert!(c.contains(&from_cycles(18, &[&[0, 4], &[1, 5]])));
    // Splitting a tile's two sides is not.
    assert!(!c.contains(&from_cycles(18, &[&[0, 2]])));
    // Only the 1x1 spins: flips only, order 2^9; a tile swap is rejected.
    let flips: Vec<Perm> = (0..9).map(|p| from_cycles(18, &[&[2 * p, 2 * p + 1]])).collect();
    let f = StabChain::new(18, &flips);
    assert_eq!(f.order(), big(512));
    assert!(!f.contains(&from_cycles(18, &[&[0, 4], &[1, 5]])));
    assert!(f.contains(&from_cycles(18, &[&[0, 1], &[8, 9]])));
}

#[test]
fn upper_bound_paths() {
    let g = block_turns(4, 4, 3);
    let exact = factorial(8) * factorial(8) / 2u32;
    // Tight bound: early exit, still a valid chain.
    let c = StabChain::with_upper_bound(16, &g, &exact);
    assert_eq!(c.order(), exact);
    assert!(!c.contains(&from_cycles(16, &[&[0, 2]])));
    // Loose bound: full verification.
    let c = StabChain::with_upper_bound(16, &g, &factorial(16));
    assert_eq!(c.order(), exact);
    // Wrong "bound": ignored.
    let c = StabChain::with_upper_bound(16, &g, &big(1000));
    assert_eq!(c.order(), exact);
    let c = StabChain::with_upper_bound(16, &g, &big(1));
    assert_eq!(c.order(), exact);
}

#[test]
fn sign_bounds() {
    let bound = |g: &[Perm]| {
        let gs: Vec<&[u16]> = g.iter().map(|p| p.as_slice()).collect();
        sign_bound(&gs, &orbit_classes(g[0].len(), &gs))
    };
    assert_eq!(bound(&block_turns(4, 4, 3)), factorial(8) * factorial(8) / 2u32);
    assert_eq!(bound(&block_turns(12, 12, 2)), factorial(144));
    assert_eq!(bound(&block_turns(12, 12, 4)), factorial(144) / 2u32);
    assert_eq!(bound(&block_turns(12, 12, 3)), factorial(72) * factorial(72) / 2u32);
    // 3x5 with 3x3 blocks: the two colour classes have 8 and 7 cells.
    assert_eq!(bound(&block_turns(3, 5, 3)), factorial(8) * factorial(7) / 2u32);
    // Independent signs on two orbits, and a fixed point.
    let g = vec![from_cycles(7, &[&[0, 1]]), from_cycles(7, &[&[2, 3, 4, 5]])];
    assert_eq!(bound(&g), big(2 * 24));
    let g = vec![from_cycles(7, &[&[0, 1], &[2, 3]]), from_cycles(7, &[&[3, 4, 5]])];
    assert_eq!(bound(&g), big(24));
    let s = spins(3, 3);
    assert_eq!(bound(&s), factorial(18));
}

#[test]
fn proper_subgroup_membership() {
    // D_8 acting on the square's corners inside S_4.
    let r = from_cycles(4, &[&[0, 1, 2, 3]]);
    let s = from_cycles(4, &[&[1, 3]]);
    let c = StabChain::new(4, &[r.clone(), s.clone()]);
    assert_eq!(c.order(), big(8));
    assert!(c.contains(&compose(&r, &s)));
    assert!(c.contains(&from_cycles(4, &[&[0, 2], &[1, 3]])));
    assert!(!c.contains(&from_cycles(4, &[&[0, 1]])));
    assert!(!c.contains(&from_cycles(4, &[&[0, 1, 2]])));
}

#[test]
fn matches_closure_on_small_groups() {
    let mut rng = SplitMix64(12345);
    for trial in 0..300 {
        let n = 2 + rng.below(7);
        let ngens = 1 + rng.below(3);
        let gens: Vec<Perm> = (0..ngens)
            .map(|_| {
                let swaps = 1 + rng.below(n);
                random_swaps(&mut rng, n, swaps)
            })
            .collect();
        let c = StabChain::new(n, &gens);
        let all = closure(n, &gens);
        assert_eq!(c.order(), big(all.len() as u64), "trial {trial}: {gens:?}");
        // membership on all of S_n for n <= 6
        if n <= 6 {
            let mut p = identity(n);
            let elements = all_perms(n);
            for q in elements {
                p.copy_from_slice(&q);
                assert_eq!(c.contains(&p), all.contains(&p), "trial {trial}");
            }
        }
    }
}

/// Two elements of `S_n` get one coset name exactly when they lie in one right coset of the
/// group (`x y^-1` in it), on every pair of `S_n` for small random groups, and names are
/// elements of their cosets.
#[test]
fn right_coset_names_tell_cosets_apart() {
    let mut rng = SplitMix64(777);
    for trial in 0..60 {
        let n = 3 + rng.below(4);
        let gens: Vec<Perm> = (0..1 + rng.below(2))
            .map(|_| {
                let swaps = 1 + rng.below(n);
                random_swaps(&mut rng, n, swaps)
            })
            .collect();
        let c = StabChain::new(n, &gens);
        let elements = all_perms(n);
        let names: Vec<Perm> = elements.iter().map(|x| c.right_coset_name(x)).collect();
        for (x, name) in elements.iter().zip(&names) {
            assert!(c.contains(&compose(name, &inverse(x))), "trial {trial}: {x:?} -> {name:?}");
        }
        for (i, x) in elements.iter().enumerate() {
            for (j, y) in elements.iter().enumerate() {
                let together = c.contains(&compose(x, &inverse(y)));
                assert_eq!(names[i] == names[j], together, "trial {trial}: {gens:?} {x:?} {y:?}");
            }
        }
        let distinct: std::collections::HashSet<&Perm> = names.iter().collect();
        assert_eq!(big(distinct.len() as u64) * c.order(), factorial(n as u64), "trial {trial}");
    }
}

fn all_perms(n: usize) -> Vec<Perm> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in all_perms(n - 1) {
        for k in 0..n {
            let mut q: Perm = p.clone();
            q.insert(k, (n - 1) as u16);
            out.push(q);
        }
    }
    out
}

#[test]
fn matches_naive_schreier_sims() {
    // Puzzle groups on small boards, plain, oriented and signed.
    for rows in 1..=4 {
        for cols in rows..=5 {
            for b in 1..=rows {
                let g = block_turns(rows, cols, b);
                let n = rows * cols;
                assert_eq!(StabChain::new(n, &g).order(), naive_order(n, &g), "{rows}x{cols} b{b}");
                if rows * cols <= 12 {
                    let g = oriented_block_turns(rows, cols, b);
                    assert_eq!(
                        StabChain::new(4 * n, &g).order(),
                        naive_order(4 * n, &g),
                        "oriented {rows}x{cols} b{b}"
                    );
                }
            }
        }
    }
    for (rows, cols) in [(1, 4), (2, 2), (2, 3), (3, 3), (2, 5)] {
        let g = spins(rows, cols);
        let n = 2 * rows * cols;
        assert_eq!(StabChain::new(n, &g).order(), naive_order(n, &g), "spins {rows}x{cols}");
    }
    // Random groups of moderate degree.
    let mut rng = SplitMix64(777);
    for _ in 0..60 {
        let n = 8 + rng.below(12);
        let ngens = 1 + rng.below(3);
        let gens: Vec<Perm> = (0..ngens)
            .map(|_| {
                let mut p = identity(n);
                let k = 2 + rng.below(4);
                let start = rng.below(n);
                let step = 1 + rng.below(3);
                // a product of a few short cycles with structure
                for c in 0..k.min(n / 2) {
                    let a = (start + c * step) % n;
                    let b = (start + c * step + 1 + rng.below(2)) % n;
                    p.swap(a, b);
                }
                p
            })
            .collect();
        assert_eq!(StabChain::new(n, &gens).order(), naive_order(n, &gens), "{gens:?}");
    }
}

#[test]
fn large_groups_exact() {
    // 6x6 with 2x2 blocks: S_36 (every turn is a 4-cycle, hence odd).
    assert_eq!(StabChain::new(36, &block_turns(6, 6, 2)).order(), factorial(36));
    // 5x5 with 3x3 blocks: two colour classes (13 and 12 cells) with linked parities.
    let c = StabChain::new(25, &block_turns(5, 5, 3));
    assert_eq!(c.order(), factorial(13) * factorial(12) / 2u32);
    // The same without the early exit on the sign bound.
    assert_eq!(build_with(25, &block_turns(5, 5, 3), QUIET_ROUNDS, 0).order(), c.order());
    // Oriented tiles on 3x4 with 2x2 blocks (verified, the sign bound is not tight).
    let g = oriented_block_turns(3, 4, 2);
    assert_eq!(StabChain::new(48, &g).order(), naive_order(48, &g));
    // Signed 5x5: all 225 spins, the full hyperoctahedral group 2^25 * 25!.
    let g = spins(5, 5);
    assert_eq!(g.len(), 225);
    assert_eq!(StabChain::new(50, &g).order(), big(1 << 25) * factorial(25));
}

/// Builds with a given random-phase length and an artificially used-up part of the
/// explicit-transversal budget (to exercise the verification and the Schreier trees).
fn build_with(n: usize, gens: &[Perm], quiet: usize, budget_used: usize) -> StabChain {
    let gs: Vec<&[u16]> = gens.iter().filter(|g| !is_identity(g)).map(|g| g.as_slice()).collect();
    let mut chain = StabChain::empty(n);
    if gs.is_empty() {
        return chain;
    }
    chain.explicit_used = budget_used;
    let classes = orbit_classes(n, &gs);
    let mut b = Builder { chain, classes, bounds: Vec::new(), quiet_rounds: quiet };
    assert!(!b.run(&gs));
    b.verify();
    b.chain
}

#[test]
fn explicit_budget_fallback_agrees() {
    let g = block_turns(4, 4, 3);
    let c = build_with(16, &g, QUIET_ROUNDS, EXPLICIT_BUDGET - 40);
    assert!(c.levels.iter().any(|lv| !lv.explicit));
    assert_eq!(c.order(), factorial(8) * factorial(8) / 2u32);
    assert!(!c.contains(&from_cycles(16, &[&[0, 2]])));
    assert!(c.contains(&compose(&g[0], &g[3])));
    let c = build_with(36, &block_turns(6, 6, 2), 0, EXPLICIT_BUDGET);
    assert!(c.levels.iter().all(|lv| !lv.explicit));
    assert_eq!(c.order(), factorial(36));
    let c = build_with(36, &block_turns(6, 6, 2), QUIET_ROUNDS, 0);
    assert_eq!(c.order(), factorial(36));
}

#[test]
fn verification_alone_is_exact() {
    // Without (or with a very short) random phase, the verification has to find almost
    // all of the chain by itself; compare with the textbook algorithm.
    let mut cases: Vec<(usize, Vec<Perm>)> = Vec::new();
    for rows in 1..=3 {
        for cols in rows..=4 {
            for b in 1..=rows {
                cases.push((rows * cols, block_turns(rows, cols, b)));
                if rows * cols <= 9 {
                    cases.push((4 * rows * cols, oriented_block_turns(rows, cols, b)));
                }
            }
        }
    }
    for (rows, cols) in [(1, 3), (2, 2), (2, 3)] {
        cases.push((2 * rows * cols, spins(rows, cols)));
    }
    let mut rng = SplitMix64(4242);
    for _ in 0..40 {
        let n = 6 + rng.below(10);
        let gens: Vec<Perm> = (0..1 + rng.below(3))
            .map(|_| {
                let swaps = 1 + rng.below(3);
                random_swaps(&mut rng, n, swaps)
            })
            .collect();
        cases.push((n, gens));
    }
    for (n, g) in &cases {
        let expect = naive_order(*n, g);
        for quiet in [0, 1, 3] {
            for budget_used in [0, EXPLICIT_BUDGET] {
                let c = build_with(*n, g, quiet, budget_used);
                assert_eq!(c.order(), expect, "n {n}, quiet {quiet}, gens {g:?}");
                for x in g {
                    assert!(c.contains(x));
                }
            }
        }
    }
}

/// Random generators of a few structured kinds: imprimitive (blocks permuted, with
/// changes inside blocks), two copies of a group with partly diagonal generators, and
/// products of short cycles.
fn structured_gens(rng: &mut SplitMix64) -> (usize, Vec<Perm>) {
    let swap = |p: &mut Vec<usize>, rng: &mut SplitMix64| {
        let len = p.len();
        p.swap(rng.below(len), rng.below(len));
    };
    match rng.below(3) {
        0 => {
            let k = 2 + rng.below(3);
            let m = 2 + rng.below(5);
            let n = k * m;
            let gens = (0..1 + rng.below(3))
                .map(|_| {
                    let mut blocks: Vec<usize> = (0..m).collect();
                    for _ in 0..rng.below(3) {
                        swap(&mut blocks, rng);
                    }
                    let mut p = identity(n);
                    for (blk, &to) in blocks.iter().enumerate() {
                        let mut inner: Vec<usize> = (0..k).collect();
                        if rng.below(2) == 0 {
                            swap(&mut inner, rng);
                        }
                        if rng.below(3) == 0 {
                            inner.rotate_left(1);
                        }
                        for (x, &y) in inner.iter().enumerate() {
                            p[blk * k + x] = (to * k + y) as u16;
                        }
                    }
                    p
                })
                .collect();
            (n, gens)
        }
        1 => {
            let h = 3 + rng.below(6);
            let gens = (0..2 + rng.below(2))
                .map(|_| {
                    let mut a: Vec<usize> = (0..h).collect();
                    for _ in 0..1 + rng.below(2) {
                        swap(&mut a, rng);
                    }
                    let mut b = a.clone();
                    match rng.below(3) {
                        0 => {}
                        1 => b.reverse(),
                        _ => swap(&mut b, rng),
                    }
                    let mut p = identity(2 * h);
                    for x in 0..h {
                        p[x] = a[x] as u16;
                        p[h + x] = (h + b[x]) as u16;
                    }
                    p
                })
                .collect();
            (2 * h, gens)
        }
        _ => {
            let n = 10 + rng.below(15);
            let gens = (0..1 + rng.below(3))
                .map(|_| {
                    let len = 2 + rng.below(4);
                    let start = rng.below(n);
                    let step = 1 + rng.below(4);
                    let mut cycle: Vec<u16> = Vec::new();
                    for c in 0..len {
                        let x = ((start + c * step) % n) as u16;
                        if !cycle.contains(&x) {
                            cycle.push(x);
                        }
                    }
                    from_cycles(n, &[&cycle])
                })
                .collect();
            (n, gens)
        }
    }
}

#[test]
fn structured_groups_against_naive_and_closure() {
    let mut rng = SplitMix64(99);
    for case in 0..400 {
        let (n, g) = structured_gens(&mut rng);
        let expect = naive_order(n, &g);
        let c = StabChain::new(n, &g);
        assert_eq!(c.order(), expect, "case {case}: {g:?}");
        for quiet in [0, 2] {
            let budget_used = if case % 2 == 0 { 0 } else { EXPLICIT_BUDGET };
            assert_eq!(build_with(n, &g, quiet, budget_used).order(), expect, "case {case}");
        }
        assert_eq!(StabChain::with_upper_bound(n, &g, &expect).order(), expect);
        if expect <= big(20_000) {
            let all: Vec<Perm> = closure(n, &g).into_iter().collect();
            let set: std::collections::HashSet<&Perm> = all.iter().collect();
            for _ in 0..100 {
                let mut p = all[rng.below(all.len())].clone();
                assert!(c.contains(&p));
                p.swap(rng.below(n), rng.below(n));
                assert_eq!(c.contains(&p), set.contains(&p), "case {case}");
            }
        }
    }
}

/// Timings (run with `cargo test --release -- --ignored --nocapture timings`).
#[test]
#[ignore]
fn timings() {
    use std::time::Instant;
    let best = |f: &dyn Fn() -> StabChain| {
        let mut best = std::time::Duration::MAX;
        let mut c = None;
        for _ in 0..3 {
            let t0 = Instant::now();
            c = Some(f());
            best = best.min(t0.elapsed());
        }
        (c.unwrap(), best)
    };
    let t = |label: &str, n: usize, g: &[Perm]| {
        let (c, dt) = best(&|| StabChain::new(n, g));
        let o = c.order();
        let (c2, dt2) = best(&|| StabChain::with_upper_bound(n, g, &o));
        assert_eq!(c2.order(), o);
        let (c3, dt3) = best(&|| build_with(n, g, QUIET_ROUNDS, 0));
        assert_eq!(c3.order(), o);
        println!(
            "{label:>18}: new {:>8.3} ms, exact bound {:>7.3} ms, forced verification \
             {:>8.3} ms; base {:>3}, sgens {:>3}, order ~2^{}",
            dt.as_secs_f64() * 1e3,
            dt2.as_secs_f64() * 1e3,
            dt3.as_secs_f64() * 1e3,
            c.base().len(),
            c.gens.len(),
            o.bits()
        );
        dt
    };
    for b in 1..=12 {
        t(&format!("12x12 b{b}"), 144, &block_turns(12, 12, b));
    }
    for b in 1..=10 {
        t(&format!("10x10 b{b}"), 100, &block_turns(10, 10, b));
    }
    let t0 = Instant::now();
    let mut worst = (std::time::Duration::ZERO, String::new());
    let mut boards = 0;
    for rows in 1..=10 {
        for cols in rows..=10 {
            for b in 1..=rows {
                let g = block_turns(rows, cols, b);
                let t1 = Instant::now();
                let c = StabChain::new(rows * cols, &g);
                std::hint::black_box(c.order());
                let dt = t1.elapsed();
                if dt > worst.0 {
                    worst = (dt, format!("{rows}x{cols} b{b}"));
                }
                boards += 1;
            }
        }
    }
    println!(
        "sweep n<=m<=10, all b, {boards} boards (new): {:.3} s, slowest {} {:.1} ms",
        t0.elapsed().as_secs_f64(),
        worst.1,
        worst.0.as_secs_f64() * 1e3
    );
    t("spins 5x5", 50, &spins(5, 5));
    t("spins 4x6", 48, &spins(4, 6));
    for b in 2..=4 {
        t(&format!("oriented 6x6 b{b}"), 144, &oriented_block_turns(6, 6, b));
    }
    t("12x12 b2 (again)", 144, &block_turns(12, 12, 2));
    for (label, n, g) in [
        ("24x25 b2", 600, block_turns(24, 25, 2)),
        ("24x25 b3", 600, block_turns(24, 25, 3)),
        ("oriented 12x12 b2", 576, oriented_block_turns(12, 12, 2)),
    ] {
        let t0 = Instant::now();
        let c = StabChain::new(n, &g);
        println!(
            "{label:>18}: new {:>8.3} ms; base {}, order ~2^{}, explicit levels {}/{}",
            t0.elapsed().as_secs_f64() * 1e3,
            c.base().len(),
            c.order().bits(),
            c.levels.iter().filter(|l| l.explicit).count(),
            c.levels.len()
        );
    }
}
