import AASAModel
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// `aasactl plan --comment`: the plan as one comment on the pull request (GitHub) or merge
/// request (GitLab), found again by its hidden marker and edited on later runs rather than added.
///
/// - GitHub: `GITHUB_API_URL`, `GITHUB_REPOSITORY`, the pull request's number from the event at
///   `GITHUB_EVENT_PATH`, and `GITHUB_TOKEN` (the job's own, with `pull-requests: write`).
/// - GitLab: `CI_API_V4_URL`, `CI_PROJECT_ID`, `CI_MERGE_REQUEST_IID`, and a token with the `api`
///   scope in `GITLAB_TOKEN` (or the variable `--comment-token-env` names).
struct PlanComment {
    enum Forge { case github, gitlab }

    let forge: Forge
    let threadURL: String
    let editURL: @Sendable (Int) -> String
    let editMethod: HTTPMethod
    let auth: (String, String)

    static func fromEnvironment(_ env: [String: String], tokenVariable: String?) throws -> PlanComment {
        if let repository = env["GITHUB_REPOSITORY"], env["GITHUB_EVENT_PATH"] != nil || env["GITHUB_ACTIONS"] != nil {
            let api = (env["GITHUB_API_URL"] ?? "https://api.github.com").trimmingCharacters(in: ["/"])
            guard let path = env["GITHUB_EVENT_PATH"], let data = FileManager.default.contents(atPath: path),
                let event = (try? JSONParser.parse([UInt8](data)).value)?.objectValue,
                let number = event["pull_request"]?.objectValue?["number"]?.stringValue
                    ?? event["pull_request"]?.objectValue?["number"].map({ JSONWriter().string($0) })
                    ?? event["number"].map({ JSONWriter().string($0) })
            else { throw CLIFailure("--comment: this GitHub event is not a pull request's (GITHUB_EVENT_PATH)") }
            guard let token = env[tokenVariable ?? "GITHUB_TOKEN"], !token.isEmpty else {
                throw CLIFailure("--comment: set GITHUB_TOKEN (the job's token, with pull-requests: write)")
            }
            return PlanComment(
                forge: .github, threadURL: "\(api)/repos/\(repository)/issues/\(number)/comments",
                editURL: { "\(api)/repos/\(repository)/issues/comments/\($0)" }, editMethod: .PATCH,
                auth: ("Authorization", "Bearer \(token)"))
        }
        if let api = env["CI_API_V4_URL"], let project = env["CI_PROJECT_ID"] {
            guard let iid = env["CI_MERGE_REQUEST_IID"] else {
                throw CLIFailure("--comment: this GitLab pipeline is not a merge request's (CI_MERGE_REQUEST_IID)")
            }
            guard let token = env[tokenVariable ?? "GITLAB_TOKEN"], !token.isEmpty else {
                throw CLIFailure(
                    "--comment: set GITLAB_TOKEN (a token with the api scope), or name it --comment-token-env")
            }
            let base = "\(api.trimmingCharacters(in: ["/"]))/projects/\(project)/merge_requests/\(iid)/notes"
            return PlanComment(
                forge: .gitlab, threadURL: base, editURL: { "\(base)/\($0)" }, editMethod: .PUT,
                auth: ("PRIVATE-TOKEN", token))
        }
        throw CLIFailure("--comment: neither GitHub Actions' nor GitLab CI's variables are set")
    }

    /// Posts `body`, or edits the comment that carries `marker`. Returns the comment's ID.
    @discardableResult
    func post(_ body: String, marker: String) async throws -> Int {
        let existing = try await send(.GET, threadURL + "?per_page=100", body: nil).arrayValue ?? []
        let mine = existing.first { ($0.objectValue?["body"]?.stringValue ?? "").contains(marker) }
        if let id = mine?.objectValue?["id"].flatMap({ Int(JSONWriter().string($0)) }) {
            _ = try await send(editMethod, editURL(id), body: body)
            return id
        }
        let created = try await send(.POST, threadURL, body: body)
        return created.objectValue?["id"].flatMap { Int(JSONWriter().string($0)) } ?? 0
    }

    private func send(_ method: HTTPMethod, _ url: String, body: String?) async throws -> JSONValue {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: auth.0, value: auth.1)
        request.headers.add(
            name: "Accept", value: forge == .github ? "application/vnd.github+json" : "application/json")
        request.headers.add(name: "User-Agent", value: "aasactl")
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: JSONWriter().bytes(.object(["body": .string(body)]))))
        }
        let response: HTTPClientResponse
        do { response = try await CLIHTTP.client.execute(request, timeout: .seconds(30)) } catch {
            throw CLIFailure("--comment: cannot reach \(url): \(APIClient.describe(error))")
        }
        let bytes = Array((try await response.body.collect(upTo: 16 << 20)).readableBytesView)
        guard (200..<300).contains(Int(response.status.code)) else {
            throw CLIFailure("--comment: \(method.rawValue) \(url) answered HTTP \(response.status.code)")
        }
        return (try? JSONParser.parse(bytes).value) ?? .null
    }
}
