import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation

/// What a console route answers: a template, what it reads, and the HTTP status.
struct ConsolePage {
    var template: String
    var title: String
    var context: [String: Any]
    var status: Int = 200
    /// Links above the title, from the overview down.
    var crumbs: [(text: String, href: String)] = []
    /// The session may act for another team too (a provider sign-in with several): the layout links
    /// to the page that switches.
    var switchable = false

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
        if switchable { context["switchable"] = true }
        context["crumbs"] = crumbs.map { ["text": $0.text, "href": $0.href] }
        return ConsoleTemplates.render(template, context.compactMapValues(Self.present))
    }

    /// The value without its absent parts: Mustache would print an absent optional as "nil", and
    /// a JSON null as "<null>", where the page means "nothing".
    ///
    /// Types are told by their metatype first: a cast like `value is String` on a dictionary
    /// bridges the whole dictionary to an NSDictionary on Linux, which was most of the test page's
    /// time (the console's profile).
    static func present(_ value: Any) -> Any? {
        let type = Swift.type(of: value)
        if type == String.self || type == Int.self || type == Bool.self || type == Double.self { return value }
        if type == [String: Any].self { return (value as! [String: Any]).compactMapValues(present) }
        if type == [[String: Any]].self { return (value as! [[String: Any]]).map { $0.compactMapValues(present) } }
        if type == [String].self { return value }
        if type == [Any].self { return (value as! [Any]).compactMap(present) }
        if value is NSNull { return nil }
        if let optional = value as? any OptionalValue { return optional.wrappedValue.flatMap(present) }
        if let object = value as? [String: Any] { return object.compactMapValues(present) }
        if let list = value as? [Any] { return list.compactMap(present) }
        return value
    }
}

/// An optional whatever it wraps, so `present` can look inside without reflection.
private protocol OptionalValue {
    var wrappedValue: Any? { get }
}

extension Optional: OptionalValue {
    fileprivate var wrappedValue: Any? { self.map { $0 } }
}
