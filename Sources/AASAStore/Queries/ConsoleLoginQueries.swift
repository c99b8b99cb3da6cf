import Foundation
import PostgresNIO

/// Sign-ins under way through an OpenID provider as the previous release stored them
/// (`console_oidc_logins`): this release seals them into the browser's cookie instead, and only
/// forgets the rows an older replica left (issue 62).
extension DBSession {
    /// Forgets sign-ins never finished (the janitor's pass).
    public func expireConsoleLogins(maxAge: Duration) async throws {
        let seconds = Double(maxAge.components.seconds)
        try await run(
            "DELETE FROM console_oidc_logins WHERE created_at < now() - make_interval(secs => \(seconds))")
    }
}
