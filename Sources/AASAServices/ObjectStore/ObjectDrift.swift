import AASAKernel
import AASAOutbound
import AASARules
import AASAStore

extension ObjectPublishing {
    /// What is wrong with a bucket's objects against the current revisions, read back with HEAD:
    /// nil when every object is there as written. An object deleted, replaced or re-copied without
    /// its content type in the bucket, behind aasad's back, is drift.
    package func drift(_ spec: TargetSpec, domain: DomainRecord, files: [File]) async -> String? {
        let bucket: S3Bucket
        do {
            bucket = try await self.bucket(spec)
        } catch {
            return "cannot be read: \(error)"
        }
        var found: [String] = []
        for object in objects(spec, domain: domain, files: files) {
            do {
                if let problem = try await mismatch(bucket, key: object.key, bytes: object.bytes) {
                    found.append(problem)
                }
            } catch {
                found.append("\(object.key) cannot be read: \(error)")
            }
        }
        return found.isEmpty ? nil : found.joined(separator: "; ")
    }
}
