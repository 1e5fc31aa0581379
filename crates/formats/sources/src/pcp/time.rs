//! The times PCP's tools print (see "Times" in the [module](super)
//! documentation): dates, times of day, `ctime` stamps and zones, to UTC
//! nanoseconds.

use trama_num::{SecondsError, SecondsSyntax};

use trama_records::Nanos;

const NS_PER_SEC: i64 = 1_000_000_000;
pub(super) const NS_PER_DAY: i64 = 86_400 * NS_PER_SEC;

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

fn date_days(y: i64, m: u32, d: u32) -> Result<i64, String> {
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return Err(format!("no such date {y}-{m:02}-{d:02}"));
    }
    Ok(days_from_civil(y, m, d))
}

/// `digits[.digits]` seconds to nanoseconds (at most 9 fraction digits).
fn parse_seconds(s: &str) -> Result<i64, String> {
    trama_num::parse_seconds(s.as_bytes(), SecondsSyntax::PLAIN).map_err(|e| match e {
        SecondsError::Malformed => format!("`{s}` is not a number of seconds"),
        SecondsError::Fraction => format!("`{s}`: bad fraction of a second"),
        SecondsError::Range => format!("`{s}` is too large"),
    })
}

/// `HH:MM:SS[.frac]` → nanoseconds since midnight.
pub(super) fn parse_tod(s: &str) -> Result<i64, String> {
    let mut it = s.splitn(3, ':');
    let (Some(h), Some(m), Some(sec)) = (it.next(), it.next(), it.next()) else {
        return Err(format!("`{s}` is not HH:MM:SS"));
    };
    let num = |x: &str| -> Result<i64, String> {
        if x.len() != 2 || !x.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("`{s}` is not HH:MM:SS"));
        }
        Ok(x.parse().unwrap_or(0))
    };
    let (h, m) = (num(h)?, num(m)?);
    let sec_int = sec.split('.').next().unwrap_or("");
    num(sec_int)?;
    let sec_ns = parse_seconds(sec)?;
    if h > 23 || m > 59 || sec_ns >= 61 * NS_PER_SEC {
        return Err(format!("`{s}` is not a time of day"));
    }
    Ok((h * 3600 + m * 60) * NS_PER_SEC + sec_ns)
}

fn month_number(s: &str) -> Option<u32> {
    const M: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    M.iter().position(|m| *m == s).map(|i| i as u32 + 1)
}

/// `Www Mmm dd HH:MM:SS[.frac][ YYYY]` → (days, ns of day, rest after the
/// year). Without a year in the text, `year` is used.
pub(super) fn parse_ctime(s: &str, year: Option<i32>) -> Result<(i64, i64, String), String> {
    let mut it = s.split_whitespace();
    let (Some(_wday), Some(mon), Some(day), Some(tod)) =
        (it.next(), it.next(), it.next(), it.next())
    else {
        return Err("not `Www Mmm dd HH:MM:SS`".into());
    };
    let mon = month_number(mon).ok_or_else(|| format!("`{mon}` is not a month"))?;
    let day: u32 = day.parse().map_err(|_| format!("`{day}` is not a day"))?;
    let tod = parse_tod(tod)?;
    let rest: Vec<&str> = it.collect();
    let (y, rest) = match rest.first().and_then(|y| y.parse::<i64>().ok()) {
        Some(y) => (y, rest[1..].join(" ")),
        None => match year {
            Some(y) => (y as i64, rest.join(" ")),
            None => {
                return Err("the time stamp has no year (pmdumptext's default): give the year in the options, or print times with -f".into())
            }
        },
    };
    Ok((date_days(y, mon, day)?, tod, rest))
}

/// A zone suffix → seconds east of UTC.
fn parse_zone(s: &str) -> Result<i64, String> {
    let z = s.trim();
    if z == "Z" || z == "UTC" || z == "GMT" {
        return Ok(0);
    }
    let signed = z
        .strip_prefix("UTC")
        .or_else(|| z.strip_prefix("GMT"))
        .unwrap_or(z);
    let (sign, body) = match signed.as_bytes().first() {
        Some(b'+') => (1, &signed[1..]),
        Some(b'-') => (-1, &signed[1..]),
        _ => return Err(format!("`{z}` is not a zone offset")),
    };
    let (h, m) = if let Some((h, m)) = body.split_once(':') {
        (h, m)
    } else if body.len() == 4 && signed.len() == z.len() {
        body.split_at(2)
    } else {
        (body, "0")
    };
    let h: i64 = h
        .parse()
        .map_err(|_| format!("`{z}` is not a zone offset"))?;
    let m: i64 = m
        .parse()
        .map_err(|_| format!("`{z}` is not a zone offset"))?;
    if h > 18 || m > 59 {
        return Err(format!("`{z}` is not a zone offset"));
    }
    Ok(sign * (h * 3600 + m * 60))
}

/// A printed time to UTC nanoseconds since the epoch.
pub(super) fn parse_time(s: &str, year: Option<i32>, utc_offset: i32) -> Result<Nanos, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("empty time".into());
    }
    // Seconds since the epoch (`-f %s`): absolute, never shifted.
    if s.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return parse_seconds(s);
    }
    let (days, tod, rest) = if s.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        // YYYY-MM-DD[ T]HH:MM:SS[.frac][ zone]
        let (date, tail) = s.split_at(s.find([' ', 'T']).ok_or("no time after the date")?);
        let mut d = date.split('-');
        let (Some(y), Some(m), Some(dd), None) = (d.next(), d.next(), d.next(), d.next()) else {
            return Err("not YYYY-MM-DD HH:MM:SS".into());
        };
        let y: i64 = y.parse().map_err(|_| format!("`{y}` is not a year"))?;
        let m: u32 = m.parse().map_err(|_| format!("`{m}` is not a month"))?;
        let dd: u32 = dd.parse().map_err(|_| format!("`{dd}` is not a day"))?;
        let tail = &tail[1..];
        let end = tail
            .find(|c: char| !(c.is_ascii_digit() || c == ':' || c == '.'))
            .unwrap_or(tail.len());
        let tod = parse_tod(&tail[..end])?;
        (date_days(y, m, dd)?, tod, tail[end..].to_string())
    } else {
        parse_ctime(s, year)?
    };
    let offset = if rest.trim().is_empty() {
        utc_offset as i64
    } else {
        parse_zone(&rest)?
    };
    Ok(days * NS_PER_DAY + tod - offset * NS_PER_SEC)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_days() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(1998, 8, 7), 10_445);
        assert!(date_days(2023, 2, 29).is_err());
        assert!(date_days(2024, 2, 29).is_ok());
    }

    #[test]
    fn times() {
        assert_eq!(
            parse_time("1970-01-01 00:00:19", None, 0),
            Ok(19 * NS_PER_SEC)
        );
        assert_eq!(parse_time("1970-01-01 01:00:00", None, 3600), Ok(0));
        assert_eq!(
            parse_time("1970-01-01 02:00:00.5 UTC+2", None, -7200),
            Ok(NS_PER_SEC / 2)
        );
        assert_eq!(
            parse_time("1970-01-01T00:00:00-0130", None, 0),
            Ok(5400 * NS_PER_SEC)
        );
        assert_eq!(
            parse_time("1970-01-01 00:00:00 +05:30", None, 0),
            Ok(-19800 * NS_PER_SEC)
        );
        assert_eq!(
            parse_time("Thu Jan  1 00:00:07", Some(1970), 0),
            Ok(7 * NS_PER_SEC)
        );
        assert_eq!(
            parse_time("Thu Jan  1 00:00:07 1970", None, 0),
            Ok(7 * NS_PER_SEC)
        );
        assert!(parse_time("Thu Jan  1 00:00:07", None, 0)
            .unwrap_err()
            .contains("year"));
        assert_eq!(
            parse_time("12.000000001", None, 3600),
            Ok(12 * NS_PER_SEC + 1)
        );
        assert!(parse_time("1970-13-01 00:00:00", None, 0).is_err());
        assert!(parse_time("1970-01-01 24:00:00", None, 0).is_err());
        assert!(parse_time("1970-01-01 00:00:00 EST", None, 0).is_err());
    }
}
