// glibc's allocator spends a third of a 100,000-entry render searching its free lists (perf:
// `_int_malloc`), because rendering frees each runtime's JSON tree while it keeps its text;
// mimalloc does not degrade that way. docs/performance.md has the measurements.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(jax_runtimes::cli::main());
}
