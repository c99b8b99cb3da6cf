/// The cookie that binds a provider sign-in to the browser that started it (its value derives the
/// PKCE verifier). `SameSite=Lax`, so the provider's redirect back carries it; scoped to the
/// sign-in paths and gone after ten minutes.
enum ConsoleOIDCCookie {
    static func set(_ value: String, secure: Bool) -> String {
        "\(ConsoleOIDCSignIn.bindingCookie)=\(value); Path=/console/sign-in/oidc; Max-Age=600; HttpOnly; SameSite=Lax"
            + (secure ? "; Secure" : "")
    }

    static func clear(secure: Bool) -> String {
        "\(ConsoleOIDCSignIn.bindingCookie)=; Path=/console/sign-in/oidc; Max-Age=0; HttpOnly; SameSite=Lax"
            + (secure ? "; Secure" : "")
    }
}
