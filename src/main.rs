use clap::Parser;
use fricsim::cli::fclib::{FclibCommand, run};
use std::process::ExitCode;

/// fricsim: batch simulator of frictional contact.
#[derive(Debug, Parser)]
#[command(name = "fricsim", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// Exact Coulomb contact solvers on FCLib problem files.
    #[command(subcommand)]
    Fclib(FclibCommand),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let res = match cli.command {
        Command::Fclib(c) => run(c),
    };
    match res {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
