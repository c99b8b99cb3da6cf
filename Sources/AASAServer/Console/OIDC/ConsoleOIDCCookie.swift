/// The cookie that binds a provider sign-in to the browser that started it: the sign-in itself,
/// sealed (`ConsoleOIDCLoginSeal`). `SameSite=Lax`, so the provider's redirect back carries it;
/// scoped to the sign-in paths and gone after ten minutes.
enum ConsoleOIDCCookie {
    static let path = "/console/sign-in/oidc"

    static func set(_ value: String, secure: Bool) -> String {
        ConsoleCookie.setCookie(
            value, secure: secure, named: ConsoleOIDCSignIn.bindingCookie, path: path, sameSite: "Lax",
            maxAge: Int(ConsoleOIDCSignIn.loginMaxAge.components.seconds))
    }

    static func clear(secure: Bool) -> String {
        ConsoleCookie.clearCookie(secure: secure, named: ConsoleOIDCSignIn.bindingCookie, path: path, sameSite: "Lax")
    }
}
