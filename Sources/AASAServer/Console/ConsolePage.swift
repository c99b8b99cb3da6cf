import Foundation

/// What a console route answers: a template, what it reads, and the HTTP status.
struct ConsolePage {
    var template: String
    var title: String
    var context: [String: Any]
    var status: Int = 200
    /// Links above the title, from the overview down.
    var crumbs: [(text: String, href: String)] = []

    init(_ template: String, title: String, _ context: [String: Any], crumbs: [(String, String)] = []) {
        self.template = template
        self.title = title
        self.context = context
        self.crumbs = crumbs.map { (text: $0.0, href: $0.1) }
    }

    /// The page's HTML, with the layout's own fields (who is signed in, the CSRF token) added.
    func html(who: String?, csrf: String) -> String {
        var context = self.context
        context["title"] = title
        context["csrf"] = csrf
        if let who { context["who"] = who }
        context["crumbs"] = crumbs.map { ["text": $0.text, "href": $0.href] }
        return ConsoleTemplates.render(template, context.compactMapValues(Self.present))
    }

    /// The value without its absent parts: Mustache would print an absent optional as "nil", and
    /// a JSON null as "<null>", where the page means "nothing".
    static func present(_ value: Any) -> Any? {
        // The common cases first: reflection is what this walk cost before (the console's profile).
        if value is String || value is Int || value is Bool || value is Double { return value }
        if value is NSNull { return nil }
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return nil }
            return present(wrapped)
        }
        if let object = value as? [String: Any] { return object.compactMapValues(present) }
        if let list = value as? [Any] { return list.compactMap(present) }
        return value
    }
}

/// Reading the API's plain JSON: small accessors, so the pages stay about what they show.
extension Dictionary where Key == String, Value == Any {
    func string(_ key: String) -> String? { self[key] as? String }
    func int(_ key: String) -> Int? { self[key] as? Int }
    func list(_ key: String) -> [[String: Any]] { self[key] as? [[String: Any]] ?? [] }
    func object(_ key: String) -> [String: Any] { self[key] as? [String: Any] ?? [:] }
}
