import AASAKernel
import AASAModel

/// Who opens a URL, as a golden URL asks it: iOS's file answers for an iOS app, Android's for an
/// Android app, and an expectation naming no app (`opensNone`) asks both, so "no app" means no
/// app on either platform. On Android several apps may open a URL (the user chooses): the app an
/// expectation names is the opener when it opens the URL, else the first that does.
package struct LinkAnswer: Sendable {
    package let ios: AASAMatcher
    /// Nil where the Android file is not at stake (an AASA rollback leaves it as it is).
    package let android: AndroidMatcher?
    /// The apps the files name by a build's identity (identity → app ID): an answer names the app,
    /// as a golden URL does, whichever build of it the domain's environment lists.
    package var apps: [String: String] = [:]

    package init(ios: AASAMatcher, android: AndroidMatcher?, apps: [String: String] = [:]) {
        self.ios = ios
        self.android = android
        self.apps = apps
    }

    package struct Opener: Sendable {
        package var appID: String?
        /// The deciding iOS rule, when iOS answered.
        package var iosRule: RuleLocation?

        package init(appID: String?, iosRule: RuleLocation? = nil) {
            self.appID = appID
            self.iosRule = iosRule
        }
    }

    /// Nil when the question is about Android and the Android file is not at stake.
    package func opener(url: String, appID: String?, isAndroid: Bool) -> Opener? {
        opener(SplitURL(url), url: url, appID: appID, isAndroid: isAndroid)
    }

    /// The same, with the URL already split for iOS (the expectation cache keeps it so).
    package func opener(_ split: SplitURL, url: String, appID: String?, isAndroid: Bool) -> Opener? {
        if isAndroid {
            guard let android else { return nil }
            return Opener(appID: Self.androidOpener(decisions(android, url), expected: appID))
        }
        let resolution = ios.resolve(split)
        if appID == nil, resolution.appID == nil, let android {
            return Opener(appID: Self.androidOpener(decisions(android, url), expected: nil))
        }
        return Opener(appID: resolution.appID.map { apps[$0] ?? $0 }, iosRule: resolution.rule)
    }

    private func decisions(
        _ android: AndroidMatcher, _ url: String
    ) -> [(packageName: String, decision: AndroidMatcher.Decision, rule: Int?)] {
        let raw = android.decisions(url: url)
        guard !apps.isEmpty else { return raw }
        return raw.map { (apps[$0.packageName] ?? $0.packageName, $0.decision, $0.rule) }
    }

    package static func androidOpener(
        _ decisions: [(packageName: String, decision: AndroidMatcher.Decision, rule: Int?)], expected: String?
    ) -> String? {
        let opening = decisions.filter { $0.decision == .open }.map(\.packageName)
        if let expected, opening.contains(expected) { return expected }
        return opening.first
    }
}
