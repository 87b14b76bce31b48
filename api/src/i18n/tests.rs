//! The translations are complete: every message of English in every language, with the
//! same placeholders; every folder of `locales/` is a language of the site.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use chrono::{NaiveDate, TimeDelta};

use super::*;

fn locales_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../locales")
}

fn ids(source: &str) -> BTreeMap<String, BTreeSet<String>> {
    placeholders_of(source).into_iter().collect()
}

#[test]
fn every_folder_of_locales_is_a_language_with_every_area() {
    let mut folders: Vec<String> = std::fs::read_dir(locales_dir())
        .expect("locales/")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    let mut listed: Vec<String> = LANGUAGES.iter().map(|l| l.code.to_string()).collect();
    listed.sort();
    assert_eq!(folders, listed, "locales/ and languages! in i18n/mod.rs");
    for language in LANGUAGES {
        for (i, area) in AREAS.iter().enumerate() {
            assert_eq!(language.files[i].0, *area);
            // The built-in text is the file on disk.
            let on_disk = std::fs::read_to_string(
                locales_dir()
                    .join(language.code)
                    .join(format!("{area}.ftl")),
            )
            .unwrap();
            assert_eq!(on_disk, language.files[i].1, "{}/{area}", language.code);
        }
    }
}

#[test]
fn every_file_parses_without_duplicates() {
    for language in LANGUAGES {
        let mut seen = BTreeSet::new();
        for (area, source) in language.files {
            let errors = parse_errors(source);
            assert!(
                errors.is_empty(),
                "{}/{area}.ftl: {errors:?}",
                language.code
            );
            for (id, _) in placeholders_of(source) {
                assert!(
                    seen.insert(id.clone()),
                    "{}/{area}.ftl: {id} twice",
                    language.code
                );
            }
        }
    }
}

#[test]
fn every_message_of_english_is_in_every_language_with_its_placeholders() {
    let english = &LANGUAGES[0];
    assert_eq!(english.code, "en");
    let mut missing = Vec::new();
    for language in &LANGUAGES[1..] {
        for (i, (area, source)) in english.files.iter().enumerate() {
            let theirs = ids(language.files[i].1);
            let ours = ids(source);
            for (id, vars) in &ours {
                match theirs.get(id) {
                    None => missing.push(format!("{}/{area}.ftl: no {id}", language.code)),
                    Some(their_vars) => {
                        for v in vars.difference(their_vars) {
                            missing.push(format!(
                                "{}/{area}.ftl: {id} lacks the placeholder ${v}",
                                language.code
                            ));
                        }
                        for v in their_vars.difference(vars) {
                            missing.push(format!(
                                "{}/{area}.ftl: {id} has ${v}, which English does not give",
                                language.code
                            ));
                        }
                    }
                }
            }
            for id in theirs.keys().filter(|id| !ours.contains_key(*id)) {
                missing.push(format!(
                    "{}/{area}.ftl: {id} is not in English",
                    language.code
                ));
            }
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn the_scripts_messages_have_no_selectors() {
    // The web client fills `{$name}` itself (see `catalogue`): a selector would be lost.
    for lang in Lang::all() {
        for (id, text) in catalogue(lang, &["js-"]) {
            assert!(!text.contains("->"), "{} {id}: {text}", lang.code());
        }
    }
    let fr = catalogue(Lang::from_code("fr").unwrap(), &["js-"]);
    assert!(fr.len() > 20, "{}", fr.len());
}

#[test]
fn negotiation_follows_the_header_then_falls_back_to_english() {
    assert_eq!(negotiate(None), Lang::EN);
    assert_eq!(negotiate(Some("fr-CA,fr;q=0.9,en;q=0.8")).code(), "fr");
    assert_eq!(negotiate(Some("de-DE, es;q=0.5, en;q=0.1")).code(), "es");
    assert_eq!(negotiate(Some("es-MX")).code(), "es");
    assert_eq!(negotiate(Some("de, ja")), Lang::EN);
    assert_eq!(negotiate(Some("!!garbage")), Lang::EN);
    assert_eq!(choose(Some("es"), Some("fr")).code(), "es");
    assert_eq!(choose(None, Some("fr")).code(), "fr");
    assert_eq!(choose(Some("xx"), None), Lang::EN);
    assert_eq!(choose(Some("fr-CA"), None), Lang::FR);
}

#[test]
fn negotiation_weighs_q_values_by_rfc_9110() {
    for (header, want) in [
        ("en;q=0.2, es;q=0.8", "es"),
        ("fr;q=0", "en"),
        ("es ; q=0.9", "es"),
        ("es;Q=0.9, fr;q=0.95", "fr"),
        ("fr-CA;q=0.5, es-MX;q=0.6", "es"),
        ("fr, es", "fr"),
        ("es;q=0.5, fr;q=0.5", "es"),
        ("en;q=0, *", "fr"),
        ("*;q=0.1, es;q=0.2", "es"),
        ("en;q=0, fr;q=0, es;q=0", "en"),
        ("de;q=1.0, fr;q=0.001", "fr"),
        ("fr;q=1.5, es", "es"),
        ("fr;q=abc, es;q=0.1", "es"),
        ("fr;q=0.1234, es;q=0.1", "es"),
        ("fr;q=0, fr-CA", "en"),
        ("en;q=0, de", "fr"),
        ("", "en"),
        (",,;,", "en"),
    ] {
        assert_eq!(negotiate(Some(header)).code(), want, "{header:?}");
    }
}

proptest::proptest! {
    #[test]
    fn accept_language_never_panics_and_q0_is_never_chosen(header in "[a-zA-Z*;=., 0-9-]{0,80}") {
        let chosen = negotiate(Some(&header));
        let ranges = parse_accept_language(&header);
        let refused = |l: Lang| ranges.iter().any(|r| r.weight == 0 && r.range == l.code());
        if Lang::all().any(|l| !refused(l)) {
            proptest::prop_assert!(!refused(chosen), "{header:?} chose {chosen:?}");
        }
        for r in &ranges {
            proptest::prop_assert!(r.weight <= 1000);
        }
    }

    #[test]
    fn accept_language_of_any_text_never_panics(header in "\\PC{0,200}") {
        let _ = negotiate(Some(&header));
    }
}

#[test]
fn names_of_the_game_in_each_language() {
    let fr = Lang::from_code("fr").unwrap();
    let es = Lang::from_code("es").unwrap();
    let names = |lang| {
        [
            "piece-chief",
            "piece-assassin",
            "piece-reporter",
            "piece-diplomat",
            "piece-necromobile",
            "piece-militant",
            "maze",
        ]
        .map(|id| t(lang, id))
    };
    assert_eq!(
        names(fr),
        [
            "chef",
            "assassin",
            "reporter",
            "diplomate",
            "nécromobile",
            "militant",
            "labyrinthe"
        ]
    );
    assert_eq!(
        names(es),
        [
            "líder",
            "asesino",
            "reportero",
            "diplomático",
            "necromóvil",
            "militante",
            "la presidencia"
        ]
    );
    assert_eq!(t(fr, "seat-G"), "Vert");
    assert_eq!(t(es, "seat-Y"), "Amarillo");
}

#[test]
fn dates_and_durations_in_the_readers_language_and_zone() {
    let at = NaiveDate::from_ymd_opt(2026, 12, 2)
        .unwrap()
        .and_hms_opt(13, 5, 0)
        .unwrap();
    let paris = parse_time_zone("Europe/Paris").unwrap();
    let fr = Lang::from_code("fr").unwrap();
    let es = Lang::from_code("es").unwrap();
    assert_eq!(
        datetime(Lang::EN, TimeZone::UTC, at),
        "Wednesday 2 December 2026, 13:05 UTC"
    );
    assert_eq!(
        datetime(fr, paris, at),
        "mercredi 2 décembre 2026 à 14:05 CET"
    );
    let mexico = parse_time_zone("America/Mexico_City").unwrap();
    assert_eq!(
        datetime(es, mexico, at),
        "miércoles 2 de diciembre de 2026, 07:05 CST"
    );
    assert_eq!(date(fr, at.date()), "2 décembre 2026");
    let span = TimeDelta::hours(49) + TimeDelta::minutes(3);
    assert_eq!(duration(Lang::EN, span), "2 days 1 hour");
    assert_eq!(duration(fr, TimeDelta::minutes(1)), "1 minute");
    assert_eq!(duration(es, TimeDelta::hours(3)), "3 horas");
    assert_eq!(duration(es, TimeDelta::zero()), "menos de un minuto");
    // A reminder a minute before the deadline never says "in 0 minutes".
    assert_eq!(duration(Lang::EN, TimeDelta::seconds(59)), "1 minute");
    assert_eq!(duration(Lang::EN, TimeDelta::seconds(61)), "2 minutes");
    assert_eq!(duration(Lang::EN, TimeDelta::seconds(3599)), "1 hour");
    assert_eq!(duration(fr, TimeDelta::seconds(30)), "1 minute");
    // French: 0 and 1 take the singular.
    assert_eq!(
        tr(fr, "duration-hours", &[("n", Arg::Number(0))]),
        "0 heure"
    );
    assert!(parse_time_zone("Mars/Olympus").is_none());
    assert!(parse_time_zone("UTC").is_some());
}

#[test]
fn a_missing_message_falls_back_to_english_then_to_its_id() {
    let fr = Lang::from_code("fr").unwrap();
    assert_eq!(t(fr, "no-such-message"), "no-such-message");
    assert!(!has(fr, "no-such-message"));
    assert_eq!(
        tr(fr, "mail-hello", &[("name", "alice".into())]),
        "Bonjour alice,"
    );
}

#[test]
fn ordinals_follow_the_languages_rules() {
    let place = |lang, n: i64| {
        tr(
            lang,
            "rating-place-of",
            &[("place", n.into()), ("players", 4i64.into())],
        )
    };
    assert_eq!(place(Lang::EN, 1), "1st of 4");
    assert_eq!(place(Lang::EN, 22), "22nd of 4");
    assert_eq!(place(Lang::EN, 13), "13th of 4");
    assert_eq!(place(Lang::from_code("fr").unwrap(), 1), "1re sur 4");
    assert_eq!(place(Lang::from_code("fr").unwrap(), 3), "3e sur 4");
}

#[test]
fn decimals_and_plurals_follow_the_language() {
    assert_eq!(decimal(Lang::EN, 25.0, 2), "25.00");
    assert_eq!(decimal(Lang::FR, 25.0, 2), "25,00");
    assert_eq!(decimal(Lang::ES, 8.333_333, 2), "8,33");
    assert_eq!(decimal(Lang::FR, 0.0, 1), "0,0");
    assert_eq!(decimal(Lang::EN, -1.25, 1), "-1.3");
    let line = |lang, games: i64, wins: i64| {
        tr(
            lang,
            "rating-line",
            &[
                ("mu", Arg::Decimal(25.0, 2)),
                ("sigma", Arg::Decimal(8.333, 2)),
                ("games", Arg::Number(games)),
                ("wins", Arg::Number(wins)),
            ],
        )
    };
    // French: 0 and 1 take the singular.
    assert_eq!(
        line(Lang::FR, 0, 1),
        "(μ 25,00, σ 8,33) · 0 partie classée · 1 victoire"
    );
    assert_eq!(
        line(Lang::FR, 2, 5),
        "(μ 25,00, σ 8,33) · 2 parties classées · 5 victoires"
    );
    assert_eq!(
        line(Lang::EN, 0, 1),
        "(μ 25.00, σ 8.33) · 0 rated games · 1 win"
    );
    assert_eq!(
        line(Lang::ES, 1, 0),
        "(μ 25,00, σ 8,33) · 1 partida puntuada · 0 victorias"
    );
}
