import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Mustache

/// The console's Mustache templates. `{{x}}` escapes HTML, so anything a team wrote (a display name,
/// a rule comment, a reason) is text on the page; the pages use `{{{x}}}` only for SVG this
/// server drew itself (`PathSpaceMap`, `CDNTimeline`), whose every text is escaped when drawn.
enum ConsoleTemplates {
    /// The templates parsed once. `buildApplication` asks for it before the server starts, so a
    /// template that does not parse stops aasad at start-up with Mustache's error, not a page.
    static let loaded: Result<MustacheLibrary, any Error> = Result {
        MustacheContentTypes.register(HTMLText(), named: HTMLText.name)
        var library = MustacheLibrary()
        for (name, bytes) in templates {
            // Each names the escaping below; a partial renders with its caller's.
            let text = String(decoding: bytes, as: UTF8.self)
            try library.register("{{% CONTENT_TYPE: \(HTMLText.name)}}" + text, named: name)
        }
        return library
    }

    /// HTML escaping as Mustache's own (`< > & " '`), through `SVGText.escape`, which works a byte
    /// at a time: Mustache's looks each character up in a dictionary, and hashing was a tenth of the
    /// test page's profile.
    struct HTMLText: MustacheContentType {
        static let name = "CONSOLE_HTML"

        func escapeText(_ text: String) -> String { SVGText.escape(text) }
    }

    static func render(_ name: String, _ context: [String: Any]) -> String {
        (try? loaded.get())?.render(context, withTemplate: name) ?? ""
    }

    /// The templates, each a file in `Console/Templates/` compiled into the binary
    /// (`.embedInCode` in Package.swift): HTML kept as HTML, with nothing to install beside aasad
    /// and no file read at run time. A file missing here is a compile error.
    static let templates: [String: [UInt8]] = [
        "layout": PackageResources.layout_mustache, "sign-in": PackageResources.sign_in_mustache,
        "problem": PackageResources.problem_mustache, "overview": PackageResources.overview_mustache,
        "domain": PackageResources.domain_mustache, "test": PackageResources.test_mustache,
        "diff-block": PackageResources.diff_block_mustache, "publish": PackageResources.publish_mustache,
        "published": PackageResources.published_mustache, "revisions": PackageResources.revisions_mustache,
        "revision": PackageResources.revision_mustache, "rollback": PackageResources.rollback_mustache,
        "apple": PackageResources.apple_mustache, "teams": PackageResources.teams_mustache,
        "team": PackageResources.team_mustache, "audit": PackageResources.audit_mustache,
        "signed-in": PackageResources.signed_in_mustache, "session": PackageResources.session_mustache,
    ]
}
