//! Calendar dates of Unix times, in UTC, without a time-zone database: what the registry shows
//! (`2026-12-01 22:07 UTC`) and reads (`--expires 2027-01-31`). Howard Hinnant's
//! `civil_from_days` and `days_from_civil`, exact for the proleptic Gregorian calendar.

/// Now, in seconds since the Unix epoch (0 if the clock is before it).
pub fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX)
        })
}

/// (year, month 1–12, day 1–31) of the day `days` after 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (
        year,
        u32::try_from(month).unwrap_or(1),
        u32::try_from(day).unwrap_or(1),
    )
}

/// The days from 1970-01-01 to `year-month-day`.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let month = i64::from(month);
    let day_of_year =
        (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// `2026-12-01`: the UTC date of a Unix time.
pub fn date(seconds: i64) -> String {
    let (year, month, day) = civil_from_days(seconds.div_euclid(86_400));
    format!("{year:04}-{month:02}-{day:02}")
}

/// `2026-12-01 22:07 UTC`: the UTC date and minute of a Unix time.
pub fn date_time(seconds: i64) -> String {
    let minutes = seconds.rem_euclid(86_400) / 60;
    format!(
        "{} {:02}:{:02} UTC",
        date(seconds),
        minutes / 60,
        minutes % 60
    )
}

/// The Unix time of midnight UTC starting `YYYY-MM-DD`, if it is a real date.
pub fn parse_date(text: &str) -> Option<i64> {
    let mut parts = text.split('-');
    let (year, month, day) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || year.len() != 4 || month.len() != 2 || day.len() != 2 {
        return None;
    }
    let year: i64 = year.parse().ok()?;
    let month: u32 = month.parse().ok()?;
    let day: u32 = day.parse().ok()?;
    let days = days_from_civil(year, month, day);
    // Out-of-range months and days (2027-02-30) come back as another date: refuse them.
    (civil_from_days(days) == (year, month, day)).then_some(days * 86_400)
}

#[cfg(test)]
mod tests {
    use super::{civil_from_days, date, date_time, days_from_civil, parse_date};

    #[test]
    fn round_trips_across_four_centuries() {
        for days in (-200_000..200_000).step_by(7) {
            let (year, month, day) = civil_from_days(days);
            assert_eq!(
                days_from_civil(year, month, day),
                days,
                "{year}-{month}-{day}"
            );
        }
    }

    #[test]
    fn formats_and_parses_known_dates() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date_time(951_782_400 + 3_723), "2000-02-29 01:02 UTC");
        assert_eq!(date(-1), "1969-12-31");
        assert_eq!(parse_date("2000-02-29"), Some(951_782_400));
        assert_eq!(parse_date("2027-02-29"), None);
        assert_eq!(parse_date("2027-13-01"), None);
        assert_eq!(parse_date("2027-1-01"), None);
        assert_eq!(parse_date("2027-01-01T00"), None);
    }
}
