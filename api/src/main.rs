//! `djambi-server`: reads the configuration from the environment, sets up logging, and runs
//! the server. `djambi-server openapi` prints the OpenAPI document; `--help` lists settings;
//! `djambi-server settings` prints the README's configuration reference.

use std::process::ExitCode;

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

fn main() -> ExitCode {
    large_blocks_back_to_the_system();
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
        Some("hide-message") => {
            let Some(id) = args.get(1) else {
                eprintln!("djambi-server: hide-message needs the message's id");
                return ExitCode::from(2);
            };
            let config = match Config::from_env() {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("djambi-server: {e}");
                    return ExitCode::from(2);
                }
            };
            let clock = djambi_api::clock::SystemClock;
            return match djambi_api::messages::hide::hide_command(
                &config,
                id,
                &clock,
                &mut std::io::stdout(),
            ) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("djambi-server: {e}");
                    ExitCode::FAILURE
                }
            };
        }
        Some("recompute-ratings") => {
            let config = match Config::from_env() {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("djambi-server: {e}");
                    return ExitCode::from(2);
                }
            };
            return match djambi_api::maintenance::recompute_ratings(&config, &mut std::io::stdout())
            {
                Ok(0) => ExitCode::SUCCESS,
                Ok(_) => ExitCode::FAILURE,
                Err(e) => {
                    eprintln!("djambi-server: {e}");
                    ExitCode::from(2)
                }
            };
        }
        Some("settings") => {
            print!("{}", djambi_api::config_reference::markdown());
            return ExitCode::SUCCESS;
        }
        Some("-h" | "--help") => {
            println!("djambi-server: the Djambi correspondence server\n");
            println!("usage: djambi-server            serve (settings from the environment)");
            println!("       djambi-server openapi    print the OpenAPI document");
            println!(
                "       djambi-server check-projections\n                                replay every game and report projections that differ (exit 1)"
            );
            println!(
                "       djambi-server hide-message <id>\n                                hide a table-talk message from every reader"
            );
            println!(
                "       djambi-server recompute-ratings\n                                replay every rated game and report ratings that differ (exit 1)"
            );
            println!(
                "       djambi-server settings   print the configuration reference (Markdown)\n"
            );
            println!(
                "settings (environment variables; most also as keys of the DJAMBI_CONFIG file):"
            );
            print!("{}", djambi_api::config_reference::help());
            return ExitCode::SUCCESS;
        }
        Some(other) => {
            eprintln!("djambi-server: unknown argument `{other}` (try --help)");
            return ExitCode::from(2);
        }
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
