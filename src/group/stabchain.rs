//! Stabilizer chains for permutation groups (randomized Schreier–Sims with a deterministic
//! verification).
//!
//! # Conventions
//!
//! Points are `0..degree` (stored as `u16`). A permutation `p` is a slice with `p[i]` the image
//! of point `i`. Products are written left to right: [`compose`]`(a, b)` is "first `a`, then
//! `b`", so `compose(a, b)[i] == b[a[i]]`. The same convention is used in this documentation:
//! `ab` means first `a` then `b`, and `x^g` is the image of `x` under `g`.
//!
//! # The chain
//!
//! A [`StabChain`] of a group `G` consists of base points `b_0, …, b_{k-1}`, a list of strong
//! generators `S`, and for every level `i` the orbit `O_i = b_i^{G_i}` of `b_i` under
//! `G_i = ⟨S_i⟩`, where `S_i` is the set of strong generators fixing `b_0, …, b_{i-1}`. The chain
//! is *valid* when `G_0 = G` and, at every level, the stabilizer of `b_i` in `G_i` is
//! `G_{i+1}`; then `|G| = ∏ |O_i|` and membership is tested by *sifting*: divide off the coset
//! representative of the image of `b_i` level by level and check that the identity remains.
//! Every level keeps a Schreier tree of its orbit (each point labelled by the strong generator
//! that first reached it). Within a memory budget (64 MiB per chain) the inverse coset
//! representative of every orbit point is also stored explicitly, which makes sifting one
//! table lookup per point and level; this covers every level up to degree about 400. Beyond
//! that, levels whose orbits are too long to fit keep only their Schreier tree (rebuilt
//! breadth-first when it gets deep) and sifting walks it.
//!
//! # Construction
//!
//! 1. **Random phase.** Product replacement (with an accumulator, seeded from a fixed
//!    SplitMix64 state, so results are reproducible) produces nearly uniform random elements of
//!    `G`. Each is sifted; a non-trivial residue (failing at level `j`) becomes a new strong
//!    generator at level `j` (a new base point is appended when it fixes the whole base), and
//!    the orbits of levels `0..=j` are extended. The phase ends after a run of consecutive
//!    random elements that all sift to the identity. The strong generators are random elements
//!    only, which keeps their number close to the base length. Afterwards every input
//!    generator is sifted (failures are added), so the strong generators generate exactly `G`.
//! 2. **Early exit.** As soon as `∏ |O_i|` reaches a proven upper bound on `|G|` the chain is
//!    returned: `∏ |O_i|` is always a lower bound for `|⟨S⟩|` (each level's stabilizer
//!    contains `G_{i+1}`) and `⟨S⟩ ≤ G`, so reaching an upper bound forces `⟨S⟩ = G` and
//!    equality at every level, i.e. a valid chain. The bounds used are the caller's (see
//!    [`StabChain::with_upper_bound`]) and one computed from the orbits of `G`: `G` lies in the
//!    product of the symmetric groups on its orbits, with the vector of orbit signs in the
//!    span of the generators' sign vectors. The latter is exact whenever `G` induces at least
//!    the alternating group on every orbit, the common case for sliding-block puzzles
//!    (`S_144`, `(S_72 × S_72)` with linked parities, …), which therefore need no
//!    verification.
//! 3. **Verification** (deterministic; only when no bound is reached), from the bottom level
//!    up. When checking level `i`, the levels below already form a valid chain for
//!    `H = G_{i+1}` (so membership in `H` is decidable by sifting from level `i + 1`). Let
//!    `b = b_i`, `O = O_i`, `T = S_i \ S_{i+1}` (the generators moving `b`), and pick a
//!    transversal `u'_q` (`b^{u'_q} = q`). If `b_{i+1} ∈ O`, the `H`-orbit of `r = b_{i+1}` is
//!    `O_{i+1}` and we use `u'_q = u_r v_q` there (`v_q` the level `i + 1` representative;
//!    new base points are chosen to make this the usual case). We test
//!    * (A) `u_r x u_r⁻¹ ∈ H` for every `x ∈ S_{i+2}` (these generate `H_r`);
//!    * (B') `u'_q s u'_{q^s}⁻¹ ∈ H` for every `s ∈ S_{i+1}` and every `q` outside
//!      `{b} ∪ O_{i+1}` (in practice only a few points fixed by `H`);
//!    * (B) `u'_q t u'_{q^t}⁻¹ ∈ H` for every `q ∈ O` and every `t ∈ T`.
//!
//!    These imply that `X = ⋃_q H u'_q` is closed under right multiplication by `S_i`: for `t`
//!    by (B); for `h ∈ H` and `q = r^{v_q}` we get `u'_q h u'_{q^h}⁻¹ = u_r (v_q h v_{q^h}⁻¹)
//!    u_r⁻¹` with `v_q h v_{q^h}⁻¹ ∈ H_r`, which lies in `H` by (A); elsewhere by (B'). As
//!    `1 ∈ X`, `G_i ⊆ X`, so the stabilizer of `b` in `G_i` is `H` and the level is correct.
//!    Compared with testing every Schreier generator (`|O| · |S_i|` sifts), this needs about
//!    `|S_{i+2}| + |O| · |T|` sifts per level. A failed test yields an element of
//!    `Stab_{G_i}(b)` outside `H`; it is added as a strong generator at the level where its
//!    sift failed and verification resumes from that level.
//!
//! The result is exact for [`StabChain::new`], independent of the random choices (which only
//! affect speed, the base and the strong generators, and are themselves reproducible).

use num_bigint::BigUint;

/// A permutation of `0..n`: `p[i]` is the image of point `i`.
pub type Perm = Vec<u16>;

/// Marks "not in the orbit" in `Level::pos` and "no generator" in `Level::label`.
const NONE: u32 = u32::MAX;
/// Largest number of `u16` entries kept in explicit transversal tables per chain (64 MiB).
const EXPLICIT_BUDGET: usize = 1 << 25;
/// The random phase stops after this many consecutive random elements sift to the identity
/// (random elements are cheap compared with a verification that an upper bound might avoid).
const QUIET_ROUNDS: usize = 100;
/// Minimum number of slots in the product replacement state.
const MIN_SLOTS: usize = 10;
/// Fixed seed of the pseudo-random generator (results are reproducible).
const SEED: u64 = 0x7477_6972_6c5f_7373;

/// The identity permutation of `0..n`.
pub fn identity(n: usize) -> Perm {
    assert!(n <= 1 << 16, "degree {n} too large for u16 points");
    (0..n).map(|i| i as u16).collect()
}

/// The product "first `a`, then `b`": `compose(a, b)[i] == b[a[i]]`.
pub fn compose(a: &[u16], b: &[u16]) -> Perm {
    assert_eq!(a.len(), b.len(), "composing permutations of different degrees");
    a.iter().map(|&x| b[x as usize]).collect()
}

/// The inverse permutation: `inverse(a)[a[i]] == i`.
pub fn inverse(a: &[u16]) -> Perm {
    let mut r = vec![0u16; a.len()];
    invert_into(a, &mut r);
    r
}

fn invert_into(a: &[u16], out: &mut [u16]) {
    for (i, &x) in a.iter().enumerate() {
        out[x as usize] = i as u16;
    }
}

fn is_identity(a: &[u16]) -> bool {
    a.iter().enumerate().all(|(i, &x)| x as usize == i)
}

fn is_permutation(p: &[u16], n: usize) -> bool {
    if p.len() != n {
        return false;
    }
    let mut seen = vec![false; n];
    for &x in p {
        let x = x as usize;
        if x >= n || seen[x] {
            return false;
        }
        seen[x] = true;
    }
    true
}

/// One level of the chain: a base point, its orbit under `G_i` and a transversal.
#[derive(Clone)]
struct Level {
    base: u16,
    /// The orbit, in discovery order; `orbit[0] == base`.
    orbit: Vec<u16>,
    /// `pos[p]` is the index of `p` in `orbit`, or `NONE`.
    pos: Vec<u32>,
    /// `label[k]` is the strong generator `h` with `orbit[k] = parent^h` (Schreier tree);
    /// `NONE` for the base point.
    label: Vec<u32>,
    /// `depth[k]`: depth of `orbit[k]` in the Schreier tree; `max_depth` the largest one.
    depth: Vec<u32>,
    max_depth: u32,
    /// Number of generators in `sgens` when the tree was last built from scratch.
    tree_gens: usize,
    /// The strong generators of this level, `S_i` (indices into `StabChain::gens`).
    sgens: Vec<u32>,
    /// If `explicit`: the inverse coset representatives, `n` entries per orbit point:
    /// `reps[k*n..(k+1)*n]` maps `orbit[k]` to `base`.
    reps: Vec<u16>,
    explicit: bool,
}

/// A stabilizer chain (base, strong generators and transversals) of a permutation group; see
/// the module documentation for the algorithm.
#[derive(Clone)]
pub struct StabChain {
    degree: usize,
    levels: Vec<Level>,
    /// Strong generators and their inverses.
    gens: Vec<Perm>,
    gens_inv: Vec<Perm>,
    /// `gen_level[h]`: the index of the first base point moved by `gens[h]`.
    gen_level: Vec<usize>,
    /// Number of `u16` entries in explicit transversal tables.
    explicit_used: usize,
    /// Levels whose orbit grows beyond this length drop their explicit table (chosen so that
    /// the smaller, more numerous orbits of deep levels fit in the budget).
    explicit_limit: usize,
}

impl std::fmt::Debug for StabChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StabChain")
            .field("degree", &self.degree)
            .field("base", &self.base())
            .field("orbit_lengths", &self.orbit_lengths())
            .field("strong_generators", &self.gens.len())
            .finish()
    }
}

impl StabChain {
    /// Builds a chain for the group generated by `gens` (each a permutation of `0..degree`).
    ///
    /// The result is exact and deterministic: a randomized Schreier–Sims (with a fixed seed)
    /// followed by a deterministic verification, skipped when the order reaches a proven upper
    /// bound computed from the orbits and sign constraints of the generators. Panics if a
    /// generator is not a permutation of `0..degree` or if `degree > 65536`.
    pub fn new(degree: usize, gens: &[Perm]) -> StabChain {
        Self::build(degree, gens, None)
    }

    /// Like [`StabChain::new`], but stops as soon as the order reached equals
    /// `known_upper_bound`, which must be a proven upper bound on the order of the group
    /// generated by `gens` (a subgroup of that order is then the whole group, so the chain is
    /// valid). If the bound is never reached (it is not tight), the chain is completed and
    /// verified exactly as in [`StabChain::new`] (which also uses a bound of its own, computed
    /// from orbits and signs). The bound must really be one: a "bound" smaller than the true
    /// order is ignored once the chain exceeds it, but one the chain happens to reach exactly
    /// would be accepted.
    pub fn with_upper_bound(
        degree: usize,
        gens: &[Perm],
        known_upper_bound: &BigUint,
    ) -> StabChain {
        Self::build(degree, gens, Some(known_upper_bound))
    }

    /// The degree: the group acts on the points `0..degree`.
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// The group order: the product of the orbit lengths.
    pub fn order(&self) -> BigUint {
        let mut r = BigUint::from(1u32);
        for lv in &self.levels {
            r *= lv.orbit.len() as u64;
        }
        r
    }

    /// Is `p` an element of the group? Returns `false` for anything that is not a permutation
    /// of `0..degree` (wrong length, out-of-range or repeated images).
    pub fn contains(&self, p: &[u16]) -> bool {
        if p.len() != self.degree || p.iter().any(|&x| x as usize >= self.degree) {
            return false;
        }
        let mut y = p.to_vec();
        // A non-permutation never sifts to the identity (composing with permutations keeps
        // it non-injective), so no separate bijectivity check is needed.
        self.sift_from(&mut y, 0).is_none()
    }

    /// The base points, one per level (every level has an orbit of length at least 2).
    pub fn base(&self) -> Vec<u16> {
        self.levels.iter().map(|lv| lv.base).collect()
    }

    /// The length of the basic orbit at each level (same order as [`StabChain::base`]); their
    /// product is the group order.
    pub fn orbit_lengths(&self) -> Vec<usize> {
        self.levels.iter().map(|lv| lv.orbit.len()).collect()
    }

    /// The basic orbit of level `i`, in the chain's order (`[0]` is the base point); with
    /// [`StabChain::rep_inv_into`] the transversal that ranks by the chain read.
    pub(crate) fn level_orbit(&self, i: usize) -> &[u16] {
        &self.levels[i].orbit
    }

    fn empty(degree: usize) -> StabChain {
        StabChain {
            degree,
            levels: Vec::new(),
            gens: Vec::new(),
            gens_inv: Vec::new(),
            gen_level: Vec::new(),
            explicit_used: 0,
            explicit_limit: if degree == 0 {
                0
            } else {
                degree.min(((2 * EXPLICIT_BUDGET / degree) as f64).sqrt() as usize)
            },
        }
    }

    fn build(degree: usize, gens: &[Perm], bound: Option<&BigUint>) -> StabChain {
        assert!(degree <= 1 << 16, "degree {degree} too large for u16 points");
        for (k, g) in gens.iter().enumerate() {
            assert!(is_permutation(g, degree), "generator {k} is not a permutation of 0..{degree}");
        }
        let gens: Vec<&[u16]> =
            gens.iter().filter(|g| !is_identity(g)).map(|g| g.as_slice()).collect();
        let chain = StabChain::empty(degree);
        if gens.is_empty() {
            return chain;
        }
        let classes = orbit_classes(degree, &gens);
        let mut bounds = vec![sign_bound(&gens, &classes)];
        bounds.extend(bound.cloned());
        let mut b = Builder { chain, classes, bounds, quiet_rounds: QUIET_ROUNDS };
        if b.run(&gens) {
            return b.chain;
        }
        b.verify();
        b.chain
    }

    /// Sifts `y` through levels `from..`, leaving the residue in `y`. Returns `None` if the
    /// residue is the identity, otherwise the level where sifting failed (`levels.len()` if
    /// the residue fixes every base point but is not the identity).
    fn sift_from(&self, y: &mut [u16], from: usize) -> Option<usize> {
        let n = self.degree;
        for (j, lv) in self.levels.iter().enumerate().skip(from) {
            let b = lv.base;
            let p = y[b as usize];
            if p == b {
                continue;
            }
            let k = lv.pos[p as usize];
            if k == NONE {
                return Some(j);
            }
            if lv.explicit {
                let rep = &lv.reps[k as usize * n..(k as usize + 1) * n];
                for v in y.iter_mut() {
                    *v = rep[*v as usize];
                }
            } else {
                let mut q = p;
                while q != b {
                    let hinv = &self.gens_inv[lv.label[lv.pos[q as usize] as usize] as usize];
                    for v in y.iter_mut() {
                        *v = hinv[*v as usize];
                    }
                    q = hinv[q as usize];
                }
            }
        }
        if is_identity(y) { None } else { Some(self.levels.len()) }
    }

    /// A name of the right coset `G x` (the elements "first `g`, then `x`"), the same for
    /// every element of it: its element whose base images are least, level by level. The
    /// coset's elements send base point `b_1` to the images under `x` of `b_1`'s orbit; the
    /// least of them fixes `g`'s first transversal element `u`, and what is left is the
    /// coset of `G_2` through "first `u`, then `x`". (The base images alone do not name the
    /// coset: they tell apart elements of `G`, not of other cosets.)
    pub fn right_coset_name(&self, x: &[u16]) -> Perm {
        let n = self.degree;
        let mut x = x.to_vec();
        let mut next = vec![0u16; n];
        let mut rep_inv = vec![0u16; n];
        for (m, lv) in self.levels.iter().enumerate() {
            let (k, _) = (lv.orbit.iter().enumerate())
                .min_by_key(|&(_, &p)| x[p as usize])
                .expect("an orbit holds its base point");
            if k == 0 {
                continue;
            }
            // "First u, then x" where `rep_inv` is u's inverse: point `rep_inv[q]` goes
            // where `x` takes `q`.
            self.rep_inv_into(m, k, &mut rep_inv);
            for (q, &to) in x.iter().enumerate() {
                next[rep_inv[q] as usize] = to;
            }
            std::mem::swap(&mut x, &mut next);
        }
        x
    }

    /// Writes the inverse coset representative of `levels[m].orbit[k]` into `out`.
    pub(crate) fn rep_inv_into(&self, m: usize, k: usize, out: &mut [u16]) {
        let n = self.degree;
        let lv = &self.levels[m];
        if lv.explicit {
            out.copy_from_slice(&lv.reps[k * n..(k + 1) * n]);
            return;
        }
        for (i, v) in out.iter_mut().enumerate() {
            *v = i as u16;
        }
        let mut q = lv.orbit[k];
        while q != lv.base {
            let hinv = &self.gens_inv[lv.label[lv.pos[q as usize] as usize] as usize];
            for v in out.iter_mut() {
                *v = hinv[*v as usize];
            }
            q = hinv[q as usize];
        }
    }

    /// Appends a level with base point `b` (orbit `{b}` so far).
    fn push_level(&mut self, b: u16) {
        let n = self.degree;
        let mut pos = vec![NONE; n];
        pos[b as usize] = 0;
        let explicit = self.explicit_used + n <= EXPLICIT_BUDGET;
        let reps = if explicit {
            self.explicit_used += n;
            identity(n)
        } else {
            Vec::new()
        };
        self.levels.push(Level {
            base: b,
            orbit: vec![b],
            pos,
            label: vec![NONE],
            depth: vec![0],
            max_depth: 0,
            tree_gens: 0,
            sgens: Vec::new(),
            reps,
            explicit,
        });
    }

    /// Adds `g` as a strong generator whose first moved base point is `levels[level]`'s
    /// (`level == levels.len()` appends a new base point, chosen by `choose_base`), and
    /// extends the orbits of levels `0..=level`.
    fn add_gen(&mut self, g: Perm, level: usize, classes: &[u32]) {
        debug_assert!(!is_identity(&g));
        if level == self.levels.len() {
            let b = self.choose_base(&g, classes);
            self.push_level(b);
        }
        let h = self.gens.len();
        self.gens_inv.push(inverse(&g));
        self.gens.push(g);
        self.gen_level.push(level);
        for m in 0..=level {
            self.levels[m].sgens.push(h as u32);
            self.extend_orbit(m, h);
        }
    }

    /// A new base point for a non-identity `g` fixing the whole base: preferably a point of
    /// the last level's orbit (so that the verification can use test (A) there), else a point
    /// in the same orbit of the whole group as the last base point, else any; smallest first.
    fn choose_base(&self, g: &[u16], classes: &[u32]) -> u16 {
        let moved = |p: usize| g[p] as usize != p;
        if let Some(lv) = self.levels.last() {
            if let Some(&p) = lv.orbit.iter().filter(|&&p| moved(p as usize)).min() {
                return p;
            }
            let c = classes[lv.base as usize];
            if let Some(p) = (0..self.degree).find(|&p| moved(p) && classes[p] == c) {
                return p as u16;
            }
        }
        (0..self.degree).find(|&p| moved(p)).expect("identity has no base point") as u16
    }

    /// Extends the orbit of level `m` after strong generator `new` was added to `S_m`. A
    /// level without an explicit table gets its Schreier tree rebuilt breadth-first when it
    /// has become deep and more generators are available than at its last rebuild (orbits
    /// first found by a single generator are paths).
    fn extend_orbit(&mut self, m: usize, new: usize) {
        let n = self.degree;
        let StabChain { levels, gens, gens_inv, explicit_used, explicit_limit, .. } = self;
        let lv = &mut levels[m];
        let old = lv.orbit.len();
        let mut room = Room { used: explicit_used, limit: *explicit_limit, n };
        for k in 0..old {
            let q = gens[new][lv.orbit[k] as usize];
            if lv.pos[q as usize] == NONE {
                push_point(lv, q, k, new, &gens_inv[new], &mut room);
            }
        }
        close_orbit(lv, old, gens, gens_inv, &mut room);
        let len = lv.orbit.len();
        let shallow = usize::BITS - len.leading_zeros() + 2;
        if !lv.explicit && lv.max_depth > shallow && lv.sgens.len() > lv.tree_gens {
            for &p in &lv.orbit {
                lv.pos[p as usize] = NONE;
            }
            lv.orbit.truncate(1);
            lv.label.truncate(1);
            lv.depth.truncate(1);
            lv.pos[lv.base as usize] = 0;
            lv.max_depth = 0;
            lv.tree_gens = lv.sgens.len();
            close_orbit(lv, 0, gens, gens_inv, &mut room);
            debug_assert_eq!(lv.orbit.len(), len);
        }
    }

    /// Checks level `i`, assuming levels `i+1..` form a valid chain of `G_{i+1}` (see the
    /// module documentation, tests (A), (B') and (B)). Returns the first failing residue and
    /// the level where its sift failed.
    fn verify_level(&self, i: usize) -> Option<(Perm, usize)> {
        let n = self.degree;
        let lv = &self.levels[i];
        let olen = lv.orbit.len();
        // Inverse transversal u'_q⁻¹ for every orbit point, indexed like `lv.orbit`.
        let mut uinv = vec![0u16; olen * n];
        for k in 0..olen {
            self.rep_inv_into(i, k, &mut uinv[k * n..(k + 1) * n]);
        }
        let next = self.levels.get(i + 1).filter(|nx| lv.pos[nx.base as usize] != NONE);
        // Points whose Schreier generators by S_{i+1} need no test: b and (if used) O_{i+1}.
        let mut covered = vec![false; olen];
        covered[0] = true;
        let mut ridx = 0;
        if let Some(nx) = next {
            ridx = lv.pos[nx.base as usize] as usize;
            let ur_inv = uinv[ridx * n..(ridx + 1) * n].to_vec();
            let mut vinv = vec![0u16; n];
            for (k2, &q) in nx.orbit.iter().enumerate() {
                let qk = lv.pos[q as usize];
                assert!(qk != NONE, "orbit of level {} not inside orbit of level {i}", i + 1);
                let qk = qk as usize;
                self.rep_inv_into(i + 1, k2, &mut vinv);
                let dst = &mut uinv[qk * n..(qk + 1) * n];
                for (d, &v) in dst.iter_mut().zip(&vinv) {
                    *d = ur_inv[v as usize];
                }
                covered[qk] = true;
            }
        }
        let (top, sub): (Vec<usize>, Vec<usize>) =
            lv.sgens.iter().map(|&h| h as usize).partition(|&h| self.gen_level[h] == i);
        let mut y = vec![0u16; n];
        let mut fwd = vec![0u16; n];
        // (A): u_r x u_r⁻¹ ∈ H for x ∈ S_{i+2}.
        if next.is_some() {
            let ui = &uinv[ridx * n..(ridx + 1) * n];
            invert_into(ui, &mut fwd);
            for &x in sub.iter().filter(|&&h| self.gen_level[h] > i + 1) {
                let xp = &self.gens[x];
                for (v, &f) in y.iter_mut().zip(&fwd) {
                    *v = ui[xp[f as usize] as usize];
                }
                if let Some(j) = self.sift_from(&mut y, i + 1) {
                    return Some((y, j));
                }
            }
        }
        // (B) for all q with t ∈ T_i, and (B') for uncovered q with s ∈ S_{i+1}.
        for k in 0..olen {
            invert_into(&uinv[k * n..(k + 1) * n], &mut fwd);
            let q = lv.orbit[k] as usize;
            let extra: &[usize] = if covered[k] { &[] } else { &sub };
            for &s in top.iter().chain(extra) {
                let sp = &self.gens[s];
                let k2 = lv.pos[sp[q] as usize] as usize;
                let ui = &uinv[k2 * n..(k2 + 1) * n];
                for (v, &f) in y.iter_mut().zip(&fwd) {
                    *v = ui[sp[f as usize] as usize];
                }
                if let Some(j) = self.sift_from(&mut y, i + 1) {
                    return Some((y, j));
                }
            }
        }
        None
    }
}

/// The explicit-table budget of a chain, as seen by `push_point`.
struct Room<'a> {
    used: &'a mut usize,
    limit: usize,
    n: usize,
}

/// Adds `q = orbit[parent]^h` to the orbit of `lv`, with its explicit representative if the
/// level is explicit and the budget allows (otherwise the level drops its table).
/// Closes a level's orbit under its strong generators, applying them to the orbit's points
/// from position `from` on (those before it have been tried with every generator).
fn close_orbit(lv: &mut Level, from: usize, gens: &[Perm], gens_inv: &[Perm], room: &mut Room) {
    let mut k = from;
    while k < lv.orbit.len() {
        let p = lv.orbit[k] as usize;
        for t in 0..lv.sgens.len() {
            let h = lv.sgens[t] as usize;
            let q = gens[h][p];
            if lv.pos[q as usize] == NONE {
                push_point(lv, q, k, h, &gens_inv[h], room);
            }
        }
        k += 1;
    }
}

fn push_point(lv: &mut Level, q: u16, parent: usize, h: usize, hinv: &[u16], room: &mut Room) {
    let k = lv.orbit.len();
    lv.orbit.push(q);
    lv.pos[q as usize] = k as u32;
    lv.label.push(h as u32);
    let d = lv.depth[parent] + 1;
    lv.depth.push(d);
    lv.max_depth = lv.max_depth.max(d);
    if !lv.explicit {
        return;
    }
    let n = room.n;
    if *room.used + n > EXPLICIT_BUDGET || lv.orbit.len() > room.limit {
        *room.used -= lv.reps.len();
        lv.reps = Vec::new();
        lv.explicit = false;
        return;
    }
    *room.used += n;
    let start = lv.reps.len();
    lv.reps.resize(start + n, 0);
    let (before, after) = lv.reps.split_at_mut(start);
    let prep = &before[parent * n..(parent + 1) * n];
    // u_q = u_p h, so u_q⁻¹ = h⁻¹ u_p⁻¹: x ↦ u_p⁻¹[h⁻¹[x]].
    for (d, &x) in after.iter_mut().zip(hinv) {
        *d = prep[x as usize];
    }
}

/// Labels each point with the index of its orbit under `gens` (the least point of the orbit).
fn orbit_classes(n: usize, gens: &[&[u16]]) -> Vec<u32> {
    let mut class = vec![NONE; n];
    let mut stack = Vec::new();
    for s in 0..n {
        if class[s] != NONE {
            continue;
        }
        class[s] = s as u32;
        stack.push(s);
        while let Some(p) = stack.pop() {
            for g in gens {
                let q = g[p] as usize;
                if class[q] == NONE {
                    class[q] = s as u32;
                    stack.push(q);
                }
            }
        }
    }
    class
}

/// A proven upper bound on the order of `G = ⟨gens⟩` from its orbits alone: `G` lies in the
/// product of the symmetric groups on its orbits, and the vector of signs of an element's
/// restrictions to the orbits lies in the span (over `F_2`) of the generators' sign vectors.
/// So `|G| ≤ ∏ |O|! · 2^rank / 2^(number of non-trivial orbits)`. It is reached exactly when
/// `G` contains the alternating group of every orbit and all the allowed sign combinations
/// (typical for sliding-block puzzles), which then makes a verification unnecessary.
fn sign_bound(gens: &[&[u16]], classes: &[u32]) -> BigUint {
    let n = classes.len();
    let mut size = vec![0usize; n];
    for &c in classes {
        size[c as usize] += 1;
    }
    // Index of each non-trivial orbit (by its least point).
    let mut index = vec![NONE; n];
    let mut orbits = 0usize;
    let mut bound = BigUint::from(1u32);
    for (c, &s) in size.iter().enumerate() {
        if s >= 2 {
            index[c] = orbits as u32;
            orbits += 1;
            for k in 2..=s as u64 {
                bound *= k;
            }
        }
    }
    // Row-reduced basis of the span of sign vectors, in insertion order: (pivot, vector).
    let words = orbits.div_ceil(64);
    let mut basis: Vec<(usize, Vec<u64>)> = Vec::new();
    let mut seen = vec![false; n];
    for g in gens {
        let mut v = vec![0u64; words];
        seen.fill(false);
        for start in 0..n {
            if seen[start] {
                continue;
            }
            let mut len = 0usize;
            let mut p = start;
            while !seen[p] {
                seen[p] = true;
                len += 1;
                p = g[p] as usize;
            }
            if len.is_multiple_of(2) {
                let k = index[classes[start] as usize] as usize;
                v[k / 64] ^= 1 << (k % 64);
            }
        }
        for (piv, b) in &basis {
            if v[piv / 64] >> (piv % 64) & 1 == 1 {
                for (x, y) in v.iter_mut().zip(b) {
                    *x ^= y;
                }
            }
        }
        if let Some(w) = v.iter().position(|&x| x != 0) {
            basis.push((64 * w + v[w].trailing_zeros() as usize, v));
        }
    }
    (bound << basis.len()) >> orbits
}

/// The SplitMix64 pseudo-random generator.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }
}

/// Product replacement with an accumulator ("rattle"): nearly uniform random elements.
struct RandomElements {
    slots: Vec<Perm>,
    acc: Perm,
    tmp: Perm,
    rng: SplitMix64,
}

impl RandomElements {
    fn new(n: usize, gens: &[&[u16]]) -> RandomElements {
        let k = gens.len().max(MIN_SLOTS);
        let slots = (0..k).map(|i| gens[i % gens.len()].to_vec()).collect();
        let mut r =
            RandomElements { slots, acc: identity(n), tmp: identity(n), rng: SplitMix64(SEED) };
        for _ in 0..(4 * k + 60) {
            r.step();
        }
        r
    }

    fn step(&mut self) {
        let k = self.slots.len();
        let i = self.rng.below(k);
        let mut j = self.rng.below(k - 1);
        if j >= i {
            j += 1;
        }
        let (a, b) = if i < j {
            let (l, r) = self.slots.split_at_mut(j);
            (&mut l[i], &r[0])
        } else {
            let (l, r) = self.slots.split_at_mut(i);
            (&mut r[0], &l[j])
        };
        if self.rng.next_u64() & 1 == 0 {
            // a := a b
            for (t, &x) in self.tmp.iter_mut().zip(a.iter()) {
                *t = b[x as usize];
            }
        } else {
            // a := b a
            for (t, &x) in self.tmp.iter_mut().zip(b.iter()) {
                *t = a[x as usize];
            }
        }
        std::mem::swap(a, &mut self.tmp);
        // acc := acc a
        for v in self.acc.iter_mut() {
            *v = a[*v as usize];
        }
    }

    fn next(&mut self) -> Perm {
        self.step();
        self.acc.clone()
    }
}

/// State of one construction.
struct Builder {
    chain: StabChain,
    /// Orbits of the input group (for choosing base points), see `orbit_classes`.
    classes: Vec<u32>,
    /// Proven upper bounds on the group order: reaching one proves the chain valid.
    bounds: Vec<BigUint>,
    /// Length of the run of identity sifts that ends the random phase.
    quiet_rounds: usize,
}

impl Builder {
    /// Adds a strong generator; returns `true` if the upper bound is now reached.
    fn add(&mut self, g: Perm, level: usize) -> bool {
        self.chain.add_gen(g, level, &self.classes);
        self.bound_reached()
    }

    fn bound_reached(&mut self) -> bool {
        let Some(min_bits) = self.bounds.iter().map(|b| b.bits()).min() else { return false };
        let log2: f64 = self.chain.levels.iter().map(|lv| (lv.orbit.len() as f64).log2()).sum();
        if log2 + 2.0 < min_bits as f64 {
            return false;
        }
        let order = self.chain.order();
        // A caller's "bound" below a proven lower bound is wrong: ignore it, finish exactly.
        self.bounds.retain(|b| *b >= order);
        self.bounds.contains(&order)
    }

    /// Random phase and sifting of the input generators. Returns `true` if an upper bound
    /// was reached (the chain is then valid).
    fn run(&mut self, gens: &[&[u16]]) -> bool {
        // Non-trivial generators: the order is at least 2.
        self.bounds.retain(|b| *b > BigUint::from(1u32));
        let mut rand = RandomElements::new(self.chain.degree, gens);
        let mut quiet = 0;
        while quiet < self.quiet_rounds {
            let mut y = rand.next();
            match self.chain.sift_from(&mut y, 0) {
                None => quiet += 1,
                Some(j) => {
                    if self.add(y, j) {
                        return true;
                    }
                    quiet = 0;
                }
            }
        }
        for g in gens {
            let mut y = g.to_vec();
            if let Some(j) = self.chain.sift_from(&mut y, 0)
                && self.add(y, j)
            {
                return true;
            }
        }
        false
    }

    /// Deterministic verification, bottom level first (see the module documentation).
    fn verify(&mut self) {
        let mut i = self.chain.levels.len();
        while i > 0 {
            match self.chain.verify_level(i - 1) {
                None => i -= 1,
                Some((y, j)) => {
                    if self.add(y, j) {
                        return;
                    }
                    i = j + 1;
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "stabchain_tests.rs"]
mod tests;
