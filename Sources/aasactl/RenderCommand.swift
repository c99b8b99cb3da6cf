import ArgumentParser
struct Render: ParsableCommand {
    func run() throws {}
}
