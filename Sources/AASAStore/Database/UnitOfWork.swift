import PostgresNIO

/// PostgreSQL session advisory locks the service takes, each with its key in one place.
public enum AdvisoryLock: Sendable {
    /// Applying migrations (one replica at a time).
    case migrations
    /// Publishing one domain (serialised across replicas, held until its web roots are written).
    case publishing(domainID: Int64)
    /// Binding Apple Team ID prefixes to teams (exclusive), and registering apps under them
    /// (shared: registrations never wait for each other, only for a binding).
    case appleTeamIDClaims
    /// Assigning web roots to domains (no two domains share one).
    case webRoots
    /// Watching Apple's CDN (one replica at a time).
    case cdnMonitor
    /// Asking Google's Digital Asset Links API (one replica at a time).
    case googleMonitor
    /// Delivering webhooks (one replica at a time).
    case webhooks
    /// Creating a webhook for one owner (a team, or the admins: nil), under its cap.
    case webhookOwner(teamID: Int64?)

    func query(_ function: String) -> PostgresQuery {
        switch self {
        case .migrations:  // one 64-bit key: "aasa" in ASCII
            "SELECT \(unescaped: function)(\(Int64(0x6161_7361)))"
        case .publishing(let id):  // a pair of keys: "aa", then the domain
            "SELECT \(unescaped: function)(\(Int32(0x6161)), \(Int32(truncatingIfNeeded: id)))"
        case .appleTeamIDClaims:
            "SELECT \(unescaped: function)(\(Int64(0x6161_7369)))"
        case .webRoots:
            "SELECT \(unescaped: function)(\(Int64(0x6161_7372)))"
        case .cdnMonitor:
            "SELECT \(unescaped: function)(\(Int64(0x6161_7363)))"
        case .googleMonitor:
            "SELECT \(unescaped: function)(\(Int64(0x6161_6767)))"
        case .webhooks:
            "SELECT \(unescaped: function)(\(Int64(0x6161_7768)))"
        case .webhookOwner(let teamID):  // a pair of keys: "wh", then the team (0: the admins)
            "SELECT \(unescaped: function)(\(Int32(0x7768)), \(Int32(truncatingIfNeeded: teamID ?? 0)))"
        }
    }
}

/// The two ways a unit of work holds PostgreSQL, written once and used by the services, the
/// publisher and the migrator: a transaction, and a session advisory lock.
extension DBSession {
    /// Runs `body` in one transaction on this session's connection: committed if it returns,
    /// rolled back if it throws, and the error passes through unchanged.
    public func inTransaction<Result>(_ body: () async throws -> Result) async throws -> Result {
        try await run("BEGIN")
        do {
            let result = try await body()
            try await run("COMMIT")
            return result
        } catch {
            _ = try? await run("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` in one transaction and, when `rollingBack`, undoes everything it did while still
    /// answering what it returned: a dry run (a publish preview, a promotion's plan) is the change
    /// itself, rolled back.
    public func inTransaction<Result>(rollingBack: Bool, _ body: () async throws -> Result) async throws -> Result {
        guard rollingBack else { return try await inTransaction(body) }
        try await run("BEGIN")
        do {
            let result = try await body()
            try await run("ROLLBACK")
            return result
        } catch {
            _ = try? await run("ROLLBACK")
            throw error
        }
    }

    /// Takes `lock` until the current transaction ends (commit or rollback releases it).
    public func lockUntilCommit(_ lock: AdvisoryLock) async throws {
        try await run(lock.query("pg_advisory_xact_lock"))
    }

    /// Takes `lock` shared until the current transaction ends: any number of holders at once, none
    /// while another transaction holds it exclusively (`lockUntilCommit`).
    public func lockSharedUntilCommit(_ lock: AdvisoryLock) async throws {
        try await run(lock.query("pg_advisory_xact_lock_shared"))
    }

    /// Runs `body` holding `lock`, released on this same connection whether `body` returns or throws
    /// (a session lock outlives transactions, so it must never go back to the pool held).
    public func holding<Result>(_ lock: AdvisoryLock, _ body: () async throws -> Result) async throws -> Result {
        try await run(lock.query("pg_advisory_lock"))
        return try await releasing(lock, body)
    }

    /// `holding`, without waiting: nil (and `body` not run) when another session holds the lock.
    public func holdingIfFree<Result>(_ lock: AdvisoryLock, _ body: () async throws -> Result) async throws -> Result? {
        let taken: Bool? = try await first(lock.query("pg_try_advisory_lock"), as: Bool.self)
        guard taken == true else { return nil }
        return try await releasing(lock, body)
    }

    /// Runs `body` with `lock` held, and releases it whether `body` returns or throws.
    private func releasing<Result>(_ lock: AdvisoryLock, _ body: () async throws -> Result) async throws -> Result {
        do {
            let result = try await body()
            try await run(lock.query("pg_advisory_unlock"))
            return result
        } catch {
            _ = try? await run(lock.query("pg_advisory_unlock"))
            throw error
        }
    }
}
