import AASAStore

/// Whether a principal may change an app, asked before its request body is read (issue 49): a
/// body sent to another team's app, or by a read token, costs nothing to refuse. The change asks
/// again in its lock; this is the same answer given early, never a weaker one.
package enum AppWriteAccess {
    /// 404 when the principal may not see the app (its existence is not revealed), 403 when it
    /// may see but not change it.
    package static func check(_ appID: String, principal: Principal, work: RequestWork) async throws {
        if principal.isAdmin { return }
        _ = try await work.read { try await Lookup.visibleApp(appID, principal, session: $0) }
        guard principal.canWrite else { throw ServiceError.forbidden("a read token cannot change an app") }
    }
}
