import AASAKernel
import AASAModel
import AASAStore

/// The signing keys people get wrong, warned of on the statement that lists them, before a publish
/// (issue 42). None of them changes a byte or blocks a write: the labels are the team's word, and
/// only the team knows whether the key it lists is the one the store signs with.
/// - `A020`: on a production domain, an app whose keys say no `play-signing` and whose release
///   keys are upload keys only (or one unlabelled key). With Play App Signing, Google re-signs the app,
///   the device checks the app signing key, and the link fails with no error anywhere.
/// - `A021`: a fingerprint that is another package's `debug` key (a debug keystore shared, or a
///   placeholder copied from another app).
/// - `A022`: on a production domain, the app's own key labelled `debug`.
/// A build's keys are judged by the environment-isolation policy, which refuses the production
/// cases; only `A021` concerns them here.
package enum AndroidKeyWarnings {
    package static let playSigningMissing = "A020"
    package static let anotherPackagesDebugKey = "A021"
    package static let debugKeyInProduction = "A022"
    package static let codes: Set<String> = [playSigningMissing, anotherPackagesDebugKey, debugKeyInProduction]

    /// `keys` are the statement's fingerprints with their labels (nil: unlabelled); `pointer` the
    /// statement's `sha256_cert_fingerprints`.
    package static func findings(
        package: String, keys: [(sha256: String, label: String?)], isBuild: Bool, facts: AndroidKeyFacts,
        pointer: JSONPointer, team: String, appID: String
    ) -> [Finding] {
        var out: [Finding] = []
        func warn(_ code: String, _ path: JSONPointer, _ message: String) {
            out.append(Finding(code: code, path: path.description, message: message, team: team, appID: appID))
        }
        for (k, key) in keys.enumerated() {
            let others = (facts.debugKeys[key.sha256] ?? []).filter { $0 != package }
            if !others.isEmpty {
                warn(
                    anotherPackagesDebugKey, pointer / k,
                    """
                    \(key.sha256) is \(others.sorted().joined(separator: ", "))'s debug key; \(package) lists it as \
                    its own. A debug keystore shared between apps, or a fingerprint copied from another app?
                    """)
            }
        }
        guard facts.production, !isBuild else { return out }
        for (k, key) in keys.enumerated() where key.label == LabelledFingerprint.debug {
            warn(
                debugKeyInProduction, pointer / k,
                """
                \(package) lists its debug key \(key.sha256) on a production domain; release builds are not \
                signed by it
                """
            )
        }
        // The keys a release build may be signed with (a debug key is not one); one unlabelled key
        // counts as an upload key: that is the key a developer has in hand to copy.
        let release = keys.filter { $0.label != LabelledFingerprint.debug }
        let upload =
            release.count == 1
            ? release[0].label == nil || release[0].label == LabelledFingerprint.upload
            : !release.isEmpty && release.allSatisfy { $0.label == LabelledFingerprint.upload }
        if upload {
            let which = release.count == 1 && release[0].label == nil ? "one unlabelled key" : "its upload key"
            warn(
                playSigningMissing, pointer,
                """
                \(package) lists only \(which) here (\(release.map(\.sha256).joined(separator: ", "))) on a \
                production domain. If Google Play signs the app (Play App Signing), devices check the app signing \
                key and the link fails without an error: add the app signing key from Play Console → App integrity \
                (aasactl apps keys import \(appID) --from-play FILE), or label this key play-signing if it is that one
                """)
        }
        return out
    }
}
