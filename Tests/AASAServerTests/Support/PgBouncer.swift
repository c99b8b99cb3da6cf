import AASAStore
import AASATestSupport
import Foundation
import Testing

/// Debian's PgBouncer in session mode with the CloudNativePG overlay's Pooler settings, in front of
/// the test cluster, for faults as a pooler makes them: `switch(toPort:)` points it at another
/// server, as a switchover does (a port where nothing listens is a primary that went away).
/// PgBouncer refuses to run as root, so it runs as `postgres` there. Killed when the test ends.
final class PgBouncer: @unchecked Sendable {
    let port: Int
    let directory: String
    private let child: SpawnedChild
    private let upstream: DatabaseURL

    struct DidNotStart: Error, CustomStringConvertible {
        var description: String
    }

    init(upstream: DatabaseURL) async throws {
        self.upstream = upstream
        port = try FreePort.pick()
        directory = try PublishingTests.tempDir()
        try "\"\(upstream.username)\" \"\"\n".write(toFile: directory + "/users.txt", atomically: true, encoding: .utf8)
        try Self.configuration(directory: directory, port: port, upstreamPort: upstream.port, user: upstream.username)
            .write(toFile: directory + "/pgbouncer.ini", atomically: true, encoding: .utf8)
        var arguments = ["/usr/sbin/pgbouncer", directory + "/pgbouncer.ini"]
        if getuid() == 0 {
            _ = try Spawn.run(
                "/bin/chown", ["-R", "postgres:", directory], environment: ProcessInfo.processInfo.environment)
            // setpriv execs PgBouncer in its own place (runuser forks and waits), so the child this
            // test kills is PgBouncer itself, not a parent whose death would leave it running.
            arguments = ["/usr/bin/setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"] + arguments
        }
        child = try SpawnedChild(
            arguments[0], Array(arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
        let listening = try await eventually(timeout: .seconds(30)) {
            (try? await self.admin("SHOW VERSION")) != nil || !self.child.isRunning
        }
        guard listening, child.isRunning else {
            throw DidNotStart(description: "pgbouncer did not start: \(log)")
        }
    }

    static func configuration(directory: String, port: Int, upstreamPort: Int, user: String) -> String {
        """
        [databases]
        * = host=127.0.0.1 port=\(upstreamPort)
        [pgbouncer]
        listen_addr = 127.0.0.1
        listen_port = \(port)
        unix_socket_dir =
        auth_type = trust
        auth_file = \(directory)/users.txt
        admin_users = \(user)
        pool_mode = session
        max_client_conn = 200
        default_pool_size = 80
        server_login_retry = 1
        query_wait_timeout = 10
        tcp_keepalive = 1
        tcp_keepidle = 30
        tcp_keepintvl = 10
        tcp_keepcnt = 3
        tcp_user_timeout = 30000
        ignore_startup_parameters = extra_float_digits
        logfile = \(directory)/pgbouncer.log
        """
    }

    var log: String { (try? String(contentsOfFile: directory + "/pgbouncer.log", encoding: .utf8)) ?? "" }

    /// The URL a client uses to reach `database` through this pooler.
    func url(for database: DatabaseURL) -> DatabaseURL {
        var url = database
        url.port = port
        return url
    }

    /// A command on PgBouncer's admin console.
    @discardableResult
    func admin(_ command: String) async throws -> String {
        let port = self.port
        let user = upstream.username
        let result = try await offPool {
            try Spawn.run(
                "/usr/bin/psql",
                ["-X", "-h", "127.0.0.1", "-p", String(port), "-U", user, "-d", "pgbouncer", "-c", command],
                environment: ProcessInfo.processInfo.environment)
        }
        let output = String(decoding: result.out + result.err, as: UTF8.self)
        guard result.status == 0 else { throw DidNotStart(description: "pgbouncer \(command): \(output)") }
        return output
    }

    /// Points every database at `upstreamPort` and ends every client and server connection of
    /// `database`, as a switchover does.
    func `switch`(toPort upstreamPort: Int, closing database: String) async throws {
        try Self.configuration(directory: directory, port: port, upstreamPort: upstreamPort, user: upstream.username)
            .write(toFile: directory + "/pgbouncer.ini", atomically: false, encoding: .utf8)
        try await admin("RELOAD")
        try await admin("KILL \(database)")
        try await admin("RESUME \(database)")
    }

    deinit {
        child.signal(SIGKILL)
        child.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
