/// The Public Suffix List's algorithm (https://publicsuffix.org/list/), over the copy in
/// `PublicSuffixData.swift`: the longest matching rule wins, an exception rule (`!`) beats a
/// wildcard (`*`), and a host no rule names has the default rule `*` (its last label is the
/// suffix). Browsers count WebAuthn related origins by the label just left of the suffix, from
/// both sections of the list (a `github.io` site is a label of its own, as in Chromium).
public struct PublicSuffixList: Sendable {
    private let plain: Set<String>
    private let wildcards: Set<String>
    private let exceptions: Set<String>

    /// The list built into this binary.
    public static let shared = PublicSuffixList(rules: rules)

    init(rules text: String) {
        var plain = Set<String>()
        var wildcards = Set<String>()
        var exceptions = Set<String>()
        for line in text.split(separator: "\n") {
            let rule = line.drop(while: { $0 == " " })
            if rule.hasPrefix("!") {
                exceptions.insert(String(rule.dropFirst()))
            } else if rule.hasPrefix("*.") {
                wildcards.insert(String(rule.dropFirst(2)))
            } else if !rule.isEmpty {
                plain.insert(String(rule))
            }
        }
        (self.plain, self.wildcards, self.exceptions) = (plain, wildcards, exceptions)
    }

    /// The registrable domain's parts of an ASCII, lower-case host: the public suffix, and the one
    /// label left of it. Nil when the host is itself a public suffix (`com`, `github.io`), which no
    /// site owns.
    public func registrable(_ host: String) -> (label: String, suffix: String)? {
        let labels = host.split(separator: ".").map(String.init)
        guard labels.count >= 2 else { return nil }
        var suffixCount = 1  // the default rule `*`
        for start in 0..<labels.count {
            let candidate = labels[start...].joined(separator: ".")
            let count = labels.count - start
            if exceptions.contains(candidate) {
                // An exception's suffix is the rule minus its leftmost label, and it beats every other rule.
                suffixCount = count - 1
                break
            }
            if plain.contains(candidate) { suffixCount = max(suffixCount, count) }
            if start + 1 < labels.count, wildcards.contains(labels[(start + 1)...].joined(separator: ".")) {
                suffixCount = max(suffixCount, count)
            }
        }
        guard suffixCount < labels.count else { return nil }
        let labelIndex = labels.count - suffixCount - 1
        return (labels[labelIndex], labels[(labelIndex + 1)...].joined(separator: "."))
    }
}
