//! The `djambi` command: see `djambi::cli` and RULES.md section 9.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stdin = std::io::stdin().lock();
    let stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let status = djambi::cli::run(&args, stdin, stdout, std::io::stderr());
    std::process::exit(status);
}
