import AASAStore

extension ObjectPublishing {
    /// What is wrong with a bucket's objects against the current revisions, read back with HEAD:
    /// nil when every object is there as written. An object deleted, replaced or re-copied without
    /// its content type in the bucket, behind aasad's back, is drift.
    package func drift(_ spec: TargetSpec, domain: DomainRecord, files: [File]) async -> String? {
        let bucket: S3Bucket
        do {
            bucket = S3Bucket(
                spec: spec, keys: try await credentials.awsKeys(spec.credentials ?? "", region: spec.region ?? ""),
                http: http)
        } catch {
            return "cannot be read: \(error)"
        }
        var objects = files.map { (spec.key($0.file), $0.revision.bytes) }
        if domain.legacyRootPath, let aasa = files.first(where: { $0.file == .aasa }) {
            objects.append((spec.legacyKey, aasa.revision.bytes))
        }
        var found: [String] = []
        for (key, bytes) in objects {
            do {
                guard let head = try await bucket.head(key: key) else {
                    found.append("\(key) is missing")
                    continue
                }
                let differences = S3Bucket.differences(head, bytes: bytes)
                if !differences.isEmpty { found.append("\(key): " + differences.joined(separator: "; ")) }
            } catch {
                found.append("\(key) cannot be read: \(error)")
            }
        }
        return found.isEmpty ? nil : found.joined(separator: "; ")
    }
}
