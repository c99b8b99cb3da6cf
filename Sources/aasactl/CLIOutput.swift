import AASAModel
import ArgumentParser
import Foundation

/// Reading inputs and writing results, in one place so every subcommand behaves alike.
enum CLIOutput {
    static func print(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func write(_ bytes: [UInt8]) {
        FileHandle.standardOutput.write(Data(bytes))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    static func json(_ value: JSONValue, pretty: Bool = false) {
        write(JSONWriter(style: pretty ? .pretty : .compact).bytes(value) + (pretty ? [] : [0x0A]))
    }

    /// The bytes of `path`, or of standard input for `-`.
    static func read(_ path: String) throws -> [UInt8] {
        if path == "-" {
            return [UInt8](FileHandle.standardInput.readDataToEndOfFile())
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("cannot read \(path): no such file, or not readable")
        }
        return [UInt8](data)
    }
}
