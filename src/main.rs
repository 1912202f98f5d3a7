//! The `termloom` command: runs terminal programs headlessly, types into them, waits for what
//! they print and shows their screen and transcript. See `termloom --help`.

mod bin_cli;

fn main() -> std::process::ExitCode {
    bin_cli::main(std::env::args_os().skip(1).collect())
}
