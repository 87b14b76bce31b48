//! Commands for operators, run by `djambi-server <command>` beside the server.

use std::io::Write;

use crate::config::Config;
use crate::store;
use crate::store::StoreError;
use crate::store::games::{self as game_store};

/// `djambi-server check-projections`: replays every game's log and reports each game whose
/// projection (`games`, `game_players`) differs from the replay, one line each. Returns
/// how many games differ (or could not be replayed).
pub fn check_projections(config: &Config, out: &mut impl Write) -> Result<usize, String> {
    let pool = store::build_pool(&config.database).map_err(|e| e.to_string())?;
    store::run_migrations(&pool).map_err(|e| e.to_string())?;
    let mut conn = store::checkout(&pool).map_err(|e| e.to_string())?;
    let (mut checked, mut bad) = (0usize, 0usize);
    let mut after = String::new();
    loop {
        let ids = game_store::game_ids_after(&mut conn, &after, 500).map_err(|e| e.to_string())?;
        let Some(last) = ids.last() else { break };
        after = last.to_string();
        for id in &ids {
            checked += 1;
            let differences = match crate::store::game_lists::projection_differences(&mut conn, id)
            {
                Ok(d) => d,
                Err(StoreError::Corrupt(why)) => vec![format!("the log does not replay: {why}")],
                Err(e) => return Err(e.to_string()),
            };
            if !differences.is_empty() {
                bad += 1;
                for d in differences {
                    writeln!(out, "game {id}: {d}").map_err(|e| e.to_string())?;
                }
            }
        }
    }
    writeln!(
        out,
        "{checked} games checked, {bad} with a projection that differs from the log"
    )
    .map_err(|e| e.to_string())?;
    Ok(bad)
}

/// `djambi-server recompute-ratings`: replays every finished rated game in order and
/// compares with the stored ratings (see [`crate::ratings::recompute`]); reports each
/// difference, one line each. Returns how many differ.
pub fn recompute_ratings(config: &Config, out: &mut impl Write) -> Result<usize, String> {
    let pool = store::build_pool(&config.database).map_err(|e| e.to_string())?;
    store::run_migrations(&pool).map_err(|e| e.to_string())?;
    let mut conn = store::checkout(&pool).map_err(|e| e.to_string())?;
    let report = crate::ratings::recompute::recompute(&mut conn).map_err(|e| e.to_string())?;
    for d in &report.differences {
        writeln!(out, "{d}").map_err(|e| e.to_string())?;
    }
    writeln!(
        out,
        "{} rated games replayed, {} players; {} differences from the stored ratings",
        report.games,
        report.players,
        report.differences.len()
    )
    .map_err(|e| e.to_string())?;
    Ok(report.differences.len())
}
