import ArgumentParser
import Foundation

/// Where object-store and purge targets' credentials come from: the AWS variables of the
/// environment (`default`), and named sets in a file.
struct ObjectStoreOptions: ParsableArguments {
    @Option(
        name: .customLong("credentials-file"),
        help: """
            A JSON file of named credential sets for object-store and purge targets; the AWS_* variables \
            make the set 'default' (env AASA_CREDENTIALS_FILE)
            """)
    var credentialsFile: String?

    var resolvedFile: String? { credentialsFile ?? ProcessInfo.processInfo.environment["AASA_CREDENTIALS_FILE"] }
}
