import ArgumentParser
struct Diff: ParsableCommand {
    func run() throws {}
}
