import AASATestSupport
import Foundation
import HTTPTypes
import Testing
import Yams

@testable import AASAServer

/// Issue 54: the Kubernetes manifests say only what aasad does. Each overlay as `kubectl kustomize`
/// renders it (scripts/check-deploy validates the same output with the real tools): the probes ask
/// paths aasad answers, every variable set for aasad is one it reads and the README documents, the
/// served hosts route exactly the files aasad serves, and the PrometheusRule is the rules file.
@Suite struct DeployManifestTests {
    static let overlays = ["external-postgres", "cloudnative-pg", "dev"]

    /// The rendered objects of one overlay.
    static func render(_ overlay: String) throws -> [[String: Any]] {
        let kubectl =
            ["/usr/bin/kubectl", "/usr/local/bin/kubectl"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let path = try #require(kubectl, "kubectl renders the overlays (Debian's kubectl, or /usr/local/bin)")
        let result = try Spawn.run(
            path, ["kustomize", TestDatabase.repositoryRoot + "/deploy/kubernetes/overlays/" + overlay],
            environment: ProcessInfo.processInfo.environment)
        try #require(result.status == 0, "kubectl kustomize \(overlay): \(String(decoding: result.err, as: UTF8.self))")
        return try Yams.load_all(yaml: String(decoding: result.out, as: UTF8.self)).compactMap { $0 as? [String: Any] }
    }

    /// aasad's containers (the server and the migration Job), whatever the overlay wraps them in.
    static func aasadContainers(_ objects: [[String: Any]]) -> [[String: Any]] {
        objects.filter { ["Deployment", "Job"].contains($0["kind"] as? String) }.flatMap { object -> [[String: Any]] in
            let template = (object["spec"] as? [String: Any])?["template"] as? [String: Any]
            let containers = (template?["spec"] as? [String: Any])?["containers"] as? [[String: Any]] ?? []
            return containers.filter { ($0["image"] as? String)?.contains("aasad") == true }
        }
    }

    @Test(arguments: overlays) func theProbesAskPathsAasadAnswers(_ overlay: String) async throws {
        let containers = Self.aasadContainers(try Self.render(overlay))
        var paths = Set<String>()
        for container in containers {
            for probe in ["startupProbe", "livenessProbe", "readinessProbe"] {
                if let get = (container[probe] as? [String: Any])?["httpGet"] as? [String: Any],
                    let path = get["path"] as? String
                {
                    paths.insert(path)
                }
            }
        }
        #expect(paths == ["/health/live", "/health/ready"], "\(overlay): \(paths)")
        let asked = paths.sorted()
        try await TestWorld.run { w in
            for path in asked {
                // Answered by the health handlers: liveness is 200 while the process runs; readiness
                // is 200, or 503 while its database check misses its short deadline (as on a loaded
                // CI machine), never 404.
                let reply = try await w.call(.get, path)
                let expected: Set<Int> = path == "/health/live" ? [200] : [200, 503]
                #expect(expected.contains(reply.status), "\(overlay): GET \(path) → \(reply.status)")
                #expect(["ok", "unavailable"].contains(reply.object["status"] as? String), "\(overlay): \(reply.text)")
            }
        }
    }

    /// The names in the first column pair of README.md's configuration table.
    static func documentedVariables() throws -> Set<String> {
        let readme = try String(contentsOfFile: TestDatabase.repositoryRoot + "/README.md", encoding: .utf8)
        let section = try #require(readme.range(of: "## aasad: configuration"))
        let rest = readme[section.upperBound...]
        let table = rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
        var names = Set<String>()
        for line in table.split(separator: "\n") where line.hasPrefix("|") {
            let columns = line.split(separator: "|", omittingEmptySubsequences: false)
            guard columns.count > 2 else { continue }
            for match in columns[2].matches(of: /`([A-Z][A-Z0-9_]+)/) { names.insert(String(match.1)) }
        }
        return names
    }

    /// Every string literal of aasad's sources that looks like a variable name.
    static func variablesTheCodeReads() throws -> Set<String> {
        var names = Set<String>()
        let root = TestDatabase.repositoryRoot + "/Sources"
        let files = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: root + "/" + file, encoding: .utf8)
            for match in text.matches(of: /"([A-Z][A-Z0-9_]+)"/) { names.insert(String(match.1)) }
        }
        return names
    }

    @Test(arguments: overlays) func everyVariableSetIsOneAasadReadsAndTheReadmeDocuments(_ overlay: String) throws {
        let objects = try Self.render(overlay)
        let configMaps = Dictionary(
            objects.filter { $0["kind"] as? String == "ConfigMap" }.compactMap { object -> (String, [String])? in
                guard let name = (object["metadata"] as? [String: Any])?["name"] as? String else { return nil }
                return (name, Array((object["data"] as? [String: Any] ?? [:]).keys))
            }, uniquingKeysWith: { $1 })
        var set = Set<String>()
        for container in Self.aasadContainers(objects) {
            for variable in container["env"] as? [[String: Any]] ?? [] {
                if let name = variable["name"] as? String { set.insert(name) }
            }
            for source in container["envFrom"] as? [[String: Any]] ?? [] {
                let name = try #require((source["configMapRef"] as? [String: Any])?["name"] as? String)
                let keys = try #require(configMaps[name], "\(overlay): the ConfigMap \(name) is rendered")
                set.formUnion(keys)
            }
        }
        // DATABASE_URL, or libpq's variables from the operator's Secret (overlays/cloudnative-pg).
        #expect(set.contains("DATABASE_URL") || set.isSuperset(of: ["PGHOST", "PGUSER", "PGPASSWORD"]), "\(overlay)")
        let documented = try Self.documentedVariables()
        let read = try Self.variablesTheCodeReads()
        #expect(
            set.subtracting(documented).isEmpty, "\(overlay): not in README's table: \(set.subtracting(documented))")
        #expect(set.subtracting(read).isEmpty, "\(overlay): never read by aasad: \(set.subtracting(read))")
    }

    /// And through a Service that keeps a replica which is not ready (its database unreachable)
    /// while it listens: the files are answered from memory.
    @Test(arguments: overlays) func theServedHostsRouteExactlyTheFilesAasadServes(_ overlay: String) throws {
        let objects = try Self.render(overlay)
        let services = Dictionary(
            objects.filter { $0["kind"] as? String == "Service" }.compactMap { object -> (String, [String: Any])? in
                guard let name = (object["metadata"] as? [String: Any])?["name"] as? String else { return nil }
                return (name, object["spec"] as? [String: Any] ?? [:])
            }, uniquingKeysWith: { $1 })
        let ingresses = objects.filter { $0["kind"] as? String == "Ingress" }
        #expect(ingresses.count == 1)
        var servedHosts = 0
        for ingress in ingresses {
            let rules = (ingress["spec"] as? [String: Any])?["rules"] as? [[String: Any]] ?? []
            for rule in rules {
                let entries = (rule["http"] as? [String: Any])?["paths"] as? [[String: Any]] ?? []
                let paths = entries.compactMap { $0["path"] as? String }
                // The API's and the console's host: its two prefixes only, never /metrics or /health.
                let backends = Set(entries.compactMap { Self.backendService($0) })
                if backends == ["aasad"] {
                    #expect(Set(paths) == ["/v1", "/console"], "\(overlay): the API host routes \(paths)")
                    continue
                }
                for entry in entries {
                    let backend = (entry["backend"] as? [String: Any])?["service"] as? [String: Any]
                    let name = backend?["name"] as? String ?? "?"
                    #expect(
                        services[name]?["publishNotReadyAddresses"] as? Bool == true,
                        "\(overlay): \(rule["host"] ?? "?") \(entry["path"] ?? "?") goes to \(name)")
                }
                servedHosts += 1
                #expect(
                    Set(paths) == Set(WellKnownMiddleware.paths), "\(overlay): \(rule["host"] ?? "?") routes \(paths)")
            }
        }
        #expect(servedHosts > 0)
    }

    static func backendService(_ entry: [String: Any]) -> String? {
        ((entry["backend"] as? [String: Any])?["service"] as? [String: Any])?["name"] as? String
    }

    /// The overlays for clusters with the Prometheus Operator include the monitoring component;
    /// dev renders without its CRDs, for a bare kind or minikube.
    static let monitored = ["external-postgres", "cloudnative-pg"]

    @Test func devNeedsNoOperatorCRDsButTheDatabaseItBrings() throws {
        let groups = Set(
            try Self.render("dev").compactMap { ($0["apiVersion"] as? String)?.split(separator: "/").first }
                .map(String.init))
        #expect(!groups.contains("monitoring.coreos.com") && !groups.contains("postgresql.cnpg.io"), "\(groups)")
    }

    @Test func thePrometheusRuleIsTheRulesFile() throws {
        let rules = try #require(
            try Yams.load(
                yaml: String(
                    contentsOfFile: TestDatabase.repositoryRoot + "/deploy/prometheus/aasad-rules.yml", encoding: .utf8)
            )
                as? [String: Any])
        for overlay in Self.monitored {
            let rule = try #require(try Self.render(overlay).first { $0["kind"] as? String == "PrometheusRule" })
            let groups = (rule["spec"] as? [String: Any])?["groups"]
            #expect(try Self.canonical(groups) == Self.canonical(rules["groups"]), "\(overlay): the rules drifted")
        }
    }

    /// JSON with sorted keys: one spelling for equal YAML values.
    static func canonical(_ value: Any?) throws -> String {
        let data = try JSONSerialization.data(
            withJSONObject: value ?? NSNull(), options: [.sortedKeys, .fragmentsAllowed])
        return String(decoding: data, as: UTF8.self)
    }
}
