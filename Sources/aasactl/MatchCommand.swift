import ArgumentParser
struct Match: ParsableCommand {
    func run() throws {}
}
