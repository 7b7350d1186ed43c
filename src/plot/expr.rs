//! Closed-form curves for `fricsim plot --curve 'LABEL=EXPR'`: an arithmetic expression in the
//! abscissa `t` (also `x`), e.g. `-0.0088 - 0.5*9.81*(sin(rad(10)) - 0.1*cos(rad(10)))*t^2`.
//! Grammar: sum of products of powers of unary terms; numbers, `t`, `x`, `pi`, and the functions
//! sin cos tan sqrt exp ln log10 abs rad (degrees to radians).

#[derive(Debug, Clone)]
pub enum Expr {
    Num(f64),
    Var,
    Neg(Box<Expr>),
    Bin(char, Box<Expr>, Box<Expr>),
    Call(fn(f64) -> f64, Box<Expr>),
}

/// The deepest nesting accepted: the parser recurses per level, and no curve needs more.
const MAX_DEPTH: usize = 64;

impl Expr {
    pub fn parse(text: &str) -> Result<Expr, String> {
        let mut p = Parser { s: text.as_bytes(), i: 0, depth: 0 };
        let e = p.sum()?;
        p.skip_space();
        if p.i < p.s.len() {
            return Err(p.error("an operator or the end"));
        }
        Ok(e)
    }

    pub fn eval(&self, t: f64) -> f64 {
        match self {
            Expr::Num(v) => *v,
            Expr::Var => t,
            Expr::Neg(a) => -a.eval(t),
            Expr::Call(f, a) => f(a.eval(t)),
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.eval(t), b.eval(t));
                match op {
                    '+' => a + b,
                    '-' => a - b,
                    '*' => a * b,
                    '/' => a / b,
                    _ => a.powf(b),
                }
            }
        }
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, wanted: &str) -> String {
        let at = String::from_utf8_lossy(&self.s[self.i.min(self.s.len())..]);
        let at = if at.is_empty() { "the end".to_string() } else { format!("{at:?}") };
        format!("expected {wanted} at character {} ({at})", self.i + 1)
    }

    fn skip_space(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn eat(&mut self, ops: &[u8]) -> Option<char> {
        self.skip_space();
        let c = *self.s.get(self.i)?;
        ops.contains(&c).then(|| {
            self.i += 1;
            c as char
        })
    }

    fn sum(&mut self) -> Result<Expr, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        let mut e = self.product()?;
        while let Some(op) = self.eat(b"+-") {
            e = Expr::Bin(op, Box::new(e), Box::new(self.product()?));
        }
        self.depth -= 1;
        Ok(e)
    }

    fn product(&mut self) -> Result<Expr, String> {
        let mut e = self.power()?;
        while let Some(op) = self.eat(b"*/") {
            e = Expr::Bin(op, Box::new(e), Box::new(self.power()?));
        }
        Ok(e)
    }

    /// `a^b^c` is `a^(b^c)`, and `-t^2` is `-(t^2)`, as in mathematics.
    fn power(&mut self) -> Result<Expr, String> {
        if self.eat(b"-").is_some() {
            return Ok(Expr::Neg(Box::new(self.power()?)));
        }
        if self.eat(b"+").is_some() {
            return self.power();
        }
        let base = self.atom()?;
        if self.eat(b"^").is_some() {
            return Ok(Expr::Bin('^', Box::new(base), Box::new(self.power()?)));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Expr, String> {
        self.skip_space();
        if self.eat(b"(").is_some() {
            let e = self.sum()?;
            return self.eat(b")").map(|_| e).ok_or_else(|| self.error("')'"));
        }
        let start = self.i;
        match self.s.get(self.i) {
            Some(c) if c.is_ascii_digit() || *c == b'.' => self.number(start),
            Some(c) if c.is_ascii_alphabetic() => {
                while self.s.get(self.i).is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_') {
                    self.i += 1;
                }
                let name = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
                self.name(name, start)
            }
            _ => Err(self.error("a number, t, a constant, a function or '('")),
        }
    }

    fn number(&mut self, start: usize) -> Result<Expr, String> {
        let digits = |p: &mut Self| {
            while p.s.get(p.i).is_some_and(|c| c.is_ascii_digit() || *c == b'.') {
                p.i += 1;
            }
        };
        digits(self);
        if self.s.get(self.i).is_some_and(|c| *c == b'e' || *c == b'E') {
            self.i += 1;
            if self.s.get(self.i).is_some_and(|c| *c == b'-' || *c == b'+') {
                self.i += 1;
            }
            digits(self);
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
        text.parse().map(Expr::Num).map_err(|_| {
            self.i = start;
            self.error("a number")
        })
    }

    fn name(&mut self, name: &str, start: usize) -> Result<Expr, String> {
        let f: fn(f64) -> f64 = match name {
            "t" | "x" => return Ok(Expr::Var),
            "pi" => return Ok(Expr::Num(std::f64::consts::PI)),
            "sin" => f64::sin,
            "cos" => f64::cos,
            "tan" => f64::tan,
            "sqrt" => f64::sqrt,
            "exp" => f64::exp,
            "ln" => f64::ln,
            "log10" => f64::log10,
            "abs" => f64::abs,
            "rad" => f64::to_radians,
            _ => {
                self.i = start;
                return Err(self.error("t, x, pi or one of the functions sin cos tan sqrt exp ln log10 abs rad"));
            }
        };
        if self.eat(b"(").is_none() {
            return Err(self.error(&format!("'(' after {name}")));
        }
        let arg = self.sum()?;
        self.eat(b")").map(|_| Expr::Call(f, Box::new(arg))).ok_or_else(|| self.error("')'"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_functions_and_errors() {
        let e = |s: &str, t: f64| Expr::parse(s).unwrap().eval(t);
        assert_eq!(e("1 + 2*3^2", 0.0), 19.0);
        assert_eq!(e("-t^2", 3.0), -9.0);
        assert_eq!(e("2^3^2", 0.0), 512.0);
        assert_eq!(e("(1+2)*x/4", 2.0), 1.5);
        assert_eq!(e("1.5e-3*1e3", 0.0), 1.5);
        assert!((e("sin(rad(30))", 0.0) - 0.5).abs() < 1e-15);
        assert!((e("0.5*9.81*(sin(rad(10)) - 0.1*cos(rad(10)))*t^2", 1.0) - 0.36869).abs() < 1e-5);
        for bad in ["", "1 +", "sin 1", "foo(1)", "(1", "1 2", "1e", "..", &"(".repeat(100)] {
            assert!(Expr::parse(bad).is_err(), "{bad:?} parsed");
        }
    }
}
