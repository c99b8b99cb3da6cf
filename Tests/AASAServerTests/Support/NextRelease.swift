import AASAStore
import AASATestSupport
import Foundation
import Logging

/// The migrations of a release after this one, as a directory: this build's files and the next
/// release's. An expand step (a new table and a nullable column) is compatible with this build; a
/// contract step carries the `breaks-older-releases` marker.
struct NextRelease {
    static let expand = """
        CREATE TABLE release_notes (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body text NOT NULL);
        ALTER TABLE apps ADD COLUMN note text;
        """
    static let contract = """
        \(MigrationFile.breakingMarker)
        ALTER TABLE apps DROP COLUMN note;
        """

    let directory: String

    /// This build's migrations plus `extra` (file name to SQL).
    init(_ extra: [String: String]) throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("aasa-next-release-\(UUID().uuidString)")
            .path
        try FileManager.default.copyItem(atPath: TestDatabase.migrationsDirectory, toPath: directory)
        for (name, sql) in extra {
            try sql.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
    }

    /// Applies this release's pending migrations, as its migration Job does: `aasad migrate`.
    func migrate(_ url: DatabaseURL) async throws -> String {
        let result = try await OneShotAasad.run(["migrate"], on: url, migrations: directory)
        let output = String(decoding: result.out + result.err, as: UTF8.self)
        guard result.status == 0 else { throw MigrateFailed(description: output) }
        return output
    }

    struct MigrateFailed: Error, CustomStringConvertible {
        var description: String
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}
