//! `djambi-server`: reads the configuration from the environment, sets up logging, and runs
//! the server. `djambi-server openapi` prints the OpenAPI document; `--help` lists the
//! subcommands and the settings; `djambi-server settings` prints the README's
//! configuration reference; `djambi-server <subcommand> --help` says what one does.

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser};
use djambi_api::config::Config;

/// Each password hash allocates and frees a 19 MiB block. glibc's malloc serves the first
/// with mmap, then raises its mmap threshold to that size ("dynamic threshold") and keeps
/// later ones in its heaps, where small allocations fragment them: resident memory grows
/// with every hash (243 MiB after 100 registrations). A fixed threshold of 1 MiB keeps
/// large blocks in mmap, returned to the system when freed (32 MiB after the same). mimalloc
/// was measured too and kept more (93 MiB). See BENCHMARKS.md (memory).
fn large_blocks_back_to_the_system() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a malloc parameter; called once, before other threads start.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

/// The command line. Without a subcommand the server runs; its settings come from the
/// environment (listed by `--help`). Every subcommand answers `--help` without doing
/// anything else (clap), and a stray argument is refused (exit 2).
#[derive(Parser)]
#[command(
    name = "djambi-server",
    about = "The Djambi correspondence server. Without a command: serve (settings from the environment).",
    disable_version_flag = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Subcommand>,
}

#[derive(clap::Subcommand)]
enum Subcommand {
    /// Print the OpenAPI document.
    Openapi,
    /// Replay every game and report projections that differ from their log (exit 1).
    CheckProjections,
    /// Hide a table-talk message from every reader.
    HideMessage {
        /// The message's id.
        id: String,
    },
    /// Replay every rated game and report ratings that differ from the stored ones (exit 1).
    RecomputeRatings,
    /// Print the configuration reference (Markdown).
    Settings,
}

/// The configuration from the environment, or the exit code of a bad one.
fn config() -> Result<Config, ExitCode> {
    Config::from_env().map_err(|e| {
        eprintln!("djambi-server: {e}");
        ExitCode::from(2)
    })
}

/// The exit code of a check that reports differences: 0 none, 1 some, 2 it failed.
fn check_exit(result: Result<usize, String>) -> ExitCode {
    match result {
        Ok(0) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("djambi-server: {e}");
            ExitCode::from(2)
        }
    }
}

/// Runs a subcommand.
fn run_subcommand(command: Subcommand) -> ExitCode {
    match command {
        Subcommand::Openapi => {
            print!("{}", djambi_api::openapi::document_json());
            ExitCode::SUCCESS
        }
        Subcommand::Settings => {
            print!("{}", djambi_api::config_reference::markdown());
            ExitCode::SUCCESS
        }
        Subcommand::CheckProjections => match config() {
            Ok(config) => check_exit(djambi_api::maintenance::check_projections(
                &config,
                &mut std::io::stdout(),
            )),
            Err(code) => code,
        },
        Subcommand::RecomputeRatings => match config() {
            Ok(config) => check_exit(djambi_api::maintenance::recompute_ratings(
                &config,
                &mut std::io::stdout(),
            )),
            Err(code) => code,
        },
        Subcommand::HideMessage { id } => {
            let config = match config() {
                Ok(c) => c,
                Err(code) => return code,
            };
            let clock = djambi_api::clock::SystemClock;
            match djambi_api::messages::hide::hide_command(
                &config,
                &id,
                &clock,
                &mut std::io::stdout(),
            ) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("djambi-server: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

fn main() -> ExitCode {
    large_blocks_back_to_the_system();
    let command = Cli::command().after_help(format!(
        "Settings (environment variables; most also as keys of the DJAMBI_CONFIG file):\n{}",
        djambi_api::config_reference::help()
    ));
    let cli = match Cli::from_arg_matches(&command.get_matches()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    if let Some(sub) = cli.command {
        return run_subcommand(sub);
    }

    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("djambi-server: {e}");
            return ExitCode::from(2);
        }
    };
    djambi_api::telemetry::init_logging(config.log_format);
    for warning in config.deprecations() {
        tracing::warn!("{warning}");
    }
    let result = actix_web::rt::System::new().block_on(djambi_api::run(config));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("djambi-server: {e}");
            ExitCode::FAILURE
        }
    }
}
