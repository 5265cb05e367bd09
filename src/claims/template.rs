//! Placeholders of parametrised claims: `{n}`, `{n+1}`, `{2*n-3}` in any string of a claim
//! are replaced by their integer value for each board size. Expressions use integers, the
//! claim's variables, `+ - * /` (integer division, rounding down), `%` and parentheses, nested
//! at most [`MAX_DEPTH`] deep.

use std::collections::BTreeMap;

use crate::error::escaped;

/// How deep parentheses and unary minus signs may nest in one expression: the evaluator
/// recurses once per level, and no template needs more than a few.
pub const MAX_DEPTH: usize = 64;

/// The values of a claim's variables for one instance (`n = 6`).
pub type Vars = BTreeMap<String, i64>;

/// Replaces every `{expr}` in `text`.
pub fn substitute(text: &str, vars: &Vars) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close =
            after.find('}').ok_or_else(|| format!("`{{` without `}}` in `{}`", escaped(text)))?;
        let expr = &after[..close];
        out.push_str(&eval(expr, vars)?.to_string());
        rest = &after[close + 1..];
    }
    if rest.contains('}') {
        return Err(format!("`}}` without `{{` in `{}`", escaped(text)));
    }
    out.push_str(rest);
    Ok(out)
}

/// If `text` is exactly one placeholder (`"{n-3}"`), its value.
pub fn whole_placeholder(text: &str, vars: &Vars) -> Option<Result<i64, String>> {
    let inner = text.trim().strip_prefix('{')?.strip_suffix('}')?;
    if inner.contains(['{', '}']) {
        return None;
    }
    Some(eval(inner, vars))
}

/// Evaluates an integer expression.
pub fn eval(expr: &str, vars: &Vars) -> Result<i64, String> {
    let tokens: Vec<char> = expr.chars().filter(|c| !c.is_whitespace()).collect();
    let mut p = Parser { tokens: &tokens, pos: 0, depth: 0, vars, expr: escaped(expr) };
    let v = p.sum()?;
    if p.pos != tokens.len() {
        let read: String = tokens[..p.pos].iter().collect();
        return Err(format!("cannot read `{{{}}}` past `{}`", p.expr, escaped(&read)));
    }
    Ok(v)
}

struct Parser<'a> {
    tokens: &'a [char],
    pos: usize,
    /// Parentheses and minus signs entered so far.
    depth: usize,
    vars: &'a Vars,
    /// The expression, escaped for messages.
    expr: String,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.tokens.get(self.pos).copied()
    }

    fn overflow(&self) -> String {
        format!("`{{{}}}` overflows", self.expr)
    }

    fn sum(&mut self) -> Result<i64, String> {
        let mut v = self.product()?;
        while let Some(op @ ('+' | '-')) = self.peek() {
            self.pos += 1;
            let rhs = self.product()?;
            v = if op == '+' { v.checked_add(rhs) } else { v.checked_sub(rhs) }
                .ok_or_else(|| self.overflow())?;
        }
        Ok(v)
    }

    fn product(&mut self) -> Result<i64, String> {
        let mut v = self.atom()?;
        while let Some(op @ ('*' | '/' | '%')) = self.peek() {
            self.pos += 1;
            let rhs = self.atom()?;
            if op != '*' && rhs == 0 {
                return Err(format!("division by zero in `{{{}}}`", self.expr));
            }
            v = match op {
                '*' => v.checked_mul(rhs),
                '/' => v.checked_div_euclid(rhs),
                _ => v.checked_rem_euclid(rhs),
            }
            .ok_or_else(|| self.overflow())?;
        }
        Ok(v)
    }

    fn atom(&mut self) -> Result<i64, String> {
        if matches!(self.peek(), Some('(' | '-')) {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(format!("`{{{}}}` nests more than {MAX_DEPTH} deep", self.expr));
            }
        }
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                let v = self.sum()?;
                if self.peek() != Some(')') {
                    return Err(format!("unbalanced parenthesis in `{{{}}}`", self.expr));
                }
                self.pos += 1;
                self.depth -= 1;
                Ok(v)
            }
            Some('-') => {
                self.pos += 1;
                let v = self.atom()?.checked_neg().ok_or_else(|| self.overflow())?;
                self.depth -= 1;
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.pos;
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
                let digits: String = self.tokens[start..self.pos].iter().collect();
                digits.parse().map_err(|_| self.overflow())
            }
            Some(c) if c.is_ascii_alphabetic() || c == '_' => {
                let start = self.pos;
                while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    self.pos += 1;
                }
                let name: String = self.tokens[start..self.pos].iter().collect();
                self.vars.get(&name).copied().ok_or_else(|| {
                    format!(
                        "unknown variable `{}` in `{{{}}}` (declare it in `for`)",
                        escaped(&name),
                        self.expr
                    )
                })
            }
            _ => Err(format!("cannot read `{{{}}}`", self.expr)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars() -> Vars {
        [("n".to_string(), 6), ("m".to_string(), 4)].into_iter().collect()
    }

    #[test]
    fn substitutes_expressions() {
        let v = vars();
        assert_eq!(substitute("nrp:{n}x{n+1}:{n}", &v).unwrap(), "nrp:6x7:6");
        assert_eq!(
            substitute("({n}..1,{n+1}) {2*(n-3)} {n/4} {-m%5}", &v).unwrap(),
            "(6..1,7) 6 1 1"
        );
        assert_eq!(substitute("no braces", &v).unwrap(), "no braces");
        assert_eq!(whole_placeholder("{n-3}", &v), Some(Ok(3)));
        assert_eq!(whole_placeholder("x{n}", &v), None);
    }

    #[test]
    fn bad_templates_are_errors() {
        let v = vars();
        assert!(substitute("{k}", &v).unwrap_err().contains("unknown variable `k`"));
        assert!(substitute("{n", &v).unwrap_err().contains("without"));
        assert!(substitute("n}", &v).unwrap_err().contains("without"));
        assert!(substitute("{n/0}", &v).unwrap_err().contains("division by zero"));
        assert!(substitute("{(n+1}", &v).unwrap_err().contains("unbalanced"));
        assert!(substitute("{n n}", &v).is_err());
        assert!(substitute("{9223372036854775807+1}", &v).unwrap_err().contains("overflows"));
        // Deep nesting is an error, not a stack overflow; 64 levels are fine.
        let deep = format!("{{{}n{}}}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(substitute(&deep, &v).unwrap_err().contains("nests more than 64 deep"));
        let minus = format!("{{{}n}}", "-".repeat(100_000));
        assert!(substitute(&minus, &v).unwrap_err().contains("nests more than 64 deep"));
        let ok = format!("{{{}n{}}}", "(".repeat(64), ")".repeat(64));
        assert_eq!(substitute(&ok, &v).unwrap(), "6");
        assert_eq!(substitute(&format!("{{{}n}}", "-".repeat(64)), &v).unwrap(), "6");
    }
}
