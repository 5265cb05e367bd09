//! The subgroup `H` that some vectors span in a finite abelian group `A = Z/r_1 x ... x Z/r_d`,
//! by elimination rather than by listing `A`: its order, membership, and the linear
//! conditions that cut it out.
//!
//! [`super::invariants`] lists `A` (signs and orientation sums of every orbit), which is
//! quick while `A` has a few million elements; a 20x20x20 cube has 91 orbits, so `A` has
//! 2^91 * 3 and only elimination works. With `M` the lcm of the `r_c`, `A / H` is
//! `(Z/M)^d` over the rows spanned by the generators and by each `r_c e_c`. A diagonal form
//! `U B V = D` of that row matrix over `Z/M` (`U`, `V` invertible) gives `A / H` as the sum
//! of `Z/gcd(D_ii, M)`, so `|H| = |A| / prod gcd(D_ii, M)`, and `x` lies in `H` exactly when
//! `(x V)_i = 0 (mod gcd(D_ii, M))` for every `i`: column `i` of `V` is a condition every
//! element of `H` keeps, and together they are all of them.

use num_bigint::BigUint;

/// One condition `sum coefficients[c] * x_c = 0 (mod modulus)` that every element of `H` meets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Condition {
    /// The coefficient of each coordinate, below `modulus`.
    pub coefficients: Vec<u64>,
    /// A prime power greater than 1.
    pub modulus: u64,
}

impl Condition {
    /// Whether `x` meets it.
    pub fn holds(&self, x: &[u64]) -> bool {
        let s: u64 = self.coefficients.iter().zip(x).map(|(&a, &v)| a * (v % self.modulus)).sum();
        s.is_multiple_of(self.modulus)
    }
}

/// The span of some vectors of `A`.
#[derive(Clone, Debug)]
pub struct Span {
    radices: Vec<u64>,
    conditions: Vec<Condition>,
    order: BigUint,
}

impl Span {
    /// The subgroup of `Z/radices[0] x ...` spanned by `gens` (each with one entry per
    /// coordinate). Every radix is at least 1 and their lcm fits 32 bits (twirl's are signs
    /// and orientation counts, 254 at most).
    pub fn of(radices: &[u64], gens: &[Vec<u64>]) -> Span {
        let d = radices.len();
        let m = radices.iter().fold(1u64, |a, &r| a / gcd(a, r) * r);
        let mut rows: Vec<Vec<u64>> =
            gens.iter().map(|g| g.iter().map(|&x| x % m).collect()).collect();
        for (c, &r) in radices.iter().enumerate() {
            let mut row = vec![0; d];
            row[c] = r % m;
            rows.push(row);
        }
        let v = diagonalize(&mut rows, d, m);
        let mut conditions = Vec::new();
        let mut index = BigUint::from(1u32);
        for i in 0..d {
            let g = gcd(rows.get(i).map_or(0, |r| r[i]), m);
            index *= g;
            // Split by prime powers (Chinese remainders) so each reads as one modulus.
            for q in prime_powers(g) {
                let coefficients: Vec<u64> = (0..d).map(|c| v[c][i] % q).collect();
                // `2*x + 2*y = 0 (mod 4)` is read as `x + y = 0 (mod 2)`.
                let common = coefficients.iter().fold(q, |a, &b| gcd(a, b));
                let condition = Condition {
                    coefficients: coefficients.iter().map(|&a| a / common).collect(),
                    modulus: q / common,
                };
                if condition.modulus > 1 && !conditions.contains(&condition) {
                    conditions.push(condition);
                }
            }
        }
        let size = radices.iter().fold(BigUint::from(1u32), |a, &r| a * r);
        Span { radices: radices.to_vec(), conditions: echelon(conditions), order: size / index }
    }

    /// `|H|`.
    pub fn order(&self) -> &BigUint {
        &self.order
    }

    /// The conditions that cut `H` out of `A`.
    pub fn conditions(&self) -> &[Condition] {
        &self.conditions
    }

    /// Whether `x` (one entry per coordinate, each below its radix) lies in `H`.
    pub fn contains(&self, x: &[u64]) -> bool {
        x.len() == self.radices.len() && self.conditions.iter().all(|c| c.holds(x))
    }
}

/// The conditions modulo each prime in reduced echelon form (pivots leftmost, each scaled
/// to 1), so they read as the few coordinates each ties (`sign(O1) + sign(O13) = 0`), not as
/// whatever sums the elimination left; prime-power moduli are kept as they are.
fn echelon(conditions: Vec<Condition>) -> Vec<Condition> {
    let mut moduli: Vec<u64> = conditions.iter().map(|c| c.modulus).collect();
    moduli.sort_unstable();
    moduli.dedup();
    let mut out = Vec::new();
    for q in moduli {
        let mut rows: Vec<Vec<u64>> =
            conditions.iter().filter(|c| c.modulus == q).map(|c| c.coefficients.clone()).collect();
        if (2..q).any(|f| q.is_multiple_of(f)) {
            out.extend(rows.into_iter().map(|coefficients| Condition { coefficients, modulus: q }));
            continue;
        }
        let width = rows.first().map_or(0, Vec::len);
        let mut done = 0;
        for col in 0..width {
            let Some(r) = (done..rows.len()).find(|&r| rows[r][col] != 0) else { continue };
            rows.swap(done, r);
            // The inverse modulo a prime, by Fermat.
            let inv = (0..q - 2).fold(1, |acc, _| acc * rows[done][col] % q);
            rows[done].iter_mut().for_each(|x| *x = *x * inv % q);
            let pivot = rows[done].clone();
            for (i, row) in rows.iter_mut().enumerate() {
                if i != done && row[col] != 0 {
                    let f = row[col];
                    row.iter_mut().zip(&pivot).for_each(|(x, &y)| *x = (*x + (q - f) * y) % q);
                }
            }
            done += 1;
        }
        rows.truncate(done);
        out.extend(rows.into_iter().map(|coefficients| Condition { coefficients, modulus: q }));
    }
    out
}

/// Brings `rows` (each of `d` entries mod `m`) to diagonal form by invertible row and column
/// operations over `Z/m`; returns `V`, the product of the column operations (`v[c][i]`).
fn diagonalize(rows: &mut [Vec<u64>], d: usize, m: u64) -> Vec<Vec<u64>> {
    let mut v: Vec<Vec<u64>> =
        (0..d).map(|c| (0..d).map(|i| u64::from(c == i)).collect()).collect();
    for t in 0..d.min(rows.len()) {
        let Some((r, c)) = (t..rows.len())
            .flat_map(|r| (t..d).map(move |c| (r, c)))
            .find(|&(r, c)| rows[r][c] != 0)
        else {
            break;
        };
        rows.swap(t, r);
        swap_columns(rows, t, c);
        v.iter_mut().for_each(|row| row.swap(t, c));
        loop {
            let mut clean = true;
            for r in t + 1..rows.len() {
                if rows[r][t] != 0 {
                    clean = false;
                    let (a, b) = (rows[t][t], rows[r][t]);
                    let [top, low] = combine(a, b, m);
                    let (pivot_row, other) = (rows[t].clone(), rows[r].clone());
                    rows[t] = mix(&pivot_row, &other, top, m);
                    rows[r] = mix(&pivot_row, &other, low, m);
                }
            }
            for c in t + 1..d {
                if rows[t][c] != 0 {
                    clean = false;
                    let (a, b) = (rows[t][t], rows[t][c]);
                    let [left, right] = combine(a, b, m);
                    for row in rows.iter_mut().chain(v.iter_mut()) {
                        let (x, y) = (row[t], row[c]);
                        row[t] = (left.0 * x + left.1 * y) % m;
                        row[c] = (right.0 * x + right.1 * y) % m;
                    }
                }
            }
            if clean {
                break;
            }
        }
    }
    v
}

/// Two combinations of `(a, b)` (mod `m`), of determinant 1, that take them to `(g, 0)` with
/// `g` dividing both: `a` itself when it divides `b`, else their gcd, smaller than `a`.
fn combine(a: u64, b: u64, m: u64) -> [(u64, u64); 2] {
    let neg = |x: u64| (m - x % m) % m;
    if a != 0 && b.is_multiple_of(a) {
        return [(1, 0), (neg(b / a), 1)];
    }
    let (g, s, t) = ext_gcd(a as i64, b as i64);
    let modm = |x: i64| x.rem_euclid(m as i64) as u64;
    let (ga, gb) = ((a as i64 / g) as u64, (b as i64 / g) as u64);
    [(modm(s), modm(t)), (neg(gb), ga % m)]
}

fn mix(x: &[u64], y: &[u64], (p, q): (u64, u64), m: u64) -> Vec<u64> {
    x.iter().zip(y).map(|(&a, &b)| (p * a + q * b) % m).collect()
}

fn swap_columns(rows: &mut [Vec<u64>], a: usize, b: usize) {
    rows.iter_mut().for_each(|row| row.swap(a, b));
}

/// `(g, s, t)` with `s a + t b = g = gcd(a, b)`.
fn ext_gcd(a: i64, b: i64) -> (i64, i64, i64) {
    if b == 0 {
        return (a, 1, 0);
    }
    let (g, s, t) = ext_gcd(b, a % b);
    (g, t, s - (a / b) * t)
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The prime powers whose product is `n`.
fn prime_powers(mut n: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut p = 2;
    while n > 1 {
        let mut q = 1;
        while n.is_multiple_of(p) {
            n /= p;
            q *= p;
        }
        if q > 1 {
            out.push(q);
        }
        p += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element of a small `A`, as vectors.
    fn elements(radices: &[u64]) -> Vec<Vec<u64>> {
        let mut out = vec![vec![]];
        for &r in radices {
            out = out
                .into_iter()
                .flat_map(|v| (0..r).map(move |x| [v.clone(), vec![x]].concat()))
                .collect();
        }
        out
    }

    /// The span by closure, for comparison.
    fn closure(radices: &[u64], gens: &[Vec<u64>]) -> Vec<Vec<u64>> {
        let mut seen = vec![vec![0; radices.len()]];
        let mut at = 0;
        while at < seen.len() {
            for g in gens {
                let w: Vec<u64> =
                    seen[at].iter().zip(g).zip(radices).map(|((a, b), r)| (a + b) % r).collect();
                if !seen.contains(&w) {
                    seen.push(w);
                }
            }
            at += 1;
        }
        seen
    }

    #[test]
    fn spans_agree_with_closure() {
        let cases: Vec<(Vec<u64>, Vec<Vec<u64>>)> = vec![
            (vec![2, 2, 3], vec![vec![1, 1, 0], vec![0, 0, 1]]),
            (vec![2, 2, 2, 3], vec![vec![1, 1, 0, 2], vec![0, 1, 1, 1]]),
            (vec![4, 2, 6], vec![vec![2, 1, 3], vec![1, 0, 4]]),
            (vec![2, 3, 4, 5], vec![vec![1, 2, 2, 1], vec![1, 1, 0, 0]]),
            (vec![6, 6], vec![vec![2, 3]]),
            (vec![2, 2], vec![]),
            (vec![3], vec![vec![0]]),
        ];
        for (radices, gens) in cases {
            let span = Span::of(&radices, &gens);
            let h = closure(&radices, &gens);
            assert_eq!(*span.order(), BigUint::from(h.len()), "{radices:?} {gens:?}");
            for x in elements(&radices) {
                assert_eq!(span.contains(&x), h.contains(&x), "{radices:?} {gens:?} {x:?}");
            }
            assert!(span.conditions().iter().all(|c| c.modulus > 1));
        }
    }

    #[test]
    fn conditions_read_as_written() {
        // Two signs tied together and an orientation sum mod 3 that is always 0.
        let span = Span::of(&[2, 2, 3], &[vec![1, 1, 0]]);
        let mut conditions: Vec<(Vec<u64>, u64)> =
            span.conditions().iter().map(|c| (c.coefficients.clone(), c.modulus)).collect();
        conditions.sort();
        assert_eq!(conditions, vec![(vec![0, 0, 1], 3), (vec![1, 1, 0], 2)]);
        // Ninety-one signs, pairwise tied to the first: 2^91 elements cut to 2^1.
        let mut gens = vec![vec![1u64; 91]];
        gens[0][0] = 1;
        let span = Span::of(&[2; 91], &gens);
        assert_eq!(*span.order(), BigUint::from(2u32));
        assert_eq!(span.conditions().len(), 90);
    }
}
