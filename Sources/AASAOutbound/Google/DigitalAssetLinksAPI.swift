import AASAKernel
import Foundation
import Synchronization

/// Google's Digital Asset Links API (`AASA_DAL_BASE_URL`, default
/// `https://digitalassetlinks.googleapis.com/v1/`): `assetlinks.check` and `statements.list`, fetched
/// with the probe's TLS trust, limits and private-address rule, at most `requestsPerSecond`.
package struct DigitalAssetLinksAPI: Sendable {
    package static let defaultBaseURL = "https://digitalassetlinks.googleapis.com/v1/"

    package let fetcher: OutboundClient
    package let baseURL: String
    /// Sent as `key=`; never logged (messages name the method, not the URL).
    package let apiKey: String?
    private let pacer: Pacer

    package init(fetcher: OutboundClient, baseURL: String = defaultBaseURL, apiKey: String?, requestsPerSecond: Double)
    {
        self.fetcher = fetcher
        self.baseURL = baseURL.hasSuffix("/") ? baseURL : baseURL + "/"
        self.apiKey = apiKey
        pacer = Pacer(gap: .milliseconds(Int(1000 / max(requestsPerSecond, 0.001))))
    }

    package enum Failure: Error, CustomStringConvertible, Sendable {
        /// 429: Google asks the whole monitor to wait (`retryAfter`, when it says how long); nothing
        /// is recorded.
        case throttled(String, retryAfter: Duration?)
        /// A 5xx, a timeout or no answer for one site: recorded as that domain's packages' `error`;
        /// the domain backs off alone and the pass goes on (issue 50: one such site stopped the
        /// monitor for every domain).
        case unavailable(String)
        /// Another answer: recorded as the package's `error`.
        case failed(String)

        package var description: String {
            switch self {
            case .throttled(let why, _), .unavailable(let why), .failed(let why): why
            }
        }
    }

    package struct Check: Sendable, Equatable {
        package var linked: Bool
        package var debugString: String?
    }

    /// `assetlinks.check`: whether `site` delegates `handle_all_urls` to the package signed with
    /// this certificate.
    package func check(site: String, package: String, fingerprint: String) async throws -> Check {
        let answer = try await get(
            DigitalAssetLinksAnswers.Check.self, "assetlinks:check",
            [
                ("source.web.site", site), ("relation", "delegate_permission/common.handle_all_urls"),
                ("target.androidApp.packageName", package),
                ("target.androidApp.certificate.sha256Fingerprint", fingerprint),
            ])
        return Check(linked: answer.linked ?? false, debugString: answer.debugString)
    }

    /// `statements.list`: the packages Google reads `handle_all_urls` statements for at `site`,
    /// each with the certificate fingerprints it lists (upper-case, as Google writes them).
    package func statements(site: String) async throws -> [String: Set<String>] {
        let answer = try await get(
            DigitalAssetLinksAnswers.Statements.self, "statements:list",
            [("source.web.site", site), ("relation", "delegate_permission/common.handle_all_urls")])
        var out: [String: Set<String>] = [:]
        for statement in answer.statements ?? [] {
            let app = statement.target?.androidApp
            guard let package = app?.packageName else { continue }
            let fingerprint = app?.certificate?.sha256Fingerprint
            out[package, default: []].formUnion(fingerprint.map { [$0.uppercased()] } ?? [])
        }
        return out
    }

    private func get<Answer: Decodable>(_ type: Answer.Type, _ method: String, _ query: [(String, String)])
        async throws -> Answer
    {
        guard var components = URLComponents(string: baseURL + method) else {
            throw Failure.failed("\(method): the base URL is not usable")
        }
        components.queryItems = (query + (apiKey.map { [("key", $0)] } ?? [])).map {
            URLQueryItem(name: $0.0, value: $0.1)
        }
        // `+` is a space to Google's query parser: encoded so a value keeps it.
        let encoded = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        components.percentEncodedQuery = encoded
        guard let url = components.string else { throw Failure.failed("\(method): the base URL is not usable") }
        await pacer.wait()
        let fetched = await fetcher.fetchConfigured(url)
        guard let status = fetched.status else {
            throw Failure.unavailable("\(method): no answer (\(fetched.failure.map { "\($0)" } ?? "unknown"))")
        }
        let body = Data(fetched.bytes ?? [])
        let refusal = try? JSONDecoder().decode(DigitalAssetLinksAnswers.Refusal.self, from: body)
        let message = refusal?.error?.message.map { ": \($0)" } ?? ""
        if status == 429 {
            let seconds = fetched.header("retry-after").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            throw Failure.throttled(
                "\(method): HTTP 429\(message)", retryAfter: seconds.map { .seconds(min(max($0, 0), 86_400)) })
        }
        if status >= 500 { throw Failure.unavailable("\(method): HTTP \(status)\(message)") }
        guard status == 200 else { throw Failure.failed("\(method): HTTP \(status)\(message)") }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: body) else {
            throw Failure.failed("\(method): HTTP 200, but not the answer Google documents")
        }
        return answer
    }

    /// Spaces requests `gap` apart across every caller in the process (the monitor and
    /// `POST …/google/check` alike), so the configured rate holds.
    private final class Pacer: Sendable {
        let gap: Duration
        private let next = Mutex<ContinuousClock.Instant>(.now)

        init(gap: Duration) { self.gap = gap }

        func wait() async {
            let slot = next.withLock { next -> ContinuousClock.Instant in
                let slot = max(next, .now)
                next = slot + gap
                return slot
            }
            try? await Task.sleep(until: slot, clock: .continuous)
        }
    }
}
