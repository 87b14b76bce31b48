//! Dates, times and durations in the reader's language and time zone. The names of the
//! days and months and the order of the parts are messages of `common.ftl`
//! (`datetime`, `date`, `month-N`, `weekday-N`, `duration-*`).

use chrono::{Datelike, NaiveDate, NaiveDateTime, TimeDelta};

use super::{Arg, Lang, tr};

/// A time zone of the IANA database (`Europe/Paris`), or `UTC`.
pub type TimeZone = chrono_tz::Tz;

/// The zone an IANA name names (`Europe/Paris`, `America/Mexico_City`, `UTC`), if any.
pub fn parse_time_zone(name: &str) -> Option<TimeZone> {
    name.trim().parse::<TimeZone>().ok()
}

/// A moment (UTC, as stored) in the reader's language and zone:
/// "Wednesday 2 December 2026, 14:05 CET", "mercredi 2 décembre 2026 à 14:05 CET".
pub fn datetime(lang: Lang, zone: TimeZone, at: NaiveDateTime) -> String {
    let local = at.and_utc().with_timezone(&zone);
    tr(
        lang,
        "datetime",
        &[
            (
                "weekday",
                Arg::Text(tr(
                    lang,
                    &format!("weekday-{}", local.weekday().number_from_monday()),
                    &[],
                )),
            ),
            ("day", Arg::Number(local.day().into())),
            (
                "month",
                Arg::Text(tr(lang, &format!("month-{}", local.month()), &[])),
            ),
            ("year", Arg::Number(local.year().into())),
            ("time", Arg::Text(local.format("%H:%M").to_string())),
            ("zone", Arg::Text(local.format("%Z").to_string())),
        ],
    )
}

/// A day in the reader's language: "2 December 2026", "2 décembre 2026".
pub fn date(lang: Lang, day: NaiveDate) -> String {
    tr(
        lang,
        "date",
        &[
            ("day", Arg::Number(day.day().into())),
            (
                "month",
                Arg::Text(tr(lang, &format!("month-{}", day.month()), &[])),
            ),
            ("year", Arg::Number(day.year().into())),
        ],
    )
}

/// A duration in its two largest units: "2 days 3 hours", "1 jour 5 minutes", "45 minutos".
/// Seconds round up to the next minute (59 seconds left is "1 minute", never "0
/// minutes"); nothing left at all is "less than a minute".
pub fn duration(lang: Lang, span: TimeDelta) -> String {
    let secs = span.num_seconds().max(0);
    if secs == 0 {
        return tr(lang, "duration-less-than-a-minute", &[]);
    }
    let secs = (secs + 59) / 60 * 60;
    let (days, hours, minutes) = (secs / 86_400, secs % 86_400 / 3600, secs % 3600 / 60);
    let parts: Vec<(&str, i64)> = [
        ("duration-days", days),
        ("duration-hours", hours),
        ("duration-minutes", minutes),
    ]
    .into_iter()
    .skip_while(|(_, n)| *n == 0)
    .take(2)
    .filter(|(_, n)| *n > 0)
    .collect();
    if parts.is_empty() {
        return tr(lang, "duration-minutes", &[("n", Arg::Number(0))]);
    }
    parts
        .iter()
        .map(|(id, n)| tr(lang, id, &[("n", Arg::Number(*n))]))
        .collect::<Vec<_>>()
        .join(" ")
}
