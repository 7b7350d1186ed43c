use clap::Parser;
use fricsim::cli::{Cli, Command};
use std::process::ExitCode;

fn main() -> ExitCode {
    fricsim::linalg::use_sequential_factorisations();
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { fricsim::cli::exit::BAD_INPUT } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Run(args) => fricsim::cli::run::run(&args),
        Command::Check(args) => fricsim::cli::check::run(&args),
        Command::Sweep(args) => fricsim::cli::sweep::run(&args),
        Command::Plot(args) => fricsim::cli::plot::run(&args),
        Command::Fclib(cmd) => match fricsim::cli::fclib::run(cmd) {
            Ok(code) => code,
            Err(e) => {
                eprintln!("error: {e:#}");
                ExitCode::from(fricsim::cli::exit::BAD_INPUT)
            }
        },
    }
}
