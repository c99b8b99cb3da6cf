import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Crypto
import Foundation
import HTTPTypes

/// The console's session cookie. The browser holds a random 256-bit ID; the database holds its
/// SHA-256 (`console_sessions`). The CSRF token every form carries is derived from the ID, so it
/// needs no storage and only a page served to the cookie's holder can know it.
enum ConsoleCookie {
    static let name = "aasa_console"

    static func newID() -> String {
        base64URL(SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) })
    }

    static func hash(_ id: String) -> [UInt8] { Array(SHA256.hash(data: Array(id.utf8))) }

    static func csrf(for id: String) -> String {
        Hex.sha256("csrf:\(id)".utf8)
    }

    /// The session ID the request's `Cookie` header carries, if any (and if well formed).
    static func value(in headers: HTTPFields, named name: String = name) -> String? {
        cookie(in: headers, named: name, lengths: 43...43)
    }

    /// `HttpOnly`, `SameSite=Strict`, scoped to `/console`; `Secure` when the browser came over TLS.
    /// A provider sign-in's binding cookie is the one other shape: `SameSite=Lax` on its own path,
    /// with a lifetime (`ConsoleOIDCCookie`).
    static func setCookie(
        _ id: String, secure: Bool, named name: String = name, path: String = "/console",
        sameSite: String = "Strict", maxAge: Int? = nil
    ) -> String {
        "\(name)=\(id); Path=\(path)" + (maxAge.map { "; Max-Age=\($0)" } ?? "") + "; HttpOnly; SameSite=\(sameSite)"
            + (secure ? "; Secure" : "")
    }

    static func clearCookie(
        secure: Bool, named name: String = name, path: String = "/console", sameSite: String = "Strict"
    ) -> String {
        setCookie("", secure: secure, named: name, path: path, sameSite: sameSite, maxAge: 0)
    }

    /// RFC 4648 §5, without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of unpadded base64url text, nil when it is not that.
    static func base64URLDecoded(_ text: String) -> [UInt8]? {
        guard text.allSatisfy(isBase64URL) else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }

    /// The value of the cookie `name` when it is base64url text of at most `maxLength` characters.
    static func token(in headers: HTTPFields, named name: String, maxLength: Int) -> String? {
        cookie(in: headers, named: name, lengths: 0...maxLength)
    }

    /// The first cookie `name` whose value is base64url text of a length in `lengths`: the one reader
    /// of the session ID and the sealed sign-in alike.
    private static func cookie(in headers: HTTPFields, named name: String, lengths: ClosedRange<Int>) -> String? {
        for header in headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == name, lengths.contains(parts[1].count),
                    parts[1].allSatisfy(isBase64URL)
                {
                    return String(parts[1])
                }
            }
        }
        return nil
    }

    private static func isBase64URL(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "_")
    }
}
