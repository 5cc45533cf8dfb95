fn main() {
    std::process::exit(jax_runtimes::cli::main());
}
