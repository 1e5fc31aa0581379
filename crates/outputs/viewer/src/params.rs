//! The query parameters of a request (`?name=value&…`), read.

/// The value of the parameter called `name`, if there is one.
pub(crate) fn param<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params.iter().find(|p| p.0 == name).map(|p| p.1.as_str())
}

/// The number in `params` called `name`, or why not.
pub(crate) fn number(params: &[(String, String)], name: &str) -> Result<f64, String> {
    let v = param(params, name).ok_or_else(|| format!("missing parameter {name}"))?;
    match v.parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x),
        _ => Err(format!("{name}={v:?} is not a finite number")),
    }
}
