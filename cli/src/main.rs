//! The `djambi` command: see the `djambi_cli` library and RULES.md section 9.

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let stdin = std::io::stdin().lock();
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let status = djambi_cli::run(&args, stdin, stdout, std::io::stderr());
    std::process::exit(status);
}
