//! `djambi-server`: reads the configuration from the environment, sets up logging, and runs
//! the server. `djambi-server openapi` prints the OpenAPI document; `--help` lists settings.

use std::process::ExitCode;

use djambi_api::config::{Config, SETTINGS};

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
        Some("-h" | "--help") => {
            println!("djambi-server: the Djambi correspondence server\n");
            println!("usage: djambi-server            serve (settings from the environment)");
            println!("       djambi-server openapi    print the OpenAPI document\n");
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
            for (env, key, what) in SETTINGS {
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
