import ArgumentParser
struct Lint: ParsableCommand {
    func run() throws {}
}
