import Foundation

extension DatabaseURL {
    /// Where PostgreSQL is, as an operator says it: `DATABASE_URL` (or the flag), with libpq's
    /// standard variables filling in what it leaves out, or standing in for it entirely. This is what
    /// lets aasad take CloudNativePG's own `<cluster>-app` Secret (its `username` and `password`
    /// keys as `PGUSER` and `PGPASSWORD`), so a rotated password reaches aasad with no copy by hand.
    ///
    /// - With a URL: its password, else `PGPASSWORD`, else the matching line of `PGPASSFILE`
    ///   (default `~/.pgpass`); its `sslmode`, else `PGSSLMODE`; its `sslrootcert`, else `PGSSLROOTCERT`.
    /// - Without one: `PGHOST` (required), `PGPORT` (5432), `PGUSER` (required), `PGDATABASE` (the
    ///   user's name), and the password, TLS mode and roots as above.
    public static func resolve(_ explicit: String?, environment: [String: String]) throws -> DatabaseURL {
        var url: DatabaseURL
        if let raw = explicit ?? environment["DATABASE_URL"], !raw.isEmpty {
            url = try DatabaseURL(raw)
        } else {
            guard let host = environment["PGHOST"], !host.isEmpty else {
                throw Invalid(
                    description: """
                        no database named: set DATABASE_URL (postgres://user[:password]@host[:port]/database), or \
                        libpq's PGHOST and PGUSER (with PGPORT, PGDATABASE, PGPASSWORD or PGPASSFILE, PGSSLMODE)
                        """)
            }
            guard let user = environment["PGUSER"], !user.isEmpty else {
                throw Invalid(description: "PGHOST is set but PGUSER is not: name the database user in PGUSER")
            }
            let port = environment["PGPORT"].map { Int($0) } ?? 5432
            guard let port, (1...65535).contains(port) else {
                throw Invalid(description: "PGPORT must be a port number (1 to 65535)")
            }
            let database = environment["PGDATABASE"].flatMap { $0.isEmpty ? nil : $0 } ?? user
            url = DatabaseURL(host: host, port: port, username: user, database: database)
        }
        if url.password == nil {
            url.password =
                environment["PGPASSWORD"].flatMap { $0.isEmpty ? nil : $0 } ?? passwordFromFile(url, environment)
        }
        if !url.sslModeGiven, let mode = environment["PGSSLMODE"], !mode.isEmpty {
            try url.setSSLMode(mode, source: "PGSSLMODE")
        }
        if url.sslRootCertificate == nil, let roots = environment["PGSSLROOTCERT"], !roots.isEmpty {
            url.sslRootCertificate = roots
        }
        return url
    }

    /// The password of the first line of the password file that matches this server, database and
    /// user, as libpq reads it (`host:port:database:user:password`, `*` for any, `\:` and `\\`
    /// escaped, `#` comments).
    static func passwordFromFile(_ url: DatabaseURL, _ environment: [String: String]) -> String? {
        let path =
            environment["PGPASSFILE"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["HOME"].map { $0 + "/.pgpass" }
        guard let path, let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = pgpassFields(line)
            guard fields.count == 5 else { continue }
            let wanted = [url.host, String(url.port), url.database, url.username]
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// A password-file line's fields: split at unescaped colons, with `\:` and `\\` unescaped.
    static func pgpassFields(_ line: Substring) -> [String] {
        var fields: [String] = []
        var current = ""
        var escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" && fields.count < 4 {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}
