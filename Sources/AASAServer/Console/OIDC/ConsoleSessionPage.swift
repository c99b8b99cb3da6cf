import AASAKernel
import AASAModel
import AASAStore
import Foundation
import Logging

/// `/console/session`: who is signed in, and the teams a provider sign-in lets them act for, with a
/// form to switch to each.
enum ConsoleSessionPage {
    static func render(session id: String, principal: Principal, sessions: ConsoleSessionService, logger: Logger)
        async throws -> ConsolePage
    {
        guard let (person, tokens) = try await sessions.person(session: id, logger: logger) else {
            return ConsolePage(
                "session", title: "Your session", ["person": principal.auditName, "teams": [[String: Any]]()])
        }
        let formatter = ISO8601DateFormatter()
        let teams: [[String: Any]] = tokens.map { token in
            [
                "team": token.teamName ?? "the organisation (admin)",
                "access": token.scopes.map(\.rawValue).sorted().joined(separator: ", "),
                "until": token.expiresAt.map { formatter.string(from: $0) } ?? "",
                "token": token.id.uuidString.lowercased(), "current": token.id == principal.tokenID,
            ]
        }
        return ConsolePage("session", title: "Your session", ["person": person.person, "teams": teams])
    }
}
