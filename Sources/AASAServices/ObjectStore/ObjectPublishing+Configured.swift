import AASAKernel
import AASAOutbound
import AASARules

extension ObjectPublishing {
    /// As aasad is configured: the credential sets of the environment and the file, the probe's
    /// TLS trust for the stores, and the probe's fetcher for the edge.
    package static func configured(credentialsFile: String?, environment: [String: String], fetch: FetchConfig)
        throws -> ObjectPublishing
    {
        let http = ObjectStoreHTTP(caFile: fetch.caFile, resolve: fetch.resolve)
        return ObjectPublishing(
            credentials: try CredentialSets.load(file: credentialsFile, environment: environment, http: http),
            http: http, edge: try OutboundClient(config: fetch))
    }
}
