/// Our readings of behaviour that no recorded `swcutil` run shows (`[unverified]` in
/// ../shared/aasa-spec.md). Each is named here, once, so it can change in one place when Apple's
/// behaviour is recorded; the validator warns where a document depends on one.
public enum Readings {
    /// An entry with both keys: iOS 13+ uses `appIDs` alone, even when it is empty.
    public static let appIDsWinOverAppID = true

    /// `"?"` dictionary item names compare exactly, even under `caseSensitive: false`
    /// (only values fold).
    public static let queryItemNamesFoldCase = false

    /// Legacy `paths` follow the same leading/trailing-slash rules as `"/"` components.
    public static let legacyPathsNormaliseSlashes = true

    /// `percentEncoded: false` on a component whose URL part does not decode (a stray `%`, or bytes
    /// that are not UTF-8): the part is compared as written.
    public static let undecodableComponentComparedAsWritten = true

    /// `aasactl decide` with an empty domain skips the host check. An API choice of the public
    /// conformance corpus (`host/empty-domain-skips-the-check`), not an Apple behaviour.
    public static let emptyDomainSkipsHostCheck = true
}
