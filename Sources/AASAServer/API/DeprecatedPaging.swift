import AASAAPI

/// The paging parameters openapi.yaml marks `deprecated: true` (kept for one release beside
/// `cursor`), read through a protocol requirement: a direct read of a deprecated member warns, and
/// the build allows no warning from our code. These conformances are the one place that accepts them.
protocol DeprecatedAfterParameter {
    var after: String? { get }
}

protocol DeprecatedBeforeParameter {
    var before: Int32? { get }
}

extension Operations.ListDomains.Input.Query: DeprecatedAfterParameter {}
extension Operations.ListTeams.Input.Query: DeprecatedAfterParameter {}
extension Operations.ListRevisions.Input.Query: DeprecatedBeforeParameter {}
extension Operations.ListAssetLinksRevisions.Input.Query: DeprecatedBeforeParameter {}

extension DeprecatedAfterParameter {
    var deprecatedAfter: String? { after }
}

extension DeprecatedBeforeParameter {
    var deprecatedBefore: Int32? { before }
}
