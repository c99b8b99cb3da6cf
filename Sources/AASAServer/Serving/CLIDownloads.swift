import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
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
/// `aasactl-linux-arm64`; each answer is the bytes of the file as that request opened it, with
/// their own length and SHA-256 (`CLIBinaryFile`: hashed again only when the file changed). No
/// bearer is needed: a job downloads aasactl before it has a token, and the binary holds no secret.
struct CLIDownloads: Sendable {
    static let indexPath = "/v1/cli"
    static let binaryPath = "/v1/cli/aasactl"
    static let architectures = ["x86_64", "arm64"]

    let directory: String?
    /// Each architecture's file, whether or not it exists now.
    let files: [(arch: String, file: CLIBinaryFile)]

    init(directory: String?) throws {
        self.directory = directory
        files =
            directory.map { directory in
                Self.architectures.map {
                    ($0, CLIBinaryFile(path: (directory as NSString).appendingPathComponent("aasactl-linux-\($0)")))
                }
            } ?? []
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
            var items: [JSONValue] = []
            for (arch, file) in files {
                guard let opened = try await file.open() else { continue }
                items.append(
                    .object([
                        "os": .string("linux"), "arch": .string(arch),
                        "url": .string("\(Self.binaryPath)?os=linux&arch=\(arch)"), "sha256": .string(opened.sha256),
                        "size": .number(String(opened.size)),
                    ]))
            }
            let body = JSONWriter(style: .pretty).bytes(
                .object(["version": .string(ProductVersion.current), "binaries": .array(items)]))
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.get(RouterPath(Self.binaryPath)) { request, _ in
            try self.requireDirectory()
            let query = request.uri.queryParameters
            let os = query["os"].map(String.init) ?? "linux"
            guard os == "linux", let arch = Self.architecture(query["arch"].map(String.init)) else {
                throw ServiceError.invalid(
                    field: "arch", rule: "platform", "aasactl is served for os=linux and arch=x86_64 or arm64")
            }
            guard let file = files.first(where: { $0.arch == arch })?.file, let opened = try await file.open() else {
                throw ServiceError.notFound("this aasad has no aasactl for linux \(arch) in its --cli-dir")
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/octet-stream"
            headers[.contentDisposition] = "attachment; filename=\"aasactl\""
            headers[.eTag] = "\"sha256-\(opened.sha256)\""
            headers[HTTPField.Name("X-Checksum-SHA256")!] = opened.sha256
            headers[HTTPField.Name("X-AASA-Version")!] = ProductVersion.current
            let allocator = ByteBufferAllocator()
            let body = ResponseBody(contentLength: opened.size) { writer in
                var offset = 0
                while offset < opened.size {
                    let chunk = try await opened.chunk(at: offset, allocator: allocator)
                    offset += chunk.readableBytes
                    try await writer.write(chunk)
                }
                try await writer.finish(nil)
            }
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
