import AASAKernel
import Foundation

/// STS `AssumeRoleWithWebIdentity`: the job's or pod's OIDC token (a file the platform rotates)
/// exchanged for temporary AWS keys. The call itself is unsigned: the token is the credential.
package enum WebIdentity {
    package static func assumeRole(
        tokenFile: String, roleARN: String, sessionName: String, endpoint: String, http: ObjectStoreHTTP
    ) async throws -> AWSKeys {
        guard let data = FileManager.default.contents(atPath: tokenFile), !data.isEmpty else {
            throw CredentialSets.Failure(description: "the web identity token file \(tokenFile) cannot be read")
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let form = [
            ("Action", "AssumeRoleWithWebIdentity"), ("Version", "2011-06-15"), ("RoleArn", roleARN),
            ("RoleSessionName", sessionName), ("WebIdentityToken", token), ("DurationSeconds", "3600"),
        ].map { SigV4.encode($0.0, keepSlash: false) + "=" + SigV4.encode($0.1, keepSlash: false) }
            .joined(separator: "&")
        let url = endpoint.hasSuffix("/") ? endpoint : endpoint + "/"
        let response = try await http.send(
            method: "POST", url: url, headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array(form.utf8))
        guard response.status == 200, let id = XMLText.first("AccessKeyId", in: response.body),
            let secret = XMLText.first("SecretAccessKey", in: response.body)
        else {
            throw CredentialSets.Failure(
                description: "STS AssumeRoleWithWebIdentity for \(roleARN) failed: \(response.problem)")
        }
        let expiration = XMLText.first("Expiration", in: response.body).flatMap {
            ISO8601DateFormatter().date(
                from: $0.replacingOccurrences(of: #"\.\d+"#, with: "", options: .regularExpression))
        }
        return AWSKeys(
            accessKeyID: id, secretAccessKey: secret, sessionToken: XMLText.first("SessionToken", in: response.body),
            expiration: expiration ?? Date().addingTimeInterval(900))
    }
}
