import Crypto
import Foundation
import Logging
import PostgresNIO

/// One `migrations/NNNN_name.sql` file.
public struct MigrationFile: Sendable, Equatable {
    public var version: Int
    public var name: String
    public var sql: String
    /// SHA-256 of the file's bytes, hex: an applied file that was edited no longer matches.
    public var checksum: String
    /// Whether the release before this file's can no longer run once it is applied: its first line
    /// is `-- aasa: breaks-older-releases` (a contract step: a drop, rename or retype of what that
    /// release reads). Every other file is an expand step, and the previous release keeps running.
    public var breaksOlderReleases: Bool

    /// The first line that marks a file as one the previous release cannot run on.
    public static let breakingMarker = "-- aasa: breaks-older-releases"

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = Hex.sha256(sql.utf8)
        let firstLine = sql.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        self.breaksOlderReleases = firstLine.trimmingCharacters(in: .whitespaces) == Self.breakingMarker
    }

    /// Reads every `NNNN_name.sql` of `directory`, in version order. Two files with one number,
    /// or a `.sql` file that does not follow the pattern, is an error: order must be unambiguous.
    public static func load(from directory: String) throws -> [MigrationFile] {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".sql") }
        var files: [MigrationFile] = []
        for fileName in names {
            let stem = fileName.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"), let version = Int(stem[..<underscore]),
                stem[..<underscore].count == 4
            else {
                throw MigrationError.badFileName(fileName)
            }
            let sql = try String(contentsOfFile: directory + "/" + fileName, encoding: .utf8)
            files.append(
                MigrationFile(version: version, name: String(stem[stem.index(after: underscore)...]), sql: sql))
        }
        files.sort { $0.version < $1.version }
        for (a, b) in zip(files, files.dropFirst()) where a.version == b.version {
            throw MigrationError.duplicateVersion(a.version)
        }
        return files
    }
}

public enum MigrationError: Error, CustomStringConvertible, Equatable {
    case badFileName(String)
    case duplicateVersion(Int)
    case edited(version: Int, name: String)
    /// A newer release's migration marked `breaks-older-releases`: this build cannot run on it.
    case unknownApplied(version: Int, name: String)
    case pending([Int])

    public var description: String {
        switch self {
        case .badFileName(let name): "migration file \(name) is not named NNNN_name.sql"
        case .duplicateVersion(let v): "two migration files have the number \(v)"
        case .edited(let v, let name):
            """
            migration \(v)_\(name) was applied, and the file has been edited since: migrations are append-only; \
            restore the file and add a new one
            """
        case .unknownApplied(let v, let name):
            """
            the database has migration \(String(format: "%04d", v))_\(name) applied, which this build does not know \
            and which is marked \
            breaks-older-releases: a newer release contracted the schema, so this one cannot run on it; run that \
            release or a later one (or restore the backup taken before it)
            """
        case .pending(let versions):
            """
            the database is behind: migrations \(versions.map(String.init).joined(separator: ", ")) are not \
            applied; run `aasad migrate`
            """
        }
    }
}

/// Applies migration files in order, each in its own transaction, under an advisory lock so two
/// replicas never migrate at once; and tells the server whether the database matches its files.
public struct Migrator: Sendable {
    public let files: [MigrationFile]

    public init(files: [MigrationFile]) {
        self.files = files
    }

    /// A migration a newer release applied that this build has no file for, and that it was told
    /// it can run on (not marked `breaks-older-releases`).
    public struct NewerMigration: Sendable, Equatable, CustomStringConvertible {
        public var version: Int
        public var name: String
        public var description: String { String(format: "%04d", version) + "_" + name }

        public init(version: Int, name: String) {
            self.version = version
            self.name = name
        }
    }

    public struct Status: Sendable, Equatable {
        public var applied: [Int]
        public var pending: [Int]
        public var problems: [MigrationError]
        /// Applied by a newer release, compatible with this one: logged, never refused.
        public var newerCompatible: [NewerMigration] = []
        /// This build can serve the database: nothing pending, nothing edited, nothing newer that
        /// breaks it.
        public var isCurrent: Bool { refusal == nil }
        /// Why this build cannot serve the database, the first reason first (an edited or breaking
        /// file before one not yet applied); nil when it can. What `serve` refuses to start with,
        /// and what readiness answers 503 with.
        public var refusal: MigrationError? {
            problems.first ?? (pending.isEmpty ? nil : .pending(pending))
        }
    }

    /// Compares the files with what the database has applied, changing nothing.
    public func status(_ session: DBSession) async throws -> Status {
        let exists =
            try await session.first("SELECT to_regclass('schema_migrations') IS NOT NULL", as: Bool.self) ?? false
        guard exists else { return Status(applied: [], pending: files.map(\.version), problems: []) }
        // `breaks_older` through to_jsonb: a database last migrated by a release before the column
        // existed has no such column, and every file it applied was compatible.
        let rows = try await session.all(
            """
            SELECT version, name, checksum, coalesce((to_jsonb(m) ->> 'breaks_older')::boolean, false)
            FROM schema_migrations m ORDER BY version
            """,
            as: (Int, String, String, Bool).self)
        var problems: [MigrationError] = []
        var newer: [NewerMigration] = []
        let byVersion = Dictionary(uniqueKeysWithValues: files.map { ($0.version, $0) })
        for (version, name, checksum, breaksOlder) in rows {
            guard let file = byVersion[version] else {
                if breaksOlder {
                    problems.append(.unknownApplied(version: version, name: name))
                } else {
                    newer.append(NewerMigration(version: version, name: name))
                }
                continue
            }
            if file.checksum != checksum { problems.append(.edited(version: version, name: name)) }
        }
        let applied = Set(rows.map(\.0))
        return Status(
            applied: rows.map(\.0), pending: files.map(\.version).filter { !applied.contains($0) },
            problems: problems, newerCompatible: newer)
    }

    /// Throws unless the database has applied every one of these files, unedited, and nothing
    /// newer that breaks this build; returns the newer compatible migrations it found.
    @discardableResult
    public func verify(_ session: DBSession) async throws -> [NewerMigration] {
        let status = try await status(session)
        if let refusal = status.refusal { throw refusal }
        return status.newerCompatible
    }

    /// Applies every pending file; returns the versions applied. Refuses if an applied file changed.
    @discardableResult
    public func migrate(_ given: DBSession) async throws -> [Int] {
        // No statement deadline: an index built on a large table may rightly take minutes.
        let session = DBSession(connection: given.connection, logger: given.logger, deadline: nil)
        return try await session.holding(.migrations) {
            try await ensureTable(session)
            let status = try await status(session)
            if let problem = status.problems.first { throw problem }
            var applied: [Int] = []
            for file in files where status.pending.contains(file.version) {
                session.logger.info(
                    "applying migration", metadata: ["version": "\(file.version)", "name": "\(file.name)"])
                try await session.inTransaction {
                    // A statement that waits for a table's lock behind a long transaction would hold
                    // every reader of that table behind it for as long: give up after 10 s instead
                    // (the transaction rolls back whole; the migration Job or the operator runs it
                    // again). scripts/lint-migrations relies on this for squawk's require-lock-timeout.
                    try await session.run("SET LOCAL lock_timeout = '10s'")
                    // The file's text is ours (from the migrations directory), not a client's.
                    for statement in SQLStatements.split(file.sql) {
                        try await session.run(PostgresQuery(unsafeSQL: statement))
                    }
                    try await session.run(
                        """
                        INSERT INTO schema_migrations (version, name, checksum, breaks_older) VALUES \
                        (\(file.version), \(file.name), \(file.checksum), \(file.breaksOlderReleases))
                        """)
                }
                applied.append(file.version)
            }
            return applied
        }
    }

    private func ensureTable(_ session: DBSession) async throws {
        try await session.run(
            """
            CREATE TABLE IF NOT EXISTS schema_migrations (
                version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now())
            """)
        // Which applied files an older release cannot run on: recorded as each is applied, since an
        // older build has no file to read the marker from. A release before this column ignores it.
        // Added only when missing: an ALTER would take the table's exclusive lock on every run.
        let hasColumn =
            try await session.first(
                """
                SELECT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = 'schema_migrations'::regclass \
                AND attname = 'breaks_older' AND NOT attisdropped)
                """, as: Bool.self) ?? false
        if !hasColumn {
            try await session.run(
                "ALTER TABLE schema_migrations ADD COLUMN breaks_older boolean NOT NULL DEFAULT false")
        }
    }
}
