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

/// The window `start`..`end` in `params`, or why it is not one (missing,
/// not a number, empty or inverted).
pub(crate) fn span(params: &[(String, String)]) -> Result<(f64, f64), String> {
    let (start, end) = (number(params, "start")?, number(params, "end")?);
    if end <= start {
        return Err(format!(
            "the window is empty or inverted: start={start} end={end}"
        ));
    }
    Ok((start, end))
}

/// The number of pixel columns `width` in `params`: a whole number from 1
/// to `max`.
pub(crate) fn width(params: &[(String, String)], max: f64) -> Result<u32, String> {
    let width = number(params, "width")?;
    if !(1.0..=max).contains(&width) || width.fract() != 0.0 {
        return Err(format!(
            "width={width}: a whole number of pixels from 1 to {max}"
        ));
    }
    Ok(width as u32)
}
