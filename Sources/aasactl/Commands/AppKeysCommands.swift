import AASAAPI
import AASAModel
import ArgumentParser

/// `aasactl apps keys`: what an Android app's signing keys are, and the app signing key taken from
/// Play Console instead of retyped.
struct AppKeys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "An Android app's signing keys: label them, or import the app signing key from Play Console.",
        subcommands: [Import.self, Label.self]
    )

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Add the app signing key from Play Console's snippet (App integrity), labelled play-signing.",
            discussion:
                """
                FILE is the Digital Asset Links JSON that Play Console shows for the app, saved as it is (- reads \
                standard input). A snippet for another package is refused.
                """)
        @OptionGroup var remote: RemoteOptions
        @Argument var appID: String
        @Option(name: .customLong("from-play"), help: "Play Console's Digital Asset Links snippet (a file, or -).")
        var file: String
        @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?
        func run() async throws {
            let snippet: JSONValue
            do {
                snippet = try JSONParser.parse(try CLIOutput.read(file)).value
            } catch let error as JSONSyntaxError {
                throw ValidationError("\(file) is not JSON (\(error)); save Play Console's snippet as it is shown")
            }
            let response = try await remote.client.send(
                .post, APIClient.path("v1", "apps", appID, "keys", "play-signing"), body: snippet,
                headers: ifMatchHeader(ifMatch))
            try remote.show(response, as: Apps.App.self, Apps.fields)
        }
    }

    struct Label: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say what each of the app's keys is: play-signing, upload, debug, or your own word.",
            discussion: "The labels given replace the app's labels; a key left out is unlabelled.")
        @OptionGroup var remote: RemoteOptions
        @Argument var appID: String
        @Option(name: .customLong("key"), help: "SHA256=LABEL, for a fingerprint the app lists; repeat.")
        var keys: [String] = []
        @Option(help: "The ETag (version) the change is based on.") var ifMatch: String?
        func run() async throws {
            var labels = JSONObject()
            for key in keys {
                guard let equals = key.lastIndex(of: "=") else {
                    throw ValidationError("--key is SHA256=LABEL (AB:CD:…=play-signing), not \(key)")
                }
                labels.append(String(key[..<equals]), .string(String(key[key.index(after: equals)...])))
            }
            let response = try await remote.client.send(
                .patch, APIClient.path("v1", "apps", appID), body: .object(["keyLabels": .object(labels)]),
                headers: ifMatchHeader(ifMatch))
            try remote.show(response, as: Apps.App.self, Apps.fields)
        }
    }
}
