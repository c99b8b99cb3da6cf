import AASACore
import AASAModel
import AASAStore
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /v1/cli` and `GET /v1/cli/aasactl?os=linux&arch=x86_64|arm64`: the aasactl that matches
/// this aasad, as Concourse and Argo CD serve their CLIs, so a pipeline downloads and verifies it
/// in seconds instead of building it. The binaries (static, `--static-swift-stdlib`) are found in
/// the directory `--cli-dir` / `AASA_CLI_DIR` names, as `aasactl-linux-x86_64` and
/// `aasactl-linux-arm64`; their SHA-256 is computed once, at start. No bearer is needed: a job
/// downloads aasactl before it has a token, and the binary holds no secret.
struct CLIDownloads: Sendable {
    struct Binary: Sendable {
        var os: String
        var arch: String
        var path: String
        var size: Int
        var sha256: String
    }

    static let indexPath = "/v1/cli"
    static let binaryPath = "/v1/cli/aasactl"
    static let architectures = ["x86_64", "arm64"]

    let directory: String?
    let binaries: [Binary]

    /// Reads the directory (nil: none configured) and hashes each binary found.
    init(directory: String?) throws {
        self.directory = directory
        var found: [Binary] = []
        for arch in Self.architectures {
            guard let directory else { break }
            let path = (directory as NSString).appendingPathComponent("aasactl-linux-\(arch)")
            guard let handle = FileHandle(forReadingAtPath: path) else { continue }
            defer { try? handle.close() }
            var hasher = SHA256()
            var size = 0
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                hasher.update(data: chunk)
                size += chunk.count
            }
            let hex = Hex.string(hasher.finalize())
            found.append(Binary(os: "linux", arch: arch, path: path, size: size, sha256: hex))
        }
        binaries = found
    }

    /// `amd64` and `aarch64` as `uname -m` and Go name them.
    static func architecture(_ name: String?) -> String? {
        switch name {
        case "x86_64", "amd64": "x86_64"
        case "arm64", "aarch64": "arm64"
        default: nil
        }
    }

    func register(on router: Router<AppRequestContext>) {
        router.get(RouterPath(Self.indexPath)) { _, _ in
            try self.requireDirectory()
            let items: [JSONValue] = binaries.map {
                .object([
                    "os": .string($0.os), "arch": .string($0.arch),
                    "url": .string("\(Self.binaryPath)?os=\($0.os)&arch=\($0.arch)"), "sha256": .string($0.sha256),
                    "size": .number(String($0.size)),
                ])
            }
            let body = JSONWriter(style: .pretty).bytes(
                .object(["version": .string(ProductVersion.current), "binaries": .array(items)]))
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.get(RouterPath(Self.binaryPath)) { request, context in
            try self.requireDirectory()
            let query = request.uri.queryParameters
            let os = query["os"].map(String.init) ?? "linux"
            guard os == "linux", let arch = Self.architecture(query["arch"].map(String.init)) else {
                throw ServiceError.invalid(
                    field: "arch", rule: "platform", "aasactl is served for os=linux and arch=x86_64 or arm64")
            }
            guard let binary = binaries.first(where: { $0.arch == arch }) else {
                throw ServiceError.notFound("this aasad has no aasactl for linux \(arch) in its --cli-dir")
            }
            let body = try await FileIO().loadFile(path: binary.path, context: context)
            var headers = HTTPFields()
            headers[.contentType] = "application/octet-stream"
            headers[.contentDisposition] = "attachment; filename=\"aasactl\""
            headers[.contentLength] = String(binary.size)
            headers[.eTag] = "\"sha256-\(binary.sha256)\""
            headers[HTTPField.Name("X-Checksum-SHA256")!] = binary.sha256
            headers[HTTPField.Name("X-AASA-Version")!] = ProductVersion.current
            return Response(status: .ok, headers: headers, body: body)
        }
    }

    private func requireDirectory() throws {
        guard directory != nil else {
            throw ServiceError.notFound(
                "this aasad serves no aasactl: start it with --cli-dir (AASA_CLI_DIR) naming the binaries' directory")
        }
    }
}
