import AASAKernel
import AASAModel
import AASAStore

/// What keeps environments from leaking into each other (issue 25), on every change, publish and
/// rollback of a domain:
/// - a domain's files name only builds of the domain's environment: an app that declares builds
///   has one for every environment whose files name it (`build-missing`), and no file names
///   another environment's build (`foreign-build`, which only old bytes can do: a rollback);
/// - on the production environment (the last in promotion order), an Android build lists no
///   fingerprint labelled `debug` (`debug-key`), and lists a `play-signing` one unless its team
///   acknowledged its absence (`play-signing-missing`).
/// Apps without builds are not concerned: they are named as themselves everywhere, as before.
/// A refusal is 409 naming the app, the build, the domain and the rule; an admin may override it.
package struct EnvironmentIsolationPolicy: DomainPolicy {
    package func check(_ candidate: PolicyCandidate, session: DBSession) async throws {
        let violations: [JSONValue]
        if let document = candidate.document {
            let snapshot = document.snapshot
            // Nothing to judge (and nothing read) unless a named app declares builds.
            guard !snapshot.builds.isEmpty else { return }
            let concerned = document.named.intersection(snapshot.appsWithBuilds)
            guard !concerned.isEmpty else { return }
            let production = try await Self.isProduction(candidate.domain.environment, session: session)
            violations = Self.judge(
                concerned.sorted(), builds: snapshot.builds, domain: candidate.domain, production: production)
        } else {
            violations = try await Self.judgeBytes(candidate, session: session)
        }
        guard violations.isEmpty else {
            throw ServiceError.policy(
                .conflict, slug: "environment-isolation",
                title: "The domain's files would name builds of another environment",
                detail: ServiceError.listed(violations.compactMap { $0.objectValue?["message"]?.stringValue }),
                violations: violations)
        }
    }

    package static func isProduction(_ environment: String, session: DBSession) async throws -> Bool {
        try await session.isProduction(environment: environment)
    }

    /// The rendered files' apps that declare builds, against the domain's environment.
    package static func judge(
        _ apps: [String], builds: [BuildRecord], domain: DomainRecord, production: Bool
    ) -> [JSONValue] {
        var out: [JSONValue] = []
        for appID in apps {
            let own = builds.filter { $0.appID == appID }
            guard let build = own.first(where: { $0.environment == domain.environment }) else {
                out.append(
                    violation(
                        "build-missing", appID: appID, build: nil, domain: domain,
                        """
                        \(appID) has builds for \(own.map(\.environment).joined(separator: ", ")) but none for \
                        \(domain.environment): \(domain.host)'s files would name a build of another environment
                        """))
                continue
            }
            out += buildProblems(build, domain: domain, production: production)
        }
        return out
    }

    /// A production build's signing keys: never a `debug` key, and a `play-signing` key or its
    /// acknowledged absence. (An iOS build has no keys.)
    package static func buildProblems(_ build: BuildRecord, domain: DomainRecord, production: Bool) -> [JSONValue] {
        guard production, !build.fingerprints.isEmpty else { return [] }
        var out: [JSONValue] = []
        for f in build.fingerprints where f.label == LabelledFingerprint.debug {
            out.append(
                violation(
                    "debug-key", appID: build.appID, build: build, domain: domain,
                    """
                    \(build.appID)'s \(build.environment) build \(build.identity) lists the debug key \(f.sha256); \
                    a debug key never reaches a production domain (\(domain.host))
                    """))
        }
        if !build.playSigningAbsent,
            !build.fingerprints.contains(where: { $0.label == LabelledFingerprint.playSigning })
        {
            out.append(
                violation(
                    "play-signing-missing", appID: build.appID, build: build, domain: domain,
                    """
                    \(build.appID)'s \(build.environment) build \(build.identity) lists no play-signing fingerprint \
                    for \(domain.host): add the Play App Signing key, or acknowledge its absence (playSigningAbsent)
                    """))
        }
        return out
    }

    /// A rollback's old bytes: every app ID or package they name, against today's builds.
    package static func judgeBytes(_ candidate: PolicyCandidate, session: DBSession) async throws -> [JSONValue] {
        var names: [String] = []
        var keys: Set<String> = []
        if let assetLinks = candidate.assetLinks, let document = AssetLinksDocument.parse(assetLinks).document {
            for (_, statement) in document.statements {
                if case .androidApp(let package, let fingerprints) = statement.target {
                    names.append(package)
                    keys.formUnion(fingerprints)
                }
            }
        } else if let document = try? AASADocument(json: candidate.bytes) {
            names += (document.applinks?.details ?? []).flatMap(\.effectiveAppIDs)
            for list in [document.webcredentials, document.appclips, document.activitycontinuation] {
                names += list?.apps ?? []
            }
        }
        guard !names.isEmpty else { return [] }
        let domain = candidate.domain
        let byIdentity = try await session.builds(identities: names)
        let byApp = try await session.builds(ofAppIDs: names)
        guard !byIdentity.isEmpty || !byApp.isEmpty else { return [] }
        var out: [JSONValue] = []
        for name in Set(names).sorted() {
            if let build = byIdentity.first(where: { $0.identity == name }), build.environment != domain.environment {
                out.append(
                    violation(
                        "foreign-build", appID: build.appID, build: build, domain: domain,
                        """
                        \(domain.host) (\(domain.environment)) would name \(name), \(build.appID)'s \
                        \(build.environment) build
                        """))
            } else if byIdentity.contains(where: { $0.identity == name }) == false,
                byApp.contains(where: { $0.appID == name })
            {
                out.append(
                    violation(
                        "build-missing", appID: name, build: nil, domain: domain,
                        """
                        \(domain.host) (\(domain.environment)) would name \(name) itself; the app has builds, and \
                        is named on \(domain.environment) only as its \(domain.environment) build
                        """))
            }
        }
        if try await isProduction(domain.environment, session: session) {
            for build in byIdentity + byApp {
                for f in build.fingerprints where f.label == LabelledFingerprint.debug && keys.contains(f.sha256) {
                    out.append(
                        violation(
                            "debug-key", appID: build.appID, build: build, domain: domain,
                            "\(domain.host) would list \(build.appID)'s debug key \(f.sha256) on production"))
                }
            }
        }
        return out
    }

    package static func violation(
        _ rule: String, appID: String, build: BuildRecord?, domain: DomainRecord, _ message: String
    ) -> JSONValue {
        var item: JSONObject = [
            "rule": .string(rule), "appID": .string(appID), "domain": .string(domain.host),
            "environment": .string(domain.environment),
        ]
        if let build { item.append("build", .string(build.identity)) }
        item.append("message", .string(message))
        return .object(item)
    }
}
