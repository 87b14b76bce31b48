//! `djambi-server`: reads the configuration from the environment, sets up logging, and runs
//! the server. `djambi-server openapi` prints the OpenAPI document; `--help` lists settings.

use std::process::ExitCode;

use djambi_api::config::{Config, all_settings};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => {}
        Some("openapi") => {
            print!("{}", djambi_api::openapi::document_json());
            return ExitCode::SUCCESS;
        }
        Some("check-projections") => {
            let config = match Config::from_env() {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("djambi-server: {e}");
                    return ExitCode::from(2);
                }
            };
            return match djambi_api::maintenance::check_projections(&config, &mut std::io::stdout())
            {
                Ok(0) => ExitCode::SUCCESS,
                Ok(_) => ExitCode::FAILURE,
                Err(e) => {
                    eprintln!("djambi-server: {e}");
                    ExitCode::from(2)
                }
            };
        }
        Some("-h" | "--help") => {
            println!("djambi-server: the Djambi correspondence server\n");
            println!("usage: djambi-server            serve (settings from the environment)");
            println!("       djambi-server openapi    print the OpenAPI document");
            println!(
                "       djambi-server check-projections\n                                replay every game and report projections that differ (exit 1)\n"
            );
            println!("settings (environment variable / key in the DJAMBI_CONFIG TOML file):");
            let extra = [
                (
                    "DJAMBI_CONFIG",
                    "optional TOML file with the settings below",
                ),
                ("RUST_LOG", "log filter (default info)"),
            ];
            for (env, what) in extra {
                println!("  {env:<32} {what}");
            }
            for (env, key, what) in all_settings() {
                println!("  {env:<32} {what} [file: {key}]");
            }
            return ExitCode::SUCCESS;
        }
        Some(other) => {
            eprintln!("djambi-server: unknown argument `{other}` (try --help)");
            return ExitCode::from(2);
        }
    }

    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .init();

    let config = match Config::from_env() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("djambi-server: {e}");
            return ExitCode::from(2);
        }
    };
    let result = actix_web::rt::System::new().block_on(djambi_api::run(config));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("djambi-server: {e}");
            ExitCode::FAILURE
        }
    }
}
