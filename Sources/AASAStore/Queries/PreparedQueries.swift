import Foundation
import PostgresNIO

/// The statements every request runs, prepared once per connection (PostgresNIO keeps them per
/// connection and prepares on first use): a token's authentication, and a team's read path.
/// Each is the same SQL as its unprepared twin in the query files, and decodes to the same row.
enum Prepared {
    struct TokenByID: SingleParameterStatement {
        static let sql = """
            SELECT t.id, t.team_id, teams.name, t.name, t.scopes, t.secret_hash, t.created_at, t.expires_at, \
            t.revoked_at, t.last_used_at
            FROM tokens t LEFT JOIN teams ON teams.id = t.team_id WHERE t.id = $1
            """
        typealias Row = DBSession.TokenRow
        var parameter: UUID
    }

    struct TeamByName: SingleParameterStatement {
        static let sql =
            "SELECT id, name, display_name, apple_team_ids, created_at, updated_at, version FROM teams WHERE name = $1"
        typealias Row = DBSession.TeamRow
        var parameter: String
    }

    struct AppsOfTeam: SingleParameterStatement {
        static let sql = """
            SELECT a.id, a.app_id, a.team_id, teams.name, a.services, a.created_at, a.updated_at, a.version, \
            a.platform, a.fingerprints,
                   (SELECT s.app_id FROM apps s WHERE s.id = a.rules_from), a.key_labels::text
            FROM apps a JOIN teams ON teams.id = a.team_id WHERE a.team_id = $1 ORDER BY a.app_id
            """
        typealias Row = DBSession.AppRow
        var parameter: Int64
    }
}

/// A prepared statement with one `$1`, whose rows decode as `Row`.
protocol SingleParameterStatement: PostgresPreparedStatement {
    associatedtype Parameter: PostgresEncodable & Sendable
    var parameter: Parameter { get }
}

extension SingleParameterStatement {
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings()
        try bindings.append(parameter)
        return bindings
    }
}

extension Prepared.TokenByID { func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) } }
extension Prepared.TeamByName { func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) } }
extension Prepared.AppsOfTeam { func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) } }

extension DBSession {
    func execute<Statement: PostgresPreparedStatement & Sendable>(_ statement: Statement) async throws
        -> [Statement.Row]
    where Statement.Row: Sendable {
        let connection = connection
        let logger = logger
        return try await StatementDeadline.run(on: connection, deadline: deadline) {
            var rows: [Statement.Row] = []
            for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
            return rows
        }
    }
}
