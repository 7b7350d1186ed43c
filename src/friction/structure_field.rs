//! Procedural structure fields (003 §2.9, "procedural per-vertex directions"): the matchstick
//! structure direction as a function of the point, in the frame of the surface that carries it.
//! The contact frame generator projects the direction onto the tangent plane at each contact,
//! so a field needs only to point the right way along the surface.
//!
//! - `Radial(center)`: away from `center`;
//! - `Concentric(center, axis)`: around `axis` through `center` (circles);
//! - `Sweep(center, axis, reference)`: 003's reference code's "rotational sweep": `reference`
//!   turned about `axis` by the point's polar angle about it, measured from a fixed direction
//!   normal to the axis. A reference normal to the axis gives a radial or concentric pattern
//!   (or one at a constant angle to them), a reference along the axis the axial field;
//! - `Expression(x, y, z)`: three formulas in the point's coordinates `x`, `y`, `z` (m).

use nalgebra::{Unit, UnitQuaternion, Vector3};

/// A compiled field.
#[derive(Clone)]
pub enum StructureField {
    Radial { center: Vector3<f64> },
    Concentric { center: Vector3<f64>, axis: Unit<Vector3<f64>> },
    Sweep { center: Vector3<f64>, axis: Unit<Vector3<f64>>, zero: Vector3<f64>, reference: Vector3<f64> },
    Expression(Box<[Formula; 3]>),
}

impl std::fmt::Debug for StructureField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StructureField::Radial { center } => write!(f, "Radial({center:?})"),
            StructureField::Concentric { center, axis } => write!(f, "Concentric({center:?}, {axis:?})"),
            StructureField::Sweep { center, axis, reference, .. } => {
                write!(f, "Sweep({center:?}, {axis:?}, {reference:?})")
            }
            StructureField::Expression(e) => write!(f, "Expression({}, {}, {})", e[0].text, e[1].text, e[2].text),
        }
    }
}

/// One component of an expression field: the parsed formula and, per variable it uses in
/// exmex's (alphabetical) order, which coordinate that is.
#[derive(Clone)]
pub struct Formula {
    text: String,
    expr: exmex::FlatEx<f64>,
    coordinate: Vec<usize>,
}

impl Formula {
    /// Parse `text`; the variables allowed are `x`, `y` and `z`.
    pub fn parse(text: &str) -> Result<Formula, String> {
        use exmex::Express;
        let expr = exmex::parse::<f64>(text).map_err(|e| format!("`{text}` does not parse: {e}"))?;
        let coordinate = expr
            .var_names()
            .iter()
            .map(|v| match v.as_str() {
                "x" => Ok(0),
                "y" => Ok(1),
                "z" => Ok(2),
                other => Err(format!("`{text}` uses `{other}`: the variables are x, y and z (m)")),
            })
            .collect::<Result<_, _>>()?;
        Ok(Formula { text: text.to_string(), expr, coordinate })
    }

    /// The formula's value at `x`; NaN where it is undefined.
    pub fn eval(&self, x: &Vector3<f64>) -> f64 {
        use exmex::Express;
        let mut args = [0.0; 3];
        for (a, &c) in args.iter_mut().zip(&self.coordinate) {
            *a = x[c];
        }
        // Parsed with its variables checked, so evaluation can only fail on a variable count
        // mismatch, which `coordinate` rules out; NaN (no structure, a refused displacement) on
        // the safe side.
        self.expr.eval(&args[..self.coordinate.len()]).unwrap_or(f64::NAN)
    }
}

impl StructureField {
    pub fn radial(center: Vector3<f64>) -> Self {
        StructureField::Radial { center }
    }

    /// `None` for a zero axis.
    pub fn concentric(center: Vector3<f64>, axis: Vector3<f64>) -> Option<Self> {
        Some(StructureField::Concentric { center, axis: Unit::try_new(axis, 1e-12)? })
    }

    /// `None` for a zero axis or reference.
    pub fn sweep(center: Vector3<f64>, axis: Vector3<f64>, reference: Vector3<f64>) -> Option<Self> {
        let axis = Unit::try_new(axis, 1e-12)?;
        if reference.norm() <= 1e-12 {
            return None;
        }
        // Angles are measured from the world axis least aligned with the sweep axis, made normal.
        let e = [Vector3::x(), Vector3::y(), Vector3::z()];
        let least = e.iter().min_by(|a, b| a.dot(&axis).abs().total_cmp(&b.dot(&axis).abs())).expect("three axes");
        let zero = (least - axis.into_inner() * least.dot(&axis)).normalize();
        Some(StructureField::Sweep { center, axis, zero, reference: reference.normalize() })
    }

    pub fn expression(x: &str, y: &str, z: &str) -> Result<Self, String> {
        Ok(StructureField::Expression(Box::new([Formula::parse(x)?, Formula::parse(y)?, Formula::parse(z)?])))
    }

    /// The direction at `x` (the field's frame), unnormalised; `None` where the field vanishes
    /// or is not finite (a point on a radial field's center or a concentric field's axis).
    pub fn direction_at(&self, x: &Vector3<f64>) -> Option<Vector3<f64>> {
        let d = match self {
            StructureField::Radial { center } => x - center,
            StructureField::Concentric { center, axis } => axis.cross(&(x - center)),
            StructureField::Sweep { center, axis, zero, reference } => {
                let r = x - center;
                let radial = r - axis.into_inner() * r.dot(axis);
                if radial.norm() <= 1e-12 * r.norm().max(1.0) {
                    return None;
                }
                let angle = axis.cross(zero).dot(&radial).atan2(zero.dot(&radial));
                UnitQuaternion::from_axis_angle(axis, angle) * reference
            }
            StructureField::Expression(f) => Vector3::new(f[0].eval(x), f[1].eval(x), f[2].eval(x)),
        };
        let n = d.norm();
        (n.is_finite() && n > 1e-12 * x.norm().max(1.0)).then_some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parallel(a: Vector3<f64>, b: Vector3<f64>) -> bool {
        (a.normalize().dot(&b.normalize()) - 1.0).abs() < 1e-12
    }

    /// Each field at points where its direction is known by construction.
    #[test]
    fn fields_point_where_their_definitions_say() {
        let c = Vector3::new(1.0, 2.0, 0.0);
        let p = c + Vector3::new(0.0, 3.0, 0.5);
        let radial = StructureField::radial(c);
        assert!(parallel(radial.direction_at(&p).unwrap(), Vector3::new(0.0, 3.0, 0.5)));
        assert!(radial.direction_at(&c).is_none());
        let conc = StructureField::concentric(c, Vector3::z()).unwrap();
        // At +y of the center, the circle about +z runs along −x.
        assert!(parallel(conc.direction_at(&p).unwrap(), -Vector3::x()));
        assert!(conc.direction_at(&(c + Vector3::z())).is_none(), "on the axis");
        assert!(StructureField::concentric(c, Vector3::zeros()).is_none());
        // Sweep about z: the zero direction is x; a reference along x gives the radial field, one
        // along y the concentric field, one along z the axial field.
        for (reference, want) in
            [(Vector3::x(), Vector3::new(0.0, 1.0, 0.0)), (Vector3::y(), -Vector3::x()), (Vector3::z(), Vector3::z())]
        {
            let sw = StructureField::sweep(c, Vector3::z(), reference).unwrap();
            let got = sw.direction_at(&p).unwrap();
            assert!(parallel(got, want), "reference {reference:?}: {got:?}");
        }
        let e = StructureField::expression("-y", "x", "0").unwrap();
        assert!(parallel(e.direction_at(&Vector3::new(0.0, 2.0, 0.0)).unwrap(), -Vector3::x()));
        assert!(e.direction_at(&Vector3::zeros()).is_none(), "zero vector");
    }

    /// The functions the README lists evaluate (exmex's default float operators).
    #[test]
    fn expression_functions_evaluate() {
        let e = StructureField::expression(
            "sqrt(x^2 + y^2) + abs(z)",
            "atan(y) + asin(0.5) + acos(0.5)",
            "exp(0) + ln(1) + tan(0)",
        )
        .unwrap();
        let d = e.direction_at(&Vector3::new(3.0, 4.0, -1.0)).unwrap();
        let want = Vector3::new(6.0, 4f64.atan() + std::f64::consts::FRAC_PI_2, 1.0);
        assert!((d - want).norm() < 1e-12, "{d:?}");
    }

    #[test]
    fn bad_expressions_are_refused_with_the_reason() {
        let err = StructureField::expression("x +* 2", "0", "0").unwrap_err();
        assert!(err.contains("`x +* 2` does not parse"), "{err}");
        let err = StructureField::expression("r", "0", "0").unwrap_err();
        assert!(err.contains("uses `r`"), "{err}");
    }
}
