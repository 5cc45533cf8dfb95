//! The binary: the KRM function when run with no argument and a ResourceList on stdin, the
//! command line otherwise.

use std::io::IsTerminal;

// glibc's allocator spends a third of a 100,000-entry render searching its free lists (perf:
// `_int_malloc`), because rendering frees each runtime's JSON tree while it keeps its text;
// mimalloc does not degrade that way. docs/performance.md has the measurements.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let exit = if args.len() == 1 && !std::io::stdin().is_terminal() {
        jax_runtimes::krm::run(std::io::stdin().lock(), std::io::stdout().lock(), &mut std::io::stderr())
    } else {
        jax_runtimes::cli::main(args)
    };
    std::process::exit(exit.code());
}
