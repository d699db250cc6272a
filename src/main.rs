fn main() -> std::process::ExitCode {
    storefront::cli::main()
}
